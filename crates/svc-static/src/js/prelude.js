// The browser the static engine pretends to be, built over the native DOM
// functions `N` (dom_bindings.rs). Evaluated once per realm, before any page
// (script_runtime.rs: the realm is built once per process, and copied back
// before each run); answers the controls the host drives the run with:
// `begin` takes the run's page (`N.url`) before the user's script starts.
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
  let pageUrl = N.url;

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

  // `location`'s accessors and methods.
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



  // ------------------------------------------------------------- document
  const document = wrap(root);
  const first = (css) => wrap(N.select(root, css, false)[0]);
  // Fonts never load (there is no rendering): ready at once.
  const fonts = Object.freeze({ ready: Promise.resolve(), status: "loaded", load: () => Promise.resolve([]), check: () => true });

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
  let pageLocation = null;
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
  let started = realNow();
  Date.now = () => realNow() + clock;
  if (g.performance) {
    try { g.performance.now = () => realNow() - started + clock; } catch (e) { /* read-only: real time */ }
  }

  // ------------------------------------------------------------- the DOM's members
  // The prototypes' members come from native tables (dom_members.rs): each
  // forwards to the function of its name in a group (js/groups/*.js), read
  // and made when one of its members is first called, over this kit; a run
  // builds only the groups its script uses.
  const kit = {
    g, N, root, pageUrl, unsupported, readOnly, idOf, wrap, list, attr, has, tagIs, urlAttr, collapse, camel,
    DOMTokenList, URL, document, first, location, fonts,
    // Captured now: a group is made after the script started, which may
    // have replaced `Object.assign`.
    assign: Object.assign,
  };
  N.members(kit, [
    Node.prototype, CharacterData.prototype, Text.prototype, DocumentType.prototype, Element.prototype,
    Document.prototype, DOMTokenList.prototype,
  ]);

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
    /** Reads `Intl`'s module (the realm's build, for its copy with it read). */
    warm() {
      intl();
    },
    /** The run's page (`N.url`) and clock, before its script. */
    begin() {
      pageUrl = N.url;
      kit.pageUrl = pageUrl;
      pageLocation = new URL(pageUrl);
      started = realNow();
    },
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
