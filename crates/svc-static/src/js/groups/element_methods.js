// The `elementMethods` group of the DOM's members (dom_members.rs): made in a run when
// one of its members is first called, over what the prelude hands it.
(function (kit) {
  "use strict";
  const { N, idOf, wrap, attr, has } = kit;
  return {
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
  };
})
