// The `nodeMethods` group of the DOM's members (dom_members.rs): made in a run when
// one of its members is first called, over what the prelude hands it.
(function (kit) {
  "use strict";
  const { N, unsupported, idOf, document } = kit;
  return {
    hasChildNodes() { return N.children(idOf(this), false).length > 0; },
    contains(other) { return other != null && N.contains(idOf(this), idOf(other)); },
    isSameNode(other) { return other === this; },
    getRootNode() { return document; },
    compareDocumentPosition() { unsupported("compareDocumentPosition"); },
  };
})
