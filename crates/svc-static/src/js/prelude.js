// The browser the static engine pretends to be, built over the native DOM
// functions `N` (dom_bindings.rs). Evaluated once per run before the user's
// script; answers the controls the host drives the run with.
//
// What it offers: `document` and read-only nodes (`querySelector(All)`,
// `getElementById`, `getElementsBy*`, `textContent`, `innerText`,
// `innerHTML`, `outerHTML`, attributes, `dataset`, `classList`, `style`
// (inline only), tree walking, `closest`, `matches`, resolved `href` / `src`,
// table `rows` / `cells`, form values), `window`, `location`, `navigator`,
// `URL`, `URLSearchParams`, `CSS.escape`, `console` (silent) and timers on a
// virtual clock (`setTimeout` fires as soon as nothing else is left to do,
// and `Date.now()` moves on by the time skipped), and `fetch` (made by the
// host under the page's address rules). Whatever needs a browser (changing
// the page, layout, events, `XMLHttpRequest`) throws an error that says so
// instead of failing quietly.
(function (N) {
  "use strict";
  const g = globalThis;
  const root = N.root;
  const pageUrl = N.url;

  const unsupported = (what) => {
    throw new Error(
      what +
        " is not supported by the static engine (no browser: the page is read-only, without layout, events or network); use the puppeteer engine for this scrap",
    );
  };
  const readOnly = (what) => () => unsupported(what);

  // ------------------------------------------------------------- nodes
  const ids = new WeakMap();
  const wrappers = new Map();
  const idOf = (node) => {
    const id = ids.get(node);
    if (id === undefined) throw new TypeError("the argument is not a node of this page");
    return id;
  };

  function Illegal() {
    throw new TypeError("Illegal constructor: the static engine cannot create nodes");
  }
  const klass = (name, parent) => {
    const f = { [name]: function () { Illegal(); } }[name];
    if (parent) {
      Object.setPrototypeOf(f, parent);
      Object.setPrototypeOf(f.prototype, parent.prototype);
    }
    g[name] = f;
    return f;
  };
  const Node = klass("Node");
  const CharacterData = klass("CharacterData", Node);
  const Text = klass("Text", CharacterData);
  const Comment = klass("Comment", CharacterData);
  const DocumentType = klass("DocumentType", Node);
  const Element = klass("Element", Node);
  const HTMLElement = klass("HTMLElement", Element);
  const Document = klass("Document", Node);
  const HTMLDocument = klass("HTMLDocument", Document);
  const DocumentFragment = klass("DocumentFragment", Node);

  const types = {
    ELEMENT_NODE: 1, ATTRIBUTE_NODE: 2, TEXT_NODE: 3, CDATA_SECTION_NODE: 4, PROCESSING_INSTRUCTION_NODE: 7,
    COMMENT_NODE: 8, DOCUMENT_NODE: 9, DOCUMENT_TYPE_NODE: 10, DOCUMENT_FRAGMENT_NODE: 11,
  };
  for (const k in types) {
    const v = types[k];
    Object.defineProperty(Node, k, { value: v, enumerable: true });
    Object.defineProperty(Node.prototype, k, { value: v, enumerable: true });
  }

  const protoOf = (id) => {
    switch (N.nodeType(id)) {
      case 1: return N.isHtml(id) ? HTMLElement.prototype : Element.prototype;
      case 3: return Text.prototype;
      case 8: return Comment.prototype;
      case 9: return HTMLDocument.prototype;
      case 10: return DocumentType.prototype;
      case 11: return DocumentFragment.prototype;
      default: return Node.prototype;
    }
  };
  const wrap = (id) => {
    if (id === undefined || id === null) return null;
    let w = wrappers.get(id);
    if (!w) {
      w = Object.create(protoOf(id));
      ids.set(w, id);
      wrappers.set(id, w);
    }
    return w;
  };
  // NodeList and HTMLCollection: arrays (snapshots; the page never changes).
  const list = (handles) => {
    const nodes = handles.map(wrap);
    Object.defineProperty(nodes, "item", { value: (i) => nodes[i] ?? null });
    return nodes;
  };

  // The DOM's prototypes get their members from native tables
  // (dom_members.rs): each member forwards to the function of its name in a
  // group below, and a group is made when one of its members is first
  // called, so a run builds only what its script uses.
  const groups = {};
  // `location`'s accessors and methods, defined here.
  const setting = (name) => () => unsupported("setting `" + name + "`");
  const getters = (target, props) => {
    for (const name in props) {
      Object.defineProperty(target, name, { get: props[name], set: setting(name), configurable: true, enumerable: true });
    }
  };
  const methods = (target, fns) => {
    for (const name in fns) {
      Object.defineProperty(target, name, { value: fns[name], writable: true, configurable: true });
    }
  };

  groups.node = () => ({
    nodeType() { return N.nodeType(idOf(this)); },
    nodeName() {
      const id = idOf(this);
      switch (N.nodeType(id)) {
        case 1: return this.tagName;
        case 3: return "#text";
        case 8: return "#comment";
        case 9: return "#document";
        case 11: return "#document-fragment";
        default: return N.name(id);
      }
    },
    nodeValue() { return N.data(idOf(this)) ?? null; },
    textContent() { return N.text(idOf(this)) ?? null; },
    parentNode() { return wrap(N.parent(idOf(this))); },
    parentElement() {
      const p = N.parent(idOf(this));
      return p !== undefined && N.nodeType(p) === 1 ? wrap(p) : null;
    },
    childNodes() { return list(N.children(idOf(this), false)); },
    firstChild() { return wrap(N.children(idOf(this), false)[0]); },
    lastChild() { return wrap(N.children(idOf(this), false).at(-1)); },
    nextSibling() { return wrap(N.sibling(idOf(this), true, false)); },
    previousSibling() { return wrap(N.sibling(idOf(this), false, false)); },
    ownerDocument() { return idOf(this) === root ? null : document; },
    isConnected() { return true; },
    baseURI() { return N.baseUrl(); },
  });
  groups.nodeMethods = () => ({
    hasChildNodes() { return N.children(idOf(this), false).length > 0; },
    contains(other) { return other != null && N.contains(idOf(this), idOf(other)); },
    isSameNode(other) { return other === this; },
    getRootNode() { return document; },
    compareDocumentPosition() { unsupported("compareDocumentPosition"); },
  });

  // CharacterData's, Text's and DocumentType's.
  groups.characterData = () => ({
    data() { return N.data(idOf(this)) ?? ""; },
    length() { return (N.data(idOf(this)) ?? "").length; },
    wholeText() { return N.data(idOf(this)) ?? ""; },
    name() { return N.name(idOf(this)); },
  });

  // ------------------------------------------------------------- queries
  groups.queries = () => ({
    querySelector(selectors) { return wrap(N.select(idOf(this), String(selectors), false)[0]); },
    querySelectorAll(selectors) { return list(N.select(idOf(this), String(selectors), true)); },
    getElementsByClassName(names) { return list(N.byClass(idOf(this), String(names))); },
    getElementsByTagName(name) { return list(N.byTag(idOf(this), String(name))); },
  });
  groups.tree = () => ({
    children() { return list(N.children(idOf(this), true)); },
    childElementCount() { return N.children(idOf(this), true).length; },
    firstElementChild() { return wrap(N.children(idOf(this), true)[0]); },
    lastElementChild() { return wrap(N.children(idOf(this), true).at(-1)); },
  });

  // ------------------------------------------------------------- elements
  const attr = (el, name) => N.attr(idOf(el), name) ?? null;
  const has = (el, name) => N.attr(idOf(el), name) !== undefined;
  const tagIs = (el, ...names) => names.includes(N.name(idOf(el)));
  /** The attribute `name` as a URL resolved against the page, as IDL URL attributes answer. */
  const urlAttr = (el, name) => {
    const value = attr(el, name);
    if (value === null) return "";
    return N.resolve(value) ?? value;
  };
  const collapse = (s) => s.replace(/[\t\n\f\r ]+/g, " ").replace(/^ | $/g, "");
  const camel = (name) => name.replace(/-([a-z])/g, (_, c) => c.toUpperCase());

  class DOMTokenList {
    #tokens;
    constructor(value) {
      this.#tokens = [...new Set(value.split(/[\t\n\f\r ]+/).filter(Boolean))];
    }
    get length() { return this.#tokens.length; }
    get value() { return this.#tokens.join(" "); }
    item(i) { return this.#tokens[i] ?? null; }
    contains(token) { return this.#tokens.includes(String(token)); }
    toString() { return this.value; }
    values() { return this.#tokens.values(); }
    keys() { return this.#tokens.keys(); }
    entries() { return this.#tokens.entries(); }
    forEach(fn, thisArg) { this.#tokens.forEach((t, i) => fn.call(thisArg, t, i, this)); }
    [Symbol.iterator]() { return this.#tokens.values(); }
  }
  g.DOMTokenList = DOMTokenList;

  const frozenView = (object, what) =>
    new Proxy(object, {
      set: readOnly("changing " + what),
      deleteProperty: readOnly("changing " + what),
      defineProperty: readOnly("changing " + what),
    });

  /** The inline `style` attribute as a read-only declaration (no stylesheets). */
  const inlineStyle = (el) => {
    const text = attr(el, "style") ?? "";
    const props = {};
    const names = [];
    for (const declaration of text.split(";")) {
      const at = declaration.indexOf(":");
      if (at < 0) continue;
      const name = declaration.slice(0, at).trim().toLowerCase();
      const value = declaration.slice(at + 1).replace(/!\s*important\s*$/i, "").trim();
      if (!name) continue;
      if (!(name in props)) names.push(name);
      props[name] = value;
    }
    const style = {
      cssText: text,
      length: names.length,
      item: (i) => names[i] ?? "",
      getPropertyValue: (name) => props[String(name).toLowerCase()] ?? "",
      getPropertyPriority: () => "",
    };
    for (const name of names) {
      style[name.startsWith("--") ? name : camel(name)] = props[name];
      style[name] = props[name];
    }
    return frozenView(style, "style");
  };

  const hyperlink = (el) => {
    if (!tagIs(el, "a", "area") || !has(el, "href")) return null;
    try { return new URL(urlAttr(el, "href")); } catch (e) { return null; }
  };
  const linkPart = (part) => function () {
    const u = hyperlink(this);
    return u ? u[part] : part === "origin" ? "null" : "";
  };
  const URL_ATTRIBUTES = {
    href: ["a", "area", "link", "base"],
    src: ["img", "script", "iframe", "frame", "source", "video", "audio", "embed", "track", "input"],
    action: ["form"],
    cite: ["blockquote", "q", "ins", "del"],
    poster: ["video"],
  };

  groups.element = () => {
    const o = {};
    Object.assign(o, {
      tagName() {
        const id = idOf(this);
        const name = N.name(id);
        return N.isHtml(id) ? name.toUpperCase() : name;
      },
      localName() { return N.name(idOf(this)); },
      namespaceURI() { return N.isHtml(idOf(this)) ? "http://www.w3.org/1999/xhtml" : null; },
      id() { return attr(this, "id") ?? ""; },
      className() { return attr(this, "class") ?? ""; },
      classList() { return new DOMTokenList(attr(this, "class") ?? ""); },
      attributes() {
        const attributes = N.attrs(idOf(this)).map(([name, value]) =>
          Object.freeze({ name, value, localName: name, nodeName: name, nodeValue: value, specified: true }),
        );
        Object.defineProperty(attributes, "item", { value: (i) => attributes[i] ?? null });
        Object.defineProperty(attributes, "getNamedItem", { value: (n) => attributes.find((a) => a.name === String(n).toLowerCase()) ?? null });
        return attributes;
      },
      dataset() {
        const data = {};
        for (const [name, value] of N.attrs(idOf(this))) {
          if (name.startsWith("data-")) data[camel(name.slice(5))] = value;
        }
        return frozenView(data, "dataset");
      },
      innerHTML() { return N.html(idOf(this), false); },
      outerHTML() { return N.html(idOf(this), true); },
      innerText() { return N.innerText(idOf(this)); },
      outerText() { return N.innerText(idOf(this)); },
      nextElementSibling() { return wrap(N.sibling(idOf(this), true, true)); },
      previousElementSibling() { return wrap(N.sibling(idOf(this), false, true)); },
      style() { return inlineStyle(this); },
      shadowRoot() { return null; },
      slot() { return attr(this, "slot") ?? ""; },
    });
    for (const name in URL_ATTRIBUTES) {
      const tags = URL_ATTRIBUTES[name];
      Object.assign(o, {
        [name]() {
          if (!tagIs(this, ...tags)) return undefined;
          if (name === "action" && !has(this, "action")) return pageUrl;
          return urlAttr(this, name);
        },
      });
    }
    Object.assign(o, {
      protocol: linkPart("protocol"), host: linkPart("host"), hostname: linkPart("hostname"), port: linkPart("port"),
      pathname: linkPart("pathname"), search: linkPart("search"), hash: linkPart("hash"), origin: linkPart("origin"),
      username: linkPart("username"), password: linkPart("password"),
    });
    // Reflected string attributes.
    const reflected = {
      title: "title", lang: "lang", dir: "dir", alt: "alt", name: "name", rel: "rel", target: "target",
      placeholder: "placeholder", htmlFor: "for", download: "download", srcset: "srcset",
      sizes: "sizes", accessKey: "accesskey", referrerPolicy: "referrerpolicy", hreflang: "hreflang",
      httpEquiv: "http-equiv", charset: "charset", media: "media", role: "role", autocomplete: "autocomplete",
      pattern: "pattern", min: "min", max: "max", step: "step",
      headers: "headers", abbr: "abbr", scope: "scope", datetime: "datetime", dateTime: "datetime",
    };
    for (const prop in reflected) {
      const name = reflected[prop];
      Object.assign(o, { [prop]() { return attr(this, name) ?? ""; } });
    }
    const booleans = {
      hidden: "hidden", disabled: "disabled", required: "required",
      readOnly: "readonly", multiple: "multiple", open: "open", defaultChecked: "checked", defaultSelected: "selected",
      async: "async", defer: "defer", autofocus: "autofocus", noValidate: "novalidate",
    };
    for (const prop in booleans) {
      const name = booleans[prop];
      Object.assign(o, { [prop]() { return has(this, name); } });
    }
    Object.assign(o, {
      // Checkedness and selectedness as the parse leaves them (a radio
      // group's last `checked`, a drop-down's default option).
      checked() {
        if (tagIs(this, "input") && ["checkbox", "radio"].includes(this.type)) return N.matches(idOf(this), ":checked");
        return has(this, "checked");
      },
      selected() {
        if (tagIs(this, "option")) return N.matches(idOf(this), ":checked");
        return has(this, "selected");
      },
    });
    return o;
  };
  groups.forms = () => {
    const o = {};
    const optionValue = (option) => attr(option, "value") ?? collapse(option.textContent);
    // Selectedness as the parse leaves it (`:checked`, css.rs): a drop-down's
    // last option with `selected`, else its first option that is not disabled.
    const selectedHandles = (select) => N.select(idOf(select), "option:checked", true);
    const selectedOption = (select) => wrap(selectedHandles(select)[0]);
    // The HTML standard's rules for parsing non-negative integers.
    const nonNegative = (value, fallback) => {
      const m = /^[\t\n\f\r ]*\+?(\d+)/.exec(value ?? "");
      const n = m ? Number(m[1]) : NaN;
      return Number.isFinite(n) && n <= 2147483647 ? n : fallback;
    };
    const positive = (value, fallback) => {
      const n = nonNegative(value, fallback);
      return n > 0 ? n : fallback;
    };
    const sectionRows = (section) => N.children(idOf(section), true).filter((c) => N.name(c) === "tr");
    Object.assign(o, {
      type() {
        if (tagIs(this, "input")) return (attr(this, "type") ?? "text").toLowerCase();
        if (tagIs(this, "button")) return (attr(this, "type") ?? "submit").toLowerCase();
        if (tagIs(this, "select")) return has(this, "multiple") ? "select-multiple" : "select-one";
        if (tagIs(this, "textarea")) return "textarea";
        return attr(this, "type") ?? "";
      },
      value() {
        if (tagIs(this, "textarea")) return this.textContent;
        if (tagIs(this, "select")) {
          const option = selectedOption(this);
          return option ? optionValue(option) : "";
        }
        if (tagIs(this, "option")) return optionValue(this);
        if (tagIs(this, "input")) {
          const type = this.type;
          return attr(this, "value") ?? (type === "checkbox" || type === "radio" ? "on" : "");
        }
        return attr(this, "value") ?? "";
      },
      defaultValue() { return tagIs(this, "textarea") ? this.textContent : attr(this, "value") ?? ""; },
      text() {
        if (tagIs(this, "option")) return collapse(this.textContent);
        return tagIs(this, "a", "script", "title") ? this.textContent : undefined;
      },
      label() { return tagIs(this, "option") ? attr(this, "label") ?? collapse(this.textContent) : attr(this, "label") ?? ""; },
      options() { return tagIs(this, "select", "datalist") ? list(N.select(idOf(this), "option", true)) : undefined; },
      selectedIndex() {
        if (!tagIs(this, "select")) return undefined;
        const options = N.select(idOf(this), "option", true).map(wrap);
        const option = selectedOption(this);
        return option ? options.indexOf(option) : -1;
      },
      selectedOptions() {
        if (!tagIs(this, "select")) return undefined;
        return list(selectedHandles(this));
      },
      index() {
        if (!tagIs(this, "option")) return undefined;
        const select = this.closest("select, datalist");
        return select ? select.options.indexOf(this) : 0;
      },
      cells() {
        if (!tagIs(this, "tr")) return undefined;
        return list(N.children(idOf(this), true).filter((c) => ["td", "th"].includes(N.name(c))));
      },
      tBodies() { return tagIs(this, "table") ? list(N.children(idOf(this), true).filter((c) => N.name(c) === "tbody")) : undefined; },
      tHead() { return tagIs(this, "table") ? wrap(N.children(idOf(this), true).find((c) => N.name(c) === "thead")) : undefined; },
      tFoot() { return tagIs(this, "table") ? wrap(N.children(idOf(this), true).find((c) => N.name(c) === "tfoot")) : undefined; },
      caption() { return tagIs(this, "table") ? wrap(N.children(idOf(this), true).find((c) => N.name(c) === "caption")) : undefined; },
      rowIndex() {
        if (!tagIs(this, "tr")) return undefined;
        const table = this.closest("table");
        return table ? table.rows.indexOf(this) : -1;
      },
      cellIndex() {
        if (!tagIs(this, "td", "th")) return undefined;
        return this.parentElement && this.parentElement.cells ? this.parentElement.cells.indexOf(this) : -1;
      },
      colSpan() { return tagIs(this, "td", "th") ? Number(attr(this, "colspan")) || 1 : undefined; },
      rowSpan() { return tagIs(this, "td", "th") ? Number(attr(this, "rowspan")) || 1 : undefined; },
      elements() { return tagIs(this, "form", "fieldset") ? list(N.select(idOf(this), "button, fieldset, input, object, output, select, textarea", true)) : undefined; },
      // Enumerated attributes: their known values, lower-cased, else the default.
      method() {
        if (!tagIs(this, "form")) return attr(this, "method") ?? "";
        const value = (attr(this, "method") ?? "").toLowerCase();
        return ["get", "post", "dialog"].includes(value) ? value : "get";
      },
      enctype() {
        if (!tagIs(this, "form")) return attr(this, "enctype") ?? "";
        const value = (attr(this, "enctype") ?? "").toLowerCase();
        return ["application/x-www-form-urlencoded", "multipart/form-data", "text/plain"].includes(value) ? value : "application/x-www-form-urlencoded";
      },
      // Numbers reflected from attributes, with their defaults.
      rows() {
        if (tagIs(this, "textarea")) return positive(attr(this, "rows"), 2);
        if (tagIs(this, "thead", "tbody", "tfoot")) return list(sectionRows(this));
        if (!tagIs(this, "table")) return undefined;
        const kids = N.children(idOf(this), true);
        const of = (tag) => kids.filter((c) => N.name(c) === tag).flatMap((s) => sectionRows(wrap(s)));
        const body = kids.flatMap((c) => N.name(c) === "tr" ? [c] : N.name(c) === "tbody" ? sectionRows(wrap(c)) : []);
        return list([...of("thead"), ...body, ...of("tfoot")]);
      },
      cols() { return tagIs(this, "textarea") ? positive(attr(this, "cols"), 20) : undefined; },
      size() {
        if (tagIs(this, "input")) return positive(attr(this, "size"), 20);
        if (tagIs(this, "select")) return nonNegative(attr(this, "size"), 0);
        return undefined;
      },
      maxLength() { return tagIs(this, "input", "textarea") ? nonNegative(attr(this, "maxlength"), -1) : undefined; },
      minLength() { return tagIs(this, "input", "textarea") ? nonNegative(attr(this, "minlength"), -1) : undefined; },
      form() {
        return tagIs(this, "button", "fieldset", "input", "object", "output", "select", "textarea", "label", "option")
          ? this.closest("form")
          : undefined;
      },
    });
    // `width` / `height`: an image's (and an image button's) are its laid-out
    // size, which needs a browser; elsewhere they reflect the attribute.
    const dimension = (name, fallback) => function () {
      if (tagIs(this, "img") || (tagIs(this, "input") && this.type === "image")) {
        unsupported(this.localName + "." + name + " (its laid-out size: no layout; getAttribute('" + name + "') reads the attribute)");
      }
      if (tagIs(this, "canvas", "video")) {
        const value = /^[\t\n\f\r ]*\+?(\d+)/.exec(attr(this, name) ?? "");
        const n = value ? Number(value[1]) : NaN;
        return Number.isFinite(n) && n <= 2147483647 ? n : tagIs(this, "video") ? 0 : fallback;
      }
      const reflecting = name === "width"
        ? ["iframe", "embed", "object", "table", "td", "th", "col", "colgroup", "hr"]
        : ["iframe", "embed", "object", "td", "th"];
      return tagIs(this, ...reflecting) ? attr(this, name) ?? "" : undefined;
    };
    Object.assign(o, { width: dimension("width", 300), height: dimension("height", 150) });
    Object.assign(o, {
      // `<template>.content` would be a fragment of its own.
      content() {
        if (tagIs(this, "template")) unsupported("template.content");
        return attr(this, "content") ?? "";
      },
    });
    return o;
  };
  groups.elementMethods = () => ({
    getAttribute(name) { return attr(this, String(name)); },
    getAttributeNames() { return N.attrs(idOf(this)).map((a) => a[0]); },
    hasAttribute(name) { return has(this, String(name)); },
    hasAttributes() { return N.attrs(idOf(this)).length > 0; },
    closest(selectors) { return wrap(N.closest(idOf(this), String(selectors))); },
    matches(selectors) { return N.matches(idOf(this), String(selectors)); },
    webkitMatchesSelector(selectors) { return N.matches(idOf(this), String(selectors)); },
    // Scrolling has nothing to load on a static page: a no-op, not an error.
    scrollIntoView() {},
    scrollTo() {},
    scrollBy() {},
  });

  // ------------------------------------------------------------- document
  const document = wrap(root);
  const first = (css) => wrap(N.select(root, css, false)[0]);
  groups.document = () => ({
    documentElement() { return wrap(N.children(root, true)[0]); },
    head() { return first("html > head"); },
    body() { return first("html > body") ?? first("html > frameset"); },
    title() {
      const t = first("title");
      return t ? t.textContent.replace(/[\t\n\f\r ]+/g, " ").replace(/^ | $/g, "") : "";
    },
    URL() { return pageUrl; },
    documentURI() { return pageUrl; },
    location() { return location; },
    domain() { return location.hostname; },
    referrer() { return ""; },
    cookie() { return ""; },
    readyState() { return "complete"; },
    contentType() { return "text/html"; },
    characterSet() { return N.characterSet; },
    charset() { return N.characterSet; },
    inputEncoding() { return N.characterSet; },
    compatMode() { return "CSS1Compat"; },
    doctype() { return wrap(N.children(root, false).find((c) => N.nodeType(c) === 10)); },
    defaultView() { return g; },
    links() { return list(N.select(root, "a[href], area[href]", true)); },
    images() { return list(N.select(root, "img", true)); },
    forms() { return list(N.select(root, "form", true)); },
    scripts() { return list(N.select(root, "script", true)); },
    anchors() { return list(N.select(root, "a[name]", true)); },
    embeds() { return list(N.select(root, "embed", true)); },
    activeElement() { return this.body; },
    hidden() { return false; },
    visibilityState() { return "visible"; },
    fonts() { return fonts; },
  });
  groups.documentMethods = () => ({
    getElementById(id) { return wrap(N.byId(root, String(id))); },
    getElementsByName(name) { return list(N.byName(String(name))); },
    hasFocus() { return false; },
  });
  // Fonts never load (there is no rendering): ready at once.
  const fonts = Object.freeze({ ready: Promise.resolve(), status: "loaded", load: () => Promise.resolve([]), check: () => true });
  N.members(groups, [
    Node.prototype, CharacterData.prototype, Text.prototype, DocumentType.prototype, Element.prototype,
    Document.prototype, DOMTokenList.prototype,
  ], unsupported);

  // ------------------------------------------------------------- URL
  const encodeForm = (s) =>
    encodeURIComponent(s).replace(/%20/g, "+").replace(/[!'()~]/g, (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase());
  const decodeForm = (s) => {
    const spaced = s.replace(/\+/g, " ");
    try { return decodeURIComponent(spaced); } catch (e) { return spaced; }
  };
  class URLSearchParams {
    #list = [];
    #owner = null;
    constructor(init = "", owner = null) {
      if (typeof init === "string") {
        this.#parse(init);
      } else if (init instanceof URLSearchParams) {
        this.#list = [...init];
      } else if (init && typeof init[Symbol.iterator] === "function") {
        for (const pair of init) {
          const [k, v] = [...pair];
          this.#list.push([String(k), String(v)]);
        }
      } else if (init && typeof init === "object") {
        for (const k of Object.keys(init)) this.#list.push([k, String(init[k])]);
      }
      this.#owner = owner;
    }
    #parse(query) {
      this.#list = [];
      const text = query.startsWith("?") ? query.slice(1) : query;
      for (const part of text.split("&")) {
        if (!part) continue;
        const at = part.indexOf("=");
        const [k, v] = at < 0 ? [part, ""] : [part.slice(0, at), part.slice(at + 1)];
        this.#list.push([decodeForm(k), decodeForm(v)]);
      }
    }
    #changed() {
      if (this.#owner) this.#owner(this.toString());
    }
    static _reparse(params, query) { params.#parse(query); }
    get size() { return this.#list.length; }
    append(k, v) { this.#list.push([String(k), String(v)]); this.#changed(); }
    delete(k, v) {
      this.#list = this.#list.filter(([a, b]) => a !== String(k) || (v !== undefined && b !== String(v)));
      this.#changed();
    }
    get(k) { const found = this.#list.find(([a]) => a === String(k)); return found ? found[1] : null; }
    getAll(k) { return this.#list.filter(([a]) => a === String(k)).map(([, b]) => b); }
    has(k, v) { return this.#list.some(([a, b]) => a === String(k) && (v === undefined || b === String(v))); }
    set(k, v) {
      const key = String(k);
      const at = this.#list.findIndex(([a]) => a === key);
      if (at < 0) this.#list.push([key, String(v)]);
      else {
        this.#list[at] = [key, String(v)];
        this.#list = this.#list.filter(([a], i) => a !== key || i === at);
      }
      this.#changed();
    }
    sort() { this.#list.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)); this.#changed(); }
    forEach(fn, thisArg) { for (const [k, v] of this.#list) fn.call(thisArg, v, k, this); }
    keys() { return this.#list.map(([k]) => k).values(); }
    values() { return this.#list.map(([, v]) => v).values(); }
    entries() { return this.#list.map(([k, v]) => [k, v]).values(); }
    [Symbol.iterator]() { return this.entries(); }
    toString() { return this.#list.map(([k, v]) => encodeForm(k) + "=" + encodeForm(v)).join("&"); }
  }

  const URL_PARTS = ["href", "protocol", "username", "password", "host", "hostname", "port", "pathname", "search", "hash", "origin"];
  const urls = new WeakMap();
  const stateOf = (url) => {
    const state = urls.get(url);
    if (!state) throw new TypeError("not a URL");
    return state;
  };
  class URL {
    constructor(url, base) {
      const parts = N.parseUrl(String(url), base === undefined ? undefined : String(base));
      if (!parts) throw new TypeError("Invalid URL: " + String(url));
      const state = { parts, params: null };
      state.params = new URLSearchParams(parts[8], (query) => {
        state.parts = N.setUrl(state.parts[0], "search", query) ?? state.parts;
      });
      urls.set(this, state);
    }
    static canParse(url, base) { return N.parseUrl(String(url), base === undefined ? undefined : String(base)) != null; }
    static parse(url, base) { try { return new URL(url, base); } catch (e) { return null; } }
    get searchParams() { return stateOf(this).params; }
    toString() { return stateOf(this).parts[0]; }
    toJSON() { return stateOf(this).parts[0]; }
  }
  URL_PARTS.forEach((part, i) => {
    const set = part === "origin" ? readOnly("setting `origin`") : function (value) {
      const state = stateOf(this);
      const parts = part === "href" ? N.parseUrl(String(value), undefined) : N.setUrl(state.parts[0], part, String(value));
      if (!parts) throw new TypeError("Invalid URL: " + String(value));
      state.parts = parts;
      URLSearchParams._reparse(state.params, parts[8]);
    };
    Object.defineProperty(URL.prototype, part, { get() { return stateOf(this).parts[i]; }, set, enumerable: true, configurable: true });
  });
  g.URL = URL;
  g.URLSearchParams = URLSearchParams;

  // ------------------------------------------------------------- Intl
  // QuickJS has no Intl: js/intl/intl.js, evaluated on first use, formats
  // numbers and dates and compares strings as Chromium does.
  let intlApi = null;
  const intl = () => (intlApi ??= N.intlModule()(N, unsupported));
  Object.defineProperty(g, "Intl", {
    get() {
      const value = intl().Intl;
      Object.defineProperty(g, "Intl", { value, writable: true, configurable: true, enumerable: false });
      return value;
    },
    set(value) { Object.defineProperty(g, "Intl", { value, writable: true, configurable: true, enumerable: false }); },
    configurable: true,
    enumerable: false,
  });
  const builtin = (proto, name, fn) =>
    Object.defineProperty(proto, name, { value: { [name]: fn }[name], writable: true, configurable: true, enumerable: false });
  const dateOf = (d) => { Date.prototype.getTime.call(d); return d; };
  builtin(Number.prototype, "toLocaleString", function (locales, options) {
    return intl().numberToLocaleString(Number.prototype.valueOf.call(this), locales, options);
  });
  builtin(BigInt.prototype, "toLocaleString", function (locales, options) {
    return intl().numberToLocaleString(BigInt.prototype.valueOf.call(this), locales, options);
  });
  builtin(Date.prototype, "toLocaleString", function (locales, options) { return intl().dateToLocaleString(dateOf(this), locales, options, "any"); });
  builtin(Date.prototype, "toLocaleDateString", function (locales, options) { return intl().dateToLocaleString(dateOf(this), locales, options, "date"); });
  builtin(Date.prototype, "toLocaleTimeString", function (locales, options) { return intl().dateToLocaleString(dateOf(this), locales, options, "time"); });
  builtin(String.prototype, "localeCompare", function (that, locales, options) {
    if (this === undefined || this === null) throw new TypeError("String.prototype.localeCompare called on null or undefined");
    return intl().localeCompare(String(this), String(that), locales, options);
  });

  // ------------------------------------------------------------- window
  const pageLocation = new URL(pageUrl);
  const location = {};
  for (const part of URL_PARTS) {
    getters(location, { [part]: () => pageLocation[part] });
  }
  methods(location, {
    toString() { return pageUrl; },
    assign: readOnly("location.assign (navigation)"),
    replace: readOnly("location.replace (navigation)"),
    reload: readOnly("location.reload (navigation)"),
  });
  Object.freeze(location);

  // Timers on a virtual clock: a timer fires when nothing else is left to do,
  // and the clock (Date.now) jumps to its time instead of waiting.
  let clock = 0;
  let seq = 0;
  const timers = new Map();
  const schedule = (fn, ms, args, repeat) => {
    if (typeof fn !== "function") unsupported("a timer given a string of code");
    const id = ++seq;
    const delay = Math.max(0, Number(ms) || 0);
    timers.set(id, { id, at: clock + delay, order: id, fn, args, every: repeat ? Math.max(1, delay) : 0 });
    return id;
  };
  const clear = (id) => { timers.delete(id); };
  const realNow = Date.now;
  const started = realNow();
  Date.now = () => realNow() + clock;
  if (g.performance) {
    try { g.performance.now = () => realNow() - started + clock; } catch (e) { /* read-only: real time */ }
  }

  // ------------------------------------------------------------- fetch
  // Made at once by the host (N.fetch: the page's address rules and body
  // cap, within the run's deadline); answered with a Response-like object.
  const headerPairs = (headers) => {
    if (!headers) return [];
    if (typeof headers.forEach === "function" && !Array.isArray(headers)) {
      const out = [];
      headers.forEach((value, name) => out.push([String(name), String(value)]));
      return out;
    }
    if (Array.isArray(headers)) return headers.map(([name, value]) => [String(name), String(value)]);
    return Object.entries(headers).map(([name, value]) => [String(name), String(value)]);
  };
  const makeHeaders = (pairs) => {
    const lower = pairs.map(([name, value]) => [name.toLowerCase(), value]);
    return Object.freeze({
      get: (name) => {
        const found = lower.filter(([n]) => n === String(name).toLowerCase()).map(([, v]) => v);
        return found.length ? found.join(", ") : null;
      },
      has: (name) => lower.some(([n]) => n === String(name).toLowerCase()),
      forEach: (fn) => lower.forEach(([n, v]) => fn(v, n)),
      entries: () => lower[Symbol.iterator](),
      [Symbol.iterator]: () => lower[Symbol.iterator](),
    });
  };
  const fetchNow = (input, init) => {
    const target = input && typeof input === "object" && "url" in input ? input.url : String(input);
    const url = new URL(target, pageUrl).href;
    const method = String(init.method || "GET").toUpperCase();
    const body = init.body === undefined || init.body === null ? null : String(init.body);
    const answer = N.fetch(method, url, headerPairs(init.headers), body);
    const text = answer.body;
    let used = false;
    const read = () => {
      if (used) throw new TypeError("the body of this response was already read");
      used = true;
      return text;
    };
    return Object.freeze({
      ok: answer.status >= 200 && answer.status < 300,
      status: answer.status,
      statusText: "",
      url: answer.url,
      redirected: answer.url !== url,
      type: "basic",
      headers: makeHeaders(answer.headers),
      get bodyUsed() { return used; },
      text: async () => read(),
      json: async () => JSON.parse(read()),
    });
  };

  // A silent console: one function that does nothing (anonymous, as each
  // of them was) under every name.
  const quiet = [() => {}][0];
  const console = {};
  for (const name of ["log", "info", "warn", "error", "debug", "trace", "table", "dir", "group", "groupEnd", "groupCollapsed", "time", "timeEnd", "count", "assert"]) {
    console[name] = quiet;
  }
  Object.freeze(console);
  const globals = {
    window: g, self: g, top: g, parent: g, frames: g, globalThis: g,
    document, location,
    navigator: Object.freeze({ userAgent: "svc-static", language: "en-US", languages: Object.freeze(["en-US", "en"]), webdriver: false, onLine: true, cookieEnabled: false }),
    setTimeout: (fn, ms, ...args) => schedule(fn, ms, args, false),
    setInterval: (fn, ms, ...args) => schedule(fn, ms, args, true),
    clearTimeout: clear,
    clearInterval: clear,
    requestAnimationFrame: (fn) => schedule(() => fn(clock), 16, [], false),
    cancelAnimationFrame: clear,
    requestIdleCallback: (fn) => schedule(() => fn({ didTimeout: false, timeRemaining: () => 50 }), 1, [], false),
    cancelIdleCallback: clear,
    console,
    CSS: Object.freeze({
      escape(value) {
        const s = String(value);
        let out = "";
        for (let i = 0; i < s.length; i++) {
          const c = s.charCodeAt(i);
          const ch = s.charAt(i);
          if (c === 0) out += "\uFFFD";
          else if ((c >= 1 && c <= 0x1f) || c === 0x7f || (i === 0 && c >= 0x30 && c <= 0x39) || (i === 1 && c >= 0x30 && c <= 0x39 && s.charCodeAt(0) === 0x2d)) out += "\\" + c.toString(16) + " ";
          else if (i === 0 && s.length === 1 && c === 0x2d) out += "\\" + ch;
          else if (c >= 0x80 || c === 0x2d || c === 0x5f || (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a)) out += ch;
          else out += "\\" + ch;
        }
        return out;
      },
      supports: () => false,
    }),
    innerWidth: 1280,
    innerHeight: 800,
    devicePixelRatio: 1,
    scrollX: 0,
    scrollY: 0,
    pageXOffset: 0,
    pageYOffset: 0,
    // Scrolling has nothing to load on a static page: a no-op, not an error.
    scrollTo() {},
    scrollBy() {},
    scroll() {},
    fetch: (input, init) => new Promise((resolve) => resolve(fetchNow(input, init || {}))),
    getComputedStyle: readOnly("getComputedStyle (no stylesheets or layout)"),
    matchMedia: readOnly("matchMedia (no layout)"),
    alert: readOnly("alert (no events)"),
    confirm: readOnly("confirm (no events)"),
    prompt: readOnly("prompt (no events)"),
    open: readOnly("window.open (navigation)"),
    addEventListener: readOnly("addEventListener (no events)"),
    removeEventListener: readOnly("removeEventListener (no events)"),
    dispatchEvent: readOnly("dispatchEvent (no events)"),
  };
  for (const name of [
    "XMLHttpRequest", "WebSocket", "EventSource", "DOMParser", "XMLSerializer", "MutationObserver",
    "IntersectionObserver", "ResizeObserver", "Event", "CustomEvent", "MouseEvent", "KeyboardEvent", "Image",
    "XPathEvaluator", "Worker",
  ]) {
    globals[name] = { [name]: function () { unsupported(name); } }[name];
  }
  N.hide(g, globals);

  return {
    /** Runs the earliest timer; false when none is left. */
    nextTimer() {
      let next = null;
      for (const t of timers.values()) {
        if (!next || t.at < next.at || (t.at === next.at && t.order < next.order)) next = t;
      }
      if (!next) return false;
      clock = Math.max(clock, next.at);
      if (next.every) {
        next.at = clock + next.every;
        next.order = ++seq;
      } else {
        timers.delete(next.id);
      }
      try {
        next.fn.apply(undefined, next.args);
      } catch (e) {
        // As in a browser: a timer's exception is reported, not thrown at anyone.
      }
      return true;
    },
  };
})
