// The `tree` group of the DOM's members (dom_members.rs): made in a run when
// one of its members is first called, over what the prelude hands it.
(function (kit) {
  "use strict";
  const { N, idOf, wrap, list } = kit;
  return {
    children() { return list(N.children(idOf(this), true)); },
    childElementCount() { return N.children(idOf(this), true).length; },
    firstElementChild() { return wrap(N.children(idOf(this), true)[0]); },
    lastElementChild() { return wrap(N.children(idOf(this), true).at(-1)); },
  };
})
