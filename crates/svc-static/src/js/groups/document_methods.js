// The `documentMethods` group of the DOM's members (dom_members.rs): made in a run when
// one of its members is first called, over what the prelude hands it.
(function (kit) {
  "use strict";
  const { N, root, wrap, list } = kit;
  return {
    getElementById(id) { return wrap(N.byId(root, String(id))); },
    getElementsByName(name) { return list(N.byName(String(name))); },
    hasFocus() { return false; },
  };
})
