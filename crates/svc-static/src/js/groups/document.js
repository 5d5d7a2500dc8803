// The `document` group of the DOM's members (dom_members.rs): made in a run when
// one of its members is first called, over what the prelude hands it.
(function (kit) {
  "use strict";
  const { g, N, root, pageUrl, wrap, list, first, location, fonts } = kit;
  return {
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
  };
})
