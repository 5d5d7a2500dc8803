//! A crawl: the rest of a run whose script declared `// svc:crawl` and
//! enqueued pages (`svc_engine::crawl`). The start page has run (on the
//! engine and tier the run chose); this driver runs every page it and the
//! pages after it enqueued, with the same job (engine, tier, site login,
//! warm pages of the same scrap), and makes one report of them all.
//!
//! The rules it holds, whatever the engines' scripts answered:
//! - a URL is visited once per run (normalized, fragment dropped);
//! - pages stay on the start page's site (its registrable domain) unless
//!   the directive says `any-site`; every page goes through the engine's
//!   vetted egress, so a private address is refused like any other;
//! - `pages`, `depth` and the operator's caps (`SVC_CRAWL_MAX_PAGES`,
//!   `SVC_CRAWL_TIMEOUT`), the organization's balance and the 10 MiB data
//!   cap stop the crawl; what was not run is listed `skipped_limit`;
//! - robots.txt is obeyed for enqueued pages (not the start page, which
//!   the user chose) unless the directive says `ignore-robots`; it is read
//!   once per origin through the same engine and tier, and a robots.txt
//!   that cannot be read allows everything;
//! - the run's data is every page's items in breadth-first order of
//!   enqueueing (the start page first, then the pages it enqueued in the
//!   order it enqueued them, then theirs), whatever order pages finished
//!   in with `parallel` above 1, so a site gives the same data every run.

use std::collections::{HashMap, HashSet, VecDeque};
use std::time::{Duration, Instant};

use futures::StreamExt;
use futures::stream::FuturesUnordered;
use serde_json::Value;
use svc_domain::run_page::PageStatus;
use svc_domain::site_account::SessionState;
use svc_engine::crawl::{CrawlLimits, START_LABEL, normalize};
use svc_engine::script::MAX_RESULT_CHARS;
use svc_engine::{Engine, EngineReport, Enqueued, PageCapture, PageInput, RunJob, ScriptResult, Site};

use crate::schedule::RunSlots;
use crate::scraps::proxy_tiers::{self, TierAttempt, TierSettings};

/// Default of `SVC_CRAWL_MAX_PAGES`: pages one run may visit at most.
pub const DEFAULT_MAX_PAGES: u32 = 500;
/// Pages a test run from the editor visits at most.
pub const TEST_RUN_MAX_PAGES: u32 = 10;
/// Default of `SVC_CRAWL_TIMEOUT`: how long a crawl's run may take.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);
/// What robots.txt rules svc reads (its own group, else `*`).
pub const ROBOTS_AGENT: &str = "svc";
/// The script that reads a robots.txt as a page.
const ROBOTS_SCRIPT: &str = "returnData([document.documentElement ? document.documentElement.textContent : ''])";

/// The operator's caps on crawls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CrawlSettings {
    /// `SVC_CRAWL_MAX_PAGES`.
    pub max_pages: u32,
    /// `SVC_CRAWL_TIMEOUT`: the whole run, the start page included.
    pub timeout: Duration,
}

impl Default for CrawlSettings {
    fn default() -> Self {
        CrawlSettings { max_pages: DEFAULT_MAX_PAGES, timeout: DEFAULT_TIMEOUT }
    }
}

/// The start page's input: what its `SVC.enqueue` may add.
pub(crate) fn start_page(url: &str, limits: CrawlLimits) -> PageInput {
    if !limits.is_crawl() {
        return PageInput::single();
    }
    PageInput {
        label: START_LABEL.into(),
        data: Value::Null,
        depth: 0,
        room: if limits.depth == 0 { 0 } else { limits.pages - 1 },
        site: if limits.any_site { None } else { Site::of_url(url) },
        seen: normalize(url, None).into_iter().collect(),
    }
}

/// One page of a run, as the run's row lists it.
#[derive(Clone, Debug, PartialEq)]
pub struct PageRecord {
    pub url: String,
    pub label: Option<String>,
    pub depth: u32,
    pub status: PageStatus,
    pub items: i64,
    pub duration_ms: i64,
    pub error: Option<String>,
}

/// What a crawl made: one report for the run, its pages (in the data's
/// order), and a page load per page run, for metering.
pub(crate) struct Crawled {
    pub report: EngineReport,
    pub pages: Vec<PageRecord>,
    pub attempts: Vec<TierAttempt>,
}

/// What a crawl runs on, besides its start page's report.
pub(crate) struct Crawl<'a> {
    pub engine: &'a dyn Engine,
    /// The start page's job as it ran (its engine, tier and login).
    pub job: &'a RunJob,
    pub limits: CrawlLimits,
    /// When the run started (the crawl's time limit counts from there).
    pub started: Instant,
    pub settings: CrawlSettings,
    /// Compute units the organization had when the run started; `None`: no limit.
    pub balance: Option<i64>,
    /// Units the start page took.
    pub spent: i64,
    pub tiers: &'a TierSettings,
    /// The process's run slots, when the run holds one of them and the
    /// engine takes none itself (the worker's runs): a page beyond the
    /// first in flight runs only on a free slot, so `parallel` stays within
    /// the worker's concurrency. `None`: every page is the engine's to slot.
    pub slots: Option<&'a RunSlots>,
}

/// A page waiting for its turn. `order` sorts pages into the run's data:
/// depth first, then the path of enqueue positions from the start page.
struct Pending {
    order: (u32, Vec<u32>),
    url: String,
    label: Option<String>,
    data: Value,
}

/// A page done (or skipped), with its items.
struct Done {
    order: (u32, Vec<u32>),
    record: PageRecord,
    json: Option<String>,
}

/// Why the crawl stopped early, said on every page it did not run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stop {
    Time,
    Balance,
    Data,
}

impl Stop {
    fn words(self) -> &'static str {
        match self {
            Stop::Time => "the crawl's time limit ran out (SVC_CRAWL_TIMEOUT)",
            Stop::Balance => "the organization's compute balance ran out",
            Stop::Data => "the run's data reached 10 MiB",
        }
    }
}

impl Crawl<'_> {
    /// Runs the pages `start` enqueued, and theirs, and makes one report.
    /// A start page that failed ends the run as it is.
    pub async fn run(self, start: EngineReport) -> Crawled {
        let limits = self.limits.capped(self.settings.max_pages);
        let deadline = self.started + self.settings.timeout;
        let site = if limits.any_site { None } else { Site::of_url(&self.job.url) };
        let mut state = State {
            seen: normalize(&self.job.url, None).into_iter().collect(),
            accepted: 1,
            queue: VecDeque::new(),
            done: Vec::new(),
            robots: HashMap::new(),
            session: start.session.clone(),
            spent: self.spent,
            data_chars: 0,
            stop: None,
            attempts: Vec::new(),
            bytes: start.bytes,
        };
        let start_record = record_of(&self.job.url, Some(START_LABEL.to_string()), 0, &start);
        let start_ok = matches!(start.result, ScriptResult::Data { .. });
        if let ScriptResult::Data { json, .. } = &start.result {
            state.data_chars = json.len();
        }
        let start_json = data_of(&start);
        let start_enqueued = start.enqueued.clone();
        state.done.push(Done { order: (0, vec![]), record: start_record, json: start_json });
        if start_ok {
            state.accept(&limits, site.as_ref(), (0, &[]), start_enqueued);
        }

        let mut running = FuturesUnordered::new();
        let mut last_start: Option<Instant> = None;
        loop {
            while running.len() < limits.parallel as usize && !state.queue.is_empty() {
                // The run's own slot covers one page; another takes a free one.
                let extra = match (self.slots, running.is_empty()) {
                    (Some(slots), false) => match slots.try_take() {
                        Some(permit) => Some(permit),
                        None => break,
                    },
                    _ => None,
                };
                let Some(page) = state.queue.pop_front() else { break };
                if state.stop.is_none() && Instant::now() >= deadline {
                    state.stop = Some(Stop::Time);
                }
                if let Some(stop) = state.stop {
                    state.skip(page, PageStatus::SkippedLimit, stop.words().into());
                    continue;
                }
                if !limits.ignore_robots && !self.robots_allow(&mut state, &page.url).await {
                    state.skip(page, PageStatus::SkippedRobots, "robots.txt disallows it".into());
                    continue;
                }
                if let Some(at) = last_start {
                    let wait = limits.delay.saturating_sub(at.elapsed());
                    if !wait.is_zero() {
                        tokio::time::sleep(wait).await;
                    }
                }
                last_start = Some(Instant::now());
                let job = self.page_job(&page, &state, &limits, site.as_ref(), deadline);
                let engine = self.engine;
                running.push(async move {
                    let report = engine.run(job).await;
                    drop(extra);
                    (page, report)
                });
            }
            let Some((page, report)) = running.next().await else { break };
            self.finished(&mut state, &limits, site.as_ref(), page, report);
        }

        let State { mut done, session, attempts, bytes, .. } = state;
        done.sort_by(|a, b| a.order.cmp(&b.order));
        let mut json = String::from("[");
        let mut length = 0;
        for d in &done {
            if let Some(items) = d.json.as_deref() {
                let inner = items.trim().trim_start_matches('[').trim_end_matches(']').trim();
                if !inner.is_empty() {
                    if json.len() > 1 {
                        json.push(',');
                    }
                    json.push_str(inner);
                }
                length += d.record.items;
            }
        }
        json.push(']');
        let result = if start_ok { ScriptResult::Data { json, length } } else { start.result.clone() };
        let report = EngineReport {
            result,
            duration_ms: i64::try_from(self.started.elapsed().as_millis()).unwrap_or(i64::MAX),
            bytes,
            session,
            enqueued: vec![],
            ..start
        };
        Crawled { report, pages: done.into_iter().map(|d| d.record).collect(), attempts }
    }

    /// The job of one enqueued page: the start page's, at another URL,
    /// with what its script is told and the run's newest session.
    fn page_job(
        &self,
        page: &Pending,
        state: &State,
        limits: &CrawlLimits,
        site: Option<&Site>,
        deadline: Instant,
    ) -> RunJob {
        let depth = page.order.0;
        let room = if depth >= limits.depth { 0 } else { limits.pages.saturating_sub(state.accepted) };
        let left = deadline.saturating_duration_since(Instant::now());
        RunJob {
            url: page.url.clone(),
            timeout: self.job.timeout.min(left.max(Duration::from_millis(1))),
            capture_page: PageCapture::Never,
            session: state.session.clone().or_else(|| self.job.session.clone()),
            page: PageInput {
                label: page.label.clone().unwrap_or_default(),
                data: page.data.clone(),
                depth,
                room,
                site: site.cloned(),
                seen: state.seen.iter().cloned().collect(),
            },
            ..self.job.clone()
        }
    }

    /// Records a page that ran and takes in what it enqueued.
    fn finished(
        &self,
        state: &mut State,
        limits: &CrawlLimits,
        site: Option<&Site>,
        page: Pending,
        report: EngineReport,
    ) {
        let attempt = TierAttempt { tier: self.job.tier, bytes: report.bytes };
        state.spent += proxy_tiers::run_units(std::slice::from_ref(&attempt), self.tiers);
        state.attempts.push(attempt);
        state.bytes += report.bytes;
        if report.session.is_some() {
            state.session = report.session.clone();
        }
        if state.stop.is_none() && self.balance.is_some_and(|b| state.spent >= b) {
            state.stop = Some(Stop::Balance);
        }
        let mut record = record_of(&page.url, page.label.clone(), page.order.0, &report);
        let mut json = data_of(&report);
        if let ScriptResult::Data { json: items, .. } = &report.result {
            if state.data_chars + items.len() > MAX_RESULT_CHARS {
                record.status = PageStatus::Error;
                record.error = Some("its items would take the run's data over 10 MiB".into());
                json = None;
                state.stop = Some(Stop::Data);
            } else {
                state.data_chars += items.len();
            }
        }
        let order = page.order.clone();
        state.done.push(Done { order: page.order, record, json });
        if state.stop.is_none() {
            state.accept(limits, site, (order.0, &order.1), report.enqueued);
        }
    }

    /// Whether robots.txt lets svc visit `url` (read once per origin).
    async fn robots_allow(&self, state: &mut State, url: &str) -> bool {
        let Ok(parsed) = url::Url::parse(url) else { return true };
        let origin = parsed.origin().ascii_serialization();
        if !state.robots.contains_key(&origin) {
            let job = RunJob {
                url: format!("{origin}/robots.txt"),
                script: ROBOTS_SCRIPT.into(),
                capture_page: PageCapture::Never,
                page: PageInput::single(),
                account: None,
                session: None,
                // A robots.txt is no page of the scrap's.
                reuse: None,
                ..self.job.clone()
            };
            let report = self.engine.run(job).await;
            let robot = match &report.result {
                ScriptResult::Data { json, .. } => serde_json::from_str::<Vec<String>>(json)
                    .ok()
                    .and_then(|texts| texts.into_iter().next())
                    .and_then(|text| texting_robots::Robot::new(ROBOTS_AGENT, text.as_bytes()).ok()),
                ScriptResult::Failed { .. } => None,
            };
            state.robots.insert(origin.clone(), robot);
        }
        match state.robots.get(&origin) {
            Some(Some(robot)) => robot.allowed(url),
            _ => true,
        }
    }
}

/// What a crawl keeps while it runs.
struct State {
    /// Every URL the run has, normalized.
    seen: HashSet<String>,
    /// Pages taken into the run, the start page included.
    accepted: u32,
    queue: VecDeque<Pending>,
    done: Vec<Done>,
    /// Each origin's robots.txt (`None`: none could be read; all allowed).
    robots: HashMap<String, Option<texting_robots::Robot>>,
    /// The newest session a page handed back (logged-in crawls).
    session: Option<SessionState>,
    /// Compute units the run has taken.
    spent: i64,
    /// Characters of JSON the run's data holds.
    data_chars: usize,
    stop: Option<Stop>,
    attempts: Vec<TierAttempt>,
    bytes: u64,
}

impl State {
    /// Takes in the pages a page at `parent` enqueued: each URL once, on
    /// the site, within depth; past the page limit they are listed skipped.
    fn accept(
        &mut self,
        limits: &CrawlLimits,
        site: Option<&Site>,
        (depth, path): (u32, &[u32]),
        enqueued: Vec<Enqueued>,
    ) {
        let depth = depth + 1;
        if depth > limits.depth {
            return;
        }
        for (i, e) in enqueued.into_iter().enumerate() {
            let Some(url) = normalize(&e.url, None) else { continue };
            let on_site = match (site, url::Url::parse(&url).ok().and_then(|u| u.host_str().map(str::to_string))) {
                (None, _) => true,
                (Some(site), Some(host)) => site.contains(&host),
                (Some(_), None) => false,
            };
            if !on_site || !self.seen.insert(url.clone()) {
                continue;
            }
            let mut order_path = path.to_vec();
            order_path.push(u32::try_from(i).unwrap_or(u32::MAX));
            let page = Pending { order: (depth, order_path), url, label: e.label, data: e.data };
            if self.accepted >= limits.pages {
                let words = format!("the crawl's page limit (pages={}) was reached", limits.pages);
                self.skip(page, PageStatus::SkippedLimit, words);
                continue;
            }
            self.accepted += 1;
            self.queue.push_back(page);
        }
    }

    fn skip(&mut self, page: Pending, status: PageStatus, why: String) {
        let record = PageRecord {
            url: page.url,
            label: page.label,
            depth: page.order.0,
            status,
            items: 0,
            duration_ms: 0,
            error: Some(why),
        };
        self.done.push(Done { order: page.order, record, json: None });
    }
}

fn record_of(url: &str, label: Option<String>, depth: u32, report: &EngineReport) -> PageRecord {
    let (status, items, error) = match &report.result {
        ScriptResult::Data { length, .. } => (PageStatus::Ok, *length, None),
        ScriptResult::Failed { message } => (PageStatus::Error, 0, Some(message.clone())),
    };
    PageRecord { url: url.to_string(), label, depth, status, items, duration_ms: report.duration_ms, error }
}

fn data_of(report: &EngineReport) -> Option<String> {
    match &report.result {
        ScriptResult::Data { json, .. } => Some(json.clone()),
        ScriptResult::Failed { .. } => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_start_page_of_a_crawl_may_enqueue_within_its_limits() {
        let one = start_page("https://shop.example.com/list", CrawlLimits::ONE_PAGE);
        assert_eq!(one, PageInput::single());
        let limits = svc_engine::crawl::parse("// svc:crawl pages=10 depth=2").unwrap();
        let page = start_page("https://shop.example.com/list#top", limits);
        assert_eq!((page.label.as_str(), page.depth, page.room), ("start", 0, 9));
        assert_eq!(page.site, Some(Site::of_host("example.com")));
        assert_eq!(page.seen, ["https://shop.example.com/list"]);
        let anywhere = start_page("https://shop.example.com/", CrawlLimits { any_site: true, ..limits });
        assert_eq!(anywhere.site, None);
        let flat = start_page("https://shop.example.com/", CrawlLimits { depth: 0, ..limits });
        assert_eq!(flat.room, 0);
    }

    #[test]
    fn pages_are_accepted_once_on_the_site_within_the_limits() {
        let limits = svc_engine::crawl::parse("// svc:crawl pages=4 depth=1").unwrap();
        let site = Site::of_host("example.com");
        let mut state = State {
            seen: ["https://example.com/".to_string()].into_iter().collect(),
            accepted: 1,
            queue: VecDeque::new(),
            done: vec![],
            robots: HashMap::new(),
            session: None,
            spent: 0,
            data_chars: 0,
            stop: None,
            attempts: vec![],
            bytes: 0,
        };
        let e = |url: &str| Enqueued { url: url.into(), label: Some("detail".into()), data: Value::Null };
        let enqueued = vec![
            e("https://example.com/a"),
            e("https://example.com/a#again"),
            e("https://other.example.org/b"),
            e("https://www.example.com/c"),
            e("https://example.com/"),
            e("https://example.com/d"),
            e("https://example.com/e"),
        ];
        state.accept(&limits, Some(&site), (0, &[]), enqueued);
        let queued: Vec<&str> = state.queue.iter().map(|p| p.url.as_str()).collect();
        assert_eq!(queued, ["https://example.com/a", "https://www.example.com/c", "https://example.com/d"]);
        assert_eq!(state.queue[1].order, (1, vec![3]));
        // The fourth page over the limit is listed, skipped.
        assert_eq!(state.done.len(), 1);
        assert_eq!(state.done[0].record.status, PageStatus::SkippedLimit);
        assert_eq!(state.done[0].record.url, "https://example.com/e");
        // Deeper than `depth`: not taken at all.
        state.accept(&limits, Some(&site), (1, &[0]), vec![e("https://example.com/deep")]);
        assert_eq!(state.queue.len(), 3);
    }
}
