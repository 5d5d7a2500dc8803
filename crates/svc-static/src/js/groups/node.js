// The `node` group of the DOM's members (dom_members.rs): made in a run when
// one of its members is first called, over what the prelude hands it.
(function (kit) {
  "use strict";
  const { N, root, idOf, wrap, list, document } = kit;
  return {
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
  };
})
