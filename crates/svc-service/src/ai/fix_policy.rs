//! AI Fix decisions, made by code rather than by the model: whether a failed
//! run is worth a repaired script at all ([`diagnose`]: a page that blocks
//! the browser or cannot be reached is not fixed by another script), and
//! whether a repaired script's test run is good enough to replace the old
//! script ([`judge_candidate`]). Pure: no I/O, no clock.

use std::cell::{Cell, RefCell};
use std::collections::BTreeSet;

use html5ever::tendril::StrTendril;
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{
    BufferQueue, CharacterTokens, EndTag, StartTag, TagToken, Token, TokenSink, TokenSinkResult, Tokenizer,
};
use serde_json::Value;

/// What a failed run says about the page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Diagnosis {
    /// The site keeps the browser out (an HTTP status, a captcha or bot
    /// challenge, a nearly empty page); the reason is a sentence for the user.
    Blocked(String),
    /// The page could not be opened (network, refusal, server error); the
    /// reason is a sentence for the user.
    Unreachable(String),
    /// Nothing points away from the script: worth repairing.
    Broken,
}

/// Statuses by which a site refuses the browser.
/// 503 is what Cloudflare and others answer with a challenge page.
const BLOCKING_STATUSES: &[i64] = &[401, 403, 407, 429, 503];
/// The runner's error for a main document with an error status (svc-runner).
const STATUS_ERROR_PREFIX: &str = "the page answered HTTP ";
/// Beginnings of the runner's errors for a page that could not be opened.
const UNREACHABLE_PREFIXES: &[&str] = &["navigation failed", "navigation refused", "target refused"];
/// The runner's timeout before the page opened: "timed out after 30 s while opening the page".
const OPENING_TIMEOUT: (&str, &str) = ("timed out", "while opening the page");
/// The longest error message repeated in a diagnosis.
const MAX_REASON_CHARS: usize = 300;

/// Markers, lowercased, that only challenge and block pages carry.
const CHALLENGE_MARKERS: &[&str] = &[
    "<title>just a moment",
    "attention required! | cloudflare",
    "cf-chl",
    "cf_chl",
    "verify you are human",
    "are you a robot",
    "not a robot",
    "px-captcha",
    "captcha-delivery",
    "incapsula incident id",
    "errors.edgesuite.net",
];
/// Markers, lowercased, of captcha widgets and bot-detection scripts. Many
/// working pages carry them too (an invisible reCAPTCHA on every page,
/// Cloudflare's `challenge-platform` script, a PerimeterX sensor), so they
/// count only on a page with little text: at most [`WIDGET_PAGE_MAX_TEXT`].
const WIDGET_MARKERS: &[&str] = &[
    "g-recaptcha",
    "recaptcha/api",
    "h-captcha",
    "hcaptcha",
    "cf-turnstile",
    "challenge-platform",
    "_incapsula_resource",
    "perimeterx",
    "datadome",
];
/// Characters of visible text up to which a widget marker means a challenge page.
pub const WIDGET_PAGE_MAX_TEXT: usize = 1_000;
/// A body with less visible text than this ...
pub const EMPTY_PAGE_MAX_TEXT: usize = 40;
/// ... and fewer elements than this is nearly empty.
pub const EMPTY_PAGE_MAX_ELEMENTS: usize = 10;
/// A body whose only elements are scripts (`script`, `noscript`, `style`,
/// `template`) is nearly empty while its text is shorter than this.
pub const SCRIPT_ONLY_MAX_TEXT: usize = 200;

/// Why a run failed, as far as the page tells: `status` is the main
/// document's HTTP status (`None` if unknown), `html` the page after the run
/// (`None` if not captured), `error` the run's error message if it ended in
/// error. The rules, in order:
///
/// 1. HTTP 401, 403, 407 or 429 (as `status`, or in the runner's error "the
///    page answered HTTP …") → [`Diagnosis::Blocked`].
/// 2. The page could not be opened (navigation failed or refused, target
///    refused, a timeout while opening), or any other error status (the
///    runner does not run the script when the status is 400 or more) →
///    [`Diagnosis::Unreachable`].
/// 3. A captcha or bot challenge in the HTML → [`Diagnosis::Blocked`].
/// 4. A nearly empty page ([`EMPTY_PAGE_MAX_TEXT`], [`EMPTY_PAGE_MAX_ELEMENTS`],
///    [`SCRIPT_ONLY_MAX_TEXT`]) → [`Diagnosis::Blocked`].
/// 5. Otherwise [`Diagnosis::Broken`].
pub fn diagnose(status: Option<i64>, html: Option<&str>, error: Option<&str>) -> Diagnosis {
    let error = error.map(str::trim).filter(|e| !e.is_empty());
    let statuses = [status, error.and_then(status_in_error)];
    if let Some(status) = statuses.iter().flatten().find(|s| BLOCKING_STATUSES.contains(s)) {
        return Diagnosis::Blocked(format!("the page answered HTTP {status}"));
    }
    if let Some(status) = statuses.iter().flatten().find(|&&s| s >= 400) {
        return Diagnosis::Unreachable(format!("the page answered HTTP {status}"));
    }
    if let Some(error) = error.filter(|e| is_unreachable_error(e)) {
        return Diagnosis::Unreachable(cut(error, MAX_REASON_CHARS));
    }
    let Some(html) = html else { return Diagnosis::Broken };
    let page = PageText::of(html);
    if let Some(marker) = challenge_marker(html, page.chars) {
        return Diagnosis::Blocked(format!("the page shows a captcha or bot challenge (marker `{marker}`)"));
    }
    if page.is_nearly_empty() {
        let chars = page.chars;
        return Diagnosis::Blocked(format!("the page is nearly empty ({chars} characters of text)"));
    }
    Diagnosis::Broken
}

/// The status in the runner's error "the page answered HTTP 403".
fn status_in_error(error: &str) -> Option<i64> {
    let rest = error.strip_prefix(STATUS_ERROR_PREFIX)?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

fn is_unreachable_error(error: &str) -> bool {
    let lower = error.to_lowercase();
    let (timed_out, opening) = OPENING_TIMEOUT;
    UNREACHABLE_PREFIXES.iter().any(|p| lower.starts_with(p))
        || lower.find(timed_out).is_some_and(|at| lower[at..].contains(opening))
}

/// The first challenge marker in `html`; widget markers only count on a page
/// with at most [`WIDGET_PAGE_MAX_TEXT`] characters of text.
fn challenge_marker(html: &str, text_chars: usize) -> Option<&'static str> {
    let lower = html.to_lowercase();
    let found = |markers: &'static [&'static str]| markers.iter().copied().find(|m| lower.contains(m));
    found(CHALLENGE_MARKERS).or_else(|| if text_chars <= WIDGET_PAGE_MAX_TEXT { found(WIDGET_MARKERS) } else { None })
}

/// `text` cut to `max` characters, with `…` when cut.
fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

// ---------------------------------------------------------------------------
// How much a page shows.

/// Elements that start the body when met before `<body>`: anything but these.
const HEAD_ELEMENTS: &[&str] =
    &["html", "head", "title", "base", "link", "meta", "style", "script", "noscript", "template"];
/// Elements whose insides the user does not see.
const SCRIPT_ELEMENTS: &[&str] = &["script", "noscript", "style", "template"];
/// Elements whose content the tokenizer reads as raw text, and how.
const RAW_ELEMENTS: &[(&str, RawKind)] = &[
    ("script", RawKind::ScriptData),
    ("style", RawKind::Rawtext),
    ("noscript", RawKind::Rawtext),
    ("xmp", RawKind::Rawtext),
    ("iframe", RawKind::Rawtext),
    ("noembed", RawKind::Rawtext),
    ("noframes", RawKind::Rawtext),
    ("title", RawKind::Rcdata),
    ("textarea", RawKind::Rcdata),
];
/// Raw-text elements whose text shows on the page.
const VISIBLE_RAW: &[&str] = &["xmp", "textarea"];

/// What the body of a page shows: its visible text (outside `script`,
/// `style`, `noscript` and `template`, whitespace collapsed, tags counting
/// as a space) and its elements.
#[derive(Debug, Default, PartialEq, Eq)]
struct PageText {
    /// Characters of visible text.
    chars: usize,
    /// Elements in the body, not counting those inside a `template`.
    elements: usize,
    /// How many of them are `script`, `noscript`, `style` or `template`.
    script_elements: usize,
}

impl PageText {
    /// Reads `html` with the HTML5 tokenizer (linear time, so any page is
    /// safe): the body starts at `<body>`, or at the first element or text
    /// that does not belong in the head, as in a browser.
    fn of(html: &str) -> PageText {
        let sink = Scan::default();
        let tokenizer = Tokenizer::new(sink, Default::default());
        let input = BufferQueue::default();
        input.push_back(StrTendril::from_slice(html));
        let _ = tokenizer.feed(&input);
        tokenizer.end();
        tokenizer.sink.page.take()
    }

    fn is_nearly_empty(&self) -> bool {
        let tiny = self.chars < EMPTY_PAGE_MAX_TEXT && self.elements < EMPTY_PAGE_MAX_ELEMENTS;
        let script_only =
            self.script_elements > 0 && self.elements == self.script_elements && self.chars < SCRIPT_ONLY_MAX_TEXT;
        tiny || script_only
    }
}

/// The tokenizer's sink: counts as the tokens come.
#[derive(Default)]
struct Scan {
    page: RefCell<PageText>,
    in_body: Cell<bool>,
    /// The raw-text element being read, if any.
    raw: Cell<Option<&'static str>>,
    /// `template` elements open.
    templates: Cell<usize>,
    /// A space is due before the next visible character.
    space: Cell<bool>,
}

impl Scan {
    /// A start tag; `/>` is ignored, as HTML does for these elements.
    fn start_tag(&self, name: &str) -> TokenSinkResult<()> {
        if name == "body" || !HEAD_ELEMENTS.contains(&name) {
            self.in_body.set(true);
        }
        if self.in_body.get() && name != "body" && name != "html" && self.templates.get() == 0 {
            let mut page = self.page.borrow_mut();
            page.elements += 1;
            page.script_elements += usize::from(SCRIPT_ELEMENTS.contains(&name));
        }
        if name == "template" {
            self.templates.set(self.templates.get() + 1);
        }
        match RAW_ELEMENTS.iter().find(|(raw, _)| *raw == name) {
            Some(&(raw, kind)) => {
                self.raw.set(Some(raw));
                TokenSinkResult::RawData(kind)
            }
            _ if name == "plaintext" => TokenSinkResult::Plaintext,
            _ => TokenSinkResult::Continue,
        }
    }

    fn end_tag(&self, name: &str) {
        if self.raw.get() == Some(name) {
            self.raw.set(None);
        }
        if name == "template" {
            self.templates.set(self.templates.get().saturating_sub(1));
        }
    }

    fn text(&self, text: &str) {
        let hidden = self.templates.get() > 0 || self.raw.get().is_some_and(|raw| !VISIBLE_RAW.contains(&raw));
        if hidden {
            return;
        }
        if !self.in_body.get() {
            if text.chars().all(char::is_whitespace) {
                return;
            }
            self.in_body.set(true);
        }
        let mut page = self.page.borrow_mut();
        for c in text.chars() {
            if c.is_whitespace() {
                self.space.set(true);
                continue;
            }
            if self.space.get() && page.chars > 0 {
                page.chars += 1;
            }
            self.space.set(false);
            page.chars += 1;
        }
    }
}

impl TokenSink for Scan {
    type Handle = ();

    fn process_token(&self, token: Token, _line_number: u64) -> TokenSinkResult<()> {
        match token {
            TagToken(tag) => {
                self.space.set(true);
                match tag.kind {
                    StartTag => return self.start_tag(&tag.name),
                    EndTag => self.end_tag(&tag.name),
                }
            }
            CharacterTokens(text) => self.text(&text),
            _ => {}
        }
        TokenSinkResult::Continue
    }
}

// ---------------------------------------------------------------------------
// Judging a repaired script's test run.

/// Items whose keys are compared.
pub const KEYED_ITEMS: usize = 50;

/// Why a repaired script's test run does not replace the old script.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Rejection {
    #[error("the script returned no items")]
    NoItems,
    /// The item count is outside `low..=high`, the band around the recent
    /// good runs' `min..=max`.
    #[error("{}, recent good runs had {} (accepted {low} to {high})", items(*.length), span(*.min, *.max))]
    OutOfBand { length: i64, min: i64, max: i64, low: i64, high: i64 },
    /// The data is not a JSON array.
    #[error("the script's data is not a JSON array")]
    NotAnArray,
    /// The items are of other JSON types than the last good run's.
    #[error("the items are {found}, the last good run's were {expected}")]
    ItemTypes { expected: String, found: String },
    /// The union of the items' keys differs from the last good run's.
    #[error("keys differ: {}", key_changes(.missing, .unexpected))]
    Keys { missing: Vec<String>, unexpected: Vec<String> },
}

/// "1 item", "3 items".
fn items(n: i64) -> String {
    if n == 1 { "1 item".into() } else { format!("{n} items") }
}

fn span(min: i64, max: i64) -> String {
    if min == max { min.to_string() } else { format!("{min} to {max}") }
}

fn key_changes(missing: &[String], unexpected: &[String]) -> String {
    let list = |keys: &[String]| keys.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ");
    let mut parts = Vec::new();
    if !missing.is_empty() {
        parts.push(format!("missing {}", list(missing)));
    }
    if !unexpected.is_empty() {
        parts.push(format!("unexpected {}", list(unexpected)));
    }
    parts.join(", ")
}

/// Whether a repaired script's test run may replace the old script: it
/// returned items (`candidate_length` > 0); as many as recent good runs, give
/// or take a factor of two (from half the fewest, rounded up, to twice the
/// most; no recent good runs: any number; counts of 0 or less are not good
/// runs and are ignored); and items like the last good run's (the same JSON
/// types and, for objects, the same keys over the first [`KEYED_ITEMS`]
/// items; no last good data, or data without items: not checked).
pub fn judge_candidate(
    candidate_json: &str,
    candidate_length: i64,
    recent_good_lengths: &[i64],
    last_good_data: Option<&str>,
) -> Result<(), Rejection> {
    if candidate_length <= 0 {
        return Err(Rejection::NoItems);
    }
    check_band(candidate_length, recent_good_lengths)?;
    let Value::Array(items) = serde_json::from_str(candidate_json).map_err(|_| Rejection::NotAnArray)? else {
        return Err(Rejection::NotAnArray);
    };
    let good = last_good_data.map(parse_items).unwrap_or_default();
    if good.is_empty() {
        return Ok(());
    }
    let (expected, found) = (item_types(&good), item_types(&items));
    if expected != found {
        return Err(Rejection::ItemTypes { expected: types_text(&expected), found: types_text(&found) });
    }
    let (good_keys, keys) = (key_union(&good), key_union(&items));
    if good_keys != keys {
        return Err(Rejection::Keys {
            missing: good_keys.difference(&keys).cloned().collect(),
            unexpected: keys.difference(&good_keys).cloned().collect(),
        });
    }
    Ok(())
}

fn check_band(length: i64, recent_good_lengths: &[i64]) -> Result<(), Rejection> {
    let good = recent_good_lengths.iter().copied().filter(|&n| n > 0);
    let (Some(min), Some(max)) = (good.clone().min(), good.max()) else { return Ok(()) };
    let (low, high) = ((min + 1) / 2, max.saturating_mul(2));
    if (low..=high).contains(&length) { Ok(()) } else { Err(Rejection::OutOfBand { length, min, max, low, high }) }
}

/// The items of a data JSON; none when it is not an array.
fn parse_items(json: &str) -> Vec<Value> {
    match serde_json::from_str(json) {
        Ok(Value::Array(items)) => items,
        _ => Vec::new(),
    }
}

/// The JSON types of the first [`KEYED_ITEMS`] items.
fn item_types(items: &[Value]) -> BTreeSet<&'static str> {
    items.iter().take(KEYED_ITEMS).map(json_type).collect()
}

fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// "objects", "numbers and strings".
fn types_text(types: &BTreeSet<&str>) -> String {
    let plural: Vec<String> =
        types.iter().map(|t| if *t == "null" { "null".into() } else { format!("{t}s") }).collect();
    plural.join(" and ")
}

/// The top-level keys of the first [`KEYED_ITEMS`] items.
fn key_union(items: &[Value]) -> BTreeSet<String> {
    items.iter().take(KEYED_ITEMS).filter_map(Value::as_object).flat_map(|o| o.keys().cloned()).collect()
}

/// The keys of a data JSON's items: the sorted union of the top-level keys
/// of its first [`KEYED_ITEMS`] items. Empty when the data is not an array
/// of objects.
pub fn keys_of(data_json: &str) -> Vec<String> {
    key_union(&parse_items(data_json)).into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocked(d: Diagnosis) -> String {
        match d {
            Diagnosis::Blocked(reason) => reason,
            other => panic!("not blocked: {other:?}"),
        }
    }

    /// A page with plenty of text and elements.
    fn real_page(extra: &str) -> String {
        let rows: String =
            (0..50).map(|i| format!("<li class=item><a href=/p/{i}>Product number {i}</a> $1{i}.00</li>")).collect();
        format!("<html><head><title>Shop</title></head><body><h1>Products</h1><ul>{rows}</ul>{extra}</body></html>")
    }

    #[test]
    fn blocking_statuses_block() {
        for status in [401, 403, 407, 429] {
            assert_eq!(
                diagnose(Some(status), Some(&real_page("")), None),
                Diagnosis::Blocked(format!("the page answered HTTP {status}"))
            );
        }
        assert_eq!(
            diagnose(None, None, Some("the page answered HTTP 429")),
            Diagnosis::Blocked("the page answered HTTP 429".into())
        );
        assert_eq!(
            diagnose(Some(200), None, Some("the page answered HTTP 403")),
            Diagnosis::Blocked("the page answered HTTP 403".into())
        );
    }

    #[test]
    fn unreachable_pages_are_not_the_scripts_fault() {
        for error in [
            "navigation failed: net::ERR_NAME_NOT_RESOLVED",
            "navigation refused: the host resolves to a private address",
            "target refused: not an http(s) URL",
            "timed out after 30 s while opening the page",
        ] {
            assert_eq!(diagnose(None, Some(&real_page("")), Some(error)), Diagnosis::Unreachable(error.into()));
        }
        assert_eq!(diagnose(Some(502), None, None), Diagnosis::Unreachable("the page answered HTTP 502".into()));
        assert_eq!(
            diagnose(None, None, Some("the page answered HTTP 503")),
            Diagnosis::Blocked("the page answered HTTP 503".into())
        );
        // The runner never runs the script on an error status.
        assert_eq!(diagnose(Some(404), None, None), Diagnosis::Unreachable("the page answered HTTP 404".into()));
        let long = format!("navigation failed: {}", "x".repeat(1_000));
        let Diagnosis::Unreachable(reason) = diagnose(None, None, Some(&long)) else { panic!() };
        assert_eq!(reason.chars().count(), MAX_REASON_CHARS + 1);
    }

    #[test]
    fn script_errors_and_run_timeouts_are_broken_scripts() {
        let page = real_page("");
        assert_eq!(diagnose(Some(200), Some(&page), Some("the script threw: x is undefined")), Diagnosis::Broken);
        assert_eq!(diagnose(Some(200), Some(&page), Some("timed out after 30 s")), Diagnosis::Broken);
        assert_eq!(
            diagnose(Some(200), Some(&page), Some("the script threw: SVC.waitFor(\".x\") timed out after 10000 ms")),
            Diagnosis::Broken
        );
        assert_eq!(diagnose(None, None, None), Diagnosis::Broken);
        assert_eq!(
            diagnose(Some(200), None, Some("the script finished without calling returnData")),
            Diagnosis::Broken
        );
        assert_eq!(diagnose(Some(304), Some(&page), None), Diagnosis::Broken);
    }

    #[test]
    fn challenge_pages_block() {
        let cloudflare = "<!DOCTYPE html><html><head><title>Just a moment...</title></head><body><div class=main>\
            <h1>www.example.com</h1><p>Verify you are human by completing the action below.</p>\
            <div id=\"cf-chl-widget-abc\"></div></div></body></html>";
        assert_eq!(
            blocked(diagnose(Some(200), Some(cloudflare), None)),
            "the page shows a captcha or bot challenge (marker `<title>just a moment`)"
        );
        let datadome = "<html><body><script src=\"https://ct.captcha-delivery.com/c.js\"></script></body></html>";
        assert!(blocked(diagnose(None, Some(datadome), None)).contains("`captcha-delivery`"));
        // A challenge marker counts even on a page full of text.
        let px = real_page("<div id=\"px-captcha\"></div>");
        assert!(blocked(diagnose(None, Some(&px), None)).contains("`px-captcha`"));
        let upper = real_page("<p>PLEASE VERIFY YOU ARE HUMAN</p>");
        assert!(blocked(diagnose(None, Some(&upper), None)).contains("`verify you are human`"));
    }

    #[test]
    fn captcha_widgets_block_only_pages_with_little_text() {
        let widget = "<div class=\"g-recaptcha\" data-sitekey=\"k\"></div>\
            <script src=\"https://www.google.com/recaptcha/api.js\"></script>";
        let form = format!(
            "<html><body><form><p>Please complete the security check to access this site.</p>{widget}\
            <button>Submit</button></form></body></html>"
        );
        assert!(blocked(diagnose(None, Some(&form), None)).contains("`g-recaptcha`"));
        // A working page with an invisible reCAPTCHA or a Cloudflare script is not blocked.
        let page = real_page(&format!("{widget}<script src=\"/cdn-cgi/challenge-platform/scripts/jsd/main.js\">"));
        assert!(PageText::of(&page).chars > WIDGET_PAGE_MAX_TEXT);
        assert_eq!(diagnose(None, Some(&page), None), Diagnosis::Broken);
    }

    #[test]
    fn nearly_empty_pages_block() {
        assert_eq!(
            blocked(diagnose(Some(200), Some("<html><head></head><body><p>Hi</p></body></html>"), None)),
            "the page is nearly empty (2 characters of text)"
        );
        assert_eq!(blocked(diagnose(None, Some(""), None)), "the page is nearly empty (0 characters of text)");
        // A single-page app that never rendered: scripts only, text in `noscript` does not show.
        let shell = format!(
            "<html><head><script src=/a.js></script></head><body>{}<noscript>You need to enable JavaScript to run \
            this app, and here is a long explanation of why.</noscript><style>body{{margin:0}}</style></body></html>",
            "<script>window.__STATE__ = {\"items\": []}; console.log('</div>');</script>".repeat(12)
        );
        assert_eq!(blocked(diagnose(None, Some(&shell), None)), "the page is nearly empty (0 characters of text)");
    }

    #[test]
    fn short_pages_with_structure_or_text_are_not_empty() {
        let many: String = (0..12).map(|i| format!("<span>{i}</span>")).collect();
        assert_eq!(diagnose(None, Some(&format!("<body>{many}</body>")), None), Diagnosis::Broken);
        let text = format!("<body><p>{}</p></body>", "word ".repeat(10));
        assert_eq!(diagnose(None, Some(&text), None), Diagnosis::Broken);
        // Text and elements in a template do not count.
        let template = format!("<body><template>{many}{text}</template></body>");
        assert!(blocked(diagnose(None, Some(&template), None)).contains("0 characters"));
    }

    #[test]
    fn the_body_is_found_as_a_browser_finds_it() {
        assert_eq!(PageText::of("<title>A long title that is not shown on the page</title>hello  \n world").chars, 11);
        let page = PageText::of("<meta charset=utf-8><p>one</p><p>two <b>three</b></p><textarea>four</textarea>");
        assert_eq!(page, PageText { chars: 18, elements: 4, script_elements: 0 });
        let page = PageText::of("<html><body><script>a<b</script><noscript><p>x</p></noscript>&amp;</body></html>");
        assert_eq!(page, PageText { chars: 1, elements: 2, script_elements: 2 });
        // `<script/>` still opens a script in HTML.
        let page = PageText::of("<body><script src=a.js />var s = '<p>not text</p>';</script>");
        assert_eq!(page, PageText { chars: 0, elements: 1, script_elements: 1 });
    }

    #[test]
    fn candidates_need_items_in_the_band_of_recent_good_runs() {
        let data = |n: usize| serde_json::to_string(&vec![serde_json::json!({"a": 1}); n]).unwrap();
        assert_eq!(judge_candidate("[]", 0, &[10], None), Err(Rejection::NoItems));
        assert_eq!(judge_candidate(&data(1), 1, &[], None), Ok(()));
        assert_eq!(judge_candidate(&data(5), 5, &[10, 12, 11], None), Ok(()));
        assert_eq!(judge_candidate(&data(24), 24, &[10, 12], None), Ok(()));
        let low = judge_candidate(&data(3), 3, &[10, 12], None).unwrap_err();
        assert_eq!(low.to_string(), "3 items, recent good runs had 10 to 12 (accepted 5 to 24)");
        let high = judge_candidate(&data(25), 25, &[10, 12], None).unwrap_err();
        assert_eq!(high.to_string(), "25 items, recent good runs had 10 to 12 (accepted 5 to 24)");
        // Odd minimums round the lower bound up; counts of 0 are not good runs.
        assert!(judge_candidate(&data(4), 4, &[9, 0], None).is_err());
        assert_eq!(judge_candidate(&data(5), 5, &[9, 0], None), Ok(()));
        assert_eq!(
            judge_candidate(&data(1), 1, &[7], None).unwrap_err().to_string(),
            "1 item, recent good runs had 7 (accepted 4 to 14)"
        );
        assert_eq!(judge_candidate("{}", 1, &[], None), Err(Rejection::NotAnArray));
    }

    #[test]
    fn candidates_need_the_keys_of_the_last_good_data() {
        let good = r#"[{"title": "A", "price": 1}, {"title": "B", "price": 2, "sale": true}]"#;
        assert_eq!(judge_candidate(r#"[{"price": 3, "title": "C", "sale": false}]"#, 1, &[], Some(good)), Ok(()));
        let err = judge_candidate(r#"[{"title": "C", "cost": 3, "sale": false}]"#, 1, &[], Some(good)).unwrap_err();
        assert_eq!(err.to_string(), "keys differ: missing `price`, unexpected `cost`");
        let err = judge_candidate(r#"[{"title": "C", "sale": false}]"#, 1, &[], Some(good)).unwrap_err();
        assert_eq!(err.to_string(), "keys differ: missing `price`");
        let err = judge_candidate(r#"["A"]"#, 1, &[], Some(good)).unwrap_err();
        assert_eq!(err.to_string(), "the items are strings, the last good run's were objects");
        // Items that are not objects are compared by type.
        assert_eq!(judge_candidate(r#"["x", "y"]"#, 2, &[], Some(r#"["a"]"#)), Ok(()));
        let err = judge_candidate("[1, null]", 2, &[], Some(r#"["a"]"#)).unwrap_err();
        assert_eq!(err.to_string(), "the items are null and numbers, the last good run's were strings");
        // No last good items: keys are not checked.
        assert_eq!(judge_candidate(r#"[{"z": 1}]"#, 1, &[], Some("[]")), Ok(()));
        assert_eq!(judge_candidate(r#"[{"z": 1}]"#, 1, &[], Some("not json")), Ok(()));
    }

    #[test]
    fn keys_come_from_the_first_items() {
        assert_eq!(keys_of(r#"[{"b": 1, "a": 2}, {"c": 3}, 4]"#), vec!["a", "b", "c"]);
        let many: Vec<Value> = (0..60).map(|i| serde_json::json!({ format!("k{i:02}"): i })).collect();
        let keys = keys_of(&serde_json::to_string(&many).unwrap());
        assert_eq!(keys.len(), KEYED_ITEMS);
        assert_eq!(keys.last().map(String::as_str), Some("k49"));
        assert!(keys_of("{\"a\": 1}").is_empty());
        assert!(keys_of("nope").is_empty());
    }
}
