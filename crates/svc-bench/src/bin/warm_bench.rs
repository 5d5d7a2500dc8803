//! What emptying a warm page costs, step by step: Chromium CPU per run of
//! the 50-item page, for variants of what happens between two runs of a
//! scrap in the page the first one leaves (docs/benchmarks.md, "Runs with
//! warm pages"). Not svc end to end (`run-bench` is that): the DevTools
//! steps of svc's engine, on a Chromium of its own, so that one step can be
//! changed at a time.
//!
//!     cargo build --release -p svc-bench --bin warm-bench
//!     target/release/warm-bench --chromium /usr/lib/chromium/chromium-headless-shell
//!
//! Each variant gets a new browser with svc's flags and `--concurrency`
//! pages (one context each, set up as svc's engine sets up a page: every
//! request paused, images and fonts failed, cache off, the script's world
//! on every new document). Each page serves `--runs / --concurrency` runs
//! in a row: navigate, find the world, evaluate the extraction, empty.
//! Some variants leave the old document alive and are not isolated: they
//! measure what a step costs, not a design. `svc` is the shipped design's
//! DevTools steps (`about:blank` at parking, the next document held; svc
//! also clears cookies before the navigation and reads the jar at the
//! answer), `blank-clear` the design before the hold, `freeze-hold` the
//! design from 2026-11-25 to 2026-11-29 (run with Chromium's
//! `RenderDocument` back on: a frozen page's next document needs it) and
//! `scripts-off-hold` its first, dropped version (docs/decisions.md, "Warm
//! pages" and "A warm page's document is ended at parking"); `freeze-hold-hidden`,
//! `freeze-hold-front` and `freeze-shown-hold` price ways of showing the
//! page again. `--probe` shows what the state page finds in four runs of a
//! page emptied as `freeze-hold`, `freeze-hold-front`, `freeze-shown-hold`
//! and `scripts-off-hold` do (and what the old document still does after
//! it was emptied: `svc` leaves none to ask).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use axum::Router;
use axum::http::header;
use axum::response::Html;
use axum::routing::get;
use chromiumoxide::Page;
use chromiumoxide::browser::{Browser, BrowserConfig};
use chromiumoxide::cdp::browser_protocol::browser::BrowserContextId;
use chromiumoxide::cdp::browser_protocol::emulation::SetScriptExecutionDisabledParams;
use chromiumoxide::cdp::browser_protocol::fetch::{
    ContinueRequestParams, EnableParams as FetchEnableParams, EventRequestPaused, FailRequestParams, RequestPattern,
    RequestStage,
};
use chromiumoxide::cdp::browser_protocol::network::{
    DisableParams as NetworkDisableParams, ErrorReason, ResourceType, SetCacheDisabledParams,
};
use chromiumoxide::cdp::browser_protocol::page::{
    AddScriptToEvaluateOnNewDocumentParams, CreateIsolatedWorldParams, ResetNavigationHistoryParams,
    SetWebLifecycleStateParams, SetWebLifecycleStateState,
};
use chromiumoxide::cdp::browser_protocol::storage::{ClearCookiesParams, ClearDataForOriginParams};
use chromiumoxide::cdp::browser_protocol::target::{CreateBrowserContextParams, CreateTargetParams};
use clap::Parser;
use futures::StreamExt;
use svc_bench::items_page;
use svc_bench::sampler::{chromium_cpu_by_kind, cpu_split, per_run_delta};

const WORLD: &str = "svc-run";

#[derive(Parser)]
struct Args {
    #[arg(long, default_value = "/usr/lib/chromium/chromium-headless-shell")]
    chromium: String,
    /// Measured runs per variant, spread over the pages.
    #[arg(long, default_value_t = 200)]
    runs: usize,
    #[arg(long, default_value_t = 4)]
    concurrency: usize,
    /// Variants to run, comma-separated (default: all).
    #[arg(long)]
    variants: Option<String>,
    /// Instead of measuring: what the state page finds in four runs in one
    /// page emptied as the held variants do.
    #[arg(long)]
    probe: bool,
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Empty {
    /// svc until 2026-11-25: `about:blank`, then cookies, storage, history, name.
    BlankThenClear,
    /// svc since 2026-11-29: `about:blank` at parking, cleared; the next
    /// document's first script waits as in `FreezeHold`, while what the
    /// old document's unload handlers wrote is cleared again.
    BlankHold,
    /// The clearings with the old document alive (not isolated).
    ClearOnly,
    /// `about:blank` alone.
    BlankOnly,
    /// Nothing between runs (the next navigation replaces the document).
    Nothing,
    /// Scripts disabled while parked, cleared; enabled again before the
    /// next navigation (not isolated: the old document runs in between).
    ScriptsOffThenClear,
    /// Frozen while parked, cleared; active again before the next
    /// navigation (not isolated either).
    FrozenThenClear,
    /// Frozen while parked, cleared; the next navigation commits frozen,
    /// its document's first script (a synchronous request the guard
    /// holds) waits until the page is active and shown again (svc from
    /// 2026-11-25 to 2026-11-29).
    FreezeHold,
    /// `FreezeHold` without showing the page again (it stays hidden: prices the showing).
    FreezeHoldHidden,
    /// `FreezeHold`, shown with `Page.bringToFront` instead of its window.
    FreezeHoldFront,
    /// `FreezeHold`, the page shown again as soon as it is frozen (at
    /// parking, off the next run's path) rather than at the hold.
    FreezeShownHold,
    /// Scripts disabled while parked, cleared; enabled again when the next
    /// document's response arrives (before its commit); its first script
    /// waits as in `FreezeHold`. The page stays visible.
    ScriptsOffHold,
}

impl Empty {
    /// Whether a parked page is frozen and navigated frozen: that needs
    /// Chromium's `RenderDocument`, which svc's flags turn off (a frozen
    /// page's next document would never commit), so these variants get it
    /// back (`launch`).
    fn freezes(self) -> bool {
        matches!(
            self,
            Empty::FrozenThenClear
                | Empty::FreezeHold
                | Empty::FreezeHoldHidden
                | Empty::FreezeHoldFront
                | Empty::FreezeShownHold
        )
    }

    /// Whether the next document is held by its first script.
    fn holds(self) -> bool {
        matches!(
            self,
            Empty::BlankHold
                | Empty::FreezeHold
                | Empty::FreezeHoldHidden
                | Empty::FreezeShownHold
                | Empty::FreezeHoldFront
                | Empty::ScriptsOffHold
        )
    }
}

#[derive(Clone, Copy)]
struct Variant {
    name: &'static str,
    empty: Empty,
    /// The script's world on every new document (svc today), or created
    /// on demand after each navigation.
    world_on_new_documents: bool,
    /// `Network.disable` after chromiumoxide enabled it.
    network_events: bool,
}

const VARIANTS: &[Variant] = &[
    Variant { name: "svc", empty: Empty::BlankHold, world_on_new_documents: true, network_events: true },
    Variant { name: "blank-clear", empty: Empty::BlankThenClear, world_on_new_documents: true, network_events: true },
    Variant { name: "clear-only", empty: Empty::ClearOnly, world_on_new_documents: true, network_events: true },
    Variant { name: "blank-only", empty: Empty::BlankOnly, world_on_new_documents: true, network_events: true },
    Variant { name: "nothing", empty: Empty::Nothing, world_on_new_documents: true, network_events: true },
    Variant {
        name: "svc-world-on-demand",
        empty: Empty::BlankThenClear,
        world_on_new_documents: false,
        network_events: true,
    },
    Variant {
        name: "svc-no-network",
        empty: Empty::BlankThenClear,
        world_on_new_documents: true,
        network_events: false,
    },
    Variant {
        name: "scripts-off",
        empty: Empty::ScriptsOffThenClear,
        world_on_new_documents: true,
        network_events: true,
    },
    Variant { name: "frozen", empty: Empty::FrozenThenClear, world_on_new_documents: true, network_events: true },
    Variant { name: "freeze-hold", empty: Empty::FreezeHold, world_on_new_documents: true, network_events: true },
    Variant {
        name: "freeze-hold-front",
        empty: Empty::FreezeHoldFront,
        world_on_new_documents: true,
        network_events: true,
    },
    Variant {
        name: "freeze-shown-hold",
        empty: Empty::FreezeShownHold,
        world_on_new_documents: true,
        network_events: true,
    },
    Variant {
        name: "freeze-hold-hidden",
        empty: Empty::FreezeHoldHidden,
        world_on_new_documents: true,
        network_events: true,
    },
    Variant {
        name: "scripts-off-hold",
        empty: Empty::ScriptsOffHold,
        world_on_new_documents: true,
        network_events: true,
    },
];

const READY_PATH: &str = "/__svc_ready";
const HOLD_SCRIPT: &str = "(() => { if (!location.protocol.startsWith('http')) return; window.name = ''; \
    const x = new XMLHttpRequest(); x.open('GET', '/__svc_ready', false); try { x.send(); } catch (e) {} \
    if (x.status === 205) { try { localStorage.clear(); } catch (e) {} try { sessionStorage.clear(); } catch (e) {} } })()";

const STATE_PAGE: &str = r#"<!doctype html><html><head><script>
window.__report = {
  visibility: document.visibilityState,
  timer: localStorage.getItem('timer'),
  hide: localStorage.getItem('hide'),
  unload: localStorage.getItem('unload'),
  session: sessionStorage.getItem('s'),
  cookie: document.cookie,
  name: window.name,
  history: history.length,
};
window.__raf = 0;
requestAnimationFrame(() => { window.__raf = performance.now(); });
</script></head><body><ul><li>a</li></ul><script>
setInterval(() => localStorage.setItem('timer', String(Date.now())), 5);
sessionStorage.setItem('s', '1');
addEventListener('pagehide', () => { localStorage.setItem('hide', '1'); document.cookie = 'hide=1'; });
addEventListener('unload', () => localStorage.setItem('unload', '1'));
document.cookie = 'c=1';
window.name = 'dirty';
</script></body></html>"#;

async fn serve_fixture() -> Result<String> {
    let page = items_page::html();
    let app = Router::new()
        .route(
            "/items",
            get(move || {
                let page = page.clone();
                async move { ([(header::CACHE_CONTROL, "no-store")], Html(page)) }
            }),
        )
        .route("/state", get(|| async { ([(header::CACHE_CONTROL, "no-store")], Html(STATE_PAGE)) }));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}/items", listener.local_addr()?);
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    Ok(url)
}

struct WarmPage {
    context: BrowserContextId,
    page: Page,
    origin: String,
    ready: tokio::sync::Mutex<
        tokio::sync::mpsc::UnboundedReceiver<chromiumoxide::cdp::browser_protocol::fetch::RequestId>,
    >,
    frozen: std::sync::atomic::AtomicBool,
    /// Ended with `about:blank` at parking (`BlankHold`): cleared at the hold.
    blanked: std::sync::atomic::AtomicBool,
    /// How the page is emptied (and so how a frozen page is shown at the hold).
    empty: Empty,
    window: std::sync::Mutex<Option<chromiumoxide::cdp::browser_protocol::browser::WindowId>>,
    /// Scripts are off until the next document's response (the guard turns them on).
    scripts_off: Arc<std::sync::atomic::AtomicBool>,
    parked_off: std::sync::atomic::AtomicBool,
}

async fn open(browser: &Browser, variant: Variant, origin: &str) -> Result<WarmPage> {
    let context = browser.create_browser_context(CreateBrowserContextParams::default()).await?;
    let params = CreateTargetParams::builder()
        .url("about:blank")
        .browser_context_id(context.clone())
        .build()
        .map_err(anyhow::Error::msg)?;
    let page = browser.new_page(params).await?;
    let mut paused = page.event_listener::<EventRequestPaused>().await?;
    let pattern = RequestPattern::builder().url_pattern("*").request_stage(RequestStage::Request).build();
    let mut patterns = vec![pattern];
    if variant.empty == Empty::ScriptsOffHold {
        patterns.push(
            RequestPattern::builder()
                .url_pattern("*")
                .resource_type(ResourceType::Document)
                .request_stage(RequestStage::Response)
                .build(),
        );
    }
    page.execute(FetchEnableParams::builder().patterns(patterns).build()).await?;
    let answering = page.clone();
    let (ready_tx, ready_rx) = tokio::sync::mpsc::unbounded_channel();
    let scripts_off = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let off = scripts_off.clone();
    tokio::spawn(async move {
        while let Some(event) = paused.next().await {
            if event.request.url.contains(READY_PATH) {
                let _ = ready_tx.send(event.request_id.clone());
                continue;
            }
            if event.response_status_code.is_some() || event.response_error_reason.is_some() {
                if off.swap(false, std::sync::atomic::Ordering::SeqCst) {
                    let _ = answering.execute(SetScriptExecutionDisabledParams::new(false)).await;
                }
                if answering.execute(ContinueRequestParams::new(event.request_id.clone())).await.is_err() {
                    break;
                }
                continue;
            }
            let skipped = matches!(event.resource_type, ResourceType::Image | ResourceType::Font | ResourceType::Media);
            let sent = if skipped {
                answering
                    .execute(FailRequestParams::new(event.request_id.clone(), ErrorReason::BlockedByClient))
                    .await
                    .map(drop)
            } else {
                answering.execute(ContinueRequestParams::new(event.request_id.clone())).await.map(drop)
            };
            if sent.is_err() {
                break;
            }
        }
    });
    page.execute(SetCacheDisabledParams::new(true)).await?;
    if !variant.network_events {
        page.execute(NetworkDisableParams::default()).await?;
    }
    if variant.empty.holds() {
        let hold = AddScriptToEvaluateOnNewDocumentParams::builder()
            .source(HOLD_SCRIPT)
            .build()
            .map_err(anyhow::Error::msg)?;
        page.execute(hold).await?;
    }
    if variant.world_on_new_documents {
        let world = AddScriptToEvaluateOnNewDocumentParams::builder()
            .source("")
            .world_name(WORLD)
            .build()
            .map_err(anyhow::Error::msg)?;
        page.execute(world).await?;
    }
    Ok(WarmPage {
        context,
        page,
        origin: origin.to_string(),
        ready: tokio::sync::Mutex::new(ready_rx),
        frozen: false.into(),
        blanked: false.into(),
        empty: variant.empty,
        window: std::sync::Mutex::new(None),
        scripts_off,
        parked_off: false.into(),
    })
}

async fn run(browser: &Browser, warm: &WarmPage, variant: Variant, url: &str) -> Result<()> {
    let page = &warm.page;
    match variant.empty {
        Empty::ScriptsOffThenClear => {
            page.execute(SetScriptExecutionDisabledParams::new(false)).await?;
        }
        Empty::FrozenThenClear => {
            page.execute(SetWebLifecycleStateParams::new(SetWebLifecycleStateState::Active)).await?;
        }
        _ => {}
    }
    if variant.empty.holds() {
        navigate_held(browser, warm, url).await?;
    } else {
        page.goto(url).await?;
    }
    let frame = page.mainframe().await?.context("no main frame")?;
    let world = page
        .execute(
            CreateIsolatedWorldParams::builder()
                .frame_id(frame)
                .world_name(WORLD)
                .build()
                .map_err(anyhow::Error::msg)?,
        )
        .await?;
    items_page::extract(page, world.result.execution_context_id).await?;
    empty(browser, warm, variant.empty).await
}

async fn navigate_held(browser: &Browser, warm: &WarmPage, url: &str) -> Result<()> {
    use chromiumoxide::cdp::browser_protocol::fetch::FulfillRequestParams;
    let page = &warm.page;
    let goto = {
        let page = page.clone();
        let url = url.to_string();
        tokio::spawn(async move { page.goto(url.as_str()).await.map(drop) })
    };
    let id =
        tokio::time::timeout(Duration::from_secs(10), warm.ready.lock().await.recv()).await?.context("guard gone")?;
    if warm.parked_off.swap(false, std::sync::atomic::Ordering::SeqCst) {
        let cookies = ClearCookiesParams::builder().browser_context_id(warm.context.clone()).build();
        let (a, b) = tokio::join!(
            browser.execute(cookies),
            page.execute(ClearDataForOriginParams::new(warm.origin.clone(), "all")),
        );
        a?;
        b?;
    }
    let was_frozen = warm.frozen.swap(false, std::sync::atomic::Ordering::SeqCst);
    if was_frozen {
        page.execute(SetWebLifecycleStateParams::new(SetWebLifecycleStateState::Active)).await?;
    }
    match warm.empty {
        Empty::FreezeHold if was_frozen => show(browser, warm).await?,
        Empty::FreezeHoldFront if was_frozen => {
            page.execute(chromiumoxide::cdp::browser_protocol::page::BringToFrontParams::default()).await?;
        }
        _ => {}
    }
    let was_blanked = warm.blanked.swap(false, std::sync::atomic::Ordering::SeqCst);
    if was_frozen || was_blanked {
        // What the old document's unload handlers wrote, at the commit (not
        // `window.name`: the document is blocked in the hold script, which
        // empties it itself).
        let cookies = ClearCookiesParams::builder().browser_context_id(warm.context.clone()).build();
        let (a, b) = tokio::join!(
            browser.execute(cookies),
            page.execute(ClearDataForOriginParams::new(warm.origin.clone(), "all")),
        );
        a?;
        b?;
    }
    page.execute(FulfillRequestParams::new(id, 205)).await?;
    goto.await??;
    Ok(())
}

/// Minimizes and restores the page's window: `WasShown`.
async fn show(browser: &Browser, warm: &WarmPage) -> Result<()> {
    use chromiumoxide::cdp::browser_protocol::browser::{
        Bounds, GetWindowForTargetParams, SetWindowBoundsParams, WindowState,
    };
    let page = &warm.page;
    let cached = *warm.window.lock().unwrap();
    let window = match cached {
        Some(w) => w,
        None => {
            let w = browser
                .execute(GetWindowForTargetParams::builder().target_id(page.target_id().clone()).build())
                .await?
                .result
                .window_id;
            *warm.window.lock().unwrap() = Some(w);
            w
        }
    };
    let minimized = Bounds { window_state: Some(WindowState::Minimized), ..Default::default() };
    browser.execute(SetWindowBoundsParams::new(window, minimized)).await?;
    let normal = Bounds { window_state: Some(WindowState::Normal), ..Default::default() };
    browser.execute(SetWindowBoundsParams::new(window, normal)).await?;
    Ok(())
}

async fn clear(browser: &Browser, warm: &WarmPage) -> Result<()> {
    let page = &warm.page;
    let cookies = ClearCookiesParams::builder().browser_context_id(warm.context.clone()).build();
    let (a, b, c, d) = tokio::join!(
        browser.execute(cookies),
        page.execute(ResetNavigationHistoryParams::default()),
        page.evaluate("window.name = ''"),
        page.execute(ClearDataForOriginParams::new(warm.origin.clone(), "all")),
    );
    a?;
    b?;
    c?;
    d?;
    Ok(())
}

/// What the held variants clear when a page is parked: the cookies, the
/// history and the origin's storage, at the same time.
async fn clear_parked(browser: &Browser, warm: &WarmPage) -> Result<()> {
    let page = &warm.page;
    let cookies = ClearCookiesParams::builder().browser_context_id(warm.context.clone()).build();
    let (a, b, c) = tokio::join!(
        browser.execute(cookies),
        page.execute(ResetNavigationHistoryParams::default()),
        page.execute(ClearDataForOriginParams::new(warm.origin.clone(), "all")),
    );
    a?;
    b?;
    c?;
    Ok(())
}

async fn empty(browser: &Browser, warm: &WarmPage, how: Empty) -> Result<()> {
    let page = &warm.page;
    match how {
        Empty::BlankThenClear => {
            page.goto("about:blank").await?;
            clear(browser, warm).await
        }
        Empty::ClearOnly => clear(browser, warm).await,
        Empty::BlankOnly => page.goto("about:blank").await.map(drop).map_err(Into::into),
        Empty::Nothing => Ok(()),
        Empty::ScriptsOffThenClear => {
            page.execute(SetScriptExecutionDisabledParams::new(true)).await?;
            clear(browser, warm).await
        }
        Empty::FrozenThenClear => {
            page.execute(SetWebLifecycleStateParams::new(SetWebLifecycleStateState::Frozen)).await?;
            clear(browser, warm).await
        }
        Empty::ScriptsOffHold => {
            page.execute(SetScriptExecutionDisabledParams::new(true)).await?;
            warm.scripts_off.store(true, std::sync::atomic::Ordering::SeqCst);
            warm.parked_off.store(true, std::sync::atomic::Ordering::SeqCst);
            clear_parked(browser, warm).await
        }
        Empty::BlankHold => {
            page.goto("about:blank").await?;
            warm.blanked.store(true, std::sync::atomic::Ordering::SeqCst);
            clear_parked(browser, warm).await
        }
        Empty::FreezeHold | Empty::FreezeHoldHidden | Empty::FreezeShownHold | Empty::FreezeHoldFront => {
            page.execute(SetWebLifecycleStateParams::new(SetWebLifecycleStateState::Frozen)).await?;
            if how == Empty::FreezeShownHold {
                show(browser, warm).await?;
            }
            warm.frozen.store(true, std::sync::atomic::Ordering::SeqCst);
            clear_parked(browser, warm).await
        }
    }
}

struct Measured {
    variant: &'static str,
    runs_per_s: f64,
    sequential_median_ms: f64,
    cpu_per_run: f64,
    by_kind: BTreeMap<String, f64>,
}

/// A new Chromium with svc's flags and a profile of its own (removed when
/// dropped), its DevTools handler driven by a task.
struct Launched {
    browser: Browser,
    handler: tokio::task::JoinHandle<()>,
    _profile: tempfile::TempDir,
}

/// svc's Chromium; with `render_document`, with Chromium's `RenderDocument`
/// left on (see [`Empty::freezes`]).
async fn launch(args: &Args, request_timeout: Duration, render_document: bool) -> Result<Launched> {
    let profile = tempfile::Builder::new().prefix("warm-bench-chromium-").tempdir()?;
    let flag = |a: &&str| {
        let a = a.to_string();
        if render_document && a.starts_with("disable-features=") { a.replace(",RenderDocument", "") } else { a }
    };
    let config = BrowserConfig::builder()
        .chrome_executable(&args.chromium)
        .no_sandbox()
        .user_data_dir(profile.path())
        .disable_default_args()
        .args(svc_runner::browser::ARGS.iter().map(flag))
        .launch_timeout(Duration::from_secs(30))
        .request_timeout(request_timeout)
        .viewport(None)
        .build()
        .map_err(anyhow::Error::msg)?;
    let (browser, mut handler) = Browser::launch(config).await?;
    let handler = tokio::spawn(async move { while handler.next().await.is_some() {} });
    Ok(Launched { browser, handler, _profile: profile })
}

async fn measure(args: &Args, variant: Variant, url: &str) -> Result<Measured> {
    let Launched { browser, handler, _profile } =
        launch(args, Duration::from_secs(60), variant.empty.freezes()).await?;
    let browser = Arc::new(browser);
    let origin = url.trim_end_matches("/items").to_string();
    let mut pages = Vec::new();
    for _ in 0..args.concurrency {
        let page = open(&browser, variant, &origin).await?;
        for _ in 0..3 {
            run(&browser, &page, variant, url).await?;
        }
        pages.push(Arc::new(page));
    }
    // Sequential: one page, one run after the other.
    let mut sequential = Vec::new();
    for _ in 0..20 {
        let t = Instant::now();
        run(&browser, &pages[0], variant, url).await?;
        sequential.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    sequential.sort_by(f64::total_cmp);
    let me = std::process::id();
    let (cpu0, kinds0) = (cpu_split(me).chromium, chromium_cpu_by_kind(me));
    let started = Instant::now();
    let per_page = args.runs / args.concurrency;
    let mut tasks = Vec::new();
    for page in &pages {
        let (browser, page, url) = (browser.clone(), page.clone(), url.to_string());
        tasks.push(tokio::spawn(async move {
            for _ in 0..per_page {
                run(&browser, &page, variant, &url).await?;
            }
            Ok::<_, anyhow::Error>(())
        }));
    }
    for task in tasks {
        task.await??;
    }
    let wall = started.elapsed().as_secs_f64();
    let runs = per_page * args.concurrency;
    let cpu_per_run = (cpu_split(me).chromium - cpu0) / runs as f64;
    let by_kind = per_run_delta(&kinds0, &chromium_cpu_by_kind(me), runs);
    for page in &pages {
        let _ = browser.dispose_browser_context(page.context.clone()).await;
    }
    drop(pages);
    if let Ok(mut browser) = Arc::try_unwrap(browser) {
        let _ = browser.close().await;
        let _ = browser.wait().await;
    }
    handler.abort();
    Ok(Measured {
        variant: variant.name,
        runs_per_s: runs as f64 / wall,
        sequential_median_ms: sequential[sequential.len() / 2],
        cpu_per_run,
        by_kind,
    })
}

/// The state page twice in one page, emptied as `freeze-hold` does.
async fn probe_hold(args: &Args, items_url: &str, how: Empty) -> Result<()> {
    println!("{how:?}");
    let url = items_url.replace("/items", "/state");
    let origin = items_url.trim_end_matches("/items").to_string();
    let Launched { mut browser, handler, _profile } = launch(args, Duration::from_secs(10), how.freezes()).await?;
    let variant = *VARIANTS.iter().find(|v| v.empty == how).unwrap();
    let warm = open(&browser, variant, &origin).await?;
    for round in 0..4 {
        navigate_held(&browser, &warm, &url).await?;
        tokio::time::sleep(Duration::from_millis(60)).await;
        let report = warm
            .page
            .evaluate("JSON.stringify({first: window.__report, now: document.visibilityState, raf: window.__raf})")
            .await?
            .into_value::<String>()?;
        println!("round {round}: {report}");
        tokio::time::sleep(Duration::from_millis(100)).await;
        let before = warm.page.evaluate("String(localStorage.getItem('timer'))").await?.into_value::<String>()?;
        empty(&browser, &warm, how).await?;
        let parked = warm.page.evaluate("String(localStorage.getItem('timer'))").await?.into_value::<String>()?;
        tokio::time::sleep(Duration::from_millis(300)).await;
        let later = warm.page.evaluate("String(localStorage.getItem('timer'))").await?.into_value::<String>()?;
        println!("  timer before emptying {before:?}, after {parked:?}, 300 ms later {later:?}");
    }
    let _ = browser.close().await;
    let _ = browser.wait().await;
    handler.abort();
    Ok(())
}

#[tokio::main]
async fn main() -> Result<()> {
    let args = Args::parse();
    let url = serve_fixture().await?;
    if args.probe {
        probe_hold(&args, &url, Empty::FreezeHold).await?;
        probe_hold(&args, &url, Empty::FreezeHoldFront).await?;
        probe_hold(&args, &url, Empty::FreezeShownHold).await?;
        probe_hold(&args, &url, Empty::ScriptsOffHold).await?;
        return Ok(());
    }
    let chosen: Option<Vec<&str>> = args.variants.as_deref().map(|v| v.split(',').collect());
    let mut results = Vec::new();
    for variant in VARIANTS.iter().copied() {
        if chosen.as_ref().is_some_and(|c| !c.contains(&variant.name)) {
            continue;
        }
        eprintln!("variant {}", variant.name);
        results.push(measure(&args, variant, &url).await?);
    }
    println!(
        "| variant | seq. median ms | c={} runs/s | Chromium CPU ms per run | browser | renderer | gpu | network |",
        args.concurrency
    );
    println!("|---|---|---|---|---|---|---|---|");
    for m in &results {
        let kind =
            |prefix: &str| -> f64 { m.by_kind.iter().filter(|(k, _)| k.starts_with(prefix)).map(|(_, v)| v).sum() };
        println!(
            "| {} | {:.1} | {:.2} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} |",
            m.variant,
            m.sequential_median_ms,
            m.runs_per_s,
            m.cpu_per_run,
            kind("browser"),
            kind("renderer"),
            kind("gpu"),
            kind("utility"),
        );
    }
    Ok(())
}
