//! The `puppeteer` engine: headless Chromium over the DevTools protocol.
//!
//! Per run: a browser context with one page, which no other scrap's run
//! ever uses (no cookies or storage shared with any other run; a job's
//! saved session, its scrap's own, is put into it before the navigation,
//! `session.rs`); every request the page makes is paused and checked
//! (scheme, address, resource type) before it may continue; the user's
//! script runs in an isolated world. A confined run (AI Fix's candidates)
//! gets a context whose proxy is an egress proxy of its own, held to the
//! run's sites; the guard adds to them the sites its first navigation's
//! redirects lead to, before each goes on (first_navigation.rs). A run of a
//! saved scrap that ends normally leaves its page to the scrap's next run
//! (`warm_pages.rs`), its document ended with `about:blank` (`Inner::recycle`,
//! `empty`); that run navigates a renderer that is already running, and its
//! new document is held until what the earlier runs left is cleared
//! (`navigate`, page_hold.rs; no page uses the HTTP cache). Any other page's context is
//! disposed at the end whatever happened.
//!
//! Runs that load web fonts (`// svc:load fonts`) run in a second browser
//! (`browser::Fonts`): the default one never asks for a font at all.
//!
//! Nothing the run needs after the navigation costs a DevTools round trip
//! of its own: the document's HTTP status comes from the page's network
//! events and the script's isolated world is created by Chromium with every
//! new document (both read from event streams once `goto` returns), so a run
//! is `Page.navigate`, then one `Runtime.callFunctionOn`. When an event is not
//! there yet, the run asks Chromium as before.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use base64::Engine as _;
use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::browser::BrowserContextId;
use chromiumoxide::cdp::browser_protocol::fetch::{
    ContinueRequestParams, ContinueResponseParams, EnableParams as FetchEnableParams, EventRequestPaused,
    FailRequestParams, FulfillRequestParams, RequestId as PausedRequestId, RequestPattern, RequestStage,
};
use chromiumoxide::cdp::browser_protocol::inspector::{EnableParams as InspectorEnableParams, EventTargetCrashed};
use chromiumoxide::cdp::browser_protocol::log::DisableParams as LogDisableParams;
use chromiumoxide::cdp::browser_protocol::network::{
    Cookie, ErrorReason, EventDataReceived, EventLoadingFinished, EventResponseReceived, ResourceType,
    SetCacheDisabledParams,
};
use chromiumoxide::cdp::browser_protocol::page::{
    AddScriptToEvaluateOnNewDocumentParams, CaptureScreenshotFormat, CreateIsolatedWorldParams, FrameId,
    RemoveScriptToEvaluateOnNewDocumentParams, ResetNavigationHistoryParams, ScriptIdentifier, SetBypassCspParams,
};
use chromiumoxide::cdp::browser_protocol::performance::DisableParams as PerformanceDisableParams;
use chromiumoxide::cdp::browser_protocol::storage::{
    ClearCookiesParams as StorageClearCookies, ClearDataForOriginParams, ClearDataForStorageKeyParams,
    GetCookiesParams as StorageGetCookies, SetCookiesParams as StorageSetCookies,
};
use chromiumoxide::cdp::browser_protocol::target::{CreateBrowserContextParams, CreateTargetParams};
use chromiumoxide::cdp::js_protocol::heap_profiler::CollectGarbageParams;
use chromiumoxide::cdp::js_protocol::runtime::{
    CallArgument, CallFunctionOnParams, EventExecutionContextCreated, EventExecutionContextDestroyed,
    ExecutionContextId, GetIsolateIdParams,
};
use chromiumoxide::listeners::EventStream;
use chromiumoxide::page::ScreenshotParams;
use futures::{FutureExt, StreamExt};
use serde_json::{Value, json};
use svc_domain::ScrapId;
use svc_domain::site_account::SessionState;
use svc_engine::Loads;
use svc_engine::host_vetting::{PrivateNetworks, Resolver};
use svc_engine::{BrowserSandbox, Confinement, Engine, ReuseKey, RunJob};
use svc_engine::{EngineReport, ScriptResult};
use tokio::sync::Mutex;

use crate::browser::{BrowserPool, Fonts, WarmBrowser};
use crate::egress_proxy::{ANSWER_HEADER, EgressProxy, EgressStats};
use crate::first_navigation::{FirstNavigation, Hop};
use crate::handover::{Handover, Phase};
use crate::net_guard;
use crate::page_hold::{self, Hold};
use crate::page_seats::{Seat, Seats};
use crate::script;
use crate::session;
use crate::storage_reach::StorageReach;
use crate::upstream::{TIERS, UpstreamProxy};
use crate::warm_pages::WarmPages;

const SNAPSHOT_HTML_MAX: usize = 512 * 1024;
const SNAPSHOT_TIMEOUT: Duration = Duration::from_secs(5);
const DISPOSE_TIMEOUT: Duration = Duration::from_secs(5);
const PREPARE_TIMEOUT: Duration = Duration::from_secs(30);
/// How long emptying a finished run's page may take before it is disposed instead.
const RECYCLE_TIMEOUT: Duration = Duration::from_secs(5);
/// How long a run waits for a page of its scrap that is being emptied,
/// rather than starting a context of its own: until the emptying ends
/// either way, so that a scrap's next run reliably finds its page.
const RECYCLE_WAIT: Duration = RECYCLE_TIMEOUT;
/// A warm page's renderer garbage is collected every this many parkings:
/// a page reused back to back otherwise grows to about 1.5x a new one's
/// memory (the fleet benchmark: 4 renderers 148-151 MiB at svc's peak
/// without, 133-136 MiB with; every parking saves no more and costs a full
/// collection per run; docs/benchmarks.md).
const COLLECT_EVERY: u64 = 4;
/// How long a page at the page budget waits, at most, for pages on their
/// way to a parking place or out (`Inner::make_room`).
const ROOM_WAIT: Duration = Duration::from_secs(2);

/// What a caller of `Inner::make_room` can use.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Wants {
    /// Room for a page of its own (a tier's, or one that loads fonts).
    Room,
    /// A spare if one is ready, else room.
    SpareOrRoom,
}

/// What `Inner::make_room` ended with. Short-lived, one at a time: not
/// worth boxing the page.
#[allow(clippy::large_enum_variant)]
enum Room {
    /// Room for a new page (or the budget's wait is over).
    Made,
    /// A spare that was ready: the caller's page.
    Spare(GuardedPage),
}
/// Scraps remembered as having documents that cannot be held, at most.
const UNHOLDABLE_KEPT: usize = 10_000;
/// The isolated world the user's script runs in: the one chromiumoxide puts
/// in every document of the pages it drives (its "utility world", which
/// svc does not otherwise use), so that a document gets one isolated world
/// rather than two. Chromium makes it at the document's start, with no
/// universal access (`Page.addScriptToEvaluateOnNewDocument`). svc calls
/// nothing of chromiumoxide's that runs code in it (`Page::set_content`
/// would): what a script leaves in its world can mislead only itself.
const WORLD: &str = chromiumoxide::handler::frame::UTILITY_WORLD_NAME;
/// Why a run whose renderer died failed.
const CRASHED: &str = "the page crashed: it ran out of memory (a page's JavaScript heap is capped at 512 MiB and a \
                       renderer at 1 GiB) or it was killed";

#[derive(Clone, Debug)]
pub struct EngineConfig {
    /// `None` when no browser was found: every run then fails saying so.
    pub chromium: Option<PathBuf>,
    /// The user Chromium runs as when svc runs as root (`SVC_BROWSER_USER`;
    /// `root` keeps it root, which Chromium cannot sandbox): sandbox.rs.
    pub browser_user: String,
    /// Whether Chromium must run with its sandbox (`SVC_BROWSER_SANDBOX`).
    pub sandbox: crate::sandbox::SandboxSetting,
    /// Which non-public addresses runs may reach (`SVC_ALLOW_PRIVATE_NETWORKS`).
    pub allow_private_networks: PrivateNetworks,
    /// Runs per browser process before it is replaced.
    pub runs_per_browser: u64,
    /// Fresh pages kept ready (each in its own new context), so that a run
    /// does not wait for a renderer process to start. 0 turns this off.
    pub spare_pages: usize,
    /// Emptied pages of finished runs kept for their scrap's next run
    /// (warm_pages.rs); 0 gives every run a new context.
    pub warm_pages: usize,
    /// How the egress proxy resolves host names (the system's resolver but in tests).
    pub resolver: Resolver,
    /// The upstream proxies of proxy tiers 1 to 4 (`tiers[0]` is tier 1),
    /// rotated per connection; an empty list leaves its tier unconfigured.
    /// A job on tier N runs in a context whose proxy is tier N's own egress
    /// proxy, which vets the target as for tier 0 and then goes on through
    /// these. `Debug` shows no password.
    pub tiers: [Vec<UpstreamProxy>; TIERS as usize],
}

pub struct ChromiumEngine {
    inner: Arc<Inner>,
}

struct Inner {
    pool: BrowserPool,
    allow_private: PrivateNetworks,
    spare_target: usize,
    /// Pages with a renderer of their own, at most: those runs hold, warm
    /// ones (parked or being emptied), spares, and pages being made or
    /// disposed. A run that needs a new page when there are this many
    /// disposes the oldest parked page and waits for it to be gone
    /// (`make_room`), and spares are prepared only below it (the larger of
    /// `warm_pages` and `spare_pages`).
    page_budget: usize,
    /// Every page with a renderer of its own, from before its context is
    /// made until it is disposed (page_seats.rs): what the budget bounds.
    seats: Arc<Seats>,
    /// Pages being disposed now (their seats not yet given back).
    disposing_pages: std::sync::atomic::AtomicUsize,
    spares: std::sync::Mutex<Vec<GuardedPage>>,
    preparing: std::sync::atomic::AtomicUsize,
    /// Contexts of finished runs still being disposed.
    disposing: std::sync::atomic::AtomicUsize,
    /// Set by `close`: no more spares are prepared or kept.
    closed: std::sync::atomic::AtomicBool,
    /// Emptied pages of finished runs, by scrap (and organization).
    warm: std::sync::Mutex<WarmPages<ReuseKey, GuardedPage>>,
    /// Whether a warm page also serves the runs of other scraps of its
    /// organization on the origin it shows (else only its own scrap's);
    /// `ChromiumEngine::share_warm_pages`.
    share_warm: std::sync::atomic::AtomicBool,
    /// Woken when a page has been emptied (parked or disposed).
    recycled: tokio::sync::Notify,
    /// Woken when a spare page is ready (or failed to be).
    spare_ready: tokio::sync::Notify,
    /// Runs that ran in a page an earlier run left (of their scrap, or of
    /// another scrap of their organization on the same origin).
    reused: std::sync::atomic::AtomicU64,
    /// Of those, the runs in a page another scrap's run left.
    shared: std::sync::atomic::AtomicU64,
    /// When on (`ChromiumEngine::log_renderers`, for tests): the renderer
    /// (its V8 isolate's id) each saved scrap's run ran in, with the run's
    /// organization.
    renderer_log: std::sync::Mutex<Option<Vec<(svc_domain::OrgId, String)>>>,
    /// Runs that found no script world in their document and made one.
    worlds_made: std::sync::atomic::AtomicU64,
    /// Pages made (contexts created), spares and runs' own alike.
    pages_made: std::sync::atomic::AtomicU64,
    /// Web fonts the request guards refused: none while the default
    /// browser's renderers never ask for one (`Fonts`).
    fonts_refused: Arc<AtomicU64>,
    /// What holds a warm page's next document (page_hold.rs).
    hold: Hold,
    /// Scraps whose documents could not be held: their runs get a context
    /// of their own (bounded: cleared when full).
    unholdable: std::sync::Mutex<std::collections::HashSet<ReuseKey>>,
    /// The warm pages kept for runs on their way: one per claimed run
    /// (`Engine::claimed`) until the run comes for it, and one per run in
    /// `take_warm`. `warm()` leaves one fitting page out per promise, and a
    /// new page pushes out a page no promise keeps first: without them,
    /// two runs of one group were claimed for one page, and the second
    /// made a new page that pushed out another group's.
    promised: std::sync::Mutex<Vec<Promise>>,
}

/// How long a claimed run's page is kept for it when the run does not come
/// for it (its scrap deleted meanwhile, a run that gets a page of its own).
const CLAIM_KEPT: Duration = Duration::from_secs(2);

/// A warm page kept for a run: see [`Inner::promised`].
#[derive(Clone, Debug)]
struct Promise {
    key: ReuseKey,
    /// The origin the run navigates to, when pages are shared (`take_warm`).
    origin: Option<String>,
    /// When a claim's promise lapses; `None` while its run is in `take_warm`.
    until: Option<Instant>,
}

impl Promise {
    /// Whether a page parked under `key` showing `origin` would serve the run.
    fn fits(&self, key: &ReuseKey, origin: Option<&str>) -> bool {
        *key == self.key
            || (key.organization == self.key.organization && self.origin.is_some() && origin == self.origin.as_deref())
    }
}

/// A run's promise while it is in `take_warm`; gone when dropped.
struct Kept<'a> {
    inner: &'a Inner,
    key: ReuseKey,
}

impl<'a> Kept<'a> {
    /// Takes over the claim's promise for `key`, or makes one.
    fn new(inner: &'a Inner, key: ReuseKey, origin: Option<String>) -> Self {
        let mut promised = inner.promised.lock().expect("promised lock");
        match promised.iter_mut().find(|p| p.key == key && p.until.is_some()) {
            Some(claim) => {
                claim.until = None;
                claim.origin = origin;
            }
            None => promised.push(Promise { key, origin, until: None }),
        }
        Kept { inner, key }
    }
}

impl Drop for Kept<'_> {
    fn drop(&mut self) {
        let mut promised = self.inner.promised.lock().expect("promised lock");
        if let Some(i) = promised.iter().position(|p| p.key == self.key && p.until.is_none()) {
            promised.swap_remove(i);
        }
    }
}

/// What the guard hands a run from its page's new document (page_hold.rs).
enum HoldEvent {
    /// The document's hold request, paused until the run has cleared.
    Held(PausedRequestId),
    /// The hold script's request failed: the document runs unheld, so it
    /// cannot be shown to a run.
    CouldNotHold,
    /// The main frame's answer has no document (HTTP 204 or 205, with this
    /// status): Chromium keeps the page's current one and never reports the
    /// navigation done.
    NoDocument(i64),
}

/// What a page's request guard and the runs in the page share.
struct PageState {
    /// The first document request the guard refused during the run, and why.
    refused_document: Mutex<Option<String>>,
    /// What the run loads besides what every run does; set from its job
    /// before it navigates (the guard skips the rest). `None` between runs:
    /// the guard refuses every request.
    loads: std::sync::Mutex<Option<Loads>>,
    /// The documents the guard let through since the page was last
    /// emptied: where the run may have left storage.
    reach: std::sync::Mutex<StorageReach>,
    /// Where the page is between two runs of its scrap, and every change
    /// of it (handover.rs): nothing else writes the phase.
    handover: Handover,
    /// The origin of the last top-level document the guard let go, kept
    /// while the page is parked on `about:blank` (none after the
    /// `about:blank` of a document that was not held): the renderer's
    /// site, by which a parked page is offered to its organization's runs.
    shown: std::sync::Mutex<Option<String>>,
    /// The context's cookies when the next document answered, before it
    /// committed (theirs and their redirects' included): what the cookie
    /// jar is set back to when that document is held.
    jar: std::sync::Mutex<Option<Vec<Cookie>>>,
    /// The cookie clearing a warm page's next run starts with its
    /// navigation: the guard lets the main document's request go once it
    /// is done.
    clearing: std::sync::Mutex<Option<tokio::task::JoinHandle<Result<(), String>>>>,
    /// A confined run's first navigation, whose redirects the guard admits
    /// to the run's sites (first_navigation.rs); set before it navigates.
    first_navigation: std::sync::Mutex<Option<FirstNavigation>>,
}

impl PageState {
    fn new() -> PageState {
        PageState {
            refused_document: Mutex::new(None),
            loads: std::sync::Mutex::new(None),
            reach: std::sync::Mutex::new(StorageReach::default()),
            handover: Handover::new(),
            shown: std::sync::Mutex::new(None),
            jar: std::sync::Mutex::new(None),
            clearing: std::sync::Mutex::new(None),
            first_navigation: std::sync::Mutex::new(None),
        }
    }
}

/// A browser context with one page, its request guard and meters: a spare
/// page, a run's, or a warm page parked for its scrap's next run (its
/// phase: `PageState::handover`). Used by one run at a time, and by the
/// runs of one scrap only.
struct GuardedPage {
    warm: Arc<WarmBrowser>,
    context: BrowserContextId,
    page: Page,
    /// Shared with the page's request guard.
    state: Arc<PageState>,
    /// The held requests of the page's new documents (page_hold.rs), to be
    /// answered once what the previous run left is cleared again.
    holds: tokio::sync::mpsc::UnboundedReceiver<HoldEvent>,
    /// To the guard: the requests that waited for a held document's
    /// clearings may be judged (`true`) or are refused (`false`).
    releases: tokio::sync::mpsc::UnboundedSender<bool>,
    /// Whether the hold script is on the page's new documents (from its first parking).
    hold_installed: bool,
    /// Set when emptying the page for a run failed, or its new document
    /// could not be held: it serves no other run.
    spoiled: Option<Spoiled>,
    /// Where the page's previous runs reached, cleared when the page was
    /// parked and again when the next document is held.
    left: StorageReach,
    bytes: Arc<Received>,
    watch: Watch,
    /// Fires when the page's renderer dies (out of memory, or killed):
    /// the run ends then rather than at its timeout. Taken by the run.
    crashed: Option<EventStream<EventTargetCrashed>>,
    /// The scrap of the page's last run, if it was a saved scrap's.
    scrap: Option<ScrapId>,
    /// The page's place in the page budget, given back when it is dropped
    /// (after its context is disposed).
    _seat: Seat,
    /// Times the page was parked (its garbage is collected every
    /// `COLLECT_EVERY`-th time).
    parkings: u64,
}

/// Why a page serves no other run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Spoiled {
    /// What an earlier run left could not be cleared.
    NotEmptied,
    /// The new document could not be held (its scrap's runs get contexts of their own).
    NotHeld,
}

/// Whether a run that asked for `loads` skips a request of `kind`: images,
/// fonts and media unless the script opted back in (`// svc:load`).
fn skipped(loads: Loads, kind: &ResourceType) -> bool {
    match kind {
        ResourceType::Image => !loads.images,
        ResourceType::Font => !loads.fonts,
        ResourceType::Media => !loads.media,
        _ => false,
    }
}

/// What the run reads once the navigation is done, without asking Chromium:
/// events of the page, buffered from before the navigation started.
struct Watch {
    main_frame: FrameId,
    /// Execution contexts created (the script's world among them), and
    /// destroyed (a page that navigates again takes its worlds with it).
    contexts: EventStream<EventExecutionContextCreated>,
    destroyed: EventStream<EventExecutionContextDestroyed>,
    /// Responses received (the main frame's document among them).
    responses: EventStream<EventResponseReceived>,
}

impl Watch {
    async fn new(page: &Page) -> Result<Watch, String> {
        let main_frame = page.mainframe().await.map_err(|e| e.to_string())?.ok_or("the page has no main frame")?;
        let contexts = page.event_listener::<EventExecutionContextCreated>().await.map_err(|e| e.to_string())?;
        let destroyed = page.event_listener::<EventExecutionContextDestroyed>().await.map_err(|e| e.to_string())?;
        let responses = page.event_listener::<EventResponseReceived>().await.map_err(|e| e.to_string())?;
        // Every document the page loads gets the script's world (`WORLD`) from chromiumoxide.
        Ok(Watch { main_frame, contexts, destroyed, responses })
    }

    /// The HTTP status of the main frame's latest document, if one arrived,
    /// and whether the egress proxy made that answer itself.
    fn document_status(&mut self) -> Option<(i64, bool)> {
        let mut status = None;
        while let Some(Some(event)) = self.responses.next().now_or_never() {
            if event.r#type == ResourceType::Document && event.frame_id.as_ref() == Some(&self.main_frame) {
                // The proxy marks its answers to `http://` requests; over
                // https the browser never shows a proxy's answer, so a
                // marker there is the target's own and means nothing.
                let headers = event.response.headers.inner().as_object();
                let marked = headers.is_some_and(|h| h.keys().any(|k| k.eq_ignore_ascii_case(ANSWER_HEADER)));
                let from_proxy = marked && event.response.url.starts_with("http:");
                status = Some((event.response.status, from_proxy));
            }
        }
        status
    }

    /// The script's world in the main frame's latest document, if created
    /// and not destroyed since.
    fn world(&mut self) -> Option<ExecutionContextId> {
        let mut worlds = Vec::new();
        while let Some(Some(event)) = self.contexts.next().now_or_never() {
            let frame = event.context.aux_data.as_ref().and_then(|aux| aux["frameId"].as_str());
            // Not the world of an `about:blank` that emptied the page between runs.
            let of_a_site = event.context.origin.starts_with("http");
            if event.context.name == WORLD && frame == Some(self.main_frame.inner().as_str()) && of_a_site {
                worlds.push((event.context.unique_id.clone(), event.context.id));
            }
        }
        let mut gone = std::collections::HashSet::new();
        while let Some(Some(event)) = self.destroyed.next().now_or_never() {
            gone.insert(event.execution_context_unique_id.clone());
        }
        worlds.into_iter().rev().find(|(unique, _)| !gone.contains(unique)).map(|(_, id)| id)
    }

    /// Forgets every event so far: the next run reads its own only.
    fn forget(&mut self) {
        while let Some(Some(_)) = self.contexts.next().now_or_never() {}
        while let Some(Some(_)) = self.destroyed.next().now_or_never() {}
        while let Some(Some(_)) = self.responses.next().now_or_never() {}
    }
}

/// What one run saw, before it becomes a report.
struct Outcome {
    result: ScriptResult,
    selector: Option<String>,
    /// The main document's HTTP status, once known.
    status: Option<i64>,
    /// The page's `localStorage` when the script returned items (jobs with a
    /// site login): `{origin, items}`.
    storage: Option<Value>,
    /// The JSON of the pages the script added with `SVC.enqueue`.
    enqueued: Option<String>,
}

fn failed(message: impl Into<String>) -> Outcome {
    Outcome {
        result: ScriptResult::Failed { message: message.into() },
        selector: None,
        status: None,
        storage: None,
        enqueued: None,
    }
}

impl ChromiumEngine {
    pub fn new(config: EngineConfig) -> Self {
        ChromiumEngine {
            inner: Arc::new(Inner {
                pool: BrowserPool::new(
                    config.chromium,
                    &config.browser_user,
                    config.sandbox,
                    config.runs_per_browser,
                    config.allow_private_networks.clone(),
                    config.resolver,
                    config.tiers,
                ),
                allow_private: config.allow_private_networks,
                spare_target: config.spare_pages,
                page_budget: config.warm_pages.max(config.spare_pages),
                seats: Seats::new(),
                disposing_pages: std::sync::atomic::AtomicUsize::new(0),
                spares: std::sync::Mutex::new(Vec::new()),
                preparing: std::sync::atomic::AtomicUsize::new(0),
                disposing: std::sync::atomic::AtomicUsize::new(0),
                closed: std::sync::atomic::AtomicBool::new(false),
                warm: std::sync::Mutex::new(WarmPages::new(config.warm_pages)),
                share_warm: std::sync::atomic::AtomicBool::new(true),
                recycled: tokio::sync::Notify::new(),
                spare_ready: tokio::sync::Notify::new(),
                reused: std::sync::atomic::AtomicU64::new(0),
                shared: std::sync::atomic::AtomicU64::new(0),
                renderer_log: std::sync::Mutex::new(None),
                worlds_made: std::sync::atomic::AtomicU64::new(0),
                pages_made: std::sync::atomic::AtomicU64::new(0),
                fonts_refused: Arc::new(AtomicU64::new(0)),
                hold: Hold::default(),
                unholdable: std::sync::Mutex::new(std::collections::HashSet::new()),
                promised: std::sync::Mutex::new(Vec::new()),
            }),
        }
    }

    /// Counts this engine's browser replacements in `metrics` (`GET /metrics`).
    pub fn count_in(&self, metrics: Arc<dyn svc_engine::EngineMetrics>) {
        self.inner.pool.count_in(metrics);
    }

    /// Whether Chromium runs with its sandbox, and the unprivileged user it
    /// runs as when svc is root.
    pub fn sandbox(&self) -> (BrowserSandbox, Option<crate::sandbox::BrowserUser>) {
        match self.inner.pool.launcher() {
            Some(launcher) => (launcher.state(), launcher.user().cloned()),
            None => (BrowserSandbox::Unavailable("Chromium was not found".into()), None),
        }
    }

    /// The process id of the browser runs use by default, if one runs.
    pub async fn browser_pid(&self) -> Option<u32> {
        self.inner.pool.pid(Fonts::Refused).await
    }

    /// The DevTools port of the browser runs use by default, if one runs
    /// (no page or script reaches it: `svc_engine::own_ports`).
    pub async fn devtools_port(&self) -> Option<u16> {
        self.inner.pool.devtools_port(Fonts::Refused).await
    }

    /// The process id of the browser of kind `fonts`, if one runs.
    pub async fn browser_pid_of(&self, fonts: Fonts) -> Option<u32> {
        self.inner.pool.pid(fonts).await
    }

    /// Where the egress proxy listens, once a browser has started.
    pub fn egress_address(&self) -> Option<std::net::SocketAddr> {
        self.inner.pool.egress().map(EgressProxy::addr)
    }

    /// What went through the egress proxy, once a browser has started.
    pub fn egress_stats(&self) -> Option<&EgressStats> {
        self.inner.pool.egress().map(EgressProxy::stats)
    }

    /// What went through the egress proxy of proxy tier `tier` (0: the same
    /// as [`Self::egress_stats`]), once a run has used the tier.
    pub fn tier_egress_stats(&self, tier: u8) -> Option<&EgressStats> {
        self.inner.pool.egress_of(tier).map(EgressProxy::stats)
    }

    /// Whether a warm page also serves the runs of the other scraps of its
    /// organization on the origin it shows (`SVC_WARM_PAGES_SHARED`; on by
    /// default), or only its own scrap's.
    pub fn share_warm_pages(&self, shared: bool) {
        self.inner.share_warm.store(shared, Ordering::Relaxed);
    }

    /// How many runs ran in a page an earlier run left (of their scrap,
    /// or of another scrap of their organization on the same origin).
    pub fn runs_in_warm_pages(&self) -> u64 {
        self.inner.reused.load(Ordering::Relaxed)
    }

    /// From now on, records which renderer process each saved scrap's run
    /// ran in (a DevTools round trip per run: for tests).
    pub fn log_renderers(&self) {
        self.inner.renderer_log.lock().expect("renderer log lock").get_or_insert_with(Vec::new);
    }

    /// The organization and renderer (the id of its V8 isolate, random per
    /// renderer process) of each saved scrap's run since `log_renderers`.
    pub fn renderers_seen(&self) -> Vec<(svc_domain::OrgId, String)> {
        self.inner.renderer_log.lock().expect("renderer log lock").clone().unwrap_or_default()
    }

    /// Of [`Self::runs_in_warm_pages`], how many ran in a page another
    /// scrap's run left.
    pub fn runs_in_shared_pages(&self) -> u64 {
        self.inner.shared.load(Ordering::Relaxed)
    }

    /// How many runs found no script world in their document and had to
    /// ask Chromium for one (a round trip and a second world).
    pub fn worlds_made_for_runs(&self) -> u64 {
        self.inner.worlds_made.load(Ordering::Relaxed)
    }

    /// How many pages (browser contexts) the engine made, spares included.
    pub fn pages_made(&self) -> u64 {
        self.inner.pages_made.load(Ordering::Relaxed)
    }

    /// How many web font requests the request guards refused (runs that
    /// did not ask for fonts whose renderer asked for one anyway).
    pub fn fonts_refused_by_the_guard(&self) -> u64 {
        self.inner.fonts_refused.load(Ordering::Relaxed)
    }

    /// Disposes the spare and warm pages and closes the browsers.
    pub async fn close(&self) {
        self.inner.closed.store(true, Ordering::SeqCst);
        // Let spares being prepared, and contexts being disposed, finish, so
        // that none outlives the browser.
        // `disposing` first: a disposal raises `preparing` (its refill)
        // before it lowers `disposing`, so neither can slip between reads.
        while self.inner.disposing.load(Ordering::SeqCst) > 0 || self.inner.preparing.load(Ordering::SeqCst) > 0 {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let mut spares = std::mem::take(&mut *self.inner.spares.lock().expect("spares lock"));
        spares.extend(self.inner.warm.lock().expect("warm lock").drain());
        for spare in spares {
            self.inner.dispose(spare).await;
        }
        self.inner.pool.close().await;
    }
}

impl Inner {
    /// A new context with a guarded blank page, in the browser of kind
    /// `fonts`. With `proxy` (a proxy tier's egress proxy), the context's
    /// every connection goes there instead of the browser-wide egress proxy.
    async fn prepare(&self, proxy: Option<std::net::SocketAddr>, fonts: Fonts) -> Result<GuardedPage, String> {
        let seat = self.seats.take();
        self.pages_made.fetch_add(1, Ordering::Relaxed);
        tracing::debug!(target: "svc_runner::pages", "page made");
        let warm = self.pool.get(fonts).await?;
        let params = match proxy {
            // Loopback too: Chromium's implicit bypass rules would send it around the proxy.
            Some(proxy) => CreateBrowserContextParams::builder()
                .proxy_server(format!("http://{proxy}"))
                .proxy_bypass_list("<-loopback>")
                .build(),
            None => CreateBrowserContextParams::default(),
        };
        let context = match warm.browser.create_browser_context(params).await {
            Ok(context) => context,
            Err(e) => {
                self.pool.discard(&warm).await;
                return Err(format!("the browser failed: {e}"));
            }
        };
        let state = Arc::new(PageState::new());
        let (hold_tx, holds) = tokio::sync::mpsc::unbounded_channel();
        let (releases, released) = tokio::sync::mpsc::unbounded_channel();
        let opened = async {
            let params = CreateTargetParams::builder()
                .url("about:blank")
                .browser_context_id(context.clone())
                .build()
                .map_err(|e| e.to_string())?;
            let page = warm.browser.new_page(params).await.map_err(|e| format!("cannot open a page: {e}"))?;
            let guard = Guard {
                allow_private: self.allow_private.clone(),
                fonts_refused: self.fonts_refused.clone(),
                state: state.clone(),
                hold: self.hold.clone(),
                hold_tx,
                releases: released,
                warm: warm.clone(),
                context: context.clone(),
            };
            guard.start(&page).await?;
            // Every page, so that a scrap's first run sees what the runs in
            // its warm page see: a policy could refuse the hold (page_hold.rs).
            page.execute(SetBypassCspParams::new(true)).await.map_err(|e| e.to_string())?;
            // No run reads what another loaded: the page may serve its
            // scrap's next run (and a fresh context's cache is empty anyway).
            page.execute(SetCacheDisabledParams::new(true)).await.map_err(|e| e.to_string())?;
            let bytes = count_bytes(&page).await?;
            let watch = Watch::new(&page).await?;
            let crashed = page.event_listener::<EventTargetCrashed>().await.map_err(|e| e.to_string())?;
            page.execute(InspectorEnableParams::default()).await.map_err(|e| e.to_string())?;
            // chromiumoxide turns these on for every page; svc reads neither
            // the page's metrics nor its log, which every page load would
            // otherwise keep count of and send (a refused image is a log entry).
            page.execute(PerformanceDisableParams::default()).await.map_err(|e| e.to_string())?;
            page.execute(LogDisableParams::default()).await.map_err(|e| e.to_string())?;
            Ok::<_, String>((page, bytes, watch, crashed))
        };
        match tokio::time::timeout(PREPARE_TIMEOUT, opened).await {
            Ok(Ok((page, bytes, watch, crashed))) => Ok(GuardedPage {
                warm,
                context,
                page,
                state,
                holds,
                releases,
                hold_installed: false,
                spoiled: None,
                left: StorageReach::default(),
                bytes,
                watch,
                crashed: Some(crashed),
                scrap: None,
                _seat: seat,
                parkings: 0,
            }),
            failure => {
                let _ = tokio::time::timeout(DISPOSE_TIMEOUT, warm.browser.dispose_browser_context(context)).await;
                Err(match failure {
                    Ok(Err(e)) => e,
                    _ => "timed out while opening a page".to_string(),
                })
            }
        }
    }

    /// A spare page if one is ready, else a new one (and a spare prepared
    /// beside it). A spare taken is replaced when its run ends, not now: the
    /// replacement's renderer start-up would compete with the run. Spares
    /// are of the default browser: a run that loads fonts gets a new page.
    async fn take(self: &Arc<Self>, fonts: Fonts) -> Result<GuardedPage, String> {
        if fonts != Fonts::Refused {
            return self.new_page(None, fonts).await;
        }
        let deadline = tokio::time::Instant::now() + ROOM_WAIT;
        loop {
            let ready = self.spare_ready.notified();
            tokio::pin!(ready);
            ready.as_mut().enable();
            let spare = self.spares.lock().expect("spares lock").pop();
            match spare {
                Some(spare) if !spare.warm.is_retired() => return Ok(spare),
                // From a browser that died or was replaced: let it go.
                Some(stale) => self.dispose(stale).await,
                // A spare on its way: this run takes it rather than make a
                // page beside it (which, at the budget, would push out a
                // warm page another run may want).
                None if self.preparing.load(Ordering::SeqCst) > 0 && tokio::time::Instant::now() < deadline => {
                    let _ = tokio::time::timeout_at(deadline, ready).await;
                }
                None => {
                    // While room is made, a spare may become ready (the
                    // page whose seat this run waited for was replaced by
                    // one): the run takes it.
                    if let Room::Spare(spare) = self.make_room(Wants::SpareOrRoom).await {
                        if !spare.warm.is_retired() {
                            return Ok(spare);
                        }
                        self.dispose(spare).await;
                        continue;
                    }
                    let page = self.prepare(None, fonts).await;
                    self.refill();
                    return page;
                }
            }
        }
    }

    /// A new page, within the page budget: see [`Self::make_room`].
    async fn new_page(
        self: &Arc<Self>,
        proxy: Option<std::net::SocketAddr>,
        fonts: Fonts,
    ) -> Result<GuardedPage, String> {
        self.make_room(Wants::Room).await;
        self.prepare(proxy, fonts).await
    }

    /// Before a new page is made, at the budget: the oldest parked page
    /// (else a spare) is disposed, and the new page waits for it to be gone
    /// (its renderer with it), so that a fleet of scraps that rarely fit a
    /// warm page does not keep renderers beyond the budget. When nothing is
    /// parked yet but pages are on their way there or out (being emptied,
    /// prepared as spares or disposed), it waits for them, [`ROOM_WAIT`] at
    /// most. When runs hold the whole budget (more runs at once than the
    /// budget), the new page goes beyond it at once. A caller that can use
    /// a spare ([`Wants::SpareOrRoom`]) gets one that is ready rather than
    /// room made by disposing it.
    async fn make_room(self: &Arc<Self>, wants: Wants) -> Room {
        let deadline = tokio::time::Instant::now() + ROOM_WAIT;
        loop {
            // Listening before looking, as in `take_warm`.
            let freed = self.seats.freed();
            let parked = self.recycled.notified();
            let ready = self.spare_ready.notified();
            tokio::pin!(freed, parked, ready);
            freed.as_mut().enable();
            parked.as_mut().enable();
            ready.as_mut().enable();
            let taken = self.seats.taken();
            if taken < self.page_budget {
                return Room::Made;
            }
            if wants == Wants::SpareOrRoom
                && let Some(spare) = self.spares.lock().expect("spares lock").pop()
            {
                return Room::Spare(spare);
            }
            let others = self.spares.lock().expect("spares lock").len()
                + self.preparing.load(Ordering::SeqCst)
                + self.disposing_pages.load(Ordering::SeqCst);
            // One look at the parked pages (not under the spares' lock,
            // which `close` takes before this one): the count and the
            // eviction agree.
            let mut promises = self.promises();
            let oldest = {
                let mut warm = self.warm.lock().expect("warm lock");
                let not_runs = warm.held() + others;
                if taken.saturating_sub(not_runs) >= self.page_budget {
                    return Room::Made;
                }
                // The oldest page no run on its way is promised (each
                // promise keeps one page); while pages are being emptied,
                // none (one of them is waited for); else the oldest.
                let unpromised = warm.take_oldest_where(|key, page| {
                    let shown = page.state.shown.lock().expect("shown lock").clone();
                    match promises.iter().position(|p| p.fits(key, shown.as_deref())) {
                        Some(i) => {
                            promises.swap_remove(i);
                            false
                        }
                        None => true,
                    }
                });
                let emptying = warm.held() > warm.len();
                unpromised.or_else(|| {
                    if emptying && tokio::time::Instant::now() < deadline { None } else { warm.take_oldest() }
                })
            };
            let evicted = oldest.or_else(|| self.spares.lock().expect("spares lock").pop());
            if let Some(page) = evicted {
                self.dispose(page).await;
                continue;
            }
            if tokio::time::Instant::now() >= deadline {
                return Room::Made;
            }
            tokio::select! {
                _ = freed => {}
                _ = parked => {}
                _ = ready => {}
                _ = tokio::time::sleep_until(deadline) => {}
            }
        }
    }

    fn refill(self: &Arc<Self>) {
        let have = self.spares.lock().expect("spares lock").len() + self.preparing.load(Ordering::SeqCst);
        if have >= self.spare_target || self.seats.taken() >= self.page_budget || self.closed.load(Ordering::SeqCst) {
            return;
        }
        self.preparing.fetch_add(1, Ordering::SeqCst);
        let me = self.clone();
        tokio::spawn(async move {
            let prepared = me.prepare(None, Fonts::Refused).await;
            match prepared {
                Ok(guarded) if me.closed.load(Ordering::SeqCst) => me.dispose(guarded).await,
                Ok(guarded) => me.spares.lock().expect("spares lock").push(guarded),
                Err(e) => tracing::warn!("could not prepare a spare page: {e}"),
            }
            me.preparing.fetch_sub(1, Ordering::SeqCst);
            me.spare_ready.notify_waiters();
        });
    }

    /// The origin of `url` when warm pages serve other scraps of their
    /// organization on the origin they show (`None`: only their own scrap).
    fn sharing_origin(&self, url: &str) -> Option<String> {
        url::Url::parse(url)
            .ok()
            .filter(|u| self.share_warm.load(Ordering::Relaxed) && u.fragment().is_none())
            .map(|u| u.origin().ascii_serialization())
    }

    /// The promises in force, a lapsed claim's dropped (under the lock).
    fn promises_in_force(&self) -> std::sync::MutexGuard<'_, Vec<Promise>> {
        let mut promised = self.promised.lock().expect("promised lock");
        let now = Instant::now();
        promised.retain(|p| p.until.is_none_or(|until| until > now));
        promised
    }

    /// A copy of the promises in force.
    fn promises(&self) -> Vec<Promise> {
        self.promises_in_force().clone()
    }

    /// Drops the promise a claim of `key` left, for a run that takes no warm page.
    fn forget_claim(&self, key: &ReuseKey) {
        let mut promised = self.promised.lock().expect("promised lock");
        if let Some(i) = promised.iter().position(|p| p.key == *key && p.until.is_some()) {
            promised.swap_remove(i);
        }
    }

    /// A page the last run of `key` left, emptied, if one is parked or
    /// being emptied (then waited for, `RECYCLE_WAIT` at most); else one
    /// that a run of another scrap of the same organization left on the
    /// origin of `url` (so that the navigation keeps its renderer); else as
    /// [`Self::take`]. A page of the other browser (the scrap's script
    /// changed its mind on fonts) is disposed.
    async fn take_warm(self: &Arc<Self>, key: ReuseKey, url: &str, fonts: Fonts) -> Result<GuardedPage, String> {
        let deadline = tokio::time::Instant::now() + RECYCLE_WAIT;
        let origin = self.sharing_origin(url);
        // Never across organizations; only a page that shows the run's origin.
        let shares = |parked: &ReuseKey, page: &GuardedPage| {
            parked.organization == key.organization
                && origin.is_some()
                && page.warm.fonts == fonts
                && *page.state.shown.lock().expect("shown lock") == origin
        };
        let _kept = Kept::new(self, key, origin.clone());
        loop {
            // Listening before looking: a page parked in between still wakes this run.
            let parked = self.recycled.notified();
            tokio::pin!(parked);
            parked.as_mut().enable();
            let (page, stale, being_emptied) = {
                let mut warm = self.warm.lock().expect("warm lock");
                let stale = warm.remove_stale(Instant::now(), |page| page.warm.is_retired());
                let own_emptied = warm.is_recycling(&key);
                // While the scrap's own page is being emptied, wait for it.
                let page = if own_emptied { warm.take(&key, |_, _| false) } else { warm.take(&key, shares) };
                let being_emptied = own_emptied
                    || (origin.is_some()
                        && warm
                            .is_recycling_where(|k, o| k.organization == key.organization && o == origin.as_deref()));
                (page, stale, being_emptied)
            };
            self.dispose_later(stale);
            match page {
                Some(mut page) => {
                    // Its renderer died while it waited (killed over a cap).
                    let crashed = page.crashed.as_mut().is_some_and(|c| c.next().now_or_never().is_some());
                    if crashed || page.warm.is_retired() || page.warm.fonts != fonts {
                        self.dispose_later(vec![page]);
                        continue;
                    }
                    self.reused.fetch_add(1, Ordering::Relaxed);
                    tracing::debug!(target: "svc_runner::pages", org = %key.organization, origin = origin.as_deref().unwrap_or("-"), own = page.scrap == Some(key.scrap), "warm page taken");
                    if page.scrap.is_some_and(|scrap| scrap != key.scrap) {
                        self.shared.fetch_add(1, Ordering::Relaxed);
                    }
                    return Ok(page);
                }
                None if being_emptied && tokio::time::Instant::now() < deadline => {
                    let _ = tokio::time::timeout_at(deadline, parked).await;
                }
                None => {
                    if tracing::enabled!(target: "svc_runner::pages", tracing::Level::DEBUG) {
                        let seats = self
                            .warm
                            .lock()
                            .expect("warm lock")
                            .seats(|page| page.state.shown.lock().expect("shown lock").clone());
                        let seats: Vec<String> = seats
                            .iter()
                            .map(|(k, o)| format!("{}@{}", k.organization, o.as_deref().unwrap_or("-")))
                            .collect();
                        tracing::debug!(target: "svc_runner::pages", org = %key.organization, origin = origin.as_deref().unwrap_or("-"), ?seats, taken = self.seats.taken(), "no warm page fits");
                    }
                    return self.take(fonts).await;
                }
            }
        }
    }

    /// Empties the page of a finished run of `key` and parks it for the
    /// scrap's next run; a page that cannot be emptied is disposed. The
    /// caller has counted it as recycling (`WarmPages::recycling`).
    async fn recycle(self: &Arc<Self>, mut guarded: GuardedPage, key: ReuseKey, origin: Option<String>) {
        let emptied = tokio::time::timeout(RECYCLE_TIMEOUT, empty(&mut guarded, &self.hold)).await;
        let (unkept, start_sweeper) = {
            let mut warm = self.warm.lock().expect("warm lock");
            warm.recycled(&key, &origin);
            match emptied {
                Ok(Ok(())) if !self.closed.load(Ordering::SeqCst) && !guarded.warm.is_retired() => {
                    (warm.park(key, guarded, Instant::now()), warm.sweeper_needed())
                }
                failure => {
                    if let Ok(Err(e)) = failure {
                        tracing::debug!("could not empty a page for its scrap's next run: {e}");
                    }
                    (Some(guarded), false)
                }
            }
        };
        self.recycled.notify_waiters();
        if let Some(page) = unkept {
            self.dispose(page).await;
        }
        if start_sweeper {
            tokio::spawn(sweep_idle(Arc::downgrade(self)));
        }
    }

    /// Disposes `pages` in the background (counted, so that `close` waits for them).
    fn dispose_later(self: &Arc<Self>, pages: Vec<GuardedPage>) {
        if pages.is_empty() {
            return;
        }
        self.disposing.fetch_add(1, Ordering::SeqCst);
        let me = self.clone();
        tokio::spawn(async move {
            for page in pages {
                me.dispose(page).await;
            }
            me.disposing.fetch_sub(1, Ordering::SeqCst);
        });
    }

    async fn dispose(&self, guarded: GuardedPage) {
        if !guarded.warm.is_alive() {
            return;
        }
        self.disposing_pages.fetch_add(1, Ordering::SeqCst);
        tracing::debug!(target: "svc_runner::pages", parkings = guarded.parkings, "page disposed");
        let disposed = tokio::time::timeout(
            DISPOSE_TIMEOUT,
            guarded.warm.browser.dispose_browser_context(guarded.context.clone()),
        )
        .await;
        if !matches!(disposed, Ok(Ok(()))) {
            tracing::warn!("could not dispose a browser context; replacing the browser");
            self.pool.discard(&guarded.warm).await;
        }
        self.disposing_pages.fetch_sub(1, Ordering::SeqCst);
        // The seat goes back here, with the page.
        drop(guarded);
    }
}

/// Disposes parked pages once idle for `IDLE_TTL` (or of a replaced
/// browser), and collects the garbage of those idle for `COLLECT_AFTER`,
/// looking every quarter of `IDLE_TTL`, until none is parked; it does not
/// hold the engine.
async fn sweep_idle(engine: std::sync::Weak<Inner>) {
    loop {
        tokio::time::sleep(crate::warm_pages::IDLE_TTL / 4).await;
        let Some(engine) = engine.upgrade() else { return };
        let (stale, idle, done) = {
            let mut warm = engine.warm.lock().expect("warm lock");
            let now = Instant::now();
            let stale = warm.remove_stale(now, |p| p.warm.is_retired());
            let idle = warm.due_for_collection(now, |p| p.page.clone());
            (stale, idle, warm.sweeper_done())
        };
        engine.dispose_later(stale);
        for page in idle {
            // Best effort: a page that does not answer is disposed when it expires.
            let _ = tokio::time::timeout(DISPOSE_TIMEOUT, page.execute(CollectGarbageParams::default())).await;
        }
        if done {
            return;
        }
    }
}

/// The request guard of a page, and what it shares with the page's runs.
struct Guard {
    allow_private: PrivateNetworks,
    fonts_refused: Arc<AtomicU64>,
    state: Arc<PageState>,
    hold: Hold,
    hold_tx: tokio::sync::mpsc::UnboundedSender<HoldEvent>,
    /// From the run, once a held document's clearings are done (`true`)
    /// or failed or the document never came (`false`): the requests that
    /// waited for them go then, or are refused.
    releases: tokio::sync::mpsc::UnboundedReceiver<bool>,
    warm: Arc<WarmBrowser>,
    context: BrowserContextId,
}

impl Guard {
    /// Pauses every request of `page` and lets through only what the run
    /// may load; pauses documents' answers too, for a warm page's next
    /// document (page_hold.rs). The guard's task ([`GuardTask`]) then
    /// answers them until the page is gone.
    async fn start(self, page: &Page) -> Result<(), String> {
        let Guard { allow_private, fonts_refused, state, hold, hold_tx, releases, warm, context } = self;
        let main_frame = page.mainframe().await.map_err(|e| e.to_string())?.ok_or("the page has no main frame")?;
        let paused = page.event_listener::<EventRequestPaused>().await.map_err(|e| e.to_string())?;
        let requests = RequestPattern::builder().url_pattern("*").request_stage(RequestStage::Request).build();
        let answers = RequestPattern::builder()
            .url_pattern("*")
            .resource_type(ResourceType::Document)
            .request_stage(RequestStage::Response)
            .build();
        page.execute(FetchEnableParams::builder().patterns(vec![requests, answers]).build())
            .await
            .map_err(|e| e.to_string())?;
        let judge = Judge {
            page: page.clone(),
            main_frame: main_frame.clone(),
            allow_private,
            state: state.clone(),
            verdicts: HashMap::new(),
            fonts_refused,
        };
        let task = GuardTask {
            page: page.clone(),
            main_frame,
            state,
            hold,
            hold_tx,
            releases,
            warm,
            context,
            judge,
            waiting: Vec::new(),
        };
        tokio::spawn(task.run(paused));
        Ok(())
    }
}

/// The guard's task: every paused request and document answer of its
/// page, and the run's releases of what waited for a held document.
struct GuardTask {
    page: Page,
    main_frame: FrameId,
    state: Arc<PageState>,
    hold: Hold,
    hold_tx: tokio::sync::mpsc::UnboundedSender<HoldEvent>,
    releases: tokio::sync::mpsc::UnboundedReceiver<bool>,
    warm: Arc<WarmBrowser>,
    context: BrowserContextId,
    judge: Judge,
    /// Requests of a warm page's next document that wait for its clearings.
    waiting: Vec<Arc<EventRequestPaused>>,
}

/// What woke the guard's task.
enum Wake {
    Paused(Arc<EventRequestPaused>),
    /// The run's release (`Guard::releases`).
    Released(bool),
}

impl GuardTask {
    /// Answers until the page is gone (its events end, or Chromium no
    /// longer takes answers).
    async fn run(mut self, mut paused: EventStream<EventRequestPaused>) {
        loop {
            let wake = tokio::select! {
                event = paused.next() => match event {
                    Some(event) => Wake::Paused(event),
                    None => break,
                },
                Some(cleared) = self.releases.recv() => Wake::Released(cleared),
            };
            let answered = match wake {
                Wake::Paused(event) => self.on_paused(event).await,
                Wake::Released(cleared) => self.release_waiting(cleared).await,
            };
            if answered.is_err() {
                break;
            }
        }
    }

    /// The requests that waited for a held document's clearings: judged
    /// as usual once they are done, refused if they failed or no document
    /// was held.
    async fn release_waiting(&mut self, cleared: bool) -> Result<(), ()> {
        for event in std::mem::take(&mut self.waiting) {
            match cleared {
                true => self.judge.decide(&event).await?,
                false => self.judge.refuse(&event, UNLOADING.into()).await?,
            }
        }
        Ok(())
    }

    /// One paused request, or a document's answer.
    async fn on_paused(&mut self, event: Arc<EventRequestPaused>) -> Result<(), ()> {
        if event.response_status_code.is_some() || event.response_error_reason.is_some() {
            return self.on_document_answer(&event).await;
        }
        let url = url::Url::parse(&event.request.url).ok();
        let hold = url.as_ref().filter(|u| self.hold.is_hold(u));
        match hold {
            Some(url) if page_hold::is_unheld_signal(url) => self.on_unheld_signal(&event).await,
            Some(_) => self.on_hold_request(&event).await,
            None if self.waits_for_the_clearings(&event) => {
                self.waiting.push(event);
                Ok(())
            }
            None => self.judge.decide(&event).await,
        }
    }

    fn is_main_document(&self, event: &EventRequestPaused) -> bool {
        event.resource_type == ResourceType::Document && event.frame_id == self.main_frame
    }

    /// A document's answer. The main frame's: a confined run's first
    /// navigation goes on through a redirect and ends at anything else
    /// (first_navigation.rs). The main frame's (not a redirect): an answer
    /// without a document is told to the run; the next document of a
    /// parked page has the cookie jar read before it commits
    /// (`Handover::answered`); a top-level policy that forbids synchronous
    /// requests is lifted. Then the answer goes on.
    async fn on_document_answer(&mut self, event: &EventRequestPaused) -> Result<(), ()> {
        let status = event.response_status_code.unwrap_or(0);
        let answered_ok = self.is_main_document(event) && event.response_error_reason.is_none();
        if self.is_main_document(event)
            && let Some(first) = self.state.first_navigation.lock().expect("first navigation lock").as_mut()
        {
            first.on_document_answer(answered_ok && page_hold::is_redirect(status));
        }
        let no_document = answered_ok && page_hold::has_no_document(status);
        if no_document {
            let _ = self.hold_tx.send(HoldEvent::NoDocument(status));
        }
        let commits = answered_ok && !no_document && !page_hold::is_redirect(status);
        if commits && self.state.handover.answered() {
            self.read_jar().await;
        }
        let rewritten = commits && self.lift_sync_xhr_ban(event).await;
        match rewritten {
            true => Ok(()),
            false => answered(self.page.execute(ContinueRequestParams::new(event.request_id.clone())).await),
        }
    }

    /// The cookie jar now: what the navigation's answers set (the run
    /// emptied it before navigating), before the old document's unload
    /// handlers run at the commit. Fetch does not show `Set-Cookie`, so it
    /// is read every time.
    async fn read_jar(&self) {
        let params = StorageGetCookies::builder().browser_context_id(self.context.clone()).build();
        let cookies = self.warm.browser.execute(params).await.map(|r| r.result.cookies);
        *self.state.jar.lock().expect("jar lock") = cookies.ok();
    }

    /// A top-level document that forbids synchronous requests could not be
    /// held: its answer goes on without that member of its policy. Whether
    /// it went so (if not, it is still paused).
    async fn lift_sync_xhr_ban(&self, event: &EventRequestPaused) -> bool {
        let headers = event.response_headers.as_deref().unwrap_or_default();
        let lifted = page_hold::headers_without_sync_xhr_ban(headers);
        // Chromium takes new headers only with the status.
        let rewrite = lifted.and_then(|headers| {
            ContinueResponseParams::builder()
                .request_id(event.request_id.clone())
                .response_code(event.response_status_code.unwrap_or(200))
                .response_headers(headers)
                .build()
                .ok()
        });
        match rewrite {
            Some(params) => match self.page.execute(params).await {
                Ok(_) => true,
                // As it came, rather than paused for good.
                Err(e) => {
                    tracing::debug!("could not rewrite a document's policy: {e}");
                    false
                }
            },
            None => false,
        }
    }

    /// The hold script could not make its request: the document runs
    /// unheld, nothing more of it goes (`Handover::unheld`), and the run
    /// is told. The signal itself is refused.
    async fn on_unheld_signal(&mut self, event: &EventRequestPaused) -> Result<(), ()> {
        if event.frame_id == self.main_frame && self.state.handover.unheld() {
            let _ = self.hold_tx.send(HoldEvent::CouldNotHold);
        }
        self.judge.refuse(event, "the hold's signal".into()).await
    }

    /// A document's hold request. The top-level document the page waits
    /// for (`Handover::hold`; the script holds no iframe) is handed to the
    /// run, which answers it once it has cleared; any other has nothing to
    /// clear.
    async fn on_hold_request(&mut self, event: &EventRequestPaused) -> Result<(), ()> {
        let held = event.frame_id == self.main_frame && self.state.handover.hold();
        if held && self.hold_tx.send(HoldEvent::Held(event.request_id.clone())).is_ok() {
            return Ok(());
        }
        let answer = FulfillRequestParams::new(event.request_id.clone(), page_hold::NOTHING);
        answered(self.page.execute(answer).await)
    }

    /// Whether a request of the new document's preload scanner waits for
    /// the clearings (while that document commits and is held).
    fn waits_for_the_clearings(&self, event: &EventRequestPaused) -> bool {
        self.state.handover.phase().preloads_wait()
            && !self.is_main_document(event)
            && page_hold::waits_for_the_hold(&event.resource_type, event.request.is_link_preload.unwrap_or(false))
    }
}

/// Why the guard refuses a request made while the previous run's document
/// is still the page's (parked, unloading, or the new one not yet cleared).
const UNLOADING: &str = "the previous document is unloading";

/// What the guard's task judges a paused request by.
struct Judge {
    fonts_refused: Arc<AtomicU64>,
    page: Page,
    main_frame: FrameId,
    allow_private: PrivateNetworks,
    state: Arc<PageState>,
    /// Per origin: whether the address it resolves to may be reached.
    verdicts: HashMap<String, Result<(), String>>,
}

impl Judge {
    /// Lets `event`'s request go or refuses it, and tells Chromium; an
    /// error when the page is gone.
    async fn decide(&mut self, event: &EventRequestPaused) -> Result<(), ()> {
        let main_document = event.resource_type == ResourceType::Document && event.frame_id == self.main_frame;
        // A warm page's next document goes once the cookies it must not
        // carry are cleared (`navigate`).
        let clearing = main_document.then(|| self.state.clearing.lock().expect("clearing lock").take()).flatten();
        let cleared = match clearing {
            Some(clearing) => clearing.await.unwrap_or_else(|e| Err(e.to_string())),
            None => Ok(()),
        };
        let run_loads = *self.state.loads.lock().expect("loads lock");
        let phase = self.state.handover.phase();
        // Until the next document is held, nothing but it is this run's.
        let unloading = phase.unloading();
        let url = url::Url::parse(&event.request.url).ok();
        let verdict = match run_loads {
            _ if cleared.is_err() => cleared.map_err(|e| format!("the page could not be emptied: {e}")),
            // A finished run's document, parked.
            None => Err("the run is over".to_string()),
            Some(_) if phase == Phase::Ending => Err("the previous document is being ended".to_string()),
            // The previous run's document (being ended, or
            // unloading): only the next document may load.
            Some(_) if unloading && !main_document => Err(UNLOADING.to_string()),
            Some(run_loads) if skipped(run_loads, &event.resource_type) => {
                if event.resource_type == ResourceType::Font {
                    self.fonts_refused.fetch_add(1, Ordering::Relaxed);
                }
                Err("not needed for extraction".to_string())
            }
            Some(_) => {
                let origin = url
                    .as_ref()
                    .map(|u| format!("{}://{}", u.scheme(), u.host_str().unwrap_or_default()))
                    .unwrap_or_default();
                match self.verdicts.get(&origin) {
                    Some(v) => v.clone(),
                    None => {
                        let v =
                            net_guard::check(&event.request.url, &self.allow_private).await.map_err(|r| r.to_string());
                        self.verdicts.insert(origin, v.clone());
                        v
                    }
                }
            }
        };
        match verdict {
            Ok(()) => {
                if event.resource_type == ResourceType::Document
                    && let Some(url) = &url
                {
                    self.state.reach.lock().expect("reach lock").note_document(url, main_document);
                    if main_document {
                        *self.state.shown.lock().expect("shown lock") = Some(url.origin().ascii_serialization());
                    }
                }
                // Before it goes on: the run's proxy must know a redirect's site first.
                if main_document {
                    self.admit_first_navigation_hop(event);
                }
                answered(self.page.execute(ContinueRequestParams::new(event.request_id.clone())).await)
            }
            Err(why) => self.refuse(event, why).await,
        }
    }

    /// A main-frame document request the guard lets go: on a confined
    /// run's first navigation, a redirect's site is added to the run's
    /// (first_navigation.rs).
    fn admit_first_navigation_hop(&self, event: &EventRequestPaused) {
        let mut first = self.state.first_navigation.lock().expect("first navigation lock");
        let Some(first) = first.as_mut() else { return };
        let network_id = event.network_id.as_ref().map(|id| id.inner().as_str());
        let hop = first.on_document_request(network_id, &event.request.url);
        if hop == (Hop::Redirect { widened: true }) {
            tracing::debug!(url = %event.request.url, "a redirect of the confined run's first navigation widens its sites");
        }
    }

    /// Refuses `event`'s request, noting why when it is a document.
    async fn refuse(&self, event: &EventRequestPaused, why: String) -> Result<(), ()> {
        if event.resource_type == ResourceType::Document {
            self.state.refused_document.lock().await.get_or_insert(format!("{}: {why}", event.request.url));
        }
        let fail = FailRequestParams::new(event.request_id.clone(), ErrorReason::BlockedByClient);
        answered(self.page.execute(fail).await)
    }
}

/// Whether the guard may go on after answering a paused request: yes
/// unless the page is gone. Chromium refusing the answer is no reason to
/// stop: the request was cancelled meanwhile (a request that waited for a
/// held document's clearings and whose document went).
fn answered<T>(answer: chromiumoxide::error::Result<T>) -> Result<(), ()> {
    match answer {
        Ok(_) => Ok(()),
        Err(chromiumoxide::error::CdpError::Chrome(e)) => {
            tracing::debug!("Chromium refused an answer to a paused request: {e}");
            Ok(())
        }
        Err(e) => {
            tracing::debug!("the request guard stops: {e}");
            Err(())
        }
    }
}

/// Bytes the page received, per request: chunks as they arrive
/// (`Network.dataReceived`), replaced by the request's full encoded length
/// (headers included) when it finishes. A body cut off by the timeout still
/// counts what arrived.
#[derive(Default)]
struct Received(std::sync::Mutex<HashMap<String, u64>>);

impl Received {
    fn total(&self) -> u64 {
        self.0.lock().expect("received lock").values().sum()
    }

    fn reset(&self) {
        self.0.lock().expect("received lock").clear();
    }
}

async fn count_bytes(page: &Page) -> Result<Arc<Received>, String> {
    let mut chunks = page.event_listener::<EventDataReceived>().await.map_err(|e| e.to_string())?;
    let mut finished = page.event_listener::<EventLoadingFinished>().await.map_err(|e| e.to_string())?;
    let received = Arc::new(Received::default());
    let counter = received.clone();
    tokio::spawn(async move {
        loop {
            tokio::select! {
                Some(chunk) = chunks.next() => {
                    let mut map = counter.0.lock().expect("received lock");
                    // With the network service, chunks often carry no encoded length.
                    let bytes = if chunk.encoded_data_length > 0 { chunk.encoded_data_length } else { chunk.data_length };
                    *map.entry(chunk.request_id.inner().clone()).or_default() += bytes.max(0) as u64;
                }
                Some(done) = finished.next() => {
                    let mut map = counter.0.lock().expect("received lock");
                    let total = map.entry(done.request_id.inner().clone()).or_default();
                    *total = (*total).max(done.encoded_data_length.max(0.0) as u64);
                }
                else => break,
            }
        }
    });
    Ok(received)
}

/// Why the egress proxy could not reach the run's target during this run.
fn egress_failure(egress: Option<&EgressProxy>, url: &str, since: Instant) -> Option<String> {
    let url = url::Url::parse(url).ok()?;
    egress?.failure_since(url.host_str()?, url.port_or_known_default()?, since)
}

/// "navigation failed", and on which proxy tier when not direct.
fn navigation_failed(tier: u8, why: impl std::fmt::Display) -> String {
    match tier {
        0 => format!("navigation failed: {why}"),
        _ => format!("navigation failed on proxy tier {tier}: {why}"),
    }
}

/// Runs `job` on a prepared page; `egress` is the egress proxy of the
/// job's tier (the one whose failures explain a failed navigation);
/// `worlds_made` counts runs that had to make their script world.
async fn execute(
    guarded: &mut GuardedPage,
    job: &RunJob,
    egress: Option<&EgressProxy>,
    worlds_made: &AtomicU64,
) -> Outcome {
    let restored = match &job.session {
        Some(state) => restore_session(guarded, job, state).await,
        None => None,
    };
    let started = Instant::now();
    let navigated = navigate(guarded, &job.url).await;
    if let Some(first) = guarded.state.first_navigation.lock().expect("first navigation lock").as_mut() {
        first.end();
    }
    let GuardedPage { page, state, watch, .. } = guarded;
    let refused_document = &state.refused_document;
    // Restored once: a document loaded later in the run keeps what the run wrote.
    if let Some(script) = restored {
        let _ = page.execute(RemoveScriptToEvaluateOnNewDocumentParams::new(script)).await;
    }
    if let Err(e) = navigated {
        if let Some(why) = refused_document.lock().await.take() {
            return failed(format!("navigation refused: {why}"));
        }
        if let Some(why) = egress_failure(egress, &job.url, started) {
            return failed(navigation_failed(job.tier, why));
        }
        return failed(navigation_failed(job.tier, e));
    }
    if let Some(why) = refused_document.lock().await.take() {
        return failed(format!("navigation refused: {why}"));
    }
    // chromiumoxide may hand back the navigation a moment before it passes
    // on the events that came with it: without one, ask the page.
    let status = match watch.document_status() {
        Some((status, true)) if status >= 400 => {
            let why = egress_failure(egress, &job.url, started);
            return failed(navigation_failed(
                job.tier,
                why.unwrap_or_else(|| "the target could not be reached".into()),
            ));
        }
        Some((status, _)) => status,
        None => {
            tracing::debug!("no document response event yet; asking the page for its status");
            page.evaluate("(performance.getEntriesByType('navigation')[0] || {}).responseStatus || 0")
                .await
                .ok()
                .and_then(|r| r.into_value::<i64>().ok())
                .unwrap_or(0)
        }
    };
    let known = (status > 0).then_some(status);
    let failed = |message: String| Outcome { status: known, ..failed(message) };
    if status >= 400 {
        return failed(format!("the page answered HTTP {status}"));
    }
    let context = match watch.world() {
        Some(context) => context,
        // Not seen yet (see the status above), or a document without it: ask for one.
        None => {
            tracing::debug!("no script world event yet; creating the world");
            worlds_made.fetch_add(1, Ordering::Relaxed);
            let world =
                match CreateIsolatedWorldParams::builder().frame_id(watch.main_frame.clone()).world_name(WORLD).build()
                {
                    Ok(params) => page.execute(params).await,
                    Err(e) => return failed(e),
                };
            match world {
                Ok(world) => world.result.execution_context_id,
                Err(e) => return failed(format!("cannot prepare the script's world: {e}")),
            }
        }
    };
    // One call: the script compiled from an argument and run, its outcome
    // read field by field in the page (script.rs).
    let call = CallFunctionOnParams::builder()
        .function_declaration(script::RUN.as_str())
        .execution_context_id(context)
        .arguments(script::arguments(job).map(|value| CallArgument::builder().value(value).build()))
        .await_promise(true)
        .return_by_value(true)
        .build();
    let called = match call {
        Ok(params) => page.execute(params).await,
        Err(e) => return failed(e),
    };
    let value = match called {
        Ok(r) => match r.result.exception_details {
            None => r.result.result.value.unwrap_or(Value::Null),
            Some(ex) => {
                let what = ex.exception.as_ref().and_then(|e| e.description.clone()).unwrap_or(ex.text);
                return failed(format!("{}{what}", script::NOT_RUN));
            }
        },
        Err(e) => return failed(format!("{}{e}", script::NOT_RUN)),
    };
    let enqueued = value["enqueued"].as_str().map(str::to_string);
    if value["ok"] == json!(true) {
        let json = value["json"].as_str().unwrap_or("[]").to_string();
        // Checked in the page; checked again here whatever the page said.
        if json.len() > script::MAX_RESULT_CHARS {
            return failed("returnData: the result is larger than 10 MiB of JSON".into());
        }
        let length = value["length"].as_i64().unwrap_or(0);
        let storage = value["storage"].as_str().and_then(|s| serde_json::from_str::<Value>(s).ok());
        let storage = storage.filter(Value::is_object);
        Outcome { result: ScriptResult::Data { json, length }, selector: None, status: known, storage, enqueued }
    } else {
        Outcome {
            result: ScriptResult::Failed {
                message: value["error"].as_str().unwrap_or("the script failed").to_string(),
            },
            selector: value["selector"].as_str().map(str::to_string),
            status: known,
            storage: None,
            enqueued,
        }
    }
}

/// Navigates the run's page to `url` (`page.goto`: until the document has
/// loaded). In a page an earlier run of the scrap left, the new document is
/// held by its first script until what the old one left is cleared again
/// (page_hold.rs); a clearing that fails fails the navigation. The steps:
/// holds left from before answered; a parked page's cookies cleared
/// while the navigation starts (`clear_cookies_first`); the navigation
/// followed, the held document cleared meanwhile (`follow`, `clear_held`);
/// the page settled (`settle`).
async fn navigate(guarded: &mut GuardedPage, url: &str) -> Result<(), String> {
    answer_stale_holds(guarded).await;
    // A parked page shows `about:blank` (`empty`): whatever the URL (another
    // origin's, one with a fragment), nothing of the old document is left
    // to run when the new one commits. A page never parked (new, or left
    // unparked by its last run) has nothing to clear.
    let parked = guarded.state.handover.phase() == Phase::Parked;
    if parked {
        clear_cookies_first(guarded);
    }
    let mut navigation = Navigation::default();
    let navigated = follow(guarded, url, &mut navigation).await;
    settle(guarded, parked, navigation, navigated).await
}

/// What `follow` came across, for `settle`.
#[derive(Default)]
struct Navigation {
    /// Why the page was not emptied of the previous run, if it was not: it
    /// then serves no other run.
    unclean: Option<String>,
    /// The main frame's answer had no document (`HoldEvent::NoDocument`).
    no_document: bool,
}

/// Answers the holds handed over after their run ended: they belong to no
/// document now.
async fn answer_stale_holds(guarded: &mut GuardedPage) {
    while let Ok(stale) = guarded.holds.try_recv() {
        if let HoldEvent::Held(id) = stale {
            let _ = guarded.page.execute(FulfillRequestParams::new(id, page_hold::NOTHING)).await;
        }
    }
}

/// Clears a parked page's cookies while its navigation starts: a cookie
/// the old page set just before it was ended can reach the jar late (the
/// renderer writes to the network service directly), and the document
/// request must carry none of it. The guard holds that request until
/// this is done (`Judge::decide`).
fn clear_cookies_first(guarded: &GuardedPage) {
    let (warm, context) = (guarded.warm.clone(), guarded.context.clone());
    let clearing = tokio::spawn(async move { clear_cookies_until_empty(&warm, &context).await });
    *guarded.state.clearing.lock().expect("clearing lock") = Some(clearing);
}

/// Follows the navigation to `url` until it is done, answering what the
/// guard hands over meanwhile: the held document is cleared and answered
/// (`clear_held`); a document that could not be held, and an answer
/// without a document (which ends the navigation), are noted in
/// `navigation`.
async fn follow(guarded: &mut GuardedPage, url: &str, navigation: &mut Navigation) -> Result<(), String> {
    let page = guarded.page.clone();
    let goto = page.goto(url);
    tokio::pin!(goto);
    loop {
        let event = tokio::select! {
            navigated = &mut goto => return navigated.map(drop).map_err(|e| e.to_string()),
            Some(event) = guarded.holds.recv() => event,
        };
        match event {
            HoldEvent::Held(held) => clear_held(guarded, held, navigation).await,
            HoldEvent::NoDocument(status) => {
                navigation.no_document = true;
                return Err(format!("the page answered HTTP {status}, which has no document to run the script on"));
            }
            HoldEvent::CouldNotHold => {
                // Its scripts run now: what waited for the clearings never goes.
                let _ = guarded.releases.send(false);
                navigation.unclean.get_or_insert("its new document could not be held".to_string());
                guarded.spoiled = Some(Spoiled::NotHeld);
            }
        }
    }
}

/// Clears what the old document wrote before and while it was ended
/// (`clear_after_commit`), releasing or refusing what waited for that
/// (`Handover::release`); then answers the hold: [`page_hold::CLEARED`], or
/// the request fails and the page serves no other run.
async fn clear_held(guarded: &mut GuardedPage, held: PausedRequestId, navigation: &mut Navigation) {
    let jar_then = guarded.state.jar.lock().expect("jar lock").take();
    let GuardedPage { warm, context, page, state, releases, left, spoiled, .. } = guarded;
    let cleared = clear_after_commit(warm, context, page, left, jar_then).await;
    // What the new document asked for meanwhile goes now, or nothing more
    // of the page does.
    let cleared = state.handover.release(cleared, releases);
    if cleared.is_ok() {
        *left = StorageReach::default();
    }
    let answer = match cleared {
        Ok(()) => page.execute(FulfillRequestParams::new(held, page_hold::CLEARED)).await.map(drop),
        Err(e) => {
            navigation.unclean = Some(e);
            spoiled.get_or_insert(Spoiled::NotEmptied);
            page.execute(FailRequestParams::new(held, ErrorReason::Aborted)).await.map(drop)
        }
    };
    if let Err(e) = answer {
        tracing::debug!("could not answer a held document: {e}");
    }
}

/// What the old document's unload handlers may have written at the commit,
/// cleared: the storage of every origin in `reach`, and the cookies, the
/// jar then set back to `jar_then` (what it held when the new document
/// answered).
async fn clear_after_commit(
    warm: &WarmBrowser,
    context: &BrowserContextId,
    page: &Page,
    reach: &StorageReach,
    jar_then: Option<Vec<Cookie>>,
) -> Result<(), String> {
    // Clearing an origin's storage takes its cookies too: the jar is set
    // back once both are done.
    let (storage, cookies) = tokio::join!(clear_storage(page, reach), clear_cookies(warm, context));
    match (storage.and(cookies), jar_then) {
        (Err(e), _) => Err(e),
        (Ok(()), None) => Err("the cookies before the commit are unknown".to_string()),
        (Ok(()), Some(then)) if then.is_empty() => Ok(()),
        (Ok(()), Some(then)) => {
            let set = StorageSetCookies::builder()
                .cookies(session::cookie_params(&then))
                .browser_context_id(context.clone())
                .build();
            match set {
                Ok(set) => warm.browser.execute(set).await.map(drop).map_err(|e| format!("setting cookies back: {e}")),
                Err(e) => Err(e),
            }
        }
    }
}

/// Settles the page once its navigation is over (`navigated`): the cookie
/// clearing awaited if no request took it; a page whose answer had no
/// document ends (`Handover::end`); a parked page whose next document was
/// not held (`Handover::settle`) has its old document ended; a page that
/// could not be emptied serves no other run, and one that was runs the
/// script (`Handover::run`).
async fn settle(
    guarded: &mut GuardedPage,
    parked: bool,
    navigation: Navigation,
    navigated: Result<(), String>,
) -> Result<(), String> {
    let Navigation { mut unclean, no_document } = navigation;
    // A navigation that sent no request (it failed first) leaves the clearing here.
    let left_clearing = guarded.state.clearing.lock().expect("clearing lock").take();
    if let Some(clearing) = left_clearing
        && let Err(e) = clearing.await.unwrap_or_else(|e| Err(e.to_string()))
    {
        unclean.get_or_insert(e);
    }
    if no_document {
        // The navigation never ends in chromiumoxide, so the page cannot
        // navigate again: nothing more of it goes, and it serves no other
        // run (its context is disposed, what it showed with it).
        guarded.state.handover.end(&guarded.releases);
        guarded.spoiled.get_or_insert(Spoiled::NotEmptied);
        return navigated;
    }
    let held = guarded.state.handover.settle(&guarded.releases);
    // No new document was held: the answer had none (204, a download) and
    // the old one is still there, or the navigation failed. End it as
    // before warm pages held documents, so that the run finds a blank page,
    // not the last run's. (A page already spoiled is disposed instead.)
    if parked
        && !held
        && guarded.spoiled.is_none()
        && let Err(e) = end_unheld(guarded).await
    {
        unclean.get_or_insert(e);
    }
    let clean = match unclean {
        Some(e) => Err(e),
        None => guarded.state.handover.run().map_err(|refused| refused.to_string()),
    };
    match clean {
        Err(e) => {
            // Nothing more of the page goes; it serves no other run.
            guarded.spoiled.get_or_insert(Spoiled::NotEmptied);
            Err(format!("the page could not be emptied of the previous run: {e}"))
        }
        Ok(()) => navigated,
    }
}

/// Ends the document of a warm page whose next document was not held:
/// `about:blank`, then the cookies, the storage of every
/// origin the earlier runs reached and the history cleared. The page shows
/// no origin after (`PageState::shown`), whatever happened.
async fn end_unheld(guarded: &mut GuardedPage) -> Result<(), String> {
    let GuardedPage { warm, context, page, state, left, .. } = guarded;
    let ended = async {
        page.goto("about:blank").await.map_err(|e| format!("about:blank: {e}"))?;
        clear_storage(page, left).await?;
        clear_cookies(warm, context).await?;
        page.execute(ResetNavigationHistoryParams::default()).await.map_err(|e| format!("history: {e}"))?;
        *left = StorageReach::default();
        Ok(())
    }
    .await;
    *state.shown.lock().expect("shown lock") = None;
    ended
}

/// How many times [`clear_cookies_until_empty`] clears before it gives up.
const CLEARINGS: usize = 4;

/// Clears the context's cookies, then reads the jar, and again while a
/// cookie is found: a write the frozen document sent before it was frozen
/// can land after a clearing (CI saw `late=1`, set by the old document's
/// timer, on the next run's document request, on Debian's full Chromium).
/// A read is queued behind what reached the network service before it,
/// so an empty jar after a clearing leaves no write of the old document
/// in that queue; one still in transit can land later, which this narrows
/// but cannot rule out (docs/decisions.md). An error when the jar is not
/// empty after [`CLEARINGS`] clearings: the page then serves no other run.
async fn clear_cookies_until_empty(warm: &WarmBrowser, context: &BrowserContextId) -> Result<(), String> {
    for _ in 0..CLEARINGS {
        clear_cookies(warm, context).await?;
        let read = StorageGetCookies::builder().browser_context_id(context.clone()).build();
        let jar = warm.browser.execute(read).await.map_err(|e| format!("reading cookies: {e}"))?;
        if jar.result.cookies.is_empty() {
            return Ok(());
        }
    }
    Err(format!("cookies kept coming back after {CLEARINGS} clearings"))
}

/// Clears every cookie of the page's context.
async fn clear_cookies(warm: &WarmBrowser, context: &BrowserContextId) -> Result<(), String> {
    let clear = StorageClearCookies::builder().browser_context_id(context.clone()).build();
    warm.browser.execute(clear).await.map(drop).map_err(|e| format!("clearing cookies: {e}"))
}

/// Clears the storage of every origin in `reach`, partitioned storage of
/// its iframes included: what the runs since the last clearing may have left.
async fn clear_storage(page: &Page, reach: &StorageReach) -> Result<(), String> {
    let mut clearings = Vec::new();
    for origin in reach.origins() {
        let clear = ClearDataForOriginParams::new(origin, "all");
        clearings.push(
            async move { page.execute(clear).await.map(drop).map_err(|e| format!("clearing storage: {e}")) }.boxed(),
        );
    }
    for key in reach.partitioned_keys() {
        let clear = ClearDataForStorageKeyParams::new(key, "all");
        clearings.push(
            async move { page.execute(clear).await.map(drop).map_err(|e| format!("clearing partitioned storage: {e}")) }
                .boxed(),
        );
    }
    futures::future::try_join_all(clearings).await.map(drop)
}

/// Empties a finished run's page for the next run of its scrap, leaving
/// nothing the run or its page made (page_hold.rs):
/// - the guard refuses every request from now on (until the next run's
///   job opens it), and not even a document loads while the page is
///   ended (`Handover::park`: `Ending`);
/// - the document is ended with `about:blank`, so that nothing of it (the
///   page's scripts and the user's isolated world alike: timers, handlers,
///   promises) runs any more; its unload handlers run then, and what they
///   ask for is refused. The page then waits `Parked`, still in the
///   renderer of the origin it showed;
/// - the hold script goes on the page's new documents (once per page);
/// - the service workers of every document the run loaded are removed (one
///   would otherwise answer the next run's document request), and the tab's
///   history is cleared;
/// - the next run clears the context's cookies before it navigates, and
///   once its new document has replaced `about:blank`, before that document
///   runs, every kind of storage (local and session storage, IndexedDB,
///   Cache Storage, ...) of every document the runs since the last such
///   clearing loaded, their iframes' partitioned storage included
///   (storage_reach.rs), and the cookies the old document and its unload
///   handlers set; the hold script then empties `window.name` (`navigate`);
/// - what the engine noted of the run (bytes, the refused document, page
///   events) is forgotten.
///
/// The HTTP cache needs nothing: no page uses it (`prepare`).
async fn empty(guarded: &mut GuardedPage, hold: &Hold) -> Result<(), String> {
    *guarded.state.loads.lock().expect("loads lock") = None;
    guarded.state.handover.park().map_err(|refused| format!("parking the page: {refused}"))?;
    let page = &guarded.page;
    // Ended rather than frozen: with the renderer's frame kept across
    // documents (browser.rs, `RenderDocument`), a frozen page's next
    // navigation would never commit.
    page.goto("about:blank").await.map_err(|e| format!("ending the page's document: {e}"))?;
    guarded.state.handover.blanked().map_err(|refused| format!("parking the page: {refused}"))?;
    if !guarded.hold_installed {
        let script = AddScriptToEvaluateOnNewDocumentParams::builder().source(hold.script()).build()?;
        page.execute(script).await.map_err(|e| format!("the hold script: {e}"))?;
        guarded.hold_installed = true;
    }
    let reach = std::mem::take(&mut *guarded.state.reach.lock().expect("reach lock"));
    guarded.left.absorb(reach);
    // After the document is gone: it could otherwise register a worker or
    // add a history entry after these.
    let history = async {
        page.execute(ResetNavigationHistoryParams::default()).await.map(drop).map_err(|e| format!("history: {e}"))
    };
    let workers = guarded.left.origins().map(|origin| async move {
        let clear = ClearDataForOriginParams::new(origin, "service_workers");
        page.execute(clear).await.map(drop).map_err(|e| format!("removing service workers: {e}"))
    });
    let (workers, history) = tokio::join!(futures::future::try_join_all(workers), history);
    workers?;
    history?;
    // Best effort, off the runs' path: see `COLLECT_EVERY`.
    guarded.parkings += 1;
    if guarded.parkings.is_multiple_of(COLLECT_EVERY) {
        let _ = page.execute(CollectGarbageParams::default()).await;
    }
    *guarded.state.refused_document.lock().await = None;
    guarded.bytes.reset();
    guarded.watch.forget();
    Ok(())
}

/// Puts a job's saved session into its fresh context before the navigation:
/// the cookies into the context's cookie jar, the target origin's
/// `localStorage` through a script run at the start of its documents
/// (returned, to be removed once the navigation is done). A session that
/// cannot be restored is skipped: the run starts logged out.
async fn restore_session(guarded: &GuardedPage, job: &RunJob, state: &SessionState) -> Option<ScriptIdentifier> {
    let Some(restore) = session::parse(state, &job.url) else {
        tracing::warn!(history = %job.history_id, "the saved session is not readable; the run starts without it");
        return None;
    };
    if !restore.cookies.is_empty() {
        let set =
            StorageSetCookies::builder().cookies(restore.cookies).browser_context_id(guarded.context.clone()).build();
        let restored = match set {
            Ok(params) => guarded.warm.browser.execute(params).await.map(|_| ()).map_err(|e| e.to_string()),
            Err(e) => Err(e),
        };
        if let Err(e) = restored {
            tracing::warn!(history = %job.history_id, "could not restore the saved cookies: {e}");
        }
    }
    let origin = session::origin_of(&job.url)?;
    if restore.local_storage.is_empty() {
        return None;
    }
    let source = session::storage_script(&origin, &restore.local_storage);
    let params = AddScriptToEvaluateOnNewDocumentParams::builder().source(source).build().ok()?;
    match guarded.page.execute(params).await {
        Ok(added) => Some(added.result.identifier),
        Err(e) => {
            tracing::warn!(history = %job.history_id, "could not restore the saved localStorage: {e}");
            None
        }
    }
}

/// The session a run leaves in its context: every cookie of the context and
/// the `localStorage` the script saw (`storage`), within `SNAPSHOT_TIMEOUT`.
async fn capture_session(guarded: &GuardedPage, job: &RunJob, storage: Option<&Value>) -> Option<SessionState> {
    let params = StorageGetCookies::builder().browser_context_id(guarded.context.clone()).build();
    let cookies = tokio::time::timeout(SNAPSHOT_TIMEOUT, guarded.warm.browser.execute(params)).await;
    match cookies {
        Ok(Ok(cookies)) => session::compose(&cookies.result.cookies, storage, &job.url),
        Ok(Err(e)) => {
            tracing::warn!(history = %job.history_id, "could not read the run's cookies: {e}");
            None
        }
        Err(_) => {
            tracing::warn!(history = %job.history_id, "timed out reading the run's cookies");
            None
        }
    }
}

/// The failing page's HTML and a screenshot, taken together within
/// `SNAPSHOT_TIMEOUT` (a hung page yields nulls, not a longer run).
async fn snapshot(page: &Page, selector: Option<String>) -> Value {
    let html = page_html(page);
    let screenshot = async {
        let png =
            page.screenshot(ScreenshotParams::builder().format(CaptureScreenshotFormat::Png).build()).await.ok()?;
        Some(base64::engine::general_purpose::STANDARD.encode(png))
    };
    let (html, screenshot) =
        tokio::join!(tokio::time::timeout(SNAPSHOT_TIMEOUT, html), tokio::time::timeout(SNAPSHOT_TIMEOUT, screenshot));
    let (html, screenshot) = (html.ok().flatten(), screenshot.ok().flatten());
    json!({ "html": html, "selector": selector, "screenshot": screenshot })
}

/// The page's HTML, cut to `SNAPSHOT_HTML_MAX` bytes.
async fn page_html(page: &Page) -> Option<String> {
    // Cut in the page: a huge document must not cross the protocol whole.
    let expression =
        format!("document.documentElement ? document.documentElement.outerHTML.slice(0, {SNAPSHOT_HTML_MAX}) : ''");
    let html = page.evaluate(expression).await.ok()?;
    let mut html = html.into_value::<String>().ok()?;
    if html.len() > SNAPSHOT_HTML_MAX {
        let mut cut = SNAPSHOT_HTML_MAX;
        while !html.is_char_boundary(cut) {
            cut -= 1;
        }
        html.truncate(cut);
    }
    Some(html)
}

impl svc_engine::IsolationReport for ChromiumEngine {
    fn browser_sandbox(&self) -> BrowserSandbox {
        self.sandbox().0
    }
}

#[async_trait]
impl Engine for ChromiumEngine {
    fn claimed(&self, key: ReuseKey, url: &str, _scrapper: &str) {
        let origin = self.inner.sharing_origin(url);
        let until = Some(Instant::now() + CLAIM_KEPT);
        self.inner.promises_in_force().push(Promise { key, origin, until });
    }

    fn warm(&self) -> Vec<svc_engine::Warm> {
        let mut seats = self
            .inner
            .warm
            .lock()
            .expect("warm lock")
            .seats(|page| page.state.shown.lock().expect("shown lock").clone());
        // A page kept for a run on its way is that run's.
        for promise in self.inner.promises() {
            if let Some(i) = seats.iter().position(|(key, origin)| promise.fits(key, origin.as_deref())) {
                seats.swap_remove(i);
            }
        }
        seats.into_iter().map(|(key, origin)| svc_engine::Warm { organization: key.organization, origin }).collect()
    }

    async fn run(&self, job: RunJob) -> EngineReport {
        self.run_and_shoot(job, false).await.report
    }

    async fn screenshot(&self, job: RunJob) -> svc_engine::Screenshot {
        self.run_and_shoot(job, true).await
    }
}

impl ChromiumEngine {
    /// A run, and with `shoot` a screenshot of its page's viewport after a
    /// script that returned data, taken before the page is emptied or
    /// disposed (within `SNAPSHOT_TIMEOUT`, outside the run's time).
    async fn run_and_shoot(&self, job: RunJob, shoot: bool) -> svc_engine::Screenshot {
        self.inner.pool.note_run_timeout(job.timeout);
        let mut started = Instant::now();
        let room = job.page.room;
        let unshot = |report: EngineReport| svc_engine::Screenshot { report, png: None };
        let report = |outcome: Outcome, duration: Duration, bytes: u64, snapshot: Option<Value>, html| EngineReport {
            result: outcome.result,
            duration_ms: duration.as_millis() as i64,
            bytes,
            snapshot,
            status: outcome.status,
            html,
            session: None,
            enqueued: svc_engine::crawl::read_enqueued(outcome.enqueued.as_deref(), room),
        };
        // A confined run's own egress proxy, held to its sites (its URL's,
        // and those its first navigation's redirects add); else a tier's
        // (started on its first run); tier 0 uses the browser's own.
        let sites = job.confined_to.clone().map(Confinement::new);
        let confined = match &sites {
            Some(sites) => match self.inner.pool.confined_egress(job.tier, sites.clone()).await {
                Ok(proxy) => Some(proxy),
                Err(e) => return unshot(report(failed(e), started.elapsed(), 0, None, None)),
            },
            None => None,
        };
        let tier_proxy = match (&confined, job.tier) {
            (Some(proxy), _) => Some(proxy.addr()),
            (None, 0) => None,
            (None, tier) => match self.inner.pool.tier_egress(tier).await {
                Ok(proxy) => Some(proxy.addr()),
                Err(e) => return unshot(report(failed(e), started.elapsed(), 0, None, None)),
            },
        };
        if let Err(refusal) = net_guard::check(&job.url, &self.inner.allow_private).await {
            return unshot(report(failed(format!("target refused: {refusal}")), started.elapsed(), 0, None, None));
        }
        // A saved scrap's run on tier 0 may run in a page its last run left;
        // a tier's run gets a context of its own (spares are for tier 0).
        let warm_enabled = self.inner.warm.lock().expect("warm lock").enabled();
        // A run with a site login keeps its session on purpose, in a context of its own.
        let unholdable = |key: &ReuseKey| self.inner.unholdable.lock().expect("unholdable lock").contains(key);
        let mut reuse =
            job.reuse.filter(|key| job.tier == 0 && warm_enabled && job.account.is_none() && !unholdable(key));
        // A run that takes no warm page lets go of what its claim kept.
        if let Some(key) = job.reuse
            && (reuse.is_none() || tier_proxy.is_some())
        {
            self.inner.forget_claim(&key);
        }
        // The browser's start is svc's, not the run's: a cold Chromium on a
        // busy machine can take seconds, which the run timeout ("one script
        // run, navigation included") does not count (docs/decisions.md).
        let fonts = Fonts::for_run(job.loads.fonts);
        let launching = Instant::now();
        if let Err(e) = self.inner.pool.started(fonts).await {
            return unshot(report(failed(e), started.elapsed(), 0, None, None));
        }
        started += launching.elapsed();
        let (guarded, outcome, page_sound) = loop {
            let guarded = match (tier_proxy, reuse) {
                (None, Some(key)) => self.inner.take_warm(key, &job.url, fonts).boxed(),
                (None, None) => self.inner.take(fonts).boxed(),
                (Some(proxy), _) => self.inner.new_page(Some(proxy), fonts).boxed(),
            };
            let mut guarded = match tokio::time::timeout(job.timeout.saturating_sub(started.elapsed()), guarded).await {
                Ok(Ok(guarded)) => guarded,
                Ok(Err(e)) => return unshot(report(failed(e), started.elapsed(), 0, None, None)),
                Err(_) => {
                    let message = format!("timed out after {} s while opening the page", job.timeout.as_secs());
                    return unshot(report(failed(message), started.elapsed(), 0, None, None));
                }
            };
            guarded.warm.count_run();
            guarded.scrap = reuse.map(|key| key.scrap);
            *guarded.state.loads.lock().expect("loads lock") = Some(job.loads);
            *guarded.state.first_navigation.lock().expect("first navigation lock") =
                sites.clone().map(|sites| FirstNavigation::new(sites, &job.url));
            let remaining = job.timeout.saturating_sub(started.elapsed());
            let egress = confined.as_ref().or_else(|| self.inner.pool.egress_of(job.tier));
            let mut crashed = guarded.crashed.take();
            let until_crash = async {
                match crashed.as_mut() {
                    Some(crashed) => crashed.next().await,
                    None => std::future::pending().await,
                }
            };
            // A page whose run timed out or crashed serves no other run.
            let (outcome, page_sound) = tokio::select! {
                finished = tokio::time::timeout(remaining, execute(&mut guarded, &job, egress, &self.inner.worlds_made)) => match finished {
                    Ok(outcome) => (outcome, true),
                    Err(_) => (failed(format!("timed out after {} s", job.timeout.as_secs())), false),
                },
                _ = until_crash => (failed(CRASHED), false),
            };
            guarded.crashed = crashed;
            // A warm page whose new document could not be held (page_hold.rs):
            // the scrap's runs, this one again first, get contexts of their own.
            if let (Some(Spoiled::NotHeld), Some(key)) = (guarded.spoiled, reuse) {
                tracing::info!(history = %job.history_id, "the scrap's documents cannot be held: its runs get contexts of their own");
                let mut keys = self.inner.unholdable.lock().expect("unholdable lock");
                if keys.len() >= UNHOLDABLE_KEPT {
                    keys.clear();
                }
                keys.insert(key);
                drop(keys);
                self.inner.dispose_later(vec![guarded]);
                reuse = None;
                continue;
            }
            break (guarded, outcome, page_sound);
        };
        // The run's time ends here; the snapshot and clean-up are not part of it.
        let duration = started.elapsed();
        if let Some(key) = job.reuse {
            let logging = self.inner.renderer_log.lock().expect("renderer log lock").is_some();
            if logging
                && let Ok(isolate) = guarded.page.execute(GetIsolateIdParams::default()).await
                && let Some(log) = self.inner.renderer_log.lock().expect("renderer log lock").as_mut()
            {
                log.push((key.organization, isolate.result.id.clone()));
            }
        }
        let snap = match &outcome.result {
            // A crashed page has nothing to show.
            ScriptResult::Failed { message } if message == CRASHED => None,
            ScriptResult::Failed { .. } => Some(snapshot(&guarded.page, outcome.selector.clone()).await),
            ScriptResult::Data { .. } => None,
        };
        let html = match (&snap, job.capture_page.wants(&outcome.result)) {
            (_, false) => None,
            (Some(snap), true) if snap["html"].is_string() => snap["html"].as_str().map(str::to_string),
            (_, true) => tokio::time::timeout(SNAPSHOT_TIMEOUT, page_html(&guarded.page)).await.ok().flatten(),
        };
        let bytes = guarded.bytes.total();
        let png = match &outcome.result {
            ScriptResult::Data { .. } if shoot => {
                let params = ScreenshotParams::builder().format(CaptureScreenshotFormat::Png).build();
                tokio::time::timeout(SNAPSHOT_TIMEOUT, guarded.page.screenshot(params)).await.ok().and_then(Result::ok)
            }
            _ => None,
        };
        // A run with a site login that returned items leaves its session.
        let session = match &outcome.result {
            ScriptResult::Data { length, .. } if *length > 0 && job.account.is_some() => {
                capture_session(&guarded, &job, outcome.storage.as_ref()).await
            }
            _ => None,
        };
        // The page is emptied for the scrap's next run, or its context goes
        // away, after the result is handed back: neither is on the caller's
        // path, and neither is preparing the spare that replaces one taken.
        // Counted as recycling now, so that a next run of the scrap that
        // comes at once waits for this page rather than start a context.
        let recycle = reuse.filter(|_| page_sound && guarded.spoiled.is_none() && guarded.warm.is_alive());
        let shown = guarded.state.shown.lock().expect("shown lock").clone();
        if let Some(key) = &recycle {
            self.inner.warm.lock().expect("warm lock").recycling(key, shown.clone());
        }
        self.inner.disposing.fetch_add(1, Ordering::SeqCst);
        let inner = self.inner.clone();
        tokio::spawn(async move {
            match recycle {
                Some(key) => inner.recycle(guarded, key, shown).await,
                None => inner.dispose(guarded).await,
            }
            // Before `disposing` drops, so that `close` waits for it too.
            inner.refill();
            inner.disposing.fetch_sub(1, Ordering::SeqCst);
        });
        svc_engine::Screenshot { report: EngineReport { session, ..report(outcome, duration, bytes, snap, html) }, png }
    }
}
