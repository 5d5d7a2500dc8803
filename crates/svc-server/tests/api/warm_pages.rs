//! Warm pages (svc-runner's `warm_pages.rs`): a finished run's page serves
//! the next run of the same scrap, or of another scrap of the same
//! organization on the origin it shows, emptied, and nobody else's. Each test
//! proves both halves: that the page was reused (the engine counts it), and
//! that the run in it found no state of any earlier run.

use std::sync::Arc;

use serde_json::{Value, json};
use svc_domain::{OrgId, ScrapId};
use svc_engine::Loads;
use svc_engine::ScriptResult;
use svc_engine::{Engine, ReuseKey, RunJob};

use crate::common::fixture;
use crate::runs::{engine_config, job_for};

/// Waits for `/state` to settle, leaves state of its own from the script's
/// world too (a value, and a timer that goes on writing storage and a
/// cookie), and returns what the page found when it started, with the
/// page's visibility once an animation frame has been drawn.
const READ_STATE: &str = "await SVC.waitFor('body[data-ready]'); \
    localStorage.setItem('script', '1'); \
    setInterval(() => { localStorage.setItem('script-late', '1'); document.cookie = 'script-late=1'; }, 5); \
    const seen = JSON.parse(document.getElementById('seen').textContent); \
    await new Promise(frame => requestAnimationFrame(frame)); \
    returnData([{ ...seen, visibleForTheScript: document.visibilityState }])";

fn warm_engine(warm_pages: usize) -> Arc<svc_runner::ChromiumEngine> {
    let config = engine_config(svc_runner::sandbox::DEFAULT_BROWSER_USER, 100, 1);
    Arc::new(svc_runner::ChromiumEngine::new(svc_runner::EngineConfig { warm_pages, ..config }))
}

fn job(url: &str, script: &str, key: ReuseKey) -> RunJob {
    RunJob { reuse: Some(key), ..job_for(url, script) }
}

/// `job` with `// svc:load fonts`.
fn with_fonts(job: RunJob) -> RunJob {
    RunJob { loads: Loads { fonts: true, ..Loads::default() }, ..job }
}

/// What the script returned, from a run that must have succeeded.
fn returned(report: svc_engine::EngineReport) -> Value {
    match report.result {
        ScriptResult::Data { json, .. } => serde_json::from_str(&json).unwrap(),
        ScriptResult::Failed { message } => panic!("the run failed: {message}"),
    }
}

/// What the page found, from a run that must have succeeded. Its history
/// holds no earlier run's entries: at most the blank page a new context
/// starts with and itself (a warm page navigating to the URL it shows
/// replaces its entry, so 1 there), and is left out of the rest.
async fn state_seen(engine: &dyn Engine, job: RunJob) -> Value {
    let mut seen = returned(engine.run(job).await)[0].clone();
    let history = seen.as_object_mut().unwrap().remove("history").and_then(|h| h.as_i64());
    assert!(matches!(history, Some(1 | 2)), "history.length {history:?}");
    seen
}

/// Whether none of the requests `/state`'s `pagehide` handler makes when
/// a warm page's next document replaces it went (checked before the engine
/// closes: Debian's full Chromium does not pause the requests of a page
/// being closed, so these go then).
fn no_request_outlived_its_document(site: &fixture::Fixture) {
    let hits = site.asset_hits.lock().unwrap().clone();
    assert!(!hits.iter().any(|hit| hit.starts_with("unload-")), "an old document's request went: {hits:?}");
}

/// Runs `read` (which returns strings) on `url` `runs` times for one
/// scrap: each must read `expected`, and each after the first in the page
/// the run before left.
async fn reads_in_every_run(
    engine: &svc_runner::ChromiumEngine,
    url: &str,
    read: &str,
    key: ReuseKey,
    runs: u64,
    expected: &[&str],
) {
    for run in 0..runs {
        reads_in_run(engine, url, read, key, run, expected).await;
    }
}

/// Run number `run` (from 0) of a scrap's runs of `read` on `url`: it
/// must read `expected`, in the page the run before left (but the first).
async fn reads_in_run(
    engine: &svc_runner::ChromiumEngine,
    url: &str,
    read: &str,
    key: ReuseKey,
    run: u64,
    expected: &[&str],
) {
    match engine.run(job(url, read, key)).await.result {
        ScriptResult::Data { json, .. } => {
            let seen: Vec<String> = serde_json::from_str(&json).unwrap();
            assert_eq!(seen, expected, "run {run}");
        }
        ScriptResult::Failed { message } => panic!("run {run}: {message}"),
    }
    assert_eq!(engine.runs_in_warm_pages(), run, "run {run} ran in the page the run before left");
}

/// What a page finds in a new context: nothing but the cookie its own
/// response set.
fn clean() -> Value {
    json!({
        "server": "", "cookie": "server=1", "local": "", "session": "", "name": "",
        "visibility": "visible", "visibleForTheScript": "visible",
        "idb": "", "caches": "", "frame": "",
    })
}

#[tokio::test]
async fn a_warm_page_keeps_no_state_from_one_run_to_the_next() {
    let site = fixture::start().await;
    let engine = warm_engine(4);
    let url = format!("{}/state", site.base);
    let key = ReuseKey { organization: OrgId::new(), scrap: ScrapId::new() };

    let first = state_seen(&*engine, job(&url, READ_STATE, key)).await;
    assert_eq!(first, clean(), "a new context is empty");
    assert_eq!(engine.runs_in_warm_pages(), 0);
    for run in 1..=3 {
        let seen = state_seen(&*engine, job(&url, READ_STATE, key)).await;
        assert_eq!(engine.runs_in_warm_pages(), run, "run {run} ran in the page the run before left");
        assert_eq!(seen, clean(), "run {run} found state an earlier run left");
    }
    no_request_outlived_its_document(&site);
    engine.close().await;
}

#[tokio::test]
async fn a_warm_page_is_emptied_whatever_the_url_brings() {
    let site = fixture::start().await;
    let engine = warm_engine(4);
    let key = ReuseKey { organization: OrgId::new(), scrap: ScrapId::new() };
    // The page already shows `/state`: the same URL with a fragment would
    // otherwise be a navigation within its document.
    let fragment = format!("{}/state#top", site.base);
    // The new document comes after a redirect.
    let redirected = format!("{}/redirect/state", site.base);
    // Another site: the next document gets another renderer, and the old
    // one's unload handlers run after the new one commits (its beacons
    // come while the new one is held).
    let other_site = format!("{}/state", site.base.replace("127.0.0.1", "localhost"));
    let urls = [&fragment, &fragment, &redirected, &redirected, &other_site, &fragment, &other_site, &other_site];
    for (n, url) in urls.into_iter().enumerate() {
        assert_eq!(state_seen(&*engine, job(url, READ_STATE, key)).await, clean(), "run {n}, {url}");
        assert_eq!(engine.runs_in_warm_pages(), n as u64, "run {n} ran in the page the run before left");
    }
    no_request_outlived_its_document(&site);
    engine.close().await;
}

#[tokio::test]
async fn an_answer_without_a_document_never_shows_the_last_runs_page() {
    let site = fixture::start().await;
    let engine = warm_engine(4);
    let key = ReuseKey { organization: OrgId::new(), scrap: ScrapId::new() };
    let state = format!("{}/state", site.base);
    assert_eq!(state_seen(&*engine, job(&state, READ_STATE, key)).await, clean());
    // A 204 commits no document, so the last run's stays: the run must not
    // read it. Chromium never reports such a navigation done: the run ends
    // at the answer, and its page serves no other run.
    let where_am_i = "returnData([location.href, String(document.getElementById('seen') !== null)])";
    match engine.run(job(&format!("{}/status/204", site.base), where_am_i, key)).await.result {
        ScriptResult::Failed { message } => {
            assert!(message.contains("HTTP 204") && message.contains("no document"), "{message}")
        }
        ScriptResult::Data { json, .. } => panic!("the run read a document after a 204: {json}"),
    }
    assert_eq!(engine.runs_in_warm_pages(), 1);
    assert_eq!(state_seen(&*engine, job(&state, READ_STATE, key)).await, clean());
    engine.close().await;
}

#[tokio::test]
async fn a_warm_page_reads_documents_that_are_not_html() {
    let site = fixture::start().await;
    let engine = warm_engine(4);
    let key = ReuseKey { organization: OrgId::new(), scrap: ScrapId::new() };
    let url = format!("{}/json", site.base);
    let read = "returnData([document.body.innerText, location.href])";
    reads_in_every_run(&engine, &url, read, key, 3, &[r#"{"items":[1,2,3]}"#, url.as_str()]).await;
    engine.close().await;
}

#[tokio::test]
async fn a_warm_page_loads_the_new_documents_scripts_and_styles() {
    let site = fixture::start().await;
    let engine = warm_engine(4);
    let key = ReuseKey { organization: OrgId::new(), scrap: ScrapId::new() };
    let url = format!("{}/scripted", site.base);
    let read = "returnData([String(document.documentElement.dataset.app), \
                getComputedStyle(document.querySelector('p')).color])";
    // The page's own script and stylesheet, in every run.
    reads_in_every_run(&engine, &url, read, key, 4, &["ran", "rgb(1, 2, 3)"]).await;
    engine.close().await;
}

#[tokio::test]
async fn a_warm_page_reads_nothing_an_earlier_run_cached() {
    let site = fixture::start().await;
    let engine = warm_engine(4);
    let key = ReuseKey { organization: OrgId::new(), scrap: ScrapId::new() };
    let url = format!("{}/cached", site.base);
    let read = "returnData([String(document.documentElement.dataset.served)])";
    // The script may be cached for an hour, by the HTTP cache or the
    // renderer's: every run gets it from the server all the same.
    for run in 0..4u64 {
        let served = (run + 1).to_string();
        reads_in_run(&engine, &url, read, key, run, &[served.as_str()]).await;
    }
    engine.close().await;
}

#[tokio::test]
async fn a_warm_page_holds_documents_that_forbid_synchronous_requests() {
    let site = fixture::start().await;
    let engine = warm_engine(4);
    let key = ReuseKey { organization: OrgId::new(), scrap: ScrapId::new() };
    // Sent with `Permissions-Policy: sync-xhr=(), geolocation=()`: the
    // hold's member of the policy goes, the rest stays.
    let url = format!("{}/state?policy=no-sync-xhr", site.base);
    let read = "await SVC.waitFor('body[data-ready]'); \
        const seen = JSON.parse(document.getElementById('seen').textContent); \
        await new Promise(frame => requestAnimationFrame(frame)); \
        const policy = document.featurePolicy || document.permissionsPolicy; \
        returnData([{ ...seen, visibleForTheScript: document.visibilityState, \
                      geolocation: String(policy.allowsFeature('geolocation')) }])";
    for run in 0..4 {
        let mut seen = state_seen(&*engine, job(&url, read, key)).await;
        let geolocation = seen.as_object_mut().unwrap().remove("geolocation");
        assert_eq!(geolocation, Some(json!("false")), "run {run}: the rest of the policy applies");
        assert_eq!(seen, clean(), "run {run} found state an earlier run left");
        assert_eq!(engine.runs_in_warm_pages(), run, "run {run} ran in the page the run before left");
    }
    no_request_outlived_its_document(&site);
    engine.close().await;
}

#[tokio::test]
async fn a_warm_page_serves_its_organization_only_and_another_scrap_only_on_its_origin() {
    let site = fixture::start().await;
    // Room for every page of the test (three parked, a run's, a spare and
    // one being disposed): none is pushed out by the page budget.
    let engine = warm_engine(6);
    let url = format!("{}/state", site.base);
    let other_origin = url.replace("127.0.0.1", "localhost");
    let alice = OrgId::new();
    let a1 = ReuseKey { organization: alice, scrap: ScrapId::new() };
    let a2 = ReuseKey { organization: alice, scrap: ScrapId::new() };
    let a3 = ReuseKey { organization: alice, scrap: ScrapId::new() };
    // The same scrap id under another organization: keys are compared whole.
    let mallory = ReuseKey { organization: OrgId::new(), scrap: a1.scrap };

    assert_eq!(state_seen(&*engine, job(&url, READ_STATE, a1)).await, clean());
    // a1's page is parked (or being emptied): another organization never gets it.
    assert_eq!(state_seen(&*engine, job(&url, READ_STATE, mallory)).await, clean());
    assert_eq!(engine.runs_in_warm_pages(), 0, "no run of another organization took a parked page");
    // A run without a key (a test run, an AI task) takes none either.
    assert_eq!(state_seen(&*engine, job_for(&url, READ_STATE)).await, clean());
    assert_eq!(engine.runs_in_warm_pages(), 0);
    // Another scrap of the organization on another origin: not a page that shows another.
    assert_eq!(state_seen(&*engine, job(&other_origin, READ_STATE, a3)).await, clean());
    assert_eq!(engine.runs_in_warm_pages(), 0, "a page is shared only on the origin it shows");
    // On the same origin: a1's page, and nothing a1's run left in it.
    assert_eq!(state_seen(&*engine, job(&url, READ_STATE, a2)).await, clean());
    assert_eq!((engine.runs_in_warm_pages(), engine.runs_in_shared_pages()), (1, 1));
    // Each scrap's next run finds its own page (a2 has a1's now), and nothing in it.
    for (n, key) in [a2, mallory, a3].into_iter().enumerate() {
        let target = if key == a3 { &other_origin } else { &url };
        assert_eq!(state_seen(&*engine, job(target, READ_STATE, key)).await, clean());
        assert_eq!(engine.runs_in_warm_pages(), n as u64 + 2);
    }
    assert_eq!(engine.runs_in_shared_pages(), 1);
    engine.close().await;
}

/// Two organizations, two scraps each, runs interleaved on one origin:
/// pages are shared between the scraps of an organization, and each run
/// finds no state of any earlier run; no renderer process (told apart by
/// its V8 isolate) ever runs the pages of both organizations.
#[tokio::test]
async fn no_state_and_no_renderer_crosses_organizations() {
    let site = fixture::start().await;
    let engine = warm_engine(2);
    engine.log_renderers();
    let url = format!("{}/state", site.base);
    let (alice, bob) = (OrgId::new(), OrgId::new());
    let scraps = [
        ReuseKey { organization: alice, scrap: ScrapId::new() },
        ReuseKey { organization: bob, scrap: ScrapId::new() },
        ReuseKey { organization: alice, scrap: ScrapId::new() },
        ReuseKey { organization: bob, scrap: ScrapId::new() },
    ];
    for round in 0..3 {
        for (n, key) in scraps.iter().enumerate() {
            let seen = state_seen(&*engine, job(&url, READ_STATE, *key)).await;
            assert_eq!(seen, clean(), "round {round}, scrap {n}: state of an earlier run");
        }
    }
    // Two pages parked, one per organization: after the first run of each,
    // every run found its organization's page.
    assert_eq!(engine.runs_in_warm_pages(), 10);
    assert!(engine.runs_in_shared_pages() >= 8, "{} runs in another scrap's page", engine.runs_in_shared_pages());
    let seen = engine.renderers_seen();
    assert_eq!(seen.len(), 12, "every run's renderer was read");
    let mut organizations_of: std::collections::HashMap<&str, std::collections::HashSet<OrgId>> = Default::default();
    for (org, renderer) in &seen {
        organizations_of.entry(renderer.as_str()).or_default().insert(*org);
    }
    assert!(organizations_of.values().all(|orgs| orgs.len() == 1), "a renderer served both: {seen:?}");
    assert!(organizations_of.len() >= 2 && organizations_of.len() < 12, "renderers were reused: {seen:?}");
    no_request_outlived_its_document(&site);
    engine.close().await;
}

/// Runs that do not load web fonts use a browser whose renderers never ask
/// for one; a run that opts in (`// svc:load fonts`) gets the other
/// browser, started only then. A scrap whose script changes its mind is not
/// given its parked page of the wrong browser.
#[tokio::test]
async fn runs_that_load_fonts_get_the_browser_that_asks_for_them() {
    use svc_runner::browser::Fonts;
    let site = fixture::start().await;
    let engine = warm_engine(4);
    let url = format!("{}/assets", site.base);
    let key = ReuseKey { organization: OrgId::new(), scrap: ScrapId::new() };
    let read = "await document.fonts.load('16px Face').catch(() => null); \
                returnData([...document.fonts].map(face => face.status))";
    let font_requests = || site.asset_hits.lock().unwrap().iter().filter(|hit| *hit == "face.woff2").count();

    // By default: the font face failed, as when the guard refused it, and nothing asked for it.
    assert_eq!(returned(engine.run(job(&url, read, key)).await), json!(["error"]));
    assert_eq!(font_requests(), 0);
    assert_eq!(engine.fonts_refused_by_the_guard(), 0, "the renderer never asked for the font");
    assert!(site.asset_hit("style.css"), "the stylesheet that declares the font loaded");
    let default_browser = engine.browser_pid_of(Fonts::Refused).await.expect("the default browser runs");
    assert_eq!(engine.browser_pid_of(Fonts::Loadable).await, None, "the other browser starts only when needed");

    // The scrap now loads fonts: not in its parked page, in the other browser.
    let report = engine.run(with_fonts(job(&url, read, key))).await;
    // The fixture's font is not a real one: it came, and failed to decode.
    assert_eq!(returned(report), json!(["error"]));
    assert_eq!(font_requests(), 1, "the font was asked for");
    assert_eq!(engine.runs_in_warm_pages(), 0, "the default browser's page was not used");
    let font_browser = engine.browser_pid_of(Fonts::Loadable).await.expect("the font browser runs");
    assert_ne!(font_browser, default_browser);

    // Its next run finds the page that run left, and loads the font again.
    engine.run(with_fonts(job(&url, read, key))).await;
    assert_eq!((font_requests(), engine.runs_in_warm_pages()), (2, 1));

    // Back to the default: a page of the default browser again, no font.
    assert_eq!(returned(engine.run(job(&url, read, key)).await), json!(["error"]));
    assert_eq!((font_requests(), engine.runs_in_warm_pages()), (2, 1));
    assert_eq!(engine.browser_pid_of(Fonts::Refused).await, Some(default_browser));
    assert_eq!(engine.fonts_refused_by_the_guard(), 0);
    engine.close().await;
    crate::runs::wait_gone(default_browser, "the default").await;
    crate::runs::wait_gone(font_browser, "the font").await;
}

/// Runs skip fonts wherever they come from: a font inlined as a `data:`
/// URL, which no request guard sees, loads only for a script that asks.
#[tokio::test]
async fn inline_fonts_load_only_when_the_script_asks() {
    let site = fixture::start().await;
    let engine = warm_engine(0);
    let url = format!("{}/inline-font", site.base);
    let read = "await document.fonts.ready; returnData([...document.fonts].map(face => face.status))";
    assert_eq!(returned(engine.run(job_for(&url, read)).await), json!(["error"]), "skipped by default");
    assert_eq!(returned(engine.run(with_fonts(job_for(&url, read))).await), json!(["loaded"]), "loaded when asked for");
    engine.close().await;
}

#[tokio::test]
async fn pages_of_failed_runs_are_reused_but_not_those_that_timed_out() {
    let site = fixture::start().await;
    let engine = warm_engine(4);
    let key = ReuseKey { organization: OrgId::new(), scrap: ScrapId::new() };
    let items = format!("{}/items/3", site.base);

    // A script that throws leaves a sound page: the next run takes it.
    let report = engine.run(job(&items, "throw new Error('broken selector')", key)).await;
    assert!(matches!(report.result, ScriptResult::Failed { .. }), "{:?}", report.result);
    let report = engine
        .run(job(&items, "returnData([...document.querySelectorAll('li')].map(li => li.textContent))", key))
        .await;
    assert!(matches!(report.result, ScriptResult::Data { length: 3, .. }), "{:?}", report.result);
    assert_eq!(engine.runs_in_warm_pages(), 1);

    // A run that timed out with its script still spinning leaves no page.
    let spinning = RunJob { timeout: std::time::Duration::from_secs(3), ..job(&items, "while (true) {}", key) };
    let report = engine.run(spinning).await;
    match &report.result {
        ScriptResult::Failed { message } => assert!(message.contains("timed out"), "{message}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(engine.runs_in_warm_pages(), 2, "the spinning run ran in the page the data run left");
    let report = engine.run(job(&items, "returnData([document.title])", key)).await;
    assert!(matches!(report.result, ScriptResult::Data { length: 1, .. }), "{:?}", report.result);
    assert_eq!(engine.runs_in_warm_pages(), 2, "the page of the run that timed out was not kept");
    engine.close().await;
}

#[tokio::test]
async fn without_warm_pages_every_run_has_a_new_context() {
    let site = fixture::start().await;
    let engine = warm_engine(0);
    let url = format!("{}/state", site.base);
    let key = ReuseKey { organization: OrgId::new(), scrap: ScrapId::new() };
    for _ in 0..2 {
        assert_eq!(state_seen(&*engine, job(&url, READ_STATE, key)).await, clean());
    }
    assert_eq!(engine.runs_in_warm_pages(), 0);
    engine.close().await;
}

/// The page budget (`max(SVC_WARM_PAGES, SVC_SPARE_PAGES)`) bounds every
/// page the browser has: those runs hold, parked, spare, being made and
/// being disposed. Scraps of distinct organizations, as many at once as
/// the budget, each needing a page of its own: the browser, watched
/// through its DevTools target list throughout, never has more pages.
/// With one spare and no warm pages, the budget is one page: a run that
/// comes while the last run's page is disposed and its replacement spare is
/// being made takes that spare, rather than wait for room and then push the
/// spare out unused (which cost about 2 s and a renderer per run).
#[tokio::test]
async fn runs_one_after_another_each_take_the_spare_made_for_them() {
    let site = fixture::start().await;
    let engine = svc_runner::ChromiumEngine::new(engine_config(svc_runner::sandbox::DEFAULT_BROWSER_USER, 100, 1));
    let url = format!("{}/state", site.base);
    let runs = 8;
    let http = reqwest::Client::new();
    for n in 0..runs {
        assert_eq!(state_seen(&engine, job_for(&url, READ_STATE)).await, clean(), "run {n}");
        // What a caller does between runs (here a request of its own):
        // the last run's page is being disposed when the next run comes.
        http.get(&url).send().await.unwrap().error_for_status().unwrap();
    }
    // Each run's page, and at most the spare made after the last one.
    let made = engine.pages_made();
    assert!(made <= runs + 1, "{made} pages made for {runs} runs: spares were made and thrown away");
    engine.close().await;
}

#[tokio::test]
async fn the_page_budget_bounds_every_page_the_browser_has() {
    let site = fixture::start().await;
    let budget = 2;
    // No spares: after the first run svc holds exactly its parked page.
    let config = engine_config(svc_runner::sandbox::DEFAULT_BROWSER_USER, 100, 0);
    let engine = Arc::new(svc_runner::ChromiumEngine::new(svc_runner::EngineConfig { warm_pages: budget, ..config }));
    let url = format!("{}/state", site.base);
    // The browser starts with the first run.
    assert_eq!(
        state_seen(&*engine, job(&url, READ_STATE, ReuseKey { organization: OrgId::new(), scrap: ScrapId::new() }))
            .await,
        clean()
    );
    let port = engine.devtools_port().await.expect("the browser's DevTools port");
    let http = reqwest::Client::new();
    let pages = || {
        let http = http.clone();
        async move {
            let targets: Vec<Value> =
                http.get(format!("http://127.0.0.1:{port}/json/list")).send().await.unwrap().json().await.unwrap();
            targets.iter().filter(|t| t["type"] == "page").count()
        }
    };
    // The browser's own pages (full Chromium opens a tab of its own; the
    // headless shell none): all but the first run's parked page.
    let own = pages().await.checked_sub(1).expect("the first run's page is parked");
    let done = std::sync::atomic::AtomicBool::new(false);
    let watch = async {
        let mut most = 0;
        while !done.load(std::sync::atomic::Ordering::SeqCst) {
            most = most.max(pages().await);
            tokio::task::yield_now().await;
        }
        most
    };
    let runs = async {
        for _ in 0..4 {
            let a = job(&url, READ_STATE, ReuseKey { organization: OrgId::new(), scrap: ScrapId::new() });
            let b = job(&url, READ_STATE, ReuseKey { organization: OrgId::new(), scrap: ScrapId::new() });
            let (a, b) = tokio::join!(state_seen(&*engine, a), state_seen(&*engine, b));
            assert_eq!((a, b), (clean(), clean()));
        }
        done.store(true, std::sync::atomic::Ordering::SeqCst);
    };
    let (most, ()) = tokio::join!(watch, runs);
    let most = most - own;
    assert!(most >= 1, "the watcher saw the runs' pages");
    assert!(most <= budget, "svc had {most} pages at once, the budget is {budget}");
    assert_eq!(engine.runs_in_warm_pages(), 0, "no organization had a page to reuse");
    engine.close().await;
}

/// A worker tells the engine of each claim (`Engine::claimed`): the warm
/// page that fits the claimed run is kept for it until it comes. The next
/// claims are not offered that page, and a new page made at the page
/// budget pushes out another one, though the kept page is older; the
/// claimed run then finds it. Without that, on a fleet two runs of one
/// organization and site were claimed for one page, and the second made a
/// page that pushed out another group's (docs/benchmarks.md).
#[tokio::test]
async fn a_page_kept_for_a_claimed_run_is_neither_offered_again_nor_pushed_out() {
    let site = fixture::start().await;
    // No spares, two pages at most.
    let config = engine_config(svc_runner::sandbox::DEFAULT_BROWSER_USER, 100, 0);
    let engine = Arc::new(svc_runner::ChromiumEngine::new(svc_runner::EngineConfig { warm_pages: 2, ..config }));
    let url = format!("{}/state", site.base);
    let other_origin = url.replace("127.0.0.1", "localhost");
    let (alice, bob, carol) = (OrgId::new(), OrgId::new(), OrgId::new());
    let key = |organization| ReuseKey { organization, scrap: ScrapId::new() };
    let (a1, a2, b1, c1) = (key(alice), key(alice), key(bob), key(carol));
    let offered = |org: OrgId| engine.warm().iter().filter(|w| w.organization == org).count();

    // Alice's page first, then Bob's on another origin.
    assert_eq!(state_seen(&*engine, job(&url, READ_STATE, a1)).await, clean());
    assert_eq!(state_seen(&*engine, job(&other_origin, READ_STATE, b1)).await, clean());
    assert_eq!((offered(alice), offered(bob)), (1, 1), "both pages are warm");
    // A run of another scrap of Alice's on her page's origin is claimed.
    engine.claimed(a2, &url, "puppeteer");
    assert_eq!((offered(alice), offered(bob)), (0, 1), "the page kept for the claimed run is not offered again");
    // Carol's run needs a page at the budget: Bob's goes, not Alice's older one.
    assert_eq!(state_seen(&*engine, job(&url, READ_STATE, c1)).await, clean());
    assert_eq!(engine.runs_in_warm_pages(), 0);
    // The claimed run finds Alice's page, and nothing a1's run left in it.
    assert_eq!(state_seen(&*engine, job(&url, READ_STATE, a2)).await, clean());
    assert_eq!((engine.runs_in_warm_pages(), engine.runs_in_shared_pages()), (1, 1));
    assert_eq!(engine.pages_made(), 3, "Alice's, Bob's and Carol's");
    // Kept no more once its run came: Alice's page (parked again) is offered.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while offered(alice) == 0 {
        assert!(std::time::Instant::now() < deadline, "Alice's page was never offered again");
        tokio::task::yield_now().await;
    }
    engine.close().await;
}
