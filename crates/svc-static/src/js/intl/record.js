// Records, from a browser's own Intl, the locale data `intl.js` formats
// with (CLDR as the browser's ICU has it): number symbols and patterns,
// currency symbols and digits, compact forms, and the date and time patterns
// of the option sets scripts use, per locale. `record.sh` runs it in
// Chromium's headless shell and writes `data.json`; nothing here runs in
// the static engine.
//
// A date pattern is text with fields in braces: {y} {yy} year, {M} {MM}
// month as a number, {L0} month from the locale's name list 0, {d} {dd},
// {E0} weekday from list 0, {h} {hh} (1-12), {H} {HH} (0-23), {K} {KK}
// (0-11), {k} {kk} (1-24), {m} {mm} {s} {ss}, {a0} day period from list 0,
// {z0} the time zone's name from list 0 (recorded for UTC).
const LOCALES = [
  "en-US", "en-GB", "en-CA", "en-AU", "en-IN", "en-IE", "en-NZ", "de-DE", "de-AT", "de-CH", "fr-FR", "fr-CA", "fr-CH",
  "fr-BE", "es-ES", "es-MX", "es-AR", "it-IT", "nl-NL", "nl-BE", "pt-BR", "pt-PT", "ja-JP", "zh-CN", "zh-TW", "ko-KR",
  "sv-SE", "da-DK", "nb-NO", "fi-FI", "pl-PL", "cs-CZ", "ru-RU", "tr-TR", "en", "de", "fr", "es", "it", "nl", "pt",
  "ja", "zh", "ko", "sv", "da", "nb", "no", "fi", "pl", "cs", "ru", "tr",
];
const CURRENCIES = [
  "USD", "EUR", "GBP", "JPY", "CHF", "INR", "BRL", "SEK", "PLN", "CAD", "AUD", "CNY", "KRW", "MXN", "DKK", "NOK", "RUB",
  "TRY", "CZK", "HUF", "ILS", "NZD", "HKD", "SGD", "TWD", "THB", "ZAR", "AED", "SAR", "IDR", "MYR", "PHP", "VND", "UAH",
  "RON", "BGN", "CLP", "COP", "ARS", "NGN", "EGP", "PKR", "KWD", "BHD", "ISK",
];

const UTC = (y, mo, d, h = 5, mi = 6, s = 7) => new Date(Date.UTC(y, mo, d, h, mi, s));
const A = UTC(2026, 2, 4);

function numberData(locale) {
  const nf = (o) => new Intl.NumberFormat(locale, o);
  const parts = (o, v) => nf(o).formatToParts(v);
  const plain = parts({}, 1234567.891);
  const pattern = (ps) =>
    ps.map((p) => {
      switch (p.type) {
        case "integer": case "group": case "decimal": case "fraction": return "#";
        case "currency": return "¤";
        case "minusSign": return "-";
        case "plusSign": return "+";
        case "percentSign": return "%";
        case "literal": return p.value;
        default: throw new Error("part " + p.type);
      }
    }).join("").replace(/#+/g, "#");
  // A currency whose symbol is a symbol (no spacing added next to it).
  const symbolic = ["EUR", "USD", "GBP", "JPY", ...CURRENCIES].find((c) =>
    /^\p{Sc}+$/u.test(parts({ style: "currency", currency: c }, 1).find((p) => p.type === "currency").value));
  const cur = (v, o = {}) => pattern(parts({ style: "currency", currency: symbolic, ...o }, v));
  const d = {
    decimal: plain.find((p) => p.type === "decimal").value,
    group: plain.find((p) => p.type === "group").value,
    minGroup: nf({}).format(1234).length === 4 ? 2 : 1,
    indian: nf({}).format(1234567).startsWith("12"),
    minus: parts({}, -1).find((p) => p.type === "minusSign").value,
    plus: parts({ signDisplay: "always" }, 1).find((p) => p.type === "plusSign").value,
    percent: [pattern(parts({ style: "percent" }, 0.5)), pattern(parts({ style: "percent" }, -0.5))],
    decimalNegative: pattern(parts({}, -1)),
    currency: [cur(1), cur(-1), cur(-1, { currencySign: "accounting" })],
    nan: nf({}).format(NaN),
    infinity: nf({}).format(Infinity),
    symbols: {},
  };
  for (const c of CURRENCIES) {
    const sym = parts({ style: "currency", currency: c }, 1).find((p) => p.type === "currency").value;
    const narrow = parts({ style: "currency", currency: c, currencyDisplay: "narrowSymbol" }, 1).find((p) => p.type === "currency").value;
    if (sym !== c || narrow !== c) d.symbols[c] = narrow === sym ? [sym] : [sym, narrow];
  }
  // Compact forms per power of ten, when they do not depend on the plural.
  for (const display of ["short", "long"]) {
    const forms = [];
    let ok = true;
    for (let e = 0; e <= 14 && ok; e++) {
      const one = parts({ notation: "compact", compactDisplay: display }, 10 ** e);
      const two = parts({ notation: "compact", compactDisplay: display }, 2 * 10 ** e);
      const shape = (ps) => ps.map((p) => (p.type === "integer" ? "#" : p.value)).join("");
      if (shape(one) !== shape(two)) ok = false;
      const digits = one.filter((p) => p.type === "integer").map((p) => p.value).join("");
      forms.push([e - (digits.length - 1), shape(one)]);
    }
    if (ok) d["compact" + display[0].toUpperCase() + display.slice(1)] = forms;
  }
  return d;
}

// Option sets: dates, times (each with hour12 unset, true, false), the
// combinations scripts use, and dateStyle / timeStyle.
const n = "numeric", t = "2-digit", L = "long", S = "short";
const DATES = [
  { year: n, month: n, day: n }, { year: n, month: t, day: t }, { year: t, month: t, day: t }, { year: n, month: L, day: n },
  { year: n, month: S, day: n }, { month: L, day: n }, { month: S, day: n }, { year: n, month: L }, { year: n, month: S },
  { month: L }, { month: S }, { year: n }, { weekday: L }, { weekday: S }, { weekday: L, year: n, month: L, day: n },
  { weekday: S, year: n, month: S, day: n }, { weekday: L, month: L, day: n }, { weekday: S, month: S, day: n },
  { month: t, day: t }, { month: n, day: n }, { year: n, month: n }, { year: n, month: t }, { day: n }, { weekday: S, day: n },
  { year: t, month: n, day: n }, { weekday: L, year: n, month: n, day: n }, { weekday: S, year: n, month: n, day: n },
  { day: t }, { month: n }, { month: t }, { year: n, month: L, day: t }, { year: n, month: S, day: t }, { weekday: "narrow" },
  { month: "narrow" }, { weekday: L, day: n }, { year: t }, { year: t, month: t }, { month: S, year: t },
];
const TIMES = [
  { hour: n, minute: n, second: n }, { hour: n, minute: n }, { hour: t, minute: n }, { hour: n }, { hour: t, minute: n, second: n },
  { hour: t },
];
// Every date-only option set (weekday, year, month, day), recorded as is;
// DATES above are also combined with the times.
const ALL_DATES = [];
for (const weekday of [undefined, "narrow", "short", "long"]) {
  for (const year of [undefined, "numeric", "2-digit"]) {
    for (const month of [undefined, "numeric", "2-digit", "narrow", "short", "long"]) {
      for (const day of [undefined, "numeric", "2-digit"]) {
        if (weekday || year || month || day) ALL_DATES.push({ weekday, year, month, day });
      }
    }
  }
}
const key = (o) =>
  ["weekday", "year", "month", "day", "hour", "minute", "second", "hour12", "dateStyle", "timeStyle"]
    .filter((k) => o[k] !== undefined).map((k) => k + ":" + o[k]).join(",");

function dateData(locale) {
  const lists = [];
  const intern = (list) => {
    const s = JSON.stringify(list);
    let i = lists.findIndex((l) => JSON.stringify(l) === s);
    if (i < 0) { lists.push(list); i = lists.length - 1; }
    return i;
  };
  const patternOf = (o) => {
    const f = new Intl.DateTimeFormat(locale, { ...o, timeZone: "UTC" });
    const value = (date, type) => f.formatToParts(date).find((p) => p.type === type).value;
    return f.formatToParts(A).map((p) => {
      const v = p.value;
      switch (p.type) {
        case "literal": return v.replace(/[{}]/g, "");
        case "year": return v.length === 2 ? "{yy}" : "{y}";
        case "month":
          if (/^\d+$/.test(v)) return v.length === 2 ? "{MM}" : "{M}";
          return "{L" + intern(Array.from({ length: 12 }, (_, m) => value(UTC(2026, m, 4), "month"))) + "}";
        case "day": return v.length === 2 ? "{dd}" : "{d}";
        case "weekday": return "{E" + intern(Array.from({ length: 7 }, (_, w) => value(UTC(2026, 2, 1 + w), "weekday"))) + "}";
        case "hour": {
          const at17 = value(UTC(2026, 2, 4, 17), "hour");
          const at0 = value(UTC(2026, 2, 4, 0), "hour");
          const letter = at17 === "17" ? (at0 === "24" ? "k" : "H") : at0 === "12" ? "h" : "K";
          return "{" + (v.length === 2 ? letter + letter : letter) + "}";
        }
        case "minute": return v.length === 2 ? "{mm}" : "{m}";
        case "second": return v.length === 2 ? "{ss}" : "{s}";
        case "dayPeriod": return "{a" + intern([value(UTC(2026, 2, 4, 5), "dayPeriod"), value(UTC(2026, 2, 4, 17), "dayPeriod")]) + "}";
        case "timeZoneName": return "{z" + intern([v]) + "}";
        default: return "{?" + p.type + "}";
      }
    }).join("");
  };
  const patterns = {};
  const add = (o) => { patterns[key(o)] = patternOf(o); };
  for (const d of ALL_DATES) add(d);
  for (const tm of TIMES) for (const h12 of [undefined, true, false]) add({ ...tm, hour12: h12 });
  for (const ds of [undefined, "full", "long", "medium", "short"]) {
    for (const ts of [undefined, "full", "long", "medium", "short"]) if (ds || ts) add({ dateStyle: ds, timeStyle: ts });
  }
  // Date and time together: ICU glues the two patterns with the locale's
  // pattern for the date's length; only the combinations that are not so
  // glued are kept.
  const lengthOf = (o) => (o.month === L ? (o.weekday === L ? 0 : 1) : o.month === S ? 2 : 3);
  const glue = [null, null, null, null];
  const combos = [];
  for (const d of DATES) for (const tm of TIMES) for (const h12 of [undefined, true, false]) combos.push([d, { ...tm, hour12: h12 }]);
  for (const [d, tm] of combos) {
    const both = patternOf({ ...d, ...tm });
    const dp = patterns[key(d)], tp = patterns[key(tm)];
    const i = lengthOf(d);
    const at = both.indexOf(dp), at2 = both.lastIndexOf(tp);
    if (glue[i] === null && at >= 0 && at2 >= 0 && (at + dp.length <= at2 || at2 + tp.length <= at)) {
      glue[i] = both.replace(dp, "\u0001").replace(tp, "\u0002").replace("\u0001", "{1}").replace("\u0002", "{0}");
    }
  }
  // Every combination checked is kept: null where the glue gives it (a
  // combination not recorded at all is refused, not guessed).
  for (const [d, tm] of combos) {
    const both = patternOf({ ...d, ...tm });
    const g = glue[lengthOf(d)];
    const glued = g && g.replace("{1}", patterns[key(d)]).replace("{0}", patterns[key(tm)]);
    patterns[key({ ...d, ...tm })] = glued === both ? null : both;
  }
  return { patterns, glue, lists, hourCycle: new Intl.DateTimeFormat(locale, { hour: n }).resolvedOptions().hourCycle };
}

out = {};
for (const locale of LOCALES) {
  out[locale] = { locale: new Intl.NumberFormat(locale).resolvedOptions().locale, number: numberData(locale), date: dateData(locale) };
}
out["*currencyDigits"] = Object.fromEntries(CURRENCIES.map((c) => [c, new Intl.NumberFormat("en", { style: "currency", currency: c }).resolvedOptions().maximumFractionDigits]).filter(([, d]) => d !== 2));
