//! Crawls: one run of a scrap over many pages. The script declares the
//! crawl in its leading comment lines, beside `// svc:load`:
//!
//! ```js
//! // svc:crawl pages=200 depth=3 parallel=2 delay=500ms
//! if (SVC.label === "start" || SVC.label === "list") {
//!   const next = document.querySelector("a.next");
//!   if (next) SVC.enqueue(next.href, { label: "list" });
//!   for (const a of document.querySelectorAll("a.item")) SVC.enqueue(a.href, { label: "detail" });
//!   returnData([]);
//! } else {
//!   returnData([{ title: document.querySelector("h1").textContent }]);
//! }
//! ```
//!
//! Every page runs the same script, with `SVC.label` (`"start"` on the
//! start page), `SVC.data` (what the enqueuing page handed it, else `null`)
//! and `SVC.depth`. `SVC.enqueue(url, {label, data})` adds a page and says
//! whether it did: `false` for a URL this run has (fragment dropped), one
//! outside the start page's site (unless `any-site`), or beyond the page
//! limit or depth. The engines answer that from [`PageInput`]; the service's
//! crawl driver decides for good (the same URL from two pages at once, the
//! registrable domain by the public suffix list, robots.txt).
//!
//! Without the directive a run is one page, as it always was: `SVC.enqueue`
//! answers `false`.

use std::time::Duration;

use serde_json::{Value, json};

use crate::site::Site;

const DIRECTIVE: &str = "svc:crawl";
/// The words `// svc:crawl` knows.
pub const WORDS: &str = "pages=N, depth=N, parallel=N, delay=<N>ms|s, any-site, ignore-robots";
/// Pages a crawl visits when the directive does not say `pages=`.
pub const DEFAULT_PAGES: u32 = 50;
/// At most this many pages at once (also bound by the worker's concurrency).
pub const MAX_PARALLEL: u32 = 8;
/// The longest `delay=` between two pages of a run.
pub const MAX_DELAY: Duration = Duration::from_secs(60);
/// Largest `SVC.enqueue` label, in characters.
pub const MAX_LABEL_CHARS: usize = 200;
/// Largest `SVC.enqueue` data, in characters of JSON.
pub const MAX_DATA_CHARS: usize = 16 * 1024;
/// Largest JSON of the pages one page enqueues, handed back by an engine.
pub const MAX_ENQUEUED_CHARS: usize = 4 * 1024 * 1024;
/// The start page's label.
pub const START_LABEL: &str = "start";

/// How far a run's crawl goes, from its `// svc:crawl` directive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CrawlLimits {
    /// Pages in all, the start page included (1: no crawl).
    pub pages: u32,
    /// Links followed from the start page (its pages are depth 1).
    pub depth: u32,
    /// Pages run at once.
    pub parallel: u32,
    /// Wait between two page starts.
    pub delay: Duration,
    /// Enqueued pages may be on any site (else the start page's only).
    pub any_site: bool,
    /// Enqueued pages are visited whatever robots.txt says.
    pub ignore_robots: bool,
}

impl CrawlLimits {
    /// A run of one page: what a script without the directive gets.
    pub const ONE_PAGE: CrawlLimits =
        CrawlLimits { pages: 1, depth: 0, parallel: 1, delay: Duration::ZERO, any_site: false, ignore_robots: false };

    pub fn is_crawl(&self) -> bool {
        self.pages > 1
    }

    /// These limits within the operator's cap on pages.
    pub fn capped(self, max_pages: u32) -> CrawlLimits {
        CrawlLimits { pages: self.pages.min(max_pages.max(1)), ..self }
    }
}

/// The script's `// svc:crawl` directive: `Ok(ONE_PAGE)` without one; an
/// unknown word or a bad number is an error naming it.
pub fn parse(script: &str) -> Result<CrawlLimits, String> {
    let mut limits = CrawlLimits::ONE_PAGE;
    for words in directive_lines(script) {
        let mut pages = None;
        limits = CrawlLimits { pages: DEFAULT_PAGES, depth: u32::MAX, ..CrawlLimits::ONE_PAGE };
        for word in words.split(|c: char| c == ',' || c.is_whitespace()).filter(|w| !w.is_empty()) {
            let number = |value: &str, low: u32, high: u32| match value.parse::<u32>() {
                Ok(n) if (low..=high).contains(&n) => Ok(n),
                _ => Err(format!("`// {DIRECTIVE}` {word}: a whole number from {low} to {high}")),
            };
            match word.split_once('=') {
                Some(("pages", v)) => pages = Some(number(v, 1, 100_000)?),
                Some(("depth", v)) => limits.depth = number(v, 0, 1_000)?,
                Some(("parallel", v)) => limits.parallel = number(v, 1, MAX_PARALLEL)?,
                Some(("delay", v)) => {
                    limits.delay = delay(v)
                        .ok_or_else(|| format!("`// {DIRECTIVE}` {word}: a delay such as 500ms or 2s, at most 60s"))?
                }
                None if word == "any-site" => limits.any_site = true,
                None if word == "ignore-robots" => limits.ignore_robots = true,
                _ => return Err(format!("`// {DIRECTIVE}` does not know `{word}`; it knows {WORDS}")),
            }
        }
        limits.pages = pages.unwrap_or(DEFAULT_PAGES);
    }
    Ok(limits)
}

/// What a stored script asks for, for a run: a directive that does not
/// parse (a script stored before it was checked) is one page.
pub fn limits_for_run(script: &str) -> CrawlLimits {
    parse(script).unwrap_or(CrawlLimits::ONE_PAGE)
}

fn delay(value: &str) -> Option<Duration> {
    let d = if let Some(ms) = value.strip_suffix("ms") {
        Duration::from_millis(ms.parse().ok()?)
    } else {
        Duration::from_secs(value.strip_suffix('s')?.parse().ok()?)
    };
    (d <= MAX_DELAY).then_some(d)
}

/// The words after `// svc:crawl` on each leading comment line.
fn directive_lines(script: &str) -> impl Iterator<Item = &str> {
    script
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .map_while(|line| line.strip_prefix("//"))
        .filter_map(|comment| comment.trim_start().strip_prefix(DIRECTIVE))
        .filter(|rest| rest.is_empty() || rest.starts_with(char::is_whitespace))
}

/// A URL as a crawl compares them: absolute (against `base`), http(s)
/// only, without its fragment. `None` for anything else.
pub fn normalize(url: &str, base: Option<&str>) -> Option<String> {
    let base = base.and_then(|b| url::Url::parse(b).ok());
    let mut parsed = url::Url::options().base_url(base.as_ref()).parse(url.trim()).ok()?;
    if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() {
        return None;
    }
    parsed.set_fragment(None);
    Some(parsed.into())
}

/// What one page of a crawl is told, and what its script's `SVC.enqueue`
/// checks before it answers.
#[derive(Clone, Debug, PartialEq)]
pub struct PageInput {
    /// `SVC.label`: [`START_LABEL`] on the start page.
    pub label: String,
    /// `SVC.data`: what the page that enqueued it handed it.
    pub data: Value,
    /// `SVC.depth`: 0 on the start page.
    pub depth: u32,
    /// Pages this page may still add (0: `SVC.enqueue` answers false).
    pub room: u32,
    /// The site enqueued pages must be on (`None`: any site).
    pub site: Option<Site>,
    /// URLs the run already has (normalized), so that a duplicate is refused.
    pub seen: Vec<String>,
}

impl PageInput {
    /// A run of one page: `SVC.label` "start", no room.
    pub fn single() -> PageInput {
        PageInput { label: START_LABEL.into(), data: Value::Null, depth: 0, room: 0, site: None, seen: vec![] }
    }

    /// What the engines' JavaScript reads (`input.page`).
    pub fn script_input(&self) -> Value {
        json!({
            "label": self.label,
            "data": self.data,
            "depth": self.depth,
            "room": self.room,
            "site": self.site.as_ref().map(Site::as_str),
            "seen": self.seen,
            "maxLabel": MAX_LABEL_CHARS,
            "maxData": MAX_DATA_CHARS,
        })
    }
}

/// A page a script added with `SVC.enqueue`, as the engine hands it back.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Enqueued {
    /// Absolute, fragment dropped.
    pub url: String,
    pub label: Option<String>,
    #[serde(default)]
    pub data: Value,
}

/// Reads the `enqueued` JSON an engine's script hands back: at most
/// `room` well-formed entries, each URL normalized; anything else dropped.
pub fn read_enqueued(json: Option<&str>, room: u32) -> Vec<Enqueued> {
    let Some(list) = json.and_then(|j| serde_json::from_str::<Vec<Value>>(j).ok()) else { return vec![] };
    list.into_iter()
        .filter_map(|v| {
            let url = normalize(v.get("url")?.as_str()?, None)?;
            let label = v.get("label").and_then(Value::as_str).map(str::to_string);
            let label = label.filter(|l| l.chars().count() <= MAX_LABEL_CHARS);
            let data = v.get("data").cloned().unwrap_or(Value::Null);
            Some(Enqueued { url, label, data })
        })
        .take(room as usize)
        .collect()
}

/// The JavaScript both engines define `SVC.enqueue` with, given `page`
/// (the page's input) and `here` (the page's URL, for relative links).
/// It pushes onto `enqueued`, which the wrapper hands back as JSON.
pub const ENQUEUE_JS: &str = r#"(page, here, enqueued) => {
  const seen = new Set(page.seen);
  return (url, options) => {
    if (enqueued.length >= page.room) return false;
    let u;
    try { u = new URL(String(url), here); } catch (e) { return false; }
    if (u.protocol !== "http:" && u.protocol !== "https:") return false;
    u.hash = "";
    const href = u.href;
    if (seen.has(href)) return false;
    const host = u.hostname.replace(/^\[|\]$/g, "").toLowerCase();
    if (page.site !== null && host !== page.site && !host.endsWith("." + page.site)) return false;
    const o = options && typeof options === "object" ? options : {};
    let label = null;
    if (o.label !== undefined && o.label !== null) {
      label = String(o.label);
      if (label.length > page.maxLabel) throw new TypeError("SVC.enqueue: the label is longer than " + page.maxLabel + " characters");
    }
    let data = null;
    if (o.data !== undefined) {
      const text = JSON.stringify(o.data);
      if (text === undefined) throw new TypeError("SVC.enqueue: data must be a JSON value");
      if (text.length > page.maxData) throw new TypeError("SVC.enqueue: data is larger than " + page.maxData + " characters of JSON");
      data = JSON.parse(text);
    }
    seen.add(href);
    enqueued.push({ url: href, label, data });
    return true;
  };
}"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_directive_is_one_page() {
        assert_eq!(parse("returnData([]);"), Ok(CrawlLimits::ONE_PAGE));
        assert!(!CrawlLimits::ONE_PAGE.is_crawl());
        assert_eq!(parse("const a = 1;\n// svc:crawl pages=5\nreturnData([]);"), Ok(CrawlLimits::ONE_PAGE));
        assert_eq!(parse("// svc:crawler pages=5\nreturnData([]);"), Ok(CrawlLimits::ONE_PAGE));
    }

    #[test]
    fn the_directive_sets_the_limits() {
        let limits =
            parse("// svc:load images\n// svc:crawl pages=200 depth=3 parallel=2 delay=500ms\nreturnData([]);");
        assert_eq!(
            limits,
            Ok(CrawlLimits {
                pages: 200,
                depth: 3,
                parallel: 2,
                delay: Duration::from_millis(500),
                any_site: false,
                ignore_robots: false
            })
        );
        let bare = parse("// svc:crawl\n").unwrap();
        assert_eq!((bare.pages, bare.depth, bare.parallel), (DEFAULT_PAGES, u32::MAX, 1));
        let open = parse("// svc:crawl any-site, ignore-robots delay=2s").unwrap();
        assert!(open.any_site && open.ignore_robots && open.delay == Duration::from_secs(2));
        assert_eq!(parse("// svc:crawl pages=500").unwrap().capped(100).pages, 100);
    }

    #[test]
    fn bad_words_are_named() {
        for (script, says) in [
            ("// svc:crawl pages=0", "pages=0"),
            ("// svc:crawl pages=many", "pages=many"),
            ("// svc:crawl parallel=9", "parallel=9"),
            ("// svc:crawl delay=5m", "delay=5m"),
            ("// svc:crawl delay=61s", "delay=61s"),
            ("// svc:crawl follow-links", "`follow-links`"),
        ] {
            let error = parse(script).unwrap_err();
            assert!(error.contains(says), "{script}: {error}");
        }
        assert_eq!(limits_for_run("// svc:crawl pages=0\nreturnData([])"), CrawlLimits::ONE_PAGE);
    }

    #[test]
    fn urls_are_normalized() {
        let base = Some("https://shop.example.com/list?page=1#top");
        assert_eq!(normalize("/item/3#reviews", base).as_deref(), Some("https://shop.example.com/item/3"));
        assert_eq!(normalize("?page=2", base).as_deref(), Some("https://shop.example.com/list?page=2"));
        assert_eq!(normalize("HTTPS://Shop.Example.com:443/a", None).as_deref(), Some("https://shop.example.com/a"));
        for refused in ["mailto:a@example.com", "javascript:alert(1)", "ftp://example.com/", "data:text/html,x"] {
            assert_eq!(normalize(refused, base), None, "{refused}");
        }
        assert_eq!(normalize("/relative", None), None);
    }

    #[test]
    fn enqueued_pages_are_read_within_room() {
        let json = r#"[{"url":"https://a.example/1#x","label":"detail","data":{"i":1}},{"url":"mailto:x@y"},
                       {"nourl":1},{"url":"https://a.example/2"},{"url":"https://a.example/3"}]"#;
        let read = read_enqueued(Some(json), 2);
        assert_eq!(
            read,
            [
                Enqueued { url: "https://a.example/1".into(), label: Some("detail".into()), data: json!({"i": 1}) },
                Enqueued { url: "https://a.example/2".into(), label: None, data: Value::Null },
            ]
        );
        assert!(read_enqueued(Some("not json"), 5).is_empty());
        assert!(read_enqueued(None, 5).is_empty());
    }

    #[test]
    fn page_input_is_what_the_script_reads() {
        let page = PageInput {
            label: "list".into(),
            data: json!({"n": 2}),
            depth: 1,
            room: 3,
            site: Some(Site::of_host("shop.example.com")),
            seen: vec!["https://shop.example.com/".into()],
        };
        let input = page.script_input();
        assert_eq!(input["site"], "example.com");
        assert_eq!((input["label"].as_str(), input["room"].as_u64()), (Some("list"), Some(3)));
        assert_eq!(PageInput::single().script_input()["room"], 0);
    }
}
