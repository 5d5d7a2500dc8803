//! Runs of a 50-item local page with per-run isolation, svc against a plain
//! puppeteer-core program, measured side by side in one benchmark run:
//!
//! - svc, "from trigger to finished row": the in-process app (fresh SQLite,
//!   embedded worker with `SVC_WORKER_CONCURRENCY`), each run triggered with
//!   `POST /api/scraps/worker/:id?wait=60`;
//! - the peer, `bench/puppeteer-peer/peer.js`: per run a new browser context,
//!   a new page, goto, evaluate, close the context, on the same Chromium.
//!
//! Both load the same fixture page, served by this binary on 127.0.0.1:0:
//! 50 `<li>` items, one image and one web font. Per engine: `--warmup`
//! unmeasured runs, `--sequential` runs one after the other (latency), then
//! `--runs` runs with `--concurrency` clients (throughput). Every run must
//! end `success` with the 50 items. Also per engine and phase: the peak of
//! the Chromium processes' memory (RSS summed every 100 ms, PSS summed every
//! second: reading `smaps_rollup` costs ~40 ms of CPU per pass), CPU time per
//! run (whole machine, this process, Chromium by process kind, node) and the
//! fixture's requests (svc blocks images and fonts; the peer loads them).
//!
//!     (cd bench/puppeteer-peer && npm ci)
//!     cargo build --release -p svc-bench --bin run-bench
//!     target/release/run-bench                  # 20 sequential, 200 at concurrency 4
//!     target/release/run-bench --sequential 5 --runs 20   # quick
//!     target/release/run-bench --svc-disable-features WebUIOmniboxPopup,WebUIOmniboxAimPopup --phases 20
//!
//! `--svc-fresh-contexts` adds a row: svc again with `SVC_WARM_PAGES=0`, so
//! that every run has a new context (as before warm pages).
//! `--svc-disable-features` adds a row: svc again, its Chromium started
//! through a wrapper that adds those features to `--disable-features`.
//! `--phases N` adds an experiment on a Chromium of its own (not through
//! svc): svc's per-run DevTools steps timed one by one, N sequential runs and
//! `--phases-concurrent` runs at `--concurrency`, for variants of the steps.
//!
//! Needs `node` and `chromium` (Debian packages). Linux only (reads /proc).

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use axum::Router;
use axum::extract::State;
use axum::http::header;
use axum::response::{Html, IntoResponse};
use axum::routing::get;
use chromiumoxide::browser::{Browser, BrowserConfig};
use chromiumoxide::cdp::browser_protocol::fetch::{
    ContinueRequestParams, EnableParams as FetchEnableParams, EventRequestPaused, FailRequestParams, RequestPattern,
    RequestStage,
};
use chromiumoxide::cdp::browser_protocol::network::{ErrorReason, EventLoadingFinished, ResourceType};
use chromiumoxide::cdp::browser_protocol::page::CreateIsolatedWorldParams;
use chromiumoxide::cdp::browser_protocol::target::{CreateBrowserContextParams, CreateTargetParams};
use clap::Parser;
use futures::StreamExt;
use serde_json::{Value, json};
use svc_bench::items_page::{self, ITEMS, PNG};
use svc_bench::sampler::{
    CpuSplit, MemPeak, Sampler, chromium_cpu_by_kind, cpu_jiffies, cpu_ms, cpu_split, cpu_split_per_run, per_run_delta,
};
use svc_bench::stats::{Stats, stats};
use svc_server::{App, Config};
use svc_storage::testing::TestDb;

const EXTRACTION: &str = "returnData([...document.querySelectorAll('li')].map(li => li.textContent))";

#[derive(Parser, Clone)]
struct Args {
    /// Runs measured one after the other, per engine.
    #[arg(long, default_value_t = 20)]
    sequential: usize,
    /// Runs measured with `--concurrency` clients, per engine.
    #[arg(long, default_value_t = 200)]
    runs: usize,
    #[arg(long, default_value_t = 4)]
    concurrency: usize,
    /// Idle time between two sequential runs, per engine (0: back to back).
    /// A paced run shows the latency of a run that finds the engine at
    /// rest, as a trigger from a person or a schedule usually does;
    /// back to back, each run also pays for preparing the next one.
    #[arg(long, default_value_t = 0)]
    pause_ms: u64,
    /// Unmeasured runs first (the browser launch among them), per engine.
    #[arg(long, default_value_t = 3)]
    warmup: usize,
    #[arg(long, default_value = "/usr/bin/chromium")]
    chromium: String,
    /// Folder of peer.js, with its node_modules installed.
    #[arg(long, default_value = concat!(env!("CARGO_MANIFEST_DIR"), "/../../bench/puppeteer-peer"))]
    peer_dir: PathBuf,
    #[arg(long)]
    skip_svc: bool,
    #[arg(long)]
    skip_peer: bool,
    /// Also run svc on a Chromium whose `--disable-features` gets these
    /// features added (through a wrapper script), as one more row: the
    /// effect of a flag change measured end to end without changing svc.
    #[arg(long)]
    svc_disable_features: Option<String>,
    /// Also run svc with `SVC_WARM_PAGES=0` (a new context for every run,
    /// as before warm pages), as one more row.
    #[arg(long)]
    svc_fresh_contexts: bool,
    /// Also run the peer with these features disabled, as one more row.
    #[arg(long)]
    peer_disable_features: Option<String>,
    /// Also run the peer with these Chromium flags added (separated by
    /// spaces, e.g. `--disable-remote-fonts`), as one more row; with
    /// `--rounds`, in every round, and svc's ratios against it summarized too.
    #[arg(long, allow_hyphen_values = true)]
    peer_flags: Option<String>,
    /// Sequential runs per variant of the DevTools phase experiment (0: skip it).
    #[arg(long, default_value_t = 0)]
    phases: usize,
    /// Runs at `--concurrency` per variant of the phase experiment.
    #[arg(long, default_value_t = 40)]
    phases_concurrent: usize,
    /// Measure svc and the peer this many times each, alternating which goes
    /// first, and summarize the ratios of each round (median, lowest,
    /// highest): on a shared machine whose speed drifts from minute to
    /// minute, one measurement of each engine cannot settle a gap of a few
    /// percent. Only the plain svc and peer rows take part.
    #[arg(long, default_value_t = 1)]
    rounds: usize,
}

// ---------------------------------------------------------------- fixture

#[derive(Default)]
struct Hits {
    page: AtomicU64,
    image: AtomicU64,
    font: AtomicU64,
}

impl Hits {
    fn snapshot(&self) -> [u64; 3] {
        [self.page.load(Ordering::Relaxed), self.image.load(Ordering::Relaxed), self.font.load(Ordering::Relaxed)]
    }
}

/// Serves the page, its image and its font (20 KiB, not a real font: the
/// browser fetches it, then falls back), all uncacheable.
async fn serve_fixture(hits: Arc<Hits>) -> Result<String> {
    let page = items_page::html();
    let font: Vec<u8> = (0..20 * 1024).map(|i| (i * 7 % 251) as u8).collect();
    const NO_STORE: (header::HeaderName, &str) = (header::CACHE_CONTROL, "no-store");
    let app = Router::new()
        .route(
            "/items",
            get(move |State(h): State<Arc<Hits>>| {
                let page = page.clone();
                async move {
                    h.page.fetch_add(1, Ordering::Relaxed);
                    ([NO_STORE], Html(page))
                }
            }),
        )
        .route(
            "/image.png",
            get(|State(h): State<Arc<Hits>>| async move {
                h.image.fetch_add(1, Ordering::Relaxed);
                ([(header::CONTENT_TYPE, "image/png"), NO_STORE], PNG).into_response()
            }),
        )
        .route(
            "/font.woff2",
            get(move |State(h): State<Arc<Hits>>| {
                let font = font.clone();
                async move {
                    h.font.fetch_add(1, Ordering::Relaxed);
                    ([(header::CONTENT_TYPE, "font/woff2"), NO_STORE, (header::ACCESS_CONTROL_ALLOW_ORIGIN, "*")], font)
                        .into_response()
                }
            }),
        )
        .with_state(hits);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}/items", listener.local_addr()?);
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    Ok(url)
}

// ---------------------------------------------------------------- results

#[derive(Default)]
struct EngineResult {
    name: String,
    /// The puppeteer-core baseline.
    peer: bool,
    sequential: Vec<f64>,
    concurrent: Vec<f64>,
    concurrent_total_ms: f64,
    failures: usize,
    first_failure: Option<String>,
    mem_sequential: MemPeak,
    mem_concurrent: MemPeak,
    cpu_ms_per_run_sequential: f64,
    cpu_ms_per_run_concurrent: f64,
    split_sequential: CpuSplit,
    split_concurrent: CpuSplit,
    kinds_sequential: BTreeMap<String, usize>,
    kinds_concurrent: BTreeMap<String, usize>,
    /// Chromium CPU ms per run by process kind.
    chromium_cpu_sequential: BTreeMap<String, f64>,
    chromium_cpu_concurrent: BTreeMap<String, f64>,
    /// svc only: the engine's own time per run (history `time`).
    engine_ms_sequential: Vec<f64>,
    engine_ms_concurrent: Vec<f64>,
    /// peer only: medians of its steps.
    phases: Vec<(String, Stats)>,
    /// page, image, font requests the fixture served during the measured runs.
    hits: [u64; 3],
}

impl EngineResult {
    fn throughput(&self) -> f64 {
        self.concurrent.len() as f64 / (self.concurrent_total_ms / 1000.0)
    }
}

// ---------------------------------------------------------------- svc

struct SvcClient {
    http: reqwest::Client,
    base: String,
    token: String,
    scrap: String,
}

impl SvcClient {
    /// One run, trigger to finished row: (wall ms, engine ms).
    async fn run(&self) -> Result<(f64, f64)> {
        let started = Instant::now();
        let response = self
            .http
            .post(format!("{}/api/scraps/worker/{}?wait=60", self.base, self.scrap))
            .bearer_auth(&self.token)
            .send()
            .await?;
        let status = response.status();
        let row: Value = response.json().await?;
        let wall = started.elapsed().as_secs_f64() * 1000.0;
        if status.as_u16() != 200 {
            bail!("HTTP {status}: {row}");
        }
        if row["statusDetail"] != json!("success") || row["length"] != json!(ITEMS) {
            bail!("run ended {} with length {}: {}", row["statusDetail"], row["length"], row["error"]);
        }
        let data: Vec<String> = serde_json::from_str(row["data"].as_str().unwrap_or("[]"))?;
        if data.first().map(String::as_str) != Some("Item 0") || data.len() != ITEMS {
            bail!("unexpected data: {:?}", row["data"]);
        }
        Ok((wall, row["time"].as_f64().unwrap_or(f64::NAN)))
    }
}

async fn svc_setup(base: &str, fixture: &str) -> Result<SvcClient> {
    let http = reqwest::Client::new();
    let signup: Value = http
        .post(format!("{base}/api/auth/signup"))
        .json(&json!({"email": "bench@example.com", "password": "bench-password"}))
        .send()
        .await?
        .json()
        .await?;
    let token = signup["token"].as_str().with_context(|| format!("signup: {signup}"))?.to_string();
    let scrap: Value = http
        .post(format!("{base}/api/scraps"))
        .bearer_auth(&token)
        .json(&json!({"title": "Run bench", "url": fixture, "request": EXTRACTION}))
        .send()
        .await?
        .json()
        .await?;
    let scrap = scrap["id"].as_str().with_context(|| format!("create scrap: {scrap}"))?.to_string();
    Ok(SvcClient { http, base: base.to_string(), token, scrap })
}

async fn bench_svc(
    name: &str,
    chromium: &str,
    settings: &[(&str, &str)],
    args: &Args,
    fixture: &str,
    hits: &Hits,
    sampler: &Sampler,
) -> Result<EngineResult> {
    let (seq_label, conc_label) = (format!("{name} sequential"), format!("{name} concurrent"));
    let db = TestDb::sqlite();
    let env = [
        ("SVC_DATABASE_URL", db.url.clone()),
        ("SVC_SECRET_KEY", db.key().to_base64()),
        ("SVC_ALLOW_PRIVATE_NETWORKS", "true".into()),
        ("SVC_WORKER_CONCURRENCY", args.concurrency.to_string()),
        ("SVC_CHROMIUM", chromium.to_string()),
        ("SVC_FREE_GRANT", "1000000000".into()),
    ];
    let env = env.into_iter().map(|(k, v)| (k.to_string(), v));
    let config = Config::load(None, env.chain(settings.iter().map(|(k, v)| (k.to_string(), v.to_string()))))?;
    let app = App::build(config).await?;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let base = format!("http://{}", listener.local_addr()?);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(app.serve(listener, async move {
        let _ = stopped.await;
    }));
    let client = Arc::new(svc_setup(&base, fixture).await?);
    let mut result = EngineResult { name: name.to_string(), ..Default::default() };
    let state = sampler.handle();
    let me = std::process::id();

    for _ in 0..args.warmup {
        client.run().await.context("warm-up run")?;
    }
    let hits_before = hits.snapshot();

    eprintln!("{name}: {} sequential runs", args.sequential);
    Sampler::set(&state, Some(&seq_label), me);
    let split0 = cpu_split(me);
    let kinds0 = chromium_cpu_by_kind(me);
    let cpu0 = cpu_jiffies();
    for _ in 0..args.sequential {
        match client.run().await {
            Ok((wall, engine)) => {
                result.sequential.push(wall);
                result.engine_ms_sequential.push(engine);
            }
            Err(e) => {
                result.failures += 1;
                result.first_failure.get_or_insert(e.to_string());
            }
        }
        tokio::time::sleep(Duration::from_millis(args.pause_ms)).await;
    }
    result.cpu_ms_per_run_sequential = cpu_ms(cpu0, cpu_jiffies()) / args.sequential.max(1) as f64;
    result.split_sequential = cpu_split_per_run(split0, cpu_split(me), args.sequential);
    result.chromium_cpu_sequential = per_run_delta(&kinds0, &chromium_cpu_by_kind(me), args.sequential);

    eprintln!("{name}: {} runs at concurrency {}", args.runs, args.concurrency);
    Sampler::set(&state, Some(&conc_label), me);
    let next = Arc::new(AtomicUsize::new(0));
    let split0 = cpu_split(me);
    let kinds0 = chromium_cpu_by_kind(me);
    let cpu0 = cpu_jiffies();
    let started = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..args.concurrency {
        let (client, next, runs) = (client.clone(), next.clone(), args.runs);
        tasks.push(tokio::spawn(async move {
            let mut out = Vec::new();
            while next.fetch_add(1, Ordering::Relaxed) < runs {
                out.push(client.run().await.map_err(|e| e.to_string()));
            }
            out
        }));
    }
    for task in tasks {
        for outcome in task.await? {
            match outcome {
                Ok((wall, engine)) => {
                    result.concurrent.push(wall);
                    result.engine_ms_concurrent.push(engine);
                }
                Err(e) => {
                    result.failures += 1;
                    result.first_failure.get_or_insert(e);
                }
            }
        }
    }
    result.concurrent_total_ms = started.elapsed().as_secs_f64() * 1000.0;
    result.cpu_ms_per_run_concurrent = cpu_ms(cpu0, cpu_jiffies()) / args.runs.max(1) as f64;
    result.split_concurrent = cpu_split_per_run(split0, cpu_split(me), args.runs);
    result.chromium_cpu_concurrent = per_run_delta(&kinds0, &chromium_cpu_by_kind(me), args.runs);
    Sampler::set(&state, None, me);
    let hits_after = hits.snapshot();
    result.hits = [0, 1, 2].map(|i| hits_after[i] - hits_before[i]);
    result.mem_sequential = sampler.peak(&seq_label);
    result.mem_concurrent = sampler.peak(&conc_label);
    result.kinds_sequential = sampler.kinds(&seq_label);
    result.kinds_concurrent = sampler.kinds(&conc_label);

    // Graceful stop: the worker finishes, the engine closes its Chromium.
    let _ = stop.send(());
    server.await?.context("svc server")?;
    drop(db);
    Ok(result)
}

/// A script that runs `chromium` with `features` added to its
/// `--disable-features` (Chromium honours only the last such flag, so they
/// are merged into every one given, or added when none is).
fn chromium_wrapper(dir: &std::path::Path, chromium: &str, features: &str) -> Result<String> {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join("chromium");
    let script = format!(
        "#!/bin/sh\nextra='{features}'\nfound=''\nfor a in \"$@\"; do\n  shift\n  case \"$a\" in --disable-features=*) a=\"$a,$extra\"; found=1 ;; esac\n  set -- \"$@\" \"$a\"\ndone\n[ -n \"$found\" ] || set -- \"$@\" \"--disable-features=$extra\"\nexec '{chromium}' \"$@\"\n"
    );
    std::fs::write(&path, script)?;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))?;
    Ok(path.display().to_string())
}

// ---------------------------------------------------------------- peer

/// How an extra row's peer changes its Chromium.
#[derive(Clone, Copy)]
enum PeerVariant<'a> {
    DisableFeatures(&'a str),
    Flags(&'a str),
}

impl PeerVariant<'_> {
    fn label(self) -> String {
        match self {
            PeerVariant::DisableFeatures(f) => format!("--disable-features=+{f}"),
            PeerVariant::Flags(f) => f.to_string(),
        }
    }
}

fn bench_peer(
    args: &Args,
    variant: Option<PeerVariant>,
    fixture: &str,
    hits: &Hits,
    sampler: &Sampler,
) -> Result<EngineResult> {
    let script = args.peer_dir.join("peer.js");
    if !args.peer_dir.join("node_modules/puppeteer-core").is_dir() {
        bail!("puppeteer-core is not installed: run `npm ci` in {}", args.peer_dir.display());
    }
    let hits_before = hits.snapshot();
    let mut child = Command::new("node")
        .arg(&script)
        .args(["--url", fixture])
        .args(["--sequential", &args.sequential.to_string()])
        .args(["--runs", &args.runs.to_string()])
        .args(["--concurrency", &args.concurrency.to_string()])
        .args(["--warmup", &args.warmup.to_string()])
        .args(["--pauseMs", &args.pause_ms.to_string()])
        .args(["--chromium", &args.chromium])
        .args(match variant {
            Some(PeerVariant::DisableFeatures(f)) => vec!["--disableFeatures", f],
            Some(PeerVariant::Flags(f)) => vec!["--extraArgs", f],
            None => vec![],
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .context("run node (apt-get install nodejs)")?;
    let pid = child.id();
    let state = sampler.handle();
    type Mark = (String, (u64, u64), CpuSplit, BTreeMap<String, f64>);
    let cpu: Arc<Mutex<Vec<Mark>>> = Arc::default();
    let stderr = child.stderr.take().context("stderr")?;
    let reader = {
        let (state, cpu) = (state.clone(), cpu.clone());
        let tag = variant.map(PeerVariant::label).unwrap_or_default();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                match line.strip_prefix("PHASE ") {
                    Some(phase) => {
                        cpu.lock().unwrap().push((
                            phase.to_string(),
                            cpu_jiffies(),
                            cpu_split(pid),
                            chromium_cpu_by_kind(pid),
                        ));
                        let label = format!("peer {tag} {phase}");
                        Sampler::set(&state, (phase != "done").then_some(label.as_str()), pid);
                        if phase == "sequential" {
                            eprintln!("peer: sequential runs");
                        } else if phase == "concurrent" {
                            eprintln!("peer: runs at concurrency");
                        }
                    }
                    None => eprintln!("peer: {line}"),
                }
            }
        })
    };
    let out = child.wait_with_output()?;
    let _ = reader.join();
    Sampler::set(&state, None, std::process::id());
    if !out.status.success() {
        bail!("peer.js failed ({})", out.status);
    }
    let hits_after = hits.snapshot();
    let report: Value = serde_json::from_slice(&out.stdout).context("peer.js output")?;
    let floats = |v: &Value| -> Vec<f64> {
        v.as_array().map(|a| a.iter().filter_map(Value::as_f64).collect()).unwrap_or_default()
    };
    let tag = variant.map(PeerVariant::label).unwrap_or_default();
    let mut result = EngineResult {
        name: match variant {
            None => format!("puppeteer-core {}", report["puppeteerVersion"].as_str().unwrap_or("?")),
            Some(v) => format!("puppeteer-core {}, {}", report["puppeteerVersion"].as_str().unwrap_or("?"), v.label()),
        },
        peer: variant.is_none(),
        sequential: floats(&report["sequential"]["latenciesMs"]),
        concurrent: floats(&report["concurrent"]["latenciesMs"]),
        concurrent_total_ms: report["concurrent"]["totalMs"].as_f64().unwrap_or(f64::NAN),
        mem_sequential: sampler.peak(&format!("peer {tag} sequential")),
        mem_concurrent: sampler.peak(&format!("peer {tag} concurrent")),
        kinds_sequential: sampler.kinds(&format!("peer {tag} sequential")),
        kinds_concurrent: sampler.kinds(&format!("peer {tag} concurrent")),
        ..Default::default()
    };
    // The peer counts its warm-up runs' fixture hits too; they are few and the same for both.
    result.hits = [0, 1, 2].map(|i| hits_after[i] - hits_before[i]);
    let marks = cpu.lock().unwrap().clone();
    let at = |name: &str| marks.iter().find(|(n, _, _, _)| n == name).map(|(_, j, s, k)| (*j, *s, k.clone()));
    if let (Some(a), Some(b), Some(c)) = (at("sequential"), at("concurrent"), at("done")) {
        result.cpu_ms_per_run_sequential = cpu_ms(a.0, b.0) / args.sequential.max(1) as f64;
        result.cpu_ms_per_run_concurrent = cpu_ms(b.0, c.0) / args.runs.max(1) as f64;
        result.split_sequential = cpu_split_per_run(a.1, b.1, args.sequential);
        result.split_concurrent = cpu_split_per_run(b.1, c.1, args.runs);
        result.chromium_cpu_sequential = per_run_delta(&a.2, &b.2, args.sequential);
        result.chromium_cpu_concurrent = per_run_delta(&b.2, &c.2, args.runs);
    }
    for name in ["context", "newPage", "goto", "evaluate", "close"] {
        result.phases.push((name.to_string(), stats(&floats(&report["sequential"]["phasesMs"][name]))));
    }
    if result.sequential.len() != args.sequential || result.concurrent.len() != args.runs {
        result.failures = args.sequential + args.runs - result.sequential.len() - result.concurrent.len();
    }
    Ok(result)
}

// ---------------------------------------------------------------- phase experiment

#[derive(Clone, Copy, PartialEq)]
enum Interception {
    /// Every request paused and answered over DevTools (svc today).
    All,
    /// Only images, fonts and media paused (and failed); the rest never paused.
    SkippedTypesOnly,
}

#[derive(Default)]
struct Steps(BTreeMap<&'static str, Vec<f64>>);

impl Steps {
    fn add(&mut self, name: &'static str, since: &mut Instant) {
        self.0.entry(name).or_default().push(since.elapsed().as_secs_f64() * 1000.0);
        *since = Instant::now();
    }
}

async fn prepare_page(
    browser: &Browser,
    interception: Interception,
    steps: &mut Steps,
    t: &mut Instant,
) -> Result<(chromiumoxide::cdp::browser_protocol::browser::BrowserContextId, chromiumoxide::Page)> {
    let context = browser.create_browser_context(CreateBrowserContextParams::default()).await?;
    steps.add("1 create context", t);
    let page = browser
        .new_page(
            CreateTargetParams::builder()
                .url("about:blank")
                .browser_context_id(context.clone())
                .build()
                .map_err(anyhow::Error::msg)?,
        )
        .await?;
    steps.add("2 new page (about:blank)", t);
    let mut paused = page.event_listener::<EventRequestPaused>().await?;
    let patterns: Vec<RequestPattern> = match interception {
        Interception::All => {
            vec![RequestPattern::builder().url_pattern("*").request_stage(RequestStage::Request).build()]
        }
        Interception::SkippedTypesOnly => [ResourceType::Image, ResourceType::Font, ResourceType::Media]
            .into_iter()
            .map(|r| {
                RequestPattern::builder().url_pattern("*").resource_type(r).request_stage(RequestStage::Request).build()
            })
            .collect(),
    };
    page.execute(FetchEnableParams::builder().patterns(patterns).build()).await?;
    let answering = page.clone();
    tokio::spawn(async move {
        while let Some(event) = paused.next().await {
            let skipped = matches!(event.resource_type, ResourceType::Image | ResourceType::Font | ResourceType::Media);
            let sent = if skipped {
                answering
                    .execute(FailRequestParams::new(event.request_id.clone(), ErrorReason::BlockedByClient))
                    .await
                    .map(|_| ())
            } else {
                answering.execute(ContinueRequestParams::new(event.request_id.clone())).await.map(|_| ())
            };
            if sent.is_err() {
                break;
            }
        }
    });
    let mut finished = page.event_listener::<EventLoadingFinished>().await?;
    tokio::spawn(async move { while finished.next().await.is_some() {} });
    steps.add("3 listeners + Fetch.enable", t);
    Ok((context, page))
}

async fn extract(page: &chromiumoxide::Page, url: &str, steps: &mut Steps, t: &mut Instant) -> Result<()> {
    page.goto(url).await?;
    steps.add("4 goto (load)", t);
    let status = page
        .evaluate("(performance.getEntriesByType('navigation')[0] || {}).responseStatus || 0")
        .await?
        .into_value::<i64>()?;
    if status != 200 {
        bail!("status {status}");
    }
    steps.add("5 status evaluate", t);
    let frame = page.mainframe().await?.context("no main frame")?;
    let world = page
        .execute(
            CreateIsolatedWorldParams::builder()
                .frame_id(frame)
                .world_name("svc-run")
                .build()
                .map_err(anyhow::Error::msg)?,
        )
        .await?;
    steps.add("6 isolated world", t);
    items_page::extract(page, world.result.execution_context_id).await?;
    steps.add("7 evaluate", t);
    Ok(())
}

type Ready = (chromiumoxide::cdp::browser_protocol::browser::BrowserContextId, chromiumoxide::Page);

/// One run: `warm` holds a context and page prepared before the run (the
/// pre-warmed variant; it prepares the next one after answering).
async fn phase_run(
    browser: &Browser,
    variant: &Variant,
    warm: &mut Option<Ready>,
    fixture: &str,
    record: &mut Steps,
) -> Result<f64> {
    let mut t = Instant::now();
    let started = t;
    let (context, page) = if variant.prewarmed {
        let ready = match warm.take() {
            Some(ready) => ready,
            None => prepare_page(browser, variant.interception, &mut Steps::default(), &mut Instant::now()).await?,
        };
        t = Instant::now();
        ready
    } else {
        prepare_page(browser, variant.interception, record, &mut t).await?
    };
    let started = if variant.prewarmed { t } else { started };
    extract(&page, fixture, record, &mut t).await?;
    let answer = started.elapsed().as_secs_f64() * 1000.0;
    record.0.entry("= answer ready").or_default().push(answer);
    if variant.prewarmed {
        *warm = Some(prepare_page(browser, variant.interception, &mut Steps::default(), &mut Instant::now()).await?);
        t = Instant::now();
    }
    browser.dispose_browser_context(context).await?;
    record.add("8 dispose context", &mut t);
    Ok(answer)
}

struct Variant {
    name: &'static str,
    /// Added to svc's `--disable-features`.
    disable_features: Option<&'static str>,
    interception: Interception,
    prewarmed: bool,
}

struct VariantResult {
    name: String,
    renderers_per_run: f64,
    webui_per_run: f64,
    peak_pss_kib: u64,
    steps: Steps,
    cpu_sequential: f64,
    concurrent: Vec<f64>,
    concurrent_total_ms: f64,
    cpu_concurrent: f64,
}

/// Features whose per-window WebUI (the omnibox popup, preloaded in a
/// renderer of its own for every new window, so for every browser context)
/// a headless run never uses.
const OMNIBOX_WEBUI: &str = "WebUIOmniboxPopup,WebUIOmniboxAimPopup";
/// And the spare renderer: after each navigation Chromium starts a spare
/// renderer process for the browser context, which a run never uses (its
/// context is disposed right after).
const LEAN_FEATURES: &str = "WebUIOmniboxPopup,WebUIOmniboxAimPopup,SpareRendererForSitePerProcess";

async fn phase_experiment(args: &Args, fixture: &str, sampler: &Sampler) -> Result<Vec<VariantResult>> {
    let variants = [
        Variant {
            name: "A: svc's steps today",
            disable_features: None,
            interception: Interception::All,
            prewarmed: false,
        },
        Variant {
            name: "B: A + omnibox WebUI off",
            disable_features: Some(OMNIBOX_WEBUI),
            interception: Interception::All,
            prewarmed: false,
        },
        Variant {
            name: "C: B + spare renderer off",
            disable_features: Some(LEAN_FEATURES),
            interception: Interception::All,
            prewarmed: false,
        },
        Variant {
            name: "D: C + pause only images/fonts/media",
            disable_features: Some(LEAN_FEATURES),
            interception: Interception::SkippedTypesOnly,
            prewarmed: false,
        },
        Variant {
            name: "E: D + pre-warmed context & page",
            disable_features: Some(LEAN_FEATURES),
            interception: Interception::SkippedTypesOnly,
            prewarmed: true,
        },
    ];
    let me = std::process::id();
    let mut out = Vec::new();
    for variant in variants {
        eprintln!("phase experiment: {}", variant.name);
        let profile = tempfile::Builder::new().prefix("run-bench-chromium-").tempdir()?;
        // svc's own flags (chromiumoxide's defaults restated, one merged
        // `--disable-features`), with the variant's features added to it.
        let args_for = svc_runner::browser::ARGS.iter().map(|a| match a.strip_prefix("disable-features=") {
            Some(features) => match variant.disable_features {
                Some(extra) => format!("disable-features={features},{extra}"),
                None => format!("disable-features={features}"),
            },
            None => a.to_string(),
        });
        let config = BrowserConfig::builder()
            .chrome_executable(&args.chromium)
            .no_sandbox()
            .user_data_dir(profile.path())
            .disable_default_args()
            .args(args_for)
            .launch_timeout(Duration::from_secs(30))
            .request_timeout(Duration::from_secs(120))
            .viewport(None)
            .build()
            .map_err(anyhow::Error::msg)?;
        let (browser, mut handler) = Browser::launch(config).await?;
        let handler = tokio::spawn(async move { while handler.next().await.is_some() {} });
        let browser = Arc::new(browser);
        let mut warm = None;
        for _ in 0..2 {
            phase_run(&browser, &variant, &mut warm, fixture, &mut Steps::default()).await?;
        }
        let mut steps = Steps::default();
        let label = format!("phase {}", variant.name);
        Sampler::set(&sampler.handle(), Some(&label), me);
        let cpu0 = cpu_split(me).chromium;
        for _ in 0..args.phases {
            phase_run(&browser, &variant, &mut warm, fixture, &mut steps).await?;
        }
        let cpu_sequential = (cpu_split(me).chromium - cpu0) / args.phases.max(1) as f64;
        if let Some((context, _)) = warm.take() {
            browser.dispose_browser_context(context).await?;
        }

        let variant = Arc::new(variant);
        let next = Arc::new(AtomicUsize::new(0));
        let cpu0 = cpu_split(me).chromium;
        let started = Instant::now();
        let mut tasks = Vec::new();
        for _ in 0..args.concurrency {
            let (browser, variant, next, fixture, runs) =
                (browser.clone(), variant.clone(), next.clone(), fixture.to_string(), args.phases_concurrent);
            tasks.push(tokio::spawn(async move {
                let mut warm = None;
                let mut answers = Vec::new();
                while next.fetch_add(1, Ordering::Relaxed) < runs {
                    answers.push(phase_run(&browser, &variant, &mut warm, &fixture, &mut Steps::default()).await?);
                }
                if let Some((context, _)) = warm.take() {
                    browser.dispose_browser_context(context).await?;
                }
                Ok::<_, anyhow::Error>(answers)
            }));
        }
        let mut concurrent = Vec::new();
        for task in tasks {
            concurrent.extend(task.await??);
        }
        let concurrent_total_ms = started.elapsed().as_secs_f64() * 1000.0;
        let cpu_concurrent = (cpu_split(me).chromium - cpu0) / args.phases_concurrent.max(1) as f64;
        Sampler::set(&sampler.handle(), None, me);
        let kinds = sampler.kinds(&label);
        let runs = (args.phases + args.phases_concurrent).max(1) as f64;
        out.push(VariantResult {
            renderers_per_run: kinds.get("renderer").copied().unwrap_or(0) as f64 / runs,
            webui_per_run: kinds.get("renderer (top-chrome WebUI)").copied().unwrap_or(0) as f64 / runs,
            peak_pss_kib: sampler.peak(&label).pss_kib,
            name: variant.name.to_string(),
            steps,
            cpu_sequential,
            concurrent,
            concurrent_total_ms,
            cpu_concurrent,
        });
        let mut browser = Arc::try_unwrap(browser).map_err(|_| anyhow::anyhow!("browser still shared"))?;
        browser.close().await?;
        let _ = browser.wait().await;
        handler.abort();
    }
    Ok(out)
}

// ---------------------------------------------------------------- report

fn mib(kib: u64) -> String {
    format!("{:.0}", kib as f64 / 1024.0)
}

fn print_report(args: &Args, results: &[EngineResult], fixture: &str) {
    println!();
    println!(
        "Fixture {fixture} ({ITEMS} items, 1 image, 1 web font); {} warm-up + {} sequential runs ({}), then {} runs at concurrency {}; {} cores.",
        args.warmup,
        args.sequential,
        if args.pause_ms == 0 { "back to back".to_string() } else { format!("{} ms idle between runs", args.pause_ms) },
        args.runs,
        args.concurrency,
        std::thread::available_parallelism().map_or(0, |n| n.get())
    );
    println!();
    println!(
        "| engine | sequential median ms | sequential p95 ms | c={c} runs/s | c={c} median ms | c={c} p95 ms | peak Chromium PSS MiB, sampled 1/s (seq / c={c}) | peak Chromium RSS MiB, sampled 10/s (seq / c={c}) | machine CPU ms per run (seq / c={c}) | failed runs |",
        c = args.concurrency
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for r in results {
        let (s, c) = (stats(&r.sequential), stats(&r.concurrent));
        println!(
            "| {} | {:.0} | {:.0} | {:.2} | {:.0} | {:.0} | {} / {} | {} / {} | {:.0} / {:.0} | {} of {} |",
            r.name,
            s.median,
            s.p95,
            r.throughput(),
            c.median,
            c.p95,
            mib(r.mem_sequential.pss_kib),
            mib(r.mem_concurrent.pss_kib),
            mib(r.mem_sequential.rss_kib),
            mib(r.mem_concurrent.rss_kib),
            r.cpu_ms_per_run_sequential,
            r.cpu_ms_per_run_concurrent,
            r.failures,
            args.sequential + args.runs
        );
    }
    let peer = results.iter().find(|r| r.peer);
    if let Some(peer) = peer {
        let p = stats(&peer.sequential);
        let mut targets = Vec::new();
        for svc in results.iter().filter(|r| !r.peer) {
            let s = stats(&svc.sequential);
            println!(
                "| {} ÷ peer | {:.2}× | {:.2}× | {:.2}× | {:.2}× | {:.2}× | {:.2}× | {:.2}× | {:.2}× | |",
                svc.name,
                s.median / p.median,
                s.p95 / p.p95,
                svc.throughput() / peer.throughput(),
                stats(&svc.concurrent).median / stats(&peer.concurrent).median,
                stats(&svc.concurrent).p95 / stats(&peer.concurrent).p95,
                svc.mem_concurrent.pss_kib as f64 / peer.mem_concurrent.pss_kib as f64,
                svc.mem_concurrent.rss_kib as f64 / peer.mem_concurrent.rss_kib as f64,
                svc.cpu_ms_per_run_concurrent / peer.cpu_ms_per_run_concurrent,
            );
            targets.push(format!(
                "{}: runs/s {:.2}× the peer's, sequential median {:.2}× the peer's",
                svc.name,
                svc.throughput() / peer.throughput(),
                s.median / p.median
            ));
        }
        println!();
        println!("Target: svc runs/s >= 2× the peer's and svc sequential median <= 0.5× the peer's. Now:");
        for t in targets {
            println!("- {t}");
        }
    }
    println!();
    println!(
        "| engine | min / mean / max sequential ms | c={} total s | chromium processes at peak (seq / c) | browser processes seen at c | fixture requests page / image / font |",
        args.concurrency
    );
    println!("|---|---|---|---|---|---|");
    for r in results {
        let s = stats(&r.sequential);
        println!(
            "| {} | {:.0} / {:.0} / {:.0} | {:.1} | {} / {} | {} | {} / {} / {} |",
            r.name,
            s.min,
            s.mean,
            s.max,
            r.concurrent_total_ms / 1000.0,
            r.mem_sequential.processes,
            r.mem_concurrent.processes,
            r.kinds_concurrent.get("browser").copied().unwrap_or(0),
            r.hits[0],
            r.hits[1],
            r.hits[2]
        );
    }
    println!();
    println!(
        "CPU ms per run by process (sequential / c={}); bench = this process: the svc app, its worker and HTTP clients, the fixture server:",
        args.concurrency
    );
    println!();
    println!("| engine | bench process | Chromium processes | node (and other children) | whole machine |");
    println!("|---|---|---|---|---|");
    for r in results {
        let (s, c) = (r.split_sequential, r.split_concurrent);
        println!(
            "| {} | {:.0} / {:.0} | {:.0} / {:.0} | {:.0} / {:.0} | {:.0} / {:.0} |",
            r.name,
            s.bench,
            c.bench,
            s.chromium,
            c.chromium,
            s.other,
            c.other,
            r.cpu_ms_per_run_sequential,
            r.cpu_ms_per_run_concurrent
        );
    }
    println!();
    println!(
        "Chromium processes by kind: distinct processes seen (sampled every 100 ms, so short-lived ones can be missed) and CPU ms per run, sequential / c={}:",
        args.concurrency
    );
    println!();
    print!("| process kind |");
    for r in results {
        print!(" {} processes seen | {} CPU ms per run |", r.name, r.name);
    }
    println!();
    println!("|---|{}", "---|---|".repeat(results.len()));
    let kinds: Vec<String> = {
        let mut all: Vec<String> = results
            .iter()
            .flat_map(|r| {
                r.kinds_sequential
                    .keys()
                    .chain(r.kinds_concurrent.keys())
                    .chain(r.chromium_cpu_sequential.keys())
                    .chain(r.chromium_cpu_concurrent.keys())
                    .cloned()
                    .collect::<Vec<_>>()
            })
            .collect();
        all.sort();
        all.dedup();
        all
    };
    for kind in kinds {
        print!("| {kind} |");
        for r in results {
            let count = |m: &BTreeMap<String, usize>| m.get(&kind).map_or("-".to_string(), |n| n.to_string());
            let cpu = |m: &BTreeMap<String, f64>| m.get(&kind).map_or("-".to_string(), |v| format!("{v:.0}"));
            print!(
                " {} / {} | {} / {} |",
                count(&r.kinds_sequential),
                count(&r.kinds_concurrent),
                cpu(&r.chromium_cpu_sequential),
                cpu(&r.chromium_cpu_concurrent)
            );
        }
        println!();
    }
    for r in results {
        if !r.engine_ms_sequential.is_empty() {
            let (wall, engine) = (stats(&r.sequential), stats(&r.engine_ms_sequential));
            let (cwall, cengine) = (stats(&r.concurrent), stats(&r.engine_ms_concurrent));
            println!();
            println!("svc, trigger to finished row vs the engine's own time (history `time`):");
            println!();
            println!("| phase | wall median ms | engine median ms | outside the engine (API, queue, database) ms |");
            println!("|---|---|---|---|");
            println!("| sequential | {:.0} | {:.0} | {:.0} |", wall.median, engine.median, wall.median - engine.median);
            println!(
                "| c={} | {:.0} | {:.0} | {:.0} |",
                args.concurrency,
                cwall.median,
                cengine.median,
                cwall.median - cengine.median
            );
        }
        if !r.phases.is_empty() {
            println!();
            println!("{} per-run steps, sequential (median / p95 ms):", r.name);
            println!();
            println!("| step | median ms | p95 ms |");
            println!("|---|---|---|");
            for (name, s) in &r.phases {
                println!("| {name} | {:.1} | {:.1} |", s.median, s.p95);
            }
        }
        if let Some(why) = &r.first_failure {
            println!();
            println!("{}: first failure: {why}", r.name);
        }
    }
}

fn print_phases(args: &Args, variants: &[VariantResult]) {
    println!();
    println!(
        "Phase experiment: svc's per-run DevTools steps with chromiumoxide on svc's launch flags, outside svc (no API, queue or database), {} sequential runs per variant (median / p95 ms; 'answer ready' = from the start of the run to the extracted data):",
        args.phases
    );
    println!();
    let names: Vec<&str> = {
        let mut all: Vec<&str> = variants.iter().flat_map(|v| v.steps.0.keys().copied()).collect();
        all.sort();
        all.dedup();
        all
    };
    print!("| step |");
    for v in variants {
        print!(" {} |", v.name);
    }
    println!();
    println!("|---|{}", "---|".repeat(variants.len()));
    for name in names {
        print!("| {name} |");
        for v in variants {
            match v.steps.0.get(name) {
                Some(samples) => {
                    let s = stats(samples);
                    print!(" {:.1} / {:.1} |", s.median, s.p95);
                }
                None => print!(" (done before the run) |"),
            }
        }
        println!();
    }
    print!("| Chromium CPU ms per run, sequential |");
    for v in variants {
        print!(" {:.0} |", v.cpu_sequential);
    }
    println!();
    print!("| c={} runs/s ({} runs) |", args.concurrency, args.phases_concurrent);
    for v in variants {
        print!(" {:.2} |", v.concurrent.len() as f64 / (v.concurrent_total_ms / 1000.0));
    }
    println!();
    print!("| c={} answer ready median / p95 ms |", args.concurrency);
    for v in variants {
        let s = stats(&v.concurrent);
        print!(" {:.0} / {:.0} |", s.median, s.p95);
    }
    println!();
    print!("| Chromium CPU ms per run, c={} |", args.concurrency);
    for v in variants {
        print!(" {:.0} |", v.cpu_concurrent);
    }
    println!();
    print!("| renderer processes seen per run (page / top-chrome WebUI) |");
    for v in variants {
        print!(" {:.1} / {:.1} |", v.renderers_per_run, v.webui_per_run);
    }
    println!();
    print!("| peak Chromium PSS MiB |");
    for v in variants {
        print!(" {} |", mib(v.peak_pss_kib));
    }
    println!();
}

/// `--rounds`: svc and the peer measured `args.rounds` times each, svc first
/// in odd rounds and the peer first in even ones; every round's rows, then
/// the ratios round by round and their median.
async fn rounds(args: &Args, fixture: &str, hits: &Arc<Hits>, sampler: &Sampler) -> Result<()> {
    let flagged = args.peer_flags.as_deref().map(PeerVariant::Flags);
    // Per round: svc, the peer, and the peer with `--peer-flags` if asked for.
    let mut measured: Vec<Vec<EngineResult>> = Vec::new();
    for round in 1..=args.rounds {
        let svc_first = round % 2 == 1;
        let mut svc = None;
        let mut peers = Vec::new();
        for turn in 0..2 {
            if (turn == 0) == svc_first {
                let mut result = bench_svc("svc", &args.chromium, &[], args, fixture, hits, sampler).await?;
                result.name = format!("svc, round {round}");
                svc = Some(result);
            } else {
                for variant in [None, flagged].into_iter().take(if flagged.is_some() { 2 } else { 1 }) {
                    let mut result = tokio::task::block_in_place(|| bench_peer(args, variant, fixture, hits, sampler))?;
                    result.name = format!("{}, round {round}", result.name);
                    peers.push(result);
                }
            }
        }
        let svc = svc.expect("measured");
        for peer in &peers {
            eprintln!(
                "round {round}: against {}: throughput {:.2}x, sequential median {:.2}x",
                peer.name,
                svc.throughput() / peer.throughput(),
                stats(&svc.sequential).median / stats(&peer.sequential).median
            );
        }
        measured.push(std::iter::once(svc).chain(peers).collect());
    }
    // Each round's rows against that round's peer.
    for rows in &measured {
        print_report(args, rows, fixture);
    }
    let peers = if flagged.is_some() { 2 } else { 1 };
    for which in 1..=peers {
        let against = match which {
            1 => "peer".to_string(),
            _ => format!("peer with {}", args.peer_flags.as_deref().unwrap_or_default()),
        };
        println!();
        println!("svc against the {against}:");
        println!();
        println!(
            "| round | first | svc seq. median ms | peer seq. median ms | latency | svc c={c} runs/s | peer c={c} runs/s | throughput | svc / peer machine CPU ms per run at c={c} |",
            c = args.concurrency
        );
        println!("|---|---|---|---|---|---|---|---|---|");
        let (mut latency, mut throughput) = (Vec::new(), Vec::new());
        for (i, rows) in measured.iter().enumerate() {
            let (svc, peer) = (&rows[0], &rows[which]);
            let (s, p) = (stats(&svc.sequential).median, stats(&peer.sequential).median);
            let (l, t) = (s / p, svc.throughput() / peer.throughput());
            latency.push(l);
            throughput.push(t);
            println!(
                "| {} | {} | {s:.0} | {p:.0} | {l:.2}x | {:.2} | {:.2} | {t:.2}x | {:.0} / {:.0} |",
                i + 1,
                if i % 2 == 0 { "svc" } else { "peer" },
                svc.throughput(),
                peer.throughput(),
                svc.cpu_ms_per_run_concurrent,
                peer.cpu_ms_per_run_concurrent,
            );
        }
        let summary = |name: &str, values: &[f64]| {
            let st = stats(values);
            println!(
                "{name}: median {:.2}x over {} rounds (lowest {:.2}x, highest {:.2}x)",
                st.median,
                values.len(),
                st.min,
                st.max
            );
        };
        println!();
        summary(&format!("svc ÷ {against} throughput"), &throughput);
        summary(&format!("svc ÷ {against} sequential median"), &latency);
    }
    let failures: usize = measured.iter().flatten().map(|r| r.failures).sum();
    if failures > 0 {
        anyhow::bail!("{failures} runs failed");
    }
    Ok(())
}

fn main() -> Result<()> {
    let args = Args::parse();
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    runtime.block_on(async {
        let hits = Arc::new(Hits::default());
        let fixture = serve_fixture(hits.clone()).await?;
        let sampler = Sampler::start();
        if args.rounds > 1 {
            return rounds(&args, &fixture, &hits, &sampler).await;
        }
        let mut results = Vec::new();
        if !args.skip_svc {
            results.push(bench_svc("svc", &args.chromium, &[], &args, &fixture, &hits, &sampler).await?);
            if args.svc_fresh_contexts {
                let name = "svc, a new context per run (SVC_WARM_PAGES=0)";
                let settings = [("SVC_WARM_PAGES", "0")];
                results.push(bench_svc(name, &args.chromium, &settings, &args, &fixture, &hits, &sampler).await?);
            }
            if let Some(features) = &args.svc_disable_features {
                let dir = tempfile::Builder::new().prefix("run-bench-wrapper-").tempdir()?;
                let wrapper = chromium_wrapper(dir.path(), &args.chromium, features)?;
                let name = format!("svc, Chromium with --disable-features=+{features}");
                results.push(bench_svc(&name, &wrapper, &[], &args, &fixture, &hits, &sampler).await?);
            }
        }
        if !args.skip_peer {
            // Blocking: waits on the node child while the fixture keeps serving.
            let peer = tokio::task::block_in_place(|| bench_peer(&args, None, &fixture, &hits, &sampler))?;
            results.push(peer);
            let variants = [
                args.peer_disable_features.as_deref().map(PeerVariant::DisableFeatures),
                args.peer_flags.as_deref().map(PeerVariant::Flags),
            ];
            for variant in variants.into_iter().flatten() {
                let peer = tokio::task::block_in_place(|| bench_peer(&args, Some(variant), &fixture, &hits, &sampler))?;
                results.push(peer);
            }
        }
        if !results.is_empty() {
            print_report(&args, &results, &fixture);
            println!();
            let (passes, pass_ms, cpu_ms) = sampler.cost();
            println!(
                "(Memory sampler: {passes} passes over the Chromium processes, one every 100 ms plus the pass itself; a pass took {pass_ms:.1} ms of wall time on average and the sampler {cpu_ms:.0} ms of CPU in all.)"
            );
        }
        if args.phases > 0 {
            let variants = phase_experiment(&args, &fixture, &sampler).await?;
            print_phases(&args, &variants);
        }
        Ok(())
    })
}
