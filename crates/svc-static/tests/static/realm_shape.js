// The shape of the realm a script finds, as data: every own property of the
// global object and of the objects svc defines or changes (the DOM's classes
// and their prototypes, `URL`, `console`, `location`, the builtins the
// prelude replaces), each with its descriptor's attributes and, for a
// function, its name, length, `toString()` and whether it has a prototype.
// Run first thing in a script, and its answer compared with realm_shape.json
// (recorded from the engine): `dom_api::the_realm_keeps_the_shape_it_was_recorded_with`.
// `__svcProbe` (the tests' sandbox probes, a feature of some builds) is left out.
const own = (object) => Reflect.ownKeys(object).filter((key) => key !== "__svcProbe");
const fn = (v) => typeof v !== "function" ? typeof v : [v.name, v.length, String(v), Object.hasOwn(v, "prototype")];
const shapeOf = (object) => own(object).map((key) => {
  const d = Object.getOwnPropertyDescriptor(object, key);
  const attributes = [!!d.enumerable, !!d.configurable];
  return "get" in d
    ? [String(key), "accessor", ...attributes, fn(d.get), fn(d.set)]
    : [String(key), "data", !!d.writable, ...attributes, fn(d.value)];
});
const before = {
  keys: Object.keys(globalThis).filter((key) => key !== "__svcProbe"),
  names: Object.getOwnPropertyNames(globalThis).filter((key) => key !== "__svcProbe"),
  has: ["URL", "URLSearchParams", "DOMTokenList", "console", "Intl"].map((name) => name in globalThis),
};
const shapes = { globalThis: shapeOf(globalThis) };
const classes = own(globalThis)
  .filter((name) => typeof globalThis[name] === "function" && /^[A-Z]/.test(name) && globalThis[name].prototype);
for (const name of classes) {
  shapes[name] = shapeOf(globalThis[name]);
  shapes[name + ".prototype"] = shapeOf(globalThis[name].prototype);
}
for (const [name, object] of Object.entries({
  console, location, navigator, CSS, Reflect, "Object.prototype": Object.prototype, "Number.prototype": Number.prototype,
  "BigInt.prototype": BigInt.prototype, "Date.prototype": Date.prototype, "String.prototype": String.prototype,
  "document.fonts": document.fonts, "document.body.classList": document.body.classList,
  "new URL(location.href)": new URL(location.href), "new URLSearchParams('a=1')": new URLSearchParams("a=1"),
})) {
  shapes[name] = shapeOf(object);
}
returnData([{ before, shapes }]);
