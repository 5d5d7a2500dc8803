// The `element` group of the DOM's members (dom_members.rs): made in a run when
// one of its members is first called, over what the prelude hands it.
(function (kit) {
  "use strict";
  const { N, pageUrl, readOnly, idOf, wrap, attr, has, tagIs, urlAttr, camel, DOMTokenList, URL, assign } = kit;
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
  const o = {};
  assign(o, {
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
    assign(o, {
      [name]() {
        if (!tagIs(this, ...tags)) return undefined;
        if (name === "action" && !has(this, "action")) return pageUrl;
        return urlAttr(this, name);
      },
    });
  }
  assign(o, {
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
    assign(o, { [prop]() { return attr(this, name) ?? ""; } });
  }
  const booleans = {
    hidden: "hidden", disabled: "disabled", required: "required",
    readOnly: "readonly", multiple: "multiple", open: "open", defaultChecked: "checked", defaultSelected: "selected",
    async: "async", defer: "defer", autofocus: "autofocus", noValidate: "novalidate",
  };
  for (const prop in booleans) {
    const name = booleans[prop];
    assign(o, { [prop]() { return has(this, name); } });
  }
  assign(o, {
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
})
