//! The warm headless Chromiums: one of each [`Fonts`] kind, each launched
//! on first use, replaced when it dies or after a number of runs (when no
//! run holds it), and closed and reaped on replacement so that no process
//! is left behind.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use chromiumoxide::browser::{Browser, BrowserConfig};
use futures::StreamExt;
use svc_engine::host_vetting::{PrivateNetworks, Resolver};
use svc_engine::{BrowserRestart, EngineMetrics};
use tokio::sync::{Mutex, OnceCell};
use tokio::task::JoinHandle;

use crate::egress_proxy::EgressProxy;
use crate::sandbox::{Launcher, SandboxSetting};
use crate::upstream::{TIERS, UpstreamProxy};
use svc_engine::Confinement;

/// Every flag Chromium is started with. chromiumoxide's own defaults are
/// switched off and restated here so that there is exactly one
/// `--disable-features` (Chromium honours only the last one, and
/// chromiumoxide emits flags in no fixed order).
///
/// The features switched off cost a run without helping it (measured in
/// docs/benchmarks.md): every new context opens a hidden window whose
/// omnibox popup starts a renderer, and a spare renderer is kept for a next
/// navigation that a one-shot context never makes.
pub const ARGS: &[&str] = &[
    // chromiumoxide's defaults (without its own --disable-features).
    "disable-background-networking",
    "enable-features=NetworkService,NetworkServiceInProcess2",
    "disable-background-timer-throttling",
    "disable-backgrounding-occluded-windows",
    "disable-breakpad",
    "disable-client-side-phishing-detection",
    "disable-component-extensions-with-background-pages",
    "disable-default-apps",
    "disable-dev-shm-usage",
    "disable-hang-monitor",
    "disable-ipc-flooding-protection",
    "disable-popup-blocking",
    "disable-prompt-on-repost",
    "disable-renderer-backgrounding",
    "disable-sync",
    "force-color-profile=srgb",
    "metrics-recording-only",
    "no-first-run",
    "enable-automation",
    "password-store=basic",
    "use-mock-keychain",
    "lang=en_US",
    // For a machine without internet access or a GPU.
    "disable-gpu",
    // The compositor (software, with `disable-gpu`) in the browser process
    // rather than a GPU process of its own: one process fewer and no hop
    // between two processes per frame; 8-9% less machine CPU per fleet run
    // (docs/benchmarks.md, "The GPU thread in the browser process"). Like
    // the network service (above), it is one for all of a browser's
    // contexts either way; no organization boundary moves
    // (docs/decisions.md).
    "in-process-gpu",
    // With the compositor and the network service in the browser process,
    // no helper needs the zygote Chromium keeps for processes that set up
    // a sandbox of their own; it held 8 MiB of private memory for nothing
    // (docs/benchmarks.md, "The unused zygote"). Renderers still come from
    // the sandboxed zygote; a helper that would have used the other one is
    // started by fork and exec instead, with the same sandbox.
    "no-unsandboxed-zygote",
    "disable-quic",
    "disable-component-update",
    "mute-audio",
    // A page's JavaScript heap: a script or page that grows it past this
    // crashes its own renderer (the run fails), not the machine.
    "js-flags=--max-old-space-size=512",
    // WebRTC's UDP would not go through the egress proxy: none at all.
    "force-webrtc-ip-handling-policy=disable_non_proxied_udp",
    // `RenderDocument` off: a page's renderer keeps its frame from one
    // document to the next of the same site, as Chromium did until 2023,
    // instead of building a frame, widget and compositor per document.
    // A warm page navigates for every run: 10-19 ms less Chromium CPU per
    // navigation, and no pile of the discarded frames' raster tiles
    // (about 10 MiB per busy renderer) waiting to be freed
    // (docs/benchmarks.md, "The renderer's frame kept across documents").
    // Process isolation is unchanged: another site still gets another
    // renderer, and a context never shares one.
    // `BackForwardCache` off: no run goes back in its history (cleared
    // after every run), and to keep a page for it Chromium's full browser
    // moves a navigation that follows `about:blank` (a parked page's) to a
    // new renderer, so warm pages would never keep theirs there.
    "disable-features=TranslateUI,Translate,MediaRouter,OptimizationHints,WebUIOmniboxPopup,WebUIOmniboxAimPopup,SpareRendererForSitePerProcess,RenderDocument,BackForwardCache",
];

/// Which of the two browsers a run needs: whether its pages may load web
/// fonts (`// svc:load fonts`).
///
/// The browser runs use by default is started with
/// [`NO_REMOTE_FONTS`]: its renderers never ask for an `@font-face`
/// file, where otherwise every such request would be paused and refused
/// (about 8 ms of a renderer per run on the benchmark's page, most likely
/// a second layout of the text with the fallback font; docs/benchmarks.md).
/// What a script sees of a font its page links to is the same either way:
/// the font face's status is `error` and the fallback font is used. A font inlined as a `data:` URL, which no guard sees
/// (DevTools does not pause `data:` requests), is skipped too: runs skip
/// fonts wherever they come from. A run that opts in to fonts runs in the
/// other browser, started when first needed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fonts {
    /// No web font is ever requested: what runs use by default.
    Refused,
    /// Web fonts may be requested (the guard still refuses them unless
    /// the run opted in).
    Loadable,
}

impl Fonts {
    /// The kind a run that asked for fonts or not needs.
    pub fn for_run(loads_fonts: bool) -> Fonts {
        if loads_fonts { Fonts::Loadable } else { Fonts::Refused }
    }

    fn index(self) -> usize {
        match self {
            Fonts::Refused => 0,
            Fonts::Loadable => 1,
        }
    }
}

/// The flag of the [`Fonts::Refused`] browser.
pub const NO_REMOTE_FONTS: &str = "disable-remote-fonts";

pub struct WarmBrowser {
    pub browser: Browser,
    /// Whether its pages may ask for web fonts.
    pub fonts: Fonts,
    handler: JoinHandle<()>,
    runs: AtomicU64,
    /// The browser process, for diagnostics and tests.
    pub pid: Option<u32>,
    /// Set when the pool replaced this browser; it closes once unused.
    retired: std::sync::atomic::AtomicBool,
    /// Kills its renderers that go over their memory or CPU cap (renderer_limits.rs).
    memory_watch: Option<JoinHandle<()>>,
    /// No page reaches the browser's DevTools port (own_ports).
    devtools: Option<svc_engine::own_ports::OwnPort>,
    _profile: tempfile::TempDir,
}

impl Drop for WarmBrowser {
    fn drop(&mut self) {
        if let Some(watch) = &self.memory_watch {
            watch.abort();
        }
    }
}

impl WarmBrowser {
    pub fn is_alive(&self) -> bool {
        !self.handler.is_finished()
    }

    /// Dead, or replaced by a newer browser: take no new runs.
    pub fn is_retired(&self) -> bool {
        !self.is_alive() || self.retired.load(Ordering::Relaxed)
    }

    pub fn count_run(&self) -> u64 {
        self.runs.fetch_add(1, Ordering::Relaxed) + 1
    }
}

pub struct BrowserPool {
    /// How to start Chromium (`None` when no browser was found).
    launcher: Option<Launcher>,
    max_runs: u64,
    /// The current browser of each kind (`Fonts::index`).
    current: [Mutex<Option<Arc<WarmBrowser>>>; 2],
    /// What the proxy allows, and the proxy once the first browser starts.
    egress: (PrivateNetworks, Resolver),
    proxy: OnceCell<EgressProxy>,
    /// The upstream proxies of tiers 1 to 4 (empty: not configured), and
    /// each configured tier's egress proxy once a run has used the tier.
    tiers: [Vec<UpstreamProxy>; TIERS as usize],
    tier_proxies: [OnceCell<EgressProxy>; TIERS as usize],
    /// The longest run timeout a run has had, in ms (the renderers' CPU cap).
    longest_run_ms: Arc<AtomicU64>,
    /// Where browser replacements are counted (`svc_browser_restarts_total`), once set.
    metrics: std::sync::OnceLock<Arc<dyn EngineMetrics>>,
}

/// Debian's `chromium-headless-shell` binary: Chromium without the desktop UI,
/// about a third of the memory and 2.4-2.8x the runs per second of `chromium`
/// here (docs/benchmarks.md). The binary, not the `/usr/bin` wrapper script,
/// which does not `exec` (stopping it would leave the browser running).
pub const HEADLESS_SHELL: &str = "/usr/lib/chromium/chromium-headless-shell";

/// The browser to use: the configured one, else Debian's headless shell
/// when installed, else the first of the usual names on PATH.
pub fn find_chromium(configured: Option<&str>) -> Option<PathBuf> {
    if let Some(path) = configured {
        return Some(PathBuf::from(path));
    }
    let shell = PathBuf::from(HEADLESS_SHELL);
    if shell.is_file() {
        return Some(shell);
    }
    let path = std::env::var_os("PATH")?;
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .flat_map(|name| std::env::split_paths(&path).map(move |dir| dir.join(name)))
        .find(|candidate| candidate.is_file())
}

/// Starts a browser whose traffic goes through `proxy`: with Chromium's
/// sandbox unless the operator turned it off (sandbox.rs). Without it, the
/// launch fails saying how to fix the host; it never falls back.
///
/// A browser that dies while starting is started once more before the
/// launch fails: CI saw Debian's full Chromium end by SIGSEGV before its
/// DevTools address once in hundreds of starts, which failed that run and
/// marked the sandbox unavailable. A host that cannot start Chromium at all
/// fails both times, in well under a second each.
async fn launch(
    launcher: &Launcher,
    fonts: Fonts,
    proxy: SocketAddr,
    longest: &Arc<AtomicU64>,
) -> Result<WarmBrowser, String> {
    let sandbox = launcher.with_sandbox();
    let first = start(launcher, fonts, proxy, sandbox, longest.clone()).await;
    let started = match first {
        Err(why) => {
            tracing::warn!("Chromium did not start ({why}); starting it once more");
            start(launcher, fonts, proxy, sandbox, longest.clone()).await
        }
        ok => ok,
    };
    match started {
        Ok(warm) => {
            launcher.started();
            Ok(warm)
        }
        Err(why) if sandbox => Err(launcher.refused(&why)),
        Err(why) => Err(why),
    }
}

async fn start(
    launcher: &Launcher,
    fonts: Fonts,
    proxy: SocketAddr,
    sandbox: bool,
    longest_run_ms: Arc<AtomicU64>,
) -> Result<WarmBrowser, String> {
    let profile = tempfile::Builder::new().prefix("svc-chromium-").tempdir().map_err(|e| e.to_string())?;
    let envs = launcher.prepare_profile(profile.path()).map_err(|e| format!("cannot prepare the profile: {e}"))?;
    // Every URL through the egress proxy, loopback included (Chromium
    // bypasses proxies for loopback unless told `<-loopback>`).
    let egress = [format!("proxy-server=http://{proxy}"), "proxy-bypass-list=<-loopback>".to_string()];
    let no_fonts = (fonts == Fonts::Refused).then(|| NO_REMOTE_FONTS.to_string());
    let mut config = BrowserConfig::builder()
        .chrome_executable(launcher.program())
        .user_data_dir(profile.path())
        .disable_default_args()
        .args(ARGS.iter().map(|a| a.to_string()).chain(egress).chain(no_fonts))
        .envs(envs)
        .launch_timeout(Duration::from_secs(30))
        .request_timeout(Duration::from_secs(120))
        .viewport(None);
    if !sandbox {
        config = config.no_sandbox();
    }
    let (mut browser, mut handler) =
        Browser::launch(config.build()?).await.map_err(|e| format!("cannot start Chromium: {e}"))?;
    let pid = browser.get_mut_child().and_then(|child| child.inner.id());
    // `ws://127.0.0.1:PORT/devtools/browser/...`; a host that is not an
    // address is claimed as every address (the port on any loopback one).
    let devtools = url::Url::parse(browser.websocket_address()).ok().and_then(|url| {
        let ip = match url.host() {
            Some(url::Host::Ipv4(v4)) => std::net::IpAddr::V4(v4),
            Some(url::Host::Ipv6(v6)) => std::net::IpAddr::V6(v6),
            _ => std::net::IpAddr::V4(std::net::Ipv4Addr::UNSPECIFIED),
        };
        url.port().map(|port| svc_engine::own_ports::OwnPort::claim(SocketAddr::new(ip, port)))
    });
    if devtools.is_none() {
        tracing::warn!(address = %browser.websocket_address(), "cannot tell the browser's DevTools port");
    }
    let handler = tokio::spawn(async move {
        while let Some(event) = handler.next().await {
            if let Err(e) = event {
                tracing::debug!("chromium handler: {e}");
                if matches!(e, chromiumoxide::error::CdpError::Ws(_)) {
                    break;
                }
            }
        }
    });
    Ok(WarmBrowser {
        browser,
        fonts,
        handler,
        runs: AtomicU64::new(0),
        pid,
        retired: std::sync::atomic::AtomicBool::new(false),
        memory_watch: pid.map(|pid| tokio::spawn(crate::renderer_limits::watch(pid, longest_run_ms))),
        devtools,
        _profile: profile,
    })
}

/// Closes a browser and reaps its process. A browser still held (by a run
/// or a spare page) is closed in the background as soon as its last holder
/// lets go, so that its process never lingers as a zombie.
async fn shut_down(warm: Arc<WarmBrowser>) {
    warm.retired.store(true, Ordering::Relaxed);
    if Arc::strong_count(&warm) == 1 {
        close_when_free(warm).await;
    } else {
        tokio::spawn(close_when_free(warm));
    }
}

async fn close_when_free(held: Arc<WarmBrowser>) {
    // Runs end within their timeout; by then every holder is gone.
    for _ in 0..1200 {
        if Arc::strong_count(&held) == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    if let Ok(mut warm) = Arc::try_unwrap(held) {
        let _ = tokio::time::timeout(Duration::from_secs(5), warm.browser.close()).await;
        if tokio::time::timeout(Duration::from_secs(5), warm.browser.wait()).await.is_err() {
            let _ = warm.browser.kill().await;
        }
        warm.handler.abort();
    }
}

impl BrowserPool {
    pub fn new(
        executable: Option<PathBuf>,
        browser_user: &str,
        sandbox: SandboxSetting,
        max_runs: u64,
        allow_private: PrivateNetworks,
        resolver: Resolver,
        tiers: [Vec<UpstreamProxy>; TIERS as usize],
    ) -> Self {
        BrowserPool {
            launcher: executable.map(|chromium| Launcher::new(chromium, browser_user, sandbox)),
            max_runs,
            current: [Mutex::new(None), Mutex::new(None)],
            egress: (allow_private, resolver),
            proxy: OnceCell::new(),
            tiers,
            tier_proxies: std::array::from_fn(|_| OnceCell::new()),
            longest_run_ms: Arc::new(AtomicU64::new(0)),
            metrics: std::sync::OnceLock::new(),
        }
    }

    /// Counts browser replacements in `metrics` from now on (a second call is ignored).
    pub fn count_in(&self, metrics: Arc<dyn EngineMetrics>) {
        let _ = self.metrics.set(metrics);
    }

    /// The egress proxy, once a browser has started.
    pub fn egress(&self) -> Option<&EgressProxy> {
        self.proxy.get()
    }

    /// The egress proxy runs on `tier` leave through, if it has started:
    /// for tier 0 the browser-wide one, for 1 to 4 the tier's own.
    pub fn egress_of(&self, tier: u8) -> Option<&EgressProxy> {
        match tier {
            0 => self.egress(),
            _ => self.tier_proxies.get(usize::from(tier) - 1)?.get(),
        }
    }

    /// The egress proxy of proxy tier `tier` (1 to 4), chained to the
    /// tier's upstream proxies, started on first use. Fails for a tier
    /// without upstream proxies.
    pub async fn tier_egress(&self, tier: u8) -> Result<&EgressProxy, String> {
        let index = self.configured_tier(tier)?;
        let (allow_private, resolver) = self.egress.clone();
        let upstreams = self.tiers[index].clone();
        self.tier_proxies[index]
            .get_or_try_init(|| EgressProxy::start(allow_private, resolver, upstreams))
            .await
            .map_err(|e| format!("cannot start the egress proxy of proxy tier {tier}: {e}"))
    }

    /// A proxy of its own for one confined run on `tier`: it vets as the
    /// tier's proxy does (and goes on through the tier's upstreams) and
    /// refuses every host outside `sites`, which the run's request guard
    /// widens with its first navigation's redirects. Dropped with the run.
    pub async fn confined_egress(&self, tier: u8, sites: Confinement) -> Result<EgressProxy, String> {
        let upstreams = match tier {
            0 => Vec::new(),
            tier => self.tiers[self.configured_tier(tier)?].clone(),
        };
        let (allow_private, resolver) = self.egress.clone();
        EgressProxy::start_confined(allow_private, resolver, upstreams, Some(sites))
            .await
            .map_err(|e| format!("cannot start the run's egress proxy: {e}"))
    }

    /// The index in `tiers` of proxy tier `tier` (1 to 4), when it has
    /// upstream proxies.
    fn configured_tier(&self, tier: u8) -> Result<usize, String> {
        usize::from(tier)
            .checked_sub(1)
            .filter(|i| self.tiers.get(*i).is_some_and(|u| !u.is_empty()))
            .ok_or_else(|| format!("proxy tier {tier} is not configured"))
    }

    /// Makes sure a live browser of kind `fonts` runs, launching one if none
    /// does (Chromium's own launch timeout bounds the wait). A browser that
    /// has served its runs is replaced by [`Self::get`], not here: its warm
    /// pages may still serve runs.
    pub async fn started(&self, fonts: Fonts) -> Result<(), String> {
        {
            let current = self.current[fonts.index()].lock().await;
            if current.as_ref().is_some_and(|warm| warm.is_alive()) {
                return Ok(());
            }
        }
        self.get(fonts).await.map(drop)
    }

    /// The warm browser of kind `fonts`, launching or replacing it as needed.
    pub async fn get(&self, fonts: Fonts) -> Result<Arc<WarmBrowser>, String> {
        let mut current = self.current[fonts.index()].lock().await;
        if let Some(warm) = current.as_ref() {
            let worn_out = warm.runs.load(Ordering::Relaxed) >= self.max_runs;
            if warm.is_alive() && !worn_out {
                return Ok(warm.clone());
            }
            let why = if warm.is_alive() {
                BrowserRestart::Recycled
            } else {
                tracing::warn!("chromium stopped; starting a new one");
                BrowserRestart::Crashed
            };
            if let Some(metrics) = self.metrics.get() {
                metrics.browser_restarted(why);
            }
            if let Some(old) = current.take() {
                shut_down(old).await;
            }
        }
        let launcher = self
            .launcher
            .as_ref()
            .ok_or_else(|| "Chromium was not found: install the `chromium` package or set SVC_CHROMIUM".to_string())?;
        let (allow_private, resolver) = self.egress.clone();
        let proxy = self
            .proxy
            .get_or_try_init(|| EgressProxy::start(allow_private, resolver, Vec::new()))
            .await
            .map_err(|e| format!("cannot start the egress proxy: {e}"))?;
        let warm = Arc::new(launch(launcher, fonts, proxy.addr(), &self.longest_run_ms).await?);
        *current = Some(warm.clone());
        Ok(warm)
    }

    /// Drops `broken` if it is still the current browser of its kind (after
    /// a protocol failure), so that the next run of that kind starts a new one.
    pub async fn discard(&self, broken: &Arc<WarmBrowser>) {
        let mut current = self.current[broken.fonts.index()].lock().await;
        if current.as_ref().is_some_and(|c| Arc::ptr_eq(c, broken))
            && let Some(old) = current.take()
        {
            drop(current);
            shut_down(old).await;
        }
    }

    /// Notes a run's timeout: a renderer may use more CPU than the longest
    /// one only when its run is over and its script still going.
    pub fn note_run_timeout(&self, timeout: Duration) {
        self.longest_run_ms.fetch_max(timeout.as_millis() as u64, Ordering::Relaxed);
    }

    /// How Chromium is started (`None` when no browser was found).
    pub fn launcher(&self) -> Option<&Launcher> {
        self.launcher.as_ref()
    }

    /// The process id of the current browser of kind `fonts`, if one runs.
    pub async fn pid(&self, fonts: Fonts) -> Option<u32> {
        self.current[fonts.index()].lock().await.as_ref().and_then(|warm| warm.pid)
    }

    /// The DevTools port of the browser of kind `fonts`, if one runs.
    pub async fn devtools_port(&self, fonts: Fonts) -> Option<u16> {
        self.current[fonts.index()].lock().await.as_ref().and_then(|warm| warm.devtools.as_ref().map(|p| p.port()))
    }

    pub async fn close(&self) {
        for current in &self.current {
            if let Some(old) = current.lock().await.take() {
                shut_down(old).await;
            }
        }
    }
}
