// The `characterData` group of the DOM's members (dom_members.rs): made in a run when
// one of its members is first called, over what the prelude hands it.
(function (kit) {
  "use strict";
  const { N, idOf } = kit;
  return {
    data() { return N.data(idOf(this)) ?? ""; },
    length() { return (N.data(idOf(this)) ?? "").length; },
    wholeText() { return N.data(idOf(this)) ?? ""; },
    name() { return N.name(idOf(this)); },
  };
})
