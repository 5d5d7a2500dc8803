// The `queries` group of the DOM's members (dom_members.rs): made in a run when
// one of its members is first called, over what the prelude hands it.
(function (kit) {
  "use strict";
  const { N, idOf, wrap, list } = kit;
  return {
    querySelector(selectors) { return wrap(N.select(idOf(this), String(selectors), false)[0]); },
    querySelectorAll(selectors) { return list(N.select(idOf(this), String(selectors), true)); },
    getElementsByClassName(names) { return list(N.byClass(idOf(this), String(names))); },
    getElementsByTagName(name) { return list(N.byTag(idOf(this), String(name))); },
  };
})
