// `Intl` for the static engine, as Chromium answers it: NumberFormat
// (decimal, percent, currency, compact), DateTimeFormat (the option sets
// scripts use, dateStyle / timeStyle), Collator and `localeCompare` (the
// Unicode collation's root order, the languages that keep it), and a few
// English-only helpers (PluralRules, ListFormat, RelativeTimeFormat). The
// locale data (`data.json`, recorded from Chromium by `record.js`) comes
// from the host, one locale at a time (N.intlData).
//
// Loaded on first use (script_runtime.rs compiles it once per process and
// reads it into the run that asks; js/prelude.js calls
// it): the runs that never format pay nothing. What it does not have (a
// locale without data, a calendar, a time zone other than UTC and the
// host's, scientific notation, units, ...) throws an error that names it
// (`unsupported`) instead of answering differently from the browser.
(function (N, unsupported) {
  "use strict";
  const refuse = (what) => unsupported("Intl: " + what);
  const common = JSON.parse(N.intlData("*"));
  const DEFAULT_LOCALE = "en-US";

  // ------------------------------------------------------------- locales
  const loaded = new Map();
  const dataOf = (tag) => {
    if (!loaded.has(tag)) {
      const text = N.intlData(tag);
      let entry = text ? JSON.parse(text) : null;
      if (entry && entry.as) entry = { ...dataOf(entry.as), locale: entry.locale };
      loaded.set(tag, entry);
    }
    return loaded.get(tag);
  };
  const TAG = /^([a-z]{2,3})(?:-([a-z]{4}))?(?:-([a-z]{2}|\d{3}))?((?:-(?:[a-wyz0-9]|x)(?:-[a-z0-9]{2,8})+)*)$/i;
  const canonical = (raw) => {
    if (typeof raw !== "string" && !(raw && typeof raw === "object")) throw new TypeError("Language ID should be string or object.");
    const m = TAG.exec(String(raw).trim() === String(raw) ? String(raw) : "");
    if (!m) throw new RangeError("Incorrect locale information provided");
    if (m[4]) refuse("the locale '" + raw + "' (its extensions)");
    return m[1].toLowerCase() + (m[2] ? "-" + m[2][0].toUpperCase() + m[2].slice(1).toLowerCase() : "") + (m[3] ? "-" + m[3].toUpperCase() : "");
  };
  const requested = (locales) => {
    if (locales === undefined) return [];
    const list = typeof locales === "string" ? [locales] : Array.from(Object(locales));
    return [...new Set(list.map(canonical))];
  };
  /** The data of the first requested locale (the default one when none is); refused when it has none. */
  const localeOf = (locales, what) => {
    const tag = requested(locales)[0] ?? DEFAULT_LOCALE;
    const data = dataOf(tag);
    if (!data) refuse(what + " for the locale '" + tag + "'");
    return data;
  };
  const supportedLocalesOf = (locales) => requested(locales).filter((t) => dataOf(t));

  const getOption = (options, name, allowed, fallback) => {
    let value = options[name];
    if (value === undefined) return fallback;
    if (typeof fallback === "boolean" || allowed === Boolean) return Boolean(value);
    value = String(value);
    if (allowed && !allowed.includes(value)) throw new RangeError("Value " + value + " out of range for Intl options property " + name);
    return value;
  };
  const getNumber = (options, name, min, max, fallback) => {
    const value = options[name];
    if (value === undefined) return fallback;
    const n = Number(value);
    if (!Number.isFinite(n) || n < min || n > max) throw new RangeError(name + " value is out of range.");
    return Math.floor(n);
  };
  const toOptions = (options) => (options === undefined ? Object.create(null) : Object(options));

  // ------------------------------------------------------------- decimals
  // A number as decimal digits: value = 0.DIGITS × 10^exp, digits without
  // trailing zeros (none for zero). From the shortest representation that
  // reads back as the same double, as ICU formats doubles.
  const decimalOf = (x) => {
    const text = typeof x === "bigint" ? String(x < 0n ? -x : x) : String(Math.abs(x));
    const [mantissa, e = "0"] = text.split("e");
    const [int, frac = ""] = mantissa.split(".");
    let digits = (int + frac).replace(/^0+/, "");
    const lead = (int + frac).length - digits.length;
    let exp = int.length - lead + Number(e);
    digits = digits.replace(/0+$/, "");
    if (!digits) exp = 0;
    return { digits, exp };
  };
  /** `d` rounded to `keep` digits (counted from its first), by `mode`. */
  const roundTo = (d, keep, mode, negative) => {
    if (keep >= d.digits.length) return d;
    const kept = keep > 0 ? d.digits.slice(0, keep).split("").map(Number) : [];
    const rest = keep >= 0 ? d.digits.slice(keep) : "0".repeat(-keep) + d.digits;
    const first = Number(rest[0]);
    const more = /[1-9]/.test(rest.slice(1));
    const nonzero = first > 0 || more;
    const half = first > 5 || (first === 5 && more) ? 1 : first === 5 ? 0 : -1;
    const odd = (kept.at(-1) ?? 0) % 2 === 1;
    const up = {
      trunc: false, expand: nonzero, ceil: nonzero && !negative, floor: nonzero && negative,
      halfExpand: half >= 0, halfTrunc: half > 0, halfEven: half > 0 || (half === 0 && odd),
      halfCeil: half > 0 || (half === 0 && !negative), halfFloor: half > 0 || (half === 0 && negative),
    }[mode];
    let exp = d.exp;
    if (up) {
      let i = kept.length - 1;
      while (i >= 0 && kept[i] === 9) kept[i--] = 0;
      if (i >= 0) kept[i] += 1;
      else {
        kept.unshift(1);
        exp += 1;
        if (keep <= 0) exp = d.exp - keep + 1;
      }
    }
    const digits = kept.join("").replace(/0+$/, "");
    return digits ? { digits, exp } : { digits: "", exp: 0 };
  };
  const shift = (d, by) => (d.digits ? { digits: d.digits, exp: d.exp + by } : d);

  // ------------------------------------------------------------- NumberFormat
  const STYLES = ["decimal", "percent", "currency", "unit"];
  const ROUNDING = ["ceil", "floor", "expand", "trunc", "halfCeil", "halfFloor", "halfExpand", "halfTrunc", "halfEven"];
  const numberState = new WeakMap();

  function resolveNumber(locales, options) {
    const o = toOptions(options);
    const data = localeOf(locales, "Intl.NumberFormat");
    const numberingSystem = getOption(o, "numberingSystem", null, undefined);
    if (numberingSystem !== undefined && numberingSystem !== "latn") refuse("NumberFormat with numberingSystem '" + numberingSystem + "'");
    const style = getOption(o, "style", STYLES, "decimal");
    if (style === "unit") refuse("NumberFormat with style 'unit'");
    let currency = getOption(o, "currency", null, undefined);
    if (currency !== undefined) {
      if (!/^[A-Za-z]{3}$/.test(currency)) throw new RangeError("Invalid currency code : " + currency);
      currency = currency.toUpperCase();
    }
    if (style === "currency" && currency === undefined) throw new TypeError("Currency code is required with currency style.");
    const currencyDisplay = getOption(o, "currencyDisplay", ["code", "symbol", "narrowSymbol", "name"], "symbol");
    if (currencyDisplay === "name") refuse("NumberFormat with currencyDisplay 'name'");
    const currencySign = getOption(o, "currencySign", ["standard", "accounting"], "standard");
    const notation = getOption(o, "notation", ["standard", "scientific", "engineering", "compact"], "standard");
    if (notation === "scientific" || notation === "engineering") refuse("NumberFormat with notation '" + notation + "'");
    const compactDisplay = getOption(o, "compactDisplay", ["short", "long"], "short");
    const digits = style === "currency" ? common.currencyDigits[currency] ?? 2 : 0;
    const mnfdDefault = style === "currency" && notation !== "compact" ? digits : 0;
    const mxfdDefault = style === "currency" && notation !== "compact" ? digits : style === "percent" ? 0 : notation === "compact" ? 0 : 3;
    const minimumIntegerDigits = getNumber(o, "minimumIntegerDigits", 1, 21, 1);
    const mnfdGiven = o.minimumFractionDigits, mxfdGiven = o.maximumFractionDigits;
    const mnsdGiven = o.minimumSignificantDigits, mxsdGiven = o.maximumSignificantDigits;
    const roundingIncrement = getNumber(o, "roundingIncrement", 1, 5000, 1);
    if (roundingIncrement !== 1) refuse("NumberFormat with roundingIncrement");
    const roundingMode = getOption(o, "roundingMode", ROUNDING, "halfExpand");
    const roundingPriority = getOption(o, "roundingPriority", ["auto", "morePrecision", "lessPrecision"], "auto");
    if (roundingPriority !== "auto") refuse("NumberFormat with roundingPriority");
    const trailingZeroDisplay = getOption(o, "trailingZeroDisplay", ["auto", "stripIfInteger"], "auto");
    const r = { locale: data.locale, numberingSystem: "latn", style, currency, currencyDisplay, currencySign, minimumIntegerDigits };
    const significant = mnsdGiven !== undefined || mxsdGiven !== undefined;
    if (significant) {
      r.minimumSignificantDigits = getNumber(o, "minimumSignificantDigits", 1, 21, 1);
      r.maximumSignificantDigits = getNumber(o, "maximumSignificantDigits", r.minimumSignificantDigits, 21, 21);
    } else if (mnfdGiven !== undefined || mxfdGiven !== undefined || notation !== "compact") {
      let mnfd = getNumber(o, "minimumFractionDigits", 0, 100, undefined);
      let mxfd = getNumber(o, "maximumFractionDigits", 0, 100, undefined);
      if (mnfd === undefined) mnfd = Math.min(mnfdDefault, mxfd ?? mnfdDefault);
      else if (mxfd === undefined) mxfd = Math.max(mxfdDefault, mnfd);
      else if (mnfd > mxfd) throw new RangeError("maximumFractionDigits value is out of range.");
      r.minimumFractionDigits = mnfd;
      r.maximumFractionDigits = mxfd ?? Math.max(mxfdDefault, mnfd);
    } else {
      r.compactRounding = true;
    }
    let grouping = o.useGrouping;
    if (grouping === undefined || grouping === "true" || grouping === "false") grouping = notation === "compact" ? "min2" : "auto";
    else if (grouping === true) grouping = "always";
    else if (grouping === false) grouping = false;
    else if (!["min2", "auto", "always"].includes(String(grouping))) throw new RangeError("Value " + grouping + " out of range for Intl.NumberFormat options property useGrouping");
    r.useGrouping = grouping === false ? false : String(grouping);
    r.notation = notation;
    if (notation === "compact") {
      r.compactDisplay = compactDisplay;
      const forms = data.number[compactDisplay === "long" ? "compactLong" : "compactShort"];
      if (!forms) refuse("NumberFormat with compactDisplay '" + compactDisplay + "' for the locale '" + data.locale + "'");
      if (style !== "decimal") refuse("NumberFormat with notation 'compact' and style '" + style + "'");
    }
    r.signDisplay = getOption(o, "signDisplay", ["auto", "never", "always", "exceptZero", "negative"], "auto");
    r.roundingIncrement = 1;
    r.roundingMode = roundingMode;
    r.roundingPriority = "auto";
    r.trailingZeroDisplay = trailingZeroDisplay;
    return { r, data: data.number };
  }

  /** The integer digits grouped as the locale does. */
  const group = (int, n, r) => {
    if (r.useGrouping === false) return [int];
    const min = r.useGrouping === "always" ? 1 : r.useGrouping === "min2" ? 2 : n.minGroup;
    if (int.length < 4 + (min - 1)) return [int];
    const groups = [];
    let rest = int;
    groups.unshift(rest.slice(-3));
    rest = rest.slice(0, -3);
    const size = n.indian ? 2 : 3;
    while (rest.length > size) {
      groups.unshift(rest.slice(-size));
      rest = rest.slice(0, -size);
    }
    if (rest) groups.unshift(rest);
    return groups;
  };

  /** The parts of the number `x`'s absolute value, rounded; and whether it rounded to zero. */
  function numberParts(x, state) {
    const { r, data: n } = state;
    const negative = typeof x === "bigint" ? x < 0n : x < 0 || Object.is(x, -0);
    let d = decimalOf(x);
    if (r.style === "percent") d = shift(d, 2);
    let compact = null;
    if (r.notation === "compact") {
      const forms = n[r.compactDisplay === "long" ? "compactLong" : "compactShort"];
      const pick = (decimal) => forms[Math.min(Math.max(decimal.digits ? decimal.exp - 1 : 0, 0), forms.length - 1)];
      let form = pick(d);
      let scaled = shift(d, -form[0]);
      const rounded = (s) =>
        r.compactRounding
          ? roundTo(s, s.exp >= 2 ? s.exp : 2, r.roundingMode, negative)
          : round(s);
      let out = rounded(scaled);
      const again = pick(shift(out, form[0]));
      if (again !== form) {
        form = again;
        out = rounded(shift(d, -form[0]));
      }
      d = out;
      compact = form[1];
    } else {
      d = round(d);
    }
    function round(s) {
      if (r.maximumSignificantDigits !== undefined) return roundTo(s, r.maximumSignificantDigits, r.roundingMode, negative);
      return roundTo(s, s.exp + r.maximumFractionDigits, r.roundingMode, negative);
    }
    const zero = !d.digits;
    let int = d.exp > 0 ? (d.digits.slice(0, d.exp) + "0".repeat(Math.max(0, d.exp - d.digits.length))) : "0";
    let frac = d.exp >= 0 ? d.digits.slice(d.exp) : "0".repeat(-d.exp) + d.digits;
    if (r.maximumSignificantDigits !== undefined) {
      const shown = (int.replace(/^0+/, "") + frac).replace(/^0+/, "").length || 1;
      if (shown < r.minimumSignificantDigits) frac += "0".repeat(r.minimumSignificantDigits - shown);
    } else if (!r.compactRounding) {
      if (frac.length < r.minimumFractionDigits) frac += "0".repeat(r.minimumFractionDigits - frac.length);
    }
    if (r.trailingZeroDisplay === "stripIfInteger" && /^0*$/.test(frac)) frac = "";
    if (int.length < r.minimumIntegerDigits) int = "0".repeat(r.minimumIntegerDigits - int.length) + int;
    const parts = [];
    group(int, n, r).forEach((g, i) => {
      if (i) parts.push({ type: "group", value: n.group });
      parts.push({ type: "integer", value: g });
    });
    if (frac) parts.push({ type: "decimal", value: n.decimal }, { type: "fraction", value: frac });
    return { parts, negative, zero, compact };
  }

  const isSymbol = (c) => /[\p{S}\p{Z}]/u.test(c);
  function formatNumberToParts(state, value) {
    const { r, data: n } = state;
    let x = typeof value === "bigint" ? value : Number(value);
    const out = [];
    const literal = (text) => {
      if (!text) return;
      const last = out.at(-1);
      if (last && last.type === "literal") last.value += text;
      else out.push({ type: "literal", value: text });
    };
    let number, negative, zero, compact = null;
    if (typeof x === "number" && Number.isNaN(x)) {
      number = [{ type: "nan", value: n.nan }];
      negative = false;
      zero = false;
    } else if (typeof x === "number" && !Number.isFinite(x)) {
      number = [{ type: "infinity", value: n.infinity }];
      negative = x < 0;
      zero = false;
    } else {
      ({ parts: number, negative, zero, compact } = numberParts(x, state));
    }
    const sign =
      r.signDisplay === "never" ? "" :
      r.signDisplay === "always" ? (negative ? "-" : "+") :
      r.signDisplay === "exceptZero" ? (zero ? "" : negative ? "-" : "+") :
      r.signDisplay === "negative" ? (negative && !zero ? "-" : "") :
      negative ? "-" : "";
    let pattern;
    if (r.style === "currency") {
      const [pos, neg, accounting] = n.currency;
      pattern = sign === "-" && r.currencySign === "accounting" ? accounting : sign ? neg.replace("-", sign) : pos;
    } else if (r.style === "percent") {
      pattern = sign ? n.percent[1].replace("-", sign) : n.percent[0];
    } else {
      pattern = sign ? n.decimalNegative.replace("-", sign) : "#";
    }
    let symbol = "";
    if (r.style === "currency") {
      const known = n.symbols[r.currency];
      symbol = r.currencyDisplay === "code" ? r.currency : r.currencyDisplay === "narrowSymbol" ? known?.[1] ?? known?.[0] ?? r.currency : known?.[0] ?? r.currency;
    }
    for (let i = 0; i < pattern.length; i++) {
      const c = pattern[i];
      if (c === "#") {
        if (compact) {
          const [before, after] = compact.split("#");
          const piece = (text) => {
            const m = /^(\s*)(.*?)(\s*)$/su.exec(text);
            literal(m[1]);
            if (m[2]) out.push({ type: "compact", value: m[2] });
            literal(m[3]);
          };
          piece(before);
          out.push(...number);
          piece(after);
        } else {
          out.push(...number);
        }
      } else if (c === "¤") {
        // The currency spacing of CLDR: a letter-like symbol next to the digits gets a no-break space.
        const nextIsNumber = pattern[i + 1] === "#";
        const prevIsNumber = pattern[i - 1] === "#";
        if (prevIsNumber && !isSymbol(symbol[0])) literal("\u00a0");
        out.push({ type: "currency", value: symbol });
        if (nextIsNumber && !isSymbol(symbol.at(-1))) literal("\u00a0");
      } else if (c === "-") {
        out.push({ type: "minusSign", value: n.minus });
      } else if (c === "+") {
        out.push({ type: "plusSign", value: n.plus });
      } else if (c === "%") {
        out.push({ type: "percentSign", value: "%" });
      } else {
        literal(c);
      }
    }
    return out;
  }
  const join = (parts) => parts.map((p) => p.value).join("");

  const toNumeric = (value) => (typeof value === "bigint" ? value : Number(value));
  class NumberFormat {
    constructor(locales, options) {
      numberState.set(this, resolveNumber(locales, options));
    }
    get format() {
      const state = numberState.get(this);
      if (!state) throw new TypeError("Method get Intl.NumberFormat.prototype.format called on incompatible receiver");
      const f = (value) => join(formatNumberToParts(state, toNumeric(value)));
      Object.defineProperty(this, "format", { value: f, configurable: true });
      return f;
    }
    formatToParts(value) { return formatNumberToParts(numberState.get(this), toNumeric(value)); }
    formatRange() { refuse("NumberFormat.prototype.formatRange"); }
    resolvedOptions() {
      const r = { ...numberState.get(this).r };
      delete r.compactRounding;
      if (r.style !== "currency") { delete r.currency; delete r.currencyDisplay; delete r.currencySign; }
      if (r.notation !== "compact") delete r.compactDisplay;
      if (r.minimumFractionDigits === undefined && r.minimumSignificantDigits === undefined) { r.minimumFractionDigits = 0; r.maximumFractionDigits = 0; }
      return r;
    }
    static supportedLocalesOf(locales) { return supportedLocalesOf(locales); }
  }
  Object.defineProperty(NumberFormat.prototype, Symbol.toStringTag, { value: "Intl.NumberFormat", configurable: true });

  // ------------------------------------------------------------- DateTimeFormat
  const FIELDS = ["weekday", "era", "year", "month", "day", "dayPeriod", "hour", "minute", "second", "fractionalSecondDigits", "timeZoneName"];
  const DATE_FIELDS = ["weekday", "year", "month", "day"];
  const TIME_FIELDS = ["dayPeriod", "hour", "minute", "second", "fractionalSecondDigits"];
  const VALUES = {
    weekday: ["narrow", "short", "long"], era: ["narrow", "short", "long"], year: ["2-digit", "numeric"],
    month: ["2-digit", "numeric", "narrow", "short", "long"], day: ["2-digit", "numeric"], dayPeriod: ["narrow", "short", "long"],
    hour: ["2-digit", "numeric"], minute: ["2-digit", "numeric"], second: ["2-digit", "numeric"],
    timeZoneName: ["short", "long", "shortOffset", "longOffset", "shortGeneric", "longGeneric"],
  };
  const STYLE_VALUES = ["full", "long", "medium", "short"];
  const keyIndex = new Map(common.keys.map((k, i) => [k, i]));
  const dateState = new WeakMap();
  const localIsUtc = () => new Date(2026, 0, 1).getTimezoneOffset() === 0 && new Date(2026, 6, 1).getTimezoneOffset() === 0;
  const UTC_NAMES = ["UTC", "ETC/UTC", "GMT", "ETC/GMT", "ETC/UCT", "UCT", "ETC/ZULU", "ZULU", "ETC/UNIVERSAL", "UNIVERSAL", "ETC/GMT0", "GMT0", "ETC/GREENWICH", "GREENWICH"];

  // Named time zones: their standard offset (minutes east of UTC), their
  // daylight-saving rule and the first year the two hold for (rules as in
  // force since then; before that year the zone is refused).
  const US = "us", EU = "eu", AU = "au", NZ = "nz";
  const ZONES = {};
  const zone = (names, offset, rule, since = 2010) => { for (const n of names.split(" ")) ZONES[n.toUpperCase()] = { name: n, offset, rule, since }; };
  zone("America/New_York America/Detroit America/Toronto America/Indiana/Indianapolis", -300, US);
  zone("America/Chicago America/Winnipeg", -360, US);
  zone("America/Denver America/Edmonton", -420, US);
  zone("America/Phoenix", -420, null);
  zone("America/Los_Angeles America/Vancouver", -480, US);
  zone("America/Anchorage", -540, US);
  zone("Pacific/Honolulu", -600, null);
  zone("America/Halifax", -240, US);
  zone("America/St_Johns", -210, US);
  zone("America/Mexico_City", -360, null, 2023);
  zone("America/Sao_Paulo", -180, null, 2020);
  zone("America/Argentina/Buenos_Aires America/Buenos_Aires", -180, null);
  zone("America/Bogota America/Lima", -300, null);
  zone("Europe/London Europe/Dublin Europe/Lisbon Atlantic/Canary", 0, EU);
  zone("Europe/Paris Europe/Berlin Europe/Madrid Europe/Rome Europe/Amsterdam Europe/Brussels Europe/Vienna Europe/Zurich Europe/Stockholm Europe/Oslo Europe/Copenhagen Europe/Warsaw Europe/Prague Europe/Budapest Europe/Belgrade Europe/Luxembourg Europe/Monaco Europe/Malta Europe/Ljubljana Europe/Zagreb Europe/Bratislava", 60, EU);
  zone("Europe/Athens Europe/Helsinki Europe/Kyiv Europe/Kiev Europe/Bucharest Europe/Sofia Europe/Riga Europe/Tallinn Europe/Vilnius", 120, EU);
  zone("Europe/Istanbul", 180, null, 2017);
  zone("Europe/Moscow", 180, null, 2015);
  zone("Africa/Lagos", 60, null);
  zone("Africa/Johannesburg", 120, null);
  zone("Africa/Nairobi", 180, null);
  zone("Asia/Dubai", 240, null);
  zone("Asia/Karachi", 300, null);
  zone("Asia/Kolkata Asia/Calcutta", 330, null);
  zone("Asia/Kathmandu", 345, null);
  zone("Asia/Dhaka", 360, null);
  zone("Asia/Bangkok Asia/Jakarta Asia/Ho_Chi_Minh", 420, null);
  zone("Asia/Singapore Asia/Hong_Kong Asia/Shanghai Asia/Taipei Asia/Manila Australia/Perth", 480, null);
  zone("Asia/Tokyo Asia/Seoul", 540, null);
  zone("Australia/Darwin", 570, null);
  zone("Australia/Adelaide", 570, AU);
  zone("Australia/Brisbane", 600, null);
  zone("Australia/Sydney Australia/Melbourne Australia/Hobart Australia/Canberra", 600, AU);
  zone("Pacific/Auckland", 720, NZ);
  const sunday = (year, month, n) => {
    if (n > 0) return 1 + ((7 - new Date(Date.UTC(year, month, 1)).getUTCDay()) % 7) + 7 * (n - 1);
    const last = new Date(Date.UTC(year, month + 1, 0));
    return last.getUTCDate() - last.getUTCDay();
  };
  /** Minutes east of UTC in `z` at the instant `x`. */
  const offsetIn = (z, x) => {
    const year = new Date(x + z.offset * 60000).getUTCFullYear();
    if (year < z.since || year > 2099) refuse("DateTimeFormat in the time zone '" + z.name + "' in " + year);
    const at = (month, day, hour, offset) => Date.UTC(year, month, day, hour) - offset * 60000;
    const std = z.offset, dst = z.offset + 60;
    let summer = false;
    if (z.rule === US) summer = x >= at(2, sunday(year, 2, 2), 2, std) && x < at(10, sunday(year, 10, 1), 2, dst);
    else if (z.rule === EU) summer = x >= at(2, sunday(year, 2, -1), 1, 0) && x < at(9, sunday(year, 9, -1), 1, 0);
    else if (z.rule === AU) summer = x < at(3, sunday(year, 3, 1), 3, dst) || x >= at(9, sunday(year, 9, 1), 2, std);
    else if (z.rule === NZ) summer = x < at(3, sunday(year, 3, 1), 3, dst) || x >= at(8, sunday(year, 8, -1), 2, std);
    return summer ? dst : std;
  };

  const keyOf = (fields) =>
    ["weekday", "year", "month", "day", "hour", "minute", "second", "hour12", "dateStyle", "timeStyle"]
      .filter((k) => fields[k] !== undefined).map((k) => k + ":" + fields[k]).join(",");

  function resolveDate(locales, options, required, defaults) {
    const o = toOptions(options);
    const data = localeOf(locales, "Intl.DateTimeFormat");
    for (const name of ["calendar", "numberingSystem"]) {
      const value = getOption(o, name, null, undefined);
      if (value !== undefined && value !== (name === "calendar" ? "gregory" : "latn")) refuse("DateTimeFormat with " + name + " '" + value + "'");
    }
    let hour12 = o.hour12 === undefined ? undefined : Boolean(o.hour12);
    const hourCycle = getOption(o, "hourCycle", ["h11", "h12", "h23", "h24"], undefined);
    if (hour12 === undefined && hourCycle !== undefined) hour12 = hourCycle === "h11" || hourCycle === "h12";
    let timeZone = o.timeZone === undefined ? undefined : String(o.timeZone);
    let named = null;
    if (timeZone !== undefined) {
      if (UTC_NAMES.includes(timeZone.toUpperCase())) timeZone = "UTC";
      else if (ZONES[timeZone.toUpperCase()]) {
        named = ZONES[timeZone.toUpperCase()];
        timeZone = named.name;
      } else {
        if (!/^[A-Za-z_+\-\/0-9]+$/.test(timeZone)) throw new RangeError("Invalid time zone specified: " + timeZone);
        refuse("DateTimeFormat with the time zone '" + timeZone + "'");
      }
    }
    const fields = {};
    for (const f of FIELDS) {
      if (f === "fractionalSecondDigits") {
        if (o[f] !== undefined) refuse("DateTimeFormat with fractionalSecondDigits");
        continue;
      }
      fields[f] = getOption(o, f, VALUES[f], undefined);
    }
    if (fields.era !== undefined) refuse("DateTimeFormat with era");
    if (fields.dayPeriod !== undefined) refuse("DateTimeFormat with dayPeriod");
    if (fields.timeZoneName !== undefined) refuse("DateTimeFormat with timeZoneName");
    const dateStyle = getOption(o, "dateStyle", STYLE_VALUES, undefined);
    const timeStyle = getOption(o, "timeStyle", STYLE_VALUES, undefined);
    if (dateStyle || timeStyle) {
      const clash = FIELDS.find((f) => fields[f] !== undefined);
      if (clash) throw new TypeError("Can't set option " + clash + " when " + (dateStyle ? "dateStyle" : "timeStyle") + " is used");
      if (required === "date" && !dateStyle) throw new TypeError("Invalid option : timeStyle");
      if (required === "time" && !timeStyle) throw new TypeError("Invalid option : dateStyle");
    } else {
      let needDefaults = true;
      if ((required === "date" || required === "any") && DATE_FIELDS.some((f) => fields[f] !== undefined)) needDefaults = false;
      if ((required === "time" || required === "any") && TIME_FIELDS.some((f) => fields[f] !== undefined)) needDefaults = false;
      if (needDefaults && (defaults === "date" || defaults === "all")) fields.year = fields.month = fields.day = "numeric";
      if (needDefaults && (defaults === "time" || defaults === "all")) fields.hour = fields.minute = fields.second = "numeric";
    }
    // ICU writes minutes and seconds with two digits next to an hour.
    const key = { ...fields, dateStyle, timeStyle };
    if (key.hour !== undefined || key.minute !== undefined) {
      if (key.minute) key.minute = "numeric";
      if (key.second) key.second = "numeric";
    }
    const timed = key.hour !== undefined || (timeStyle !== undefined);
    key.hour12 = timed && !dateStyle && !timeStyle ? hour12 : undefined;
    if ((dateStyle || timeStyle) && hour12 !== undefined) refuse("DateTimeFormat with dateStyle or timeStyle and hour12");
    // Recorded option sets only; a date-and-time one recorded as null is the
    // date's and the time's patterns glued as the locale glues them.
    const patterns = data.date.patterns;
    const lookup = (k) => {
      const i = keyIndex.get(keyOf(k));
      return i === undefined ? undefined : patterns[i];
    };
    let pattern = lookup(key) ?? null;
    if (lookup(key) === null) {
      const datePart = { weekday: key.weekday, year: key.year, month: key.month, day: key.day };
      const timePart = { hour: key.hour, minute: key.minute, second: key.second, hour12: key.hour12 };
      const d = DATE_FIELDS.some((f) => datePart[f]) ? lookup(datePart) : null;
      const t = timePart.hour || timePart.minute || timePart.second ? lookup(timePart) : null;
      if (d && t) {
        const length = key.month === "long" ? (key.weekday === "long" ? 0 : 1) : key.month === "short" ? 2 : 3;
        pattern = data.date.glue[length].replace("{1}", d).replace("{0}", t);
      }
    }
    if (pattern === null || /\{\?/.test(pattern)) {
      const shown = Object.entries({ ...fields, hour12, dateStyle, timeStyle }).filter(([, v]) => v !== undefined).map(([k, v]) => k + ": " + v).join(", ");
      refuse("DateTimeFormat with the options { " + shown + " }");
    }
    const r = { locale: data.locale, calendar: "gregory", numberingSystem: "latn", timeZone: timeZone ?? (localIsUtc() ? "UTC" : undefined) };
    const tokens = pattern.match(/\{[^}]*\}/g) ?? [];
    const has = (re) => tokens.some((t) => re.test(t));
    if (has(/^\{[hHkK]/)) {
      r.hourCycle = has(/^\{h/) ? "h12" : has(/^\{H/) ? "h23" : has(/^\{K/) ? "h11" : "h24";
      r.hour12 = r.hourCycle === "h12" || r.hourCycle === "h11";
    }
    if (dateStyle || timeStyle) {
      if (dateStyle) r.dateStyle = dateStyle;
      if (timeStyle) r.timeStyle = timeStyle;
    } else {
      for (const f of FIELDS) {
        if (fields[f] === undefined) continue;
        let v = fields[f];
        const width = (re2, re1) => (has(re2) ? "2-digit" : has(re1) ? "numeric" : v);
        if (f === "year") v = width(/^\{yy\}/, /^\{y\}/);
        if (f === "month" && (v === "numeric" || v === "2-digit")) v = width(/^\{MM\}/, /^\{M\}/);
        if (f === "day") v = width(/^\{dd\}/, /^\{d\}/);
        if (f === "hour") v = width(/^\{(hh|HH|KK|kk)\}/, /^\{[hHkK]\}/);
        if (f === "minute") v = width(/^\{mm\}/, /^\{m\}/);
        if (f === "second") v = width(/^\{ss\}/, /^\{s\}/);
        r[f] = v;
      }
    }
    return { r, pattern, lists: data.date.lists, utc: timeZone === "UTC", zone: named };
  }

  const pad = (n) => (n < 10 ? "0" : "") + n;
  function formatDateToParts(state, date) {
    const x = date === undefined ? Date.now() : date instanceof Date ? date.getTime() : Number(date);
    if (!Number.isFinite(x)) throw new RangeError("Invalid time value");
    // A named zone: its wall clock, read with the UTC getters.
    const d = new Date(state.zone ? x + offsetIn(state.zone, x) * 60000 : x);
    const utc = state.utc || state.zone !== null;
    const get = {
      year: utc ? d.getUTCFullYear() : d.getFullYear(), month: utc ? d.getUTCMonth() : d.getMonth(),
      day: utc ? d.getUTCDate() : d.getDate(), weekday: utc ? d.getUTCDay() : d.getDay(),
      hour: utc ? d.getUTCHours() : d.getHours(), minute: utc ? d.getUTCMinutes() : d.getMinutes(),
      second: utc ? d.getUTCSeconds() : d.getSeconds(),
    };
    if (get.year < 1000 || get.year > 9999) refuse("DateTimeFormat of a year before 1000 or after 9999");
    const parts = [];
    const re = /\{([a-zA-Z]+)(\d*)\}|([^{]+)/g;
    let m;
    while ((m = re.exec(state.pattern))) {
      if (m[3] !== undefined) {
        parts.push({ type: "literal", value: m[3] });
        continue;
      }
      const [, f, list] = m;
      const named = (i) => state.lists[Number(list)][i];
      const h = get.hour;
      const field = {
        y: ["year", String(get.year)], yy: ["year", pad(get.year % 100)],
        M: ["month", String(get.month + 1)], MM: ["month", pad(get.month + 1)], L: ["month", () => named(get.month)],
        d: ["day", String(get.day)], dd: ["day", pad(get.day)], E: ["weekday", () => named(get.weekday)],
        h: ["hour", String(h % 12 || 12)], hh: ["hour", pad(h % 12 || 12)], H: ["hour", String(h)], HH: ["hour", pad(h)],
        K: ["hour", String(h % 12)], KK: ["hour", pad(h % 12)], k: ["hour", String(h || 24)], kk: ["hour", pad(h || 24)],
        m: ["minute", String(get.minute)], mm: ["minute", pad(get.minute)], s: ["second", String(get.second)], ss: ["second", pad(get.second)],
        a: ["dayPeriod", () => named(h < 12 ? 0 : 1)],
        z: ["timeZoneName", () => {
          if (state.zone || (!state.utc && !localIsUtc())) refuse("DateTimeFormat of a time zone's name other than UTC's");
          return named(0);
        }],
      }[f];
      const value = typeof field[1] === "function" ? field[1]() : field[1];
      parts.push({ type: field[0], value });
    }
    return parts;
  }

  class DateTimeFormat {
    constructor(locales, options) {
      dateState.set(this, resolveDate(locales, options, "any", "date"));
    }
    get format() {
      const state = dateState.get(this);
      if (!state) throw new TypeError("Method get Intl.DateTimeFormat.prototype.format called on incompatible receiver");
      const f = (date) => join(formatDateToParts(state, date));
      Object.defineProperty(this, "format", { value: f, configurable: true });
      return f;
    }
    formatToParts(date) { return formatDateToParts(dateState.get(this), date); }
    formatRange() { refuse("DateTimeFormat.prototype.formatRange"); }
    formatRangeToParts() { refuse("DateTimeFormat.prototype.formatRangeToParts"); }
    resolvedOptions() {
      const r = { ...dateState.get(this).r };
      if (r.timeZone === undefined) refuse("the name of the host's time zone");
      return r;
    }
    static supportedLocalesOf(locales) { return supportedLocalesOf(locales); }
  }
  Object.defineProperty(DateTimeFormat.prototype, Symbol.toStringTag, { value: "Intl.DateTimeFormat", configurable: true });

  // ------------------------------------------------------------- Collator
  // The root collation order (CLDR), for the scripts realistic pages have:
  // characters as collation elements with a primary weight (the letter,
  // digit, punctuation or symbol), a secondary one (accents) and a tertiary
  // one (case and variants), compared level by level.
  const ORDER = [
    "\t", "\n", " \u3000\u2002\u2009\u00a0\u202f", "_", "-", "\u2010", "\u2012", "\u2013", "\u2014", "\u2015", "\u30fb", ",", "\u3001", ";", ":", "!",
    "\u00a1", "?", "\u00bf", ".", "\u2026", "\u3002", "\u00b7", "'\u2018\u2019\u201a", "\u2039", "\u203a", "\"\u201c\u201d\u201e", "\u00ab", "\u00bb", "(", ")",
    "[", "]", "{", "}", "\u300c", "\u300d", "\u00a7", "\u00b6", "@", "*", "/", "\\", "&", "#", "%", "\u2030", "\u2020", "\u2021", "\u2022",
    "\u2032", "\u2033", "\u203b", "`", "\u00b4", "^", "\u00af", "\u00a8", "\u00b8", "\u00b0", "\u00a9", "\u00ae", "+", "\u00b1", "\u00f7", "\u00d7",
    "<", "=", ">", "\u00ac", "|", "\u00a6", "~", "\u00a4", "\u00a2", "$", "\u00a3", "\u00a5", "\u20ac", "0", "1\u00b9", "\u00bd", "\u00bc", "2\u00b2",
    "3\u00b3", "\u00be", "4", "5", "6", "7", "8", "9",
    "a", "b", "c", "d", "e", "f", "g", "h", "i", "\u0131", "j", "k", "l", "m", "n", "\u014b", "o", "p", "q", "\u0138", "r", "s", "t", "u", "v",
    "w", "x", "y", "z", "\u00fe",
  ];
  const PRIMARY = new Map();
  ORDER.forEach((chars, i) => { for (const c of chars) PRIMARY.set(c, i + 1); });
  const VARIABLE_END = PRIMARY.get("`");
  const DIGIT_ZERO = PRIMARY.get("0");
  // Accents, in the root order; letters with a stroke or the like are their
  // base letter with one of these.
  const MARKS = {
    "\u0301": 2, "\u0300": 3, "\u0306": 4, "\u0302": 5, "\u030c": 6, "\u030a": 7, "\u0308": 8, "\u030b": 9, "\u0303": 10, "\u0307": 11,
    "\u0327": 12, "\u0328": 13, stroke: 14, eth: 15, "\u0304": 16, middleDot: 17, "\u0323": 18, "\u0331": 19,
  };
  const SPECIAL = {
    "\u00df": [["s", 2], ["s", 2]], "\u00e6": [["a", 2], ["e", 2]], "\u00c6": [["a", 4], ["e", 4]], "\u0153": [["o", 2], ["e", 2]],
    "\u0152": [["o", 4], ["e", 4]], "\u0133": [["i", 2], ["j", 2]], "\u0132": [["i", 4], ["j", 4]], "\u017f": [["s", 2]],
    "\u00aa": [["a", 2]], "\u00ba": [["o", 2]],
    "\u00f8": [["o", 1], "stroke"], "\u00d8": [["o", 3], "stroke"], "\u0142": [["l", 1], "stroke"], "\u0141": [["l", 3], "stroke"],
    "\u0111": [["d", 1], "stroke"], "\u0110": [["d", 3], "stroke"], "\u00f0": [["d", 1], "eth"], "\u00d0": [["d", 3], "eth"],
    "\u0127": [["h", 1], "stroke"], "\u0126": [["h", 3], "stroke"], "\u0167": [["t", 1], "stroke"], "\u0166": [["t", 3], "stroke"],
    "\u0140": [["l", 1], "middleDot"], "\u013f": [["l", 3], "middleDot"],
  };
  const IGNORABLE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u200b-\u200f\u2060\ufeff]/;
  /** Collation elements: [primary, secondary, tertiary] each. */
  function elements(text, numeric, ignorePunctuation) {
    const out = [];
    const chars = [...text.normalize("NFD")];
    for (let i = 0; i < chars.length; i++) {
      const c = chars[i];
      if (IGNORABLE.test(c)) continue;
      if (numeric && c >= "0" && c <= "9") {
        let j = i;
        while (j < chars.length && chars[j] >= "0" && chars[j] <= "9") j++;
        const digits = chars.slice(i, j).join("").replace(/^0+(?=\d)/, "");
        out.push([DIGIT_ZERO, 1, 1], [100000 + digits.length, 1, 1]);
        for (const d of digits) out.push([Number(d) + 1, 1, 1]);
        i = j - 1;
        continue;
      }
      if (MARKS[c] !== undefined) {
        out.push([0, MARKS[c], 1]);
        continue;
      }
      if (/\p{Mn}/u.test(c)) {
        out.push([0, 30 + c.codePointAt(0) / 1e6, 1]);
        continue;
      }
      const special = SPECIAL[c];
      if (special) {
        for (const piece of special) {
          if (typeof piece === "string") out.push([0, MARKS[piece], 1]);
          else out.push([PRIMARY.get(piece[0]), 1, piece[1]]);
        }
        continue;
      }
      const lower = c.toLowerCase();
      const tertiary = lower !== c ? 3 : 1;
      let primary = PRIMARY.get(lower.length === 1 ? lower : c);
      if (primary === undefined) {
        if (/\p{L}/u.test(c)) primary = 1000 + lower.codePointAt(0);
        else if (/\p{N}/u.test(c)) primary = DIGIT_ZERO + 0.5;
        else primary = VARIABLE_END - 0.5;
      }
      if (ignorePunctuation && primary < VARIABLE_END) continue;
      out.push([primary, 1, tertiary]);
    }
    return out;
  }
  const compareLists = (a, b) => {
    const n = Math.min(a.length, b.length);
    for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
    return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
  };
  // Languages whose collation is the root order.
  const ROOT_COLLATION = ["en", "de", "fr", "it", "nl", "pt", "id", "ms"];
  const collatorState = new WeakMap();
  function resolveCollator(locales, options) {
    const o = toOptions(options);
    const tag = requested(locales)[0] ?? DEFAULT_LOCALE;
    if (!ROOT_COLLATION.includes(tag.split("-")[0]) || tag === "fr-CA") refuse("Collator (localeCompare) for the locale '" + tag + "'");
    const usage = getOption(o, "usage", ["sort", "search"], "sort");
    const sensitivity = getOption(o, "sensitivity", ["base", "accent", "case", "variant"], "variant");
    const ignorePunctuation = getOption(o, "ignorePunctuation", Boolean, false);
    const numeric = getOption(o, "numeric", Boolean, false);
    const caseFirst = getOption(o, "caseFirst", ["upper", "lower", "false"], "false");
    if (caseFirst === "upper") refuse("Collator with caseFirst 'upper'");
    const collation = getOption(o, "collation", null, "default");
    if (collation !== "default") refuse("Collator with collation '" + collation + "'");
    return { locale: tag, usage, sensitivity, ignorePunctuation, collation: "default", numeric, caseFirst };
  }
  function compareWith(r, a, b) {
    a = String(a);
    b = String(b);
    if (a === b) return 0;
    const x = elements(a, r.numeric, r.ignorePunctuation);
    const y = elements(b, r.numeric, r.ignorePunctuation);
    const level = (list, i) => list.filter((e) => i !== 0 || e[0] > 0).map((e) => e[i]);
    let c = compareLists(level(x, 0), level(y, 0));
    if (c || r.sensitivity === "base") return c;
    if (r.sensitivity !== "case") {
      c = compareLists(level(x, 1), level(y, 1));
      if (c || r.sensitivity === "accent") return c;
      return compareLists(level(x, 2), level(y, 2));
    }
    const cases = (list) => list.filter((e) => e[0] > 0).map((e) => (e[2] >= 3 ? 1 : 0));
    return compareLists(cases(x), cases(y));
  }
  class Collator {
    constructor(locales, options) {
      collatorState.set(this, resolveCollator(locales, options));
    }
    get compare() {
      const r = collatorState.get(this);
      if (!r) throw new TypeError("Method get Intl.Collator.prototype.compare called on incompatible receiver");
      const f = (a, b) => compareWith(r, a, b);
      Object.defineProperty(this, "compare", { value: f, configurable: true });
      return f;
    }
    resolvedOptions() { return { ...collatorState.get(this) }; }
    static supportedLocalesOf(locales) {
      return requested(locales).filter((t) => ROOT_COLLATION.includes(t.split("-")[0]) && t !== "fr-CA");
    }
  }
  Object.defineProperty(Collator.prototype, Symbol.toStringTag, { value: "Intl.Collator", configurable: true });

  // ------------------------------------------------------------- English-only helpers
  const english = (locales, what) => {
    const tag = requested(locales)[0] ?? DEFAULT_LOCALE;
    if (tag !== "en" && !tag.startsWith("en-")) refuse(what + " for the locale '" + tag + "'");
    return tag;
  };
  class PluralRules {
    #locale;
    #type;
    constructor(locales, options) {
      this.#locale = english(locales, "PluralRules");
      this.#type = getOption(toOptions(options), "type", ["cardinal", "ordinal"], "cardinal");
    }
    select(n) {
      const x = Number(n);
      if (this.#type === "ordinal") {
        const ten = x % 10, hundred = x % 100;
        if (!Number.isInteger(x)) return "other";
        return ten === 1 && hundred !== 11 ? "one" : ten === 2 && hundred !== 12 ? "two" : ten === 3 && hundred !== 13 ? "few" : "other";
      }
      return x === 1 ? "one" : "other";
    }
    resolvedOptions() { return { locale: this.#locale, type: this.#type }; }
    static supportedLocalesOf(locales) { return requested(locales).filter((t) => t === "en" || t.startsWith("en-")); }
  }
  class ListFormat {
    #type;
    #style;
    constructor(locales, options) {
      english(locales, "ListFormat");
      const o = toOptions(options);
      this.#type = getOption(o, "type", ["conjunction", "disjunction", "unit"], "conjunction");
      this.#style = getOption(o, "style", ["long", "short", "narrow"], "long");
    }
    format(list) {
      const items = [...list].map(String);
      const word = this.#type === "conjunction" ? (this.#style === "long" ? " and " : this.#style === "short" ? " & " : ", ") : this.#type === "disjunction" ? " or " : this.#style === "narrow" ? " " : ", ";
      if (this.#type === "conjunction" && this.#style === "narrow") return items.join(", ");
      if (this.#type === "unit") return items.join(word);
      if (items.length <= 1) return items.join("");
      if (items.length === 2) return items[0] + word + items[1];
      return items.slice(0, -1).join(", ") + "," + word + items.at(-1);
    }
  }
  const UNITS = ["second", "minute", "hour", "day", "week", "month", "quarter", "year"];
  class RelativeTimeFormat {
    #numeric;
    #nf;
    constructor(locales, options) {
      const tag = english(locales, "RelativeTimeFormat");
      const o = toOptions(options);
      this.#numeric = getOption(o, "numeric", ["always", "auto"], "always");
      const style = getOption(o, "style", ["long", "short", "narrow"], "long");
      if (style !== "long") refuse("RelativeTimeFormat with style '" + style + "'");
      this.#nf = new NumberFormat(tag);
    }
    format(value, unit) {
      const x = Number(value);
      let u = String(unit).replace(/s$/, "");
      if (!UNITS.includes(u)) throw new RangeError("Invalid unit argument for format() '" + unit + "'");
      if (this.#numeric === "auto" && Number.isInteger(x) && Math.abs(x) <= 1) {
        const named = {
          day: ["yesterday", "today", "tomorrow"],
          second: [null, "now", null],
        }[u];
        if (named && named[x + 1]) return named[x + 1];
        if (u !== "second" && u !== "day") {
          if (u === "minute" || u === "hour") { if (x === 0) return "this " + u; }
          else return ["last ", "this ", "next "][x + 1] + u;
        }
      }
      const n = this.#nf.format(Math.abs(x));
      const words = n + " " + u + (Math.abs(x) === 1 ? "" : "s");
      return x < 0 || Object.is(x, -0) ? words + " ago" : "in " + words;
    }
  }

  // The three older constructors also answer a plain call, as in browsers.
  const callable = (Impl, name) => {
    const F = { [name]: function (locales, options) { return new Impl(locales, options); } }[name];
    F.prototype = Impl.prototype;
    Object.defineProperty(Impl.prototype, "constructor", { value: F, writable: true, configurable: true });
    F.supportedLocalesOf = Impl.supportedLocalesOf;
    return F;
  };
  const Intl = {
    NumberFormat: callable(NumberFormat, "NumberFormat"), DateTimeFormat: callable(DateTimeFormat, "DateTimeFormat"),
    Collator: callable(Collator, "Collator"), PluralRules, ListFormat, RelativeTimeFormat,
    getCanonicalLocales: (locales) => requested(locales),
    supportedValuesOf: () => refuse("supportedValuesOf"),
  };
  for (const name of ["Locale", "DisplayNames", "Segmenter", "DurationFormat"]) {
    Intl[name] = { [name]: function () { refuse(name); } }[name];
  }
  Object.defineProperty(Intl, Symbol.toStringTag, { value: "Intl", configurable: true });

  // The `toLocale*` methods, through formats kept per arguments.
  const kept = new Map();
  const cached = (kind, locales, options, make) => {
    if (options !== undefined && (typeof options !== "object" || options === null)) return make();
    let key;
    try {
      key = kind + JSON.stringify([locales ?? null, options ?? null]);
    } catch (e) {
      return make();
    }
    let f = kept.get(key);
    if (!f) {
      if (kept.size > 256) kept.clear();
      f = make();
      kept.set(key, f);
    }
    return f;
  };
  const dateFormat = (locales, options, required, defaults) => {
    const f = Object.create(DateTimeFormat.prototype);
    dateState.set(f, resolveDate(locales, options, required, defaults));
    return f;
  };
  return {
    Intl,
    numberToLocaleString: (x, locales, options) => cached("n", locales, options, () => new NumberFormat(locales, options)).format(x),
    dateToLocaleString: (date, locales, options, kind) => {
      const [required, defaults] = kind === "date" ? ["date", "date"] : kind === "time" ? ["time", "time"] : ["any", "all"];
      const t = date.getTime();
      if (Number.isNaN(t)) return "Invalid Date";
      return cached("d" + kind, locales, options, () => dateFormat(locales, options, required, defaults)).format(t);
    },
    localeCompare: (a, b, locales, options) => cached("c", locales, options, () => new Collator(locales, options)).compare(a, b),
  };
})
