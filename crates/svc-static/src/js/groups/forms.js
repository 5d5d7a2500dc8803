// The `forms` group of the DOM's members (dom_members.rs): made in a run when
// one of its members is first called, over what the prelude hands it.
(function (kit) {
  "use strict";
  const { N, unsupported, idOf, wrap, list, attr, has, tagIs, collapse, assign } = kit;
  const o = {};
  const optionValue = (option) => attr(option, "value") ?? collapse(option.textContent);
  // Selectedness as the parse leaves it (`:checked`, css.rs): a drop-down's
  // last option with `selected`, else its first option that is not disabled.
  const selectedHandles = (select) => N.select(idOf(select), "option:checked", true);
  const selectedOption = (select) => wrap(selectedHandles(select)[0]);
  // The HTML standard's rules for parsing non-negative integers.
  const nonNegative = (value, fallback) => {
    const m = /^[\t\n\f\r ]*\+?(\d+)/.exec(value ?? "");
    const n = m ? Number(m[1]) : NaN;
    return Number.isFinite(n) && n <= 2147483647 ? n : fallback;
  };
  const positive = (value, fallback) => {
    const n = nonNegative(value, fallback);
    return n > 0 ? n : fallback;
  };
  const sectionRows = (section) => N.children(idOf(section), true).filter((c) => N.name(c) === "tr");
  assign(o, {
    type() {
      if (tagIs(this, "input")) return (attr(this, "type") ?? "text").toLowerCase();
      if (tagIs(this, "button")) return (attr(this, "type") ?? "submit").toLowerCase();
      if (tagIs(this, "select")) return has(this, "multiple") ? "select-multiple" : "select-one";
      if (tagIs(this, "textarea")) return "textarea";
      return attr(this, "type") ?? "";
    },
    value() {
      if (tagIs(this, "textarea")) return this.textContent;
      if (tagIs(this, "select")) {
        const option = selectedOption(this);
        return option ? optionValue(option) : "";
      }
      if (tagIs(this, "option")) return optionValue(this);
      if (tagIs(this, "input")) {
        const type = this.type;
        return attr(this, "value") ?? (type === "checkbox" || type === "radio" ? "on" : "");
      }
      return attr(this, "value") ?? "";
    },
    defaultValue() { return tagIs(this, "textarea") ? this.textContent : attr(this, "value") ?? ""; },
    text() {
      if (tagIs(this, "option")) return collapse(this.textContent);
      return tagIs(this, "a", "script", "title") ? this.textContent : undefined;
    },
    label() { return tagIs(this, "option") ? attr(this, "label") ?? collapse(this.textContent) : attr(this, "label") ?? ""; },
    options() { return tagIs(this, "select", "datalist") ? list(N.select(idOf(this), "option", true)) : undefined; },
    selectedIndex() {
      if (!tagIs(this, "select")) return undefined;
      const options = N.select(idOf(this), "option", true).map(wrap);
      const option = selectedOption(this);
      return option ? options.indexOf(option) : -1;
    },
    selectedOptions() {
      if (!tagIs(this, "select")) return undefined;
      return list(selectedHandles(this));
    },
    index() {
      if (!tagIs(this, "option")) return undefined;
      const select = this.closest("select, datalist");
      return select ? select.options.indexOf(this) : 0;
    },
    cells() {
      if (!tagIs(this, "tr")) return undefined;
      return list(N.children(idOf(this), true).filter((c) => ["td", "th"].includes(N.name(c))));
    },
    tBodies() { return tagIs(this, "table") ? list(N.children(idOf(this), true).filter((c) => N.name(c) === "tbody")) : undefined; },
    tHead() { return tagIs(this, "table") ? wrap(N.children(idOf(this), true).find((c) => N.name(c) === "thead")) : undefined; },
    tFoot() { return tagIs(this, "table") ? wrap(N.children(idOf(this), true).find((c) => N.name(c) === "tfoot")) : undefined; },
    caption() { return tagIs(this, "table") ? wrap(N.children(idOf(this), true).find((c) => N.name(c) === "caption")) : undefined; },
    rowIndex() {
      if (!tagIs(this, "tr")) return undefined;
      const table = this.closest("table");
      return table ? table.rows.indexOf(this) : -1;
    },
    cellIndex() {
      if (!tagIs(this, "td", "th")) return undefined;
      return this.parentElement && this.parentElement.cells ? this.parentElement.cells.indexOf(this) : -1;
    },
    colSpan() { return tagIs(this, "td", "th") ? Number(attr(this, "colspan")) || 1 : undefined; },
    rowSpan() { return tagIs(this, "td", "th") ? Number(attr(this, "rowspan")) || 1 : undefined; },
    elements() { return tagIs(this, "form", "fieldset") ? list(N.select(idOf(this), "button, fieldset, input, object, output, select, textarea", true)) : undefined; },
    // Enumerated attributes: their known values, lower-cased, else the default.
    method() {
      if (!tagIs(this, "form")) return attr(this, "method") ?? "";
      const value = (attr(this, "method") ?? "").toLowerCase();
      return ["get", "post", "dialog"].includes(value) ? value : "get";
    },
    enctype() {
      if (!tagIs(this, "form")) return attr(this, "enctype") ?? "";
      const value = (attr(this, "enctype") ?? "").toLowerCase();
      return ["application/x-www-form-urlencoded", "multipart/form-data", "text/plain"].includes(value) ? value : "application/x-www-form-urlencoded";
    },
    // Numbers reflected from attributes, with their defaults.
    rows() {
      if (tagIs(this, "textarea")) return positive(attr(this, "rows"), 2);
      if (tagIs(this, "thead", "tbody", "tfoot")) return list(sectionRows(this));
      if (!tagIs(this, "table")) return undefined;
      const kids = N.children(idOf(this), true);
      const of = (tag) => kids.filter((c) => N.name(c) === tag).flatMap((s) => sectionRows(wrap(s)));
      const body = kids.flatMap((c) => N.name(c) === "tr" ? [c] : N.name(c) === "tbody" ? sectionRows(wrap(c)) : []);
      return list([...of("thead"), ...body, ...of("tfoot")]);
    },
    cols() { return tagIs(this, "textarea") ? positive(attr(this, "cols"), 20) : undefined; },
    size() {
      if (tagIs(this, "input")) return positive(attr(this, "size"), 20);
      if (tagIs(this, "select")) return nonNegative(attr(this, "size"), 0);
      return undefined;
    },
    maxLength() { return tagIs(this, "input", "textarea") ? nonNegative(attr(this, "maxlength"), -1) : undefined; },
    minLength() { return tagIs(this, "input", "textarea") ? nonNegative(attr(this, "minlength"), -1) : undefined; },
    form() {
      return tagIs(this, "button", "fieldset", "input", "object", "output", "select", "textarea", "label", "option")
        ? this.closest("form")
        : undefined;
    },
  });
  // `width` / `height`: an image's (and an image button's) are its laid-out
  // size, which needs a browser; elsewhere they reflect the attribute.
  const dimension = (name, fallback) => function () {
    if (tagIs(this, "img") || (tagIs(this, "input") && this.type === "image")) {
      unsupported(this.localName + "." + name + " (its laid-out size: no layout; getAttribute('" + name + "') reads the attribute)");
    }
    if (tagIs(this, "canvas", "video")) {
      const value = /^[\t\n\f\r ]*\+?(\d+)/.exec(attr(this, name) ?? "");
      const n = value ? Number(value[1]) : NaN;
      return Number.isFinite(n) && n <= 2147483647 ? n : tagIs(this, "video") ? 0 : fallback;
    }
    const reflecting = name === "width"
      ? ["iframe", "embed", "object", "table", "td", "th", "col", "colgroup", "hr"]
      : ["iframe", "embed", "object", "td", "th"];
    return tagIs(this, ...reflecting) ? attr(this, name) ?? "" : undefined;
  };
  assign(o, { width: dimension("width", 300), height: dimension("height", 150) });
  assign(o, {
    // `<template>.content` would be a fragment of its own.
    content() {
      if (tagIs(this, "template")) unsupported("template.content");
      return attr(this, "content") ?? "";
    },
  });
  return o;
})
