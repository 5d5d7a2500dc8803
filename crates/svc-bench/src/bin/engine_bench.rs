//! The `static` engine against the browser engine (`puppeteer`, headless
//! Chromium) on the 50-item fixture page, measured side by side in one run.
//!
//! Two measurements per engine, each with `--warmup` unmeasured runs, then
//! `--sequential` runs one after the other (latency) and `--runs` runs with
//! `--concurrency` clients (throughput):
//!
//! - **end to end**: the in-process app (fresh SQLite, embedded worker with
//!   `SVC_WORKER_CONCURRENCY` = `--concurrency`), one scrap per engine
//!   (`puppeteer`, `static` and `auto`) with the same script, each run triggered with
//!   `POST /api/scraps/worker/:id?wait=60` until its finished row is back;
//! - **engine only**: `Engine::run` called directly on a `ChromiumEngine`
//!   and a `StaticEngine` (no HTTP, no queue, no database).
//!
//! Beside them, in both measurements, the **browserless peers**
//! (`bench/dom-peer/peer.js`, one node program per library: cheerio,
//! linkedom, happy-dom): what a user would write instead of a `static`
//! scrap, a fetch-parse-extract loop over the same page with the same
//! extraction, each library at its best (`--peer-processes` worker
//! processes with `--peer-inflight` runs in flight each, undici keep-alive).
//! The peers have no API, queue or database: the same loop stands beside
//! svc's end-to-end figures and beside its engine-only ones.
//!
//! Every run must end `success` with the 50 items, and the static engine's
//! data must be byte for byte the browser engine's and each peer's. CPU per
//! run is this process (server, worker, static engine, clients, fixture)
//! plus its Chromium and sandbox processes, read from /proc; for a peer, its
//! worker processes' CPU (`process.cpuUsage`) plus this process's (the
//! fixture) during its measured phase.
//!
//! `--rounds N` measures everything N times, svc first in odd rounds and the
//! peers first in even ones, and summarizes each row and ratio over the
//! rounds (median, lowest, highest).
//!
//!     (cd bench/dom-peer && npm ci)
//!     cargo build --release -p svc-bench --bin engine-bench
//!     target/release/engine-bench                         # 20 sequential, 200 at concurrency 4
//!     target/release/engine-bench --sequential 5 --runs 40   # quick
//!     target/release/engine-bench --static-fresh-processes   # engine only: a sandbox process per static run
//!     target/release/engine-bench --skip-browser --rounds 5 --runs 1000   # static against the peers
//!
//! Needs `chromium` (Debian package; not with `--skip-browser`) and `node`
//! (not with `--peers none`). Linux only (reads /proc).

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use axum::Router;
use axum::extract::Path;
use axum::response::Html;
use axum::routing::get;
use clap::Parser;
use serde_json::{Value, json};
use svc_bench::sampler::{cpu_split, cpu_split_per_run, cpu_ticks};
use svc_bench::stats::{Stats, stats};
use svc_engine::ScriptResult;
use svc_engine::{Engine, RunJob};
use svc_server::{App, Config};
use svc_static::sandbox::{PoolConfig, Reuse, SandboxConfig};
use svc_static::{StaticConfig, StaticEngine};
use svc_storage::testing::TestDb;

const ITEMS: usize = 50;
/// run-bench's extraction, and the API suite's.
const EXTRACTION: &str = "returnData([...document.querySelectorAll('li')].map(li => li.textContent))";

#[derive(Parser, Clone)]
struct Args {
    /// Runs measured one after the other, per engine and measurement.
    #[arg(long, default_value_t = 20)]
    sequential: usize,
    /// Runs measured with `--concurrency` clients, per engine and measurement.
    #[arg(long, default_value_t = 200)]
    runs: usize,
    #[arg(long, default_value_t = 4)]
    concurrency: usize,
    /// Unmeasured runs first (the browser launch among them).
    #[arg(long, default_value_t = 3)]
    warmup: usize,
    #[arg(long, default_value = "/usr/bin/chromium")]
    chromium: String,
    /// Only the end-to-end measurement.
    #[arg(long)]
    skip_engine_only: bool,
    /// Only the engine-only measurement.
    #[arg(long)]
    skip_end_to_end: bool,
    /// Engine only: a fresh sandbox process per static run (`--concurrency`
    /// spares started ahead) instead of one kept for the organization's runs.
    #[arg(long)]
    static_fresh_processes: bool,
    /// Only `static` (no puppeteer, no auto): static against the peers.
    #[arg(long)]
    skip_browser: bool,
    /// The browserless peers, separated by commas (`none`: no peer).
    #[arg(long, default_value = "cheerio,linkedom,happy-dom")]
    peers: String,
    /// `fetch`: the fetch-parse-extract loop; `parse`: the page fetched once,
    /// then parse and extract only (the library alone). Both: `fetch,parse`.
    #[arg(long, default_value = "fetch")]
    peer_modes: String,
    /// Folder of the peer's peer.js, with its node_modules installed.
    #[arg(long, default_value = concat!(env!("CARGO_MANIFEST_DIR"), "/../../bench/dom-peer"))]
    peer_dir: PathBuf,
    /// Worker processes per peer.
    #[arg(long, default_value_t = 2)]
    peer_processes: usize,
    /// Runs in flight per peer worker process.
    #[arg(long, default_value_t = 2)]
    peer_inflight: usize,
    /// Unmeasured runs per peer worker process.
    #[arg(long, default_value_t = 50)]
    peer_warmup: usize,
    /// Measure everything this many times, svc first in odd rounds and the
    /// peers first in even ones, and summarize over the rounds.
    #[arg(long, default_value_t = 1)]
    rounds: usize,
}

/// The API suite's fixture page (`svc-server/tests/api/common/fixture.rs`), byte for byte.
fn items_page(n: usize) -> String {
    let items: String = (0..n).map(|i| format!("<li class=\"item\" data-i=\"{i}\">Item {i}</li>")).collect();
    format!("<!doctype html><html><head><title>Items</title></head><body><ul id=\"list\">{items}</ul></body></html>")
}

async fn serve_fixture() -> Result<String> {
    let app =
        Router::new().route("/items/{n}", get(|Path(n): Path<usize>| async move { Html(items_page(n.min(10_000))) }));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let base = format!("http://{}", listener.local_addr()?);
    tokio::spawn(async move { axum::serve(listener, app).await });
    Ok(base)
}

/// One engine's figures in one measurement.
#[derive(Default)]
struct Figures {
    sequential: Vec<f64>,
    concurrent: Vec<f64>,
    concurrent_total_ms: f64,
    cpu_ms_per_run: f64,
    failures: usize,
    first_failure: Option<String>,
    /// The data of the last successful run (to compare the engines).
    data: Option<String>,
    /// CPU ms per run of this process and of its child processes (Chromium's,
    /// the sandbox processes), for svc's rows.
    cpu_apart: Option<(f64, f64)>,
}

impl Figures {
    fn throughput(&self) -> f64 {
        self.concurrent.len() as f64 / (self.concurrent_total_ms / 1000.0)
    }
}

/// Something that does one run and answers (wall ms, data).
trait Runner: Send + Sync + 'static {
    fn run(&self) -> impl std::future::Future<Output = Result<(f64, String)>> + Send;
}

/// A run must carry the 50 items.
fn check(data: &str) -> Result<()> {
    let items: Vec<String> = serde_json::from_str(data)?;
    if items.len() != ITEMS || items[0] != "Item 0" || items[ITEMS - 1] != format!("Item {}", ITEMS - 1) {
        bail!("unexpected data: {data}");
    }
    Ok(())
}

struct Trigger {
    http: reqwest::Client,
    base: String,
    token: String,
    scrap: String,
}

impl Runner for Trigger {
    async fn run(&self) -> Result<(f64, String)> {
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
        if status.as_u16() != 200 || row["statusDetail"] != json!("success") {
            bail!("HTTP {status}: {} {}", row["statusDetail"], row["error"]);
        }
        let data = row["data"].as_str().unwrap_or("[]").to_string();
        check(&data)?;
        Ok((wall, data))
    }
}

struct Direct {
    engine: Arc<dyn Engine>,
    job: RunJob,
}

impl Runner for Direct {
    async fn run(&self) -> Result<(f64, String)> {
        let started = Instant::now();
        let report = self.engine.run(self.job.clone()).await;
        let wall = started.elapsed().as_secs_f64() * 1000.0;
        match report.result {
            ScriptResult::Data { json, .. } => {
                check(&json)?;
                Ok((wall, json))
            }
            ScriptResult::Failed { message } => bail!("{message}"),
        }
    }
}

async fn measure<R: Runner>(name: &str, runner: Arc<R>, args: &Args) -> Result<Figures> {
    let me = std::process::id();
    for _ in 0..args.warmup {
        runner.run().await.with_context(|| format!("{name}: warm-up run"))?;
    }
    let mut figures = Figures::default();
    eprintln!("{name}: {} sequential runs", args.sequential);
    for _ in 0..args.sequential {
        match runner.run().await {
            Ok((wall, data)) => {
                figures.sequential.push(wall);
                figures.data = Some(data);
            }
            Err(e) => {
                figures.failures += 1;
                figures.first_failure.get_or_insert(e.to_string());
            }
        }
    }
    eprintln!("{name}: {} runs at concurrency {}", args.runs, args.concurrency);
    let next = Arc::new(AtomicUsize::new(0));
    let split0 = cpu_split(me);
    let started = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..args.concurrency {
        let (runner, next, runs) = (runner.clone(), next.clone(), args.runs);
        tasks.push(tokio::spawn(async move {
            let mut out = Vec::new();
            while next.fetch_add(1, Ordering::Relaxed) < runs {
                out.push(runner.run().await.map_err(|e| e.to_string()));
            }
            out
        }));
    }
    for task in tasks {
        for outcome in task.await? {
            match outcome {
                Ok((wall, data)) => {
                    figures.concurrent.push(wall);
                    figures.data = Some(data);
                }
                Err(e) => {
                    figures.failures += 1;
                    figures.first_failure.get_or_insert(e);
                }
            }
        }
    }
    figures.concurrent_total_ms = started.elapsed().as_secs_f64() * 1000.0;
    let split = cpu_split_per_run(split0, cpu_split(me), args.runs);
    figures.cpu_ms_per_run = split.bench + split.chromium + split.other;
    figures.cpu_apart = Some((split.bench, split.chromium + split.other));
    Ok(figures)
}

fn job(url: &str, scrapper: &str) -> RunJob {
    RunJob {
        history_id: svc_domain::ObjectId::new().to_string(),
        url: url.to_string(),
        script: EXTRACTION.to_string(),
        param: None,
        params: vec![],
        triggered_by: "api",
        timeout: Duration::from_secs(60),
        loads: Default::default(),
        capture_page: svc_engine::PageCapture::Never,
        tier: 0,
        scrapper: scrapper.to_string(),
        account: None,
        session: None,
        reuse: None,
        confined_to: None,
        organization: None,
        page: svc_engine::PageInput::single(),
    }
}

/// The svc side of the end-to-end measurement: the app, serving, and a
/// trigger per scrap.
struct EndToEnd {
    db: TestDb,
    stop: tokio::sync::oneshot::Sender<()>,
    server: tokio::task::JoinHandle<Result<()>>,
    /// (scrapper, its trigger), in the order measured.
    triggers: Vec<(&'static str, Arc<Trigger>)>,
}

impl EndToEnd {
    /// The app with one scrap per engine measured (`puppeteer`, `static` and
    /// `auto`, whose first, comparing run is among the warm-up runs; `static`
    /// alone with `--skip-browser`).
    async fn start(args: &Args, page: &str) -> Result<EndToEnd> {
        let db = TestDb::sqlite();
        let env = [
            ("SVC_DATABASE_URL", db.url.clone()),
            ("SVC_ALLOW_PRIVATE_NETWORKS", "true".into()),
            ("SVC_WORKER_CONCURRENCY", args.concurrency.to_string()),
            ("SVC_CHROMIUM", args.chromium.clone()),
            ("SVC_FREE_GRANT", "1000000000".into()),
        ];
        let config = Config::load(None, env.into_iter().map(|(k, v)| (k.to_string(), v)))?;
        let app = App::build(config).await?;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let base = format!("http://{}", listener.local_addr()?);
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let server = tokio::spawn(async move {
            app.serve(listener, async move {
                let _ = stopped.await;
            })
            .await
            .map_err(anyhow::Error::from)
        });
        let http = reqwest::Client::new();
        let signup: Value = http
            .post(format!("{base}/api/auth/signup"))
            .json(&json!({"email": "bench@example.com", "password": "bench-password"}))
            .send()
            .await?
            .json()
            .await?;
        let token = signup["token"].as_str().with_context(|| format!("signup: {signup}"))?.to_string();
        let scrappers: &[&'static str] = if args.skip_browser { &["static"] } else { &["puppeteer", "static", "auto"] };
        let mut triggers = Vec::new();
        for &scrapper in scrappers {
            let scrap: Value = http
                .post(format!("{base}/api/scraps"))
                .bearer_auth(&token)
                .json(&json!({"title": scrapper, "url": page, "request": EXTRACTION, "scrapper": scrapper}))
                .send()
                .await?
                .json()
                .await?;
            let scrap = scrap["id"].as_str().with_context(|| format!("create scrap: {scrap}"))?.to_string();
            let trigger = Trigger { http: http.clone(), base: base.clone(), token: token.clone(), scrap };
            triggers.push((scrapper, Arc::new(trigger)));
        }
        Ok(EndToEnd { db, stop, server, triggers })
    }

    async fn measure(&self, args: &Args) -> Result<Vec<(String, Figures)>> {
        let mut out = Vec::new();
        for (scrapper, trigger) in &self.triggers {
            out.push((scrapper.to_string(), measure(&format!("end to end, {scrapper}"), trigger.clone(), args).await?));
        }
        Ok(out)
    }

    async fn stop(self) -> Result<()> {
        let _ = self.stop.send(());
        self.server.await?.context("svc server")?;
        drop(self.db);
        Ok(())
    }
}

/// The svc side of the engine-only measurement.
struct EngineOnly {
    chromium: Option<Arc<svc_runner::ChromiumEngine>>,
    browser: Option<Arc<Direct>>,
    fast: Arc<Direct>,
}

impl EngineOnly {
    fn start(args: &Args, page: &str) -> EngineOnly {
        let chromium = (!args.skip_browser).then(|| {
            Arc::new(svc_runner::ChromiumEngine::new(svc_runner::EngineConfig {
                chromium: Some(args.chromium.clone().into()),
                browser_user: svc_runner::sandbox::DEFAULT_BROWSER_USER.into(),
                sandbox: Default::default(),
                allow_private_networks: true.into(),
                runs_per_browser: 200,
                spare_pages: args.concurrency.min(4),
                warm_pages: args.concurrency,
                resolver: Default::default(),
                tiers: Default::default(),
            }))
        });
        let browser = chromium.clone().map(|engine| {
            let engine: Arc<dyn Engine> = engine;
            Arc::new(Direct { engine, job: job(page, "puppeteer") })
        });
        let pool = match args.static_fresh_processes {
            true => PoolConfig { reuse: Reuse::Never, spares: args.concurrency, ..PoolConfig::default() },
            false => PoolConfig::default(),
        };
        let sandbox = SandboxConfig { pool, ..SandboxConfig::default() };
        let fast =
            StaticEngine::new(StaticConfig { allow_private_networks: true.into(), sandbox, ..Default::default() });
        // One organization's runs, as a scrap's runs are.
        let job = RunJob { organization: Some(svc_domain::OrgId::new()), ..job(page, "static") };
        let fast = Arc::new(Direct { engine: Arc::new(fast), job });
        EngineOnly { chromium, browser, fast }
    }

    async fn measure(&self, args: &Args) -> Result<Vec<(String, Figures)>> {
        let mut out = Vec::new();
        if let Some(browser) = &self.browser {
            out.push(("puppeteer".to_string(), measure("engine only, puppeteer", browser.clone(), args).await?));
        }
        out.push(("static".to_string(), measure("engine only, static", self.fast.clone(), args).await?));
        Ok(out)
    }

    async fn stop(self) {
        if let Some(chromium) = self.chromium {
            chromium.close().await;
        }
    }
}

/// One peer: a library in a mode.
#[derive(Clone)]
struct Peer {
    library: String,
    mode: String,
}

impl Peer {
    fn name(&self) -> String {
        match self.mode.as_str() {
            "fetch" => format!("peer {}", self.library),
            mode => format!("peer {} ({mode} only)", self.library),
        }
    }
}

fn peers(args: &Args) -> Vec<Peer> {
    if args.peers.trim() == "none" {
        return vec![];
    }
    let modes: Vec<&str> = args.peer_modes.split(',').map(str::trim).filter(|m| !m.is_empty()).collect();
    let mut out = Vec::new();
    for mode in modes {
        for library in args.peers.split(',').map(str::trim).filter(|l| !l.is_empty()) {
            out.push(Peer { library: library.to_string(), mode: mode.to_string() });
        }
    }
    out
}

/// Runs the peer program once: its warm-up, `--sequential` runs, then
/// `--runs` runs over its worker processes. This process's CPU time (the
/// fixture it serves) is read at the peer's phase markers on stderr.
fn measure_peer(peer: &Peer, page: &str, args: &Args) -> Result<Figures> {
    let name = peer.name();
    eprintln!("{name}: {} sequential runs, then {} runs", args.sequential, args.runs);
    let script = args.peer_dir.join("peer.js");
    let mut child = Command::new("node")
        .arg(&script)
        .args(["--url", page, "--library", &peer.library, "--mode", &peer.mode])
        .args(["--processes", &args.peer_processes.to_string(), "--inflight", &args.peer_inflight.to_string()])
        .args(["--warmup", &args.peer_warmup.to_string(), "--sequential", &args.sequential.to_string()])
        .args(["--runs", &args.runs.to_string(), "--expected", &ITEMS.to_string()])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| {
            format!("cannot start node {} (is node installed, and npm ci done there?)", script.display())
        })?;
    let stderr = child.stderr.take().context("the peer's stderr")?;
    let me = std::process::id();
    // This process's CPU ticks at the start and the end of the measured phase.
    let marks = std::thread::spawn(move || {
        let (mut start, mut end) = (None, None);
        let mut tail = Vec::new();
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            match line.as_str() {
                "PHASE concurrent" => start = cpu_ticks(me, false),
                "PHASE end" => end = cpu_ticks(me, false),
                _ => tail.push(line),
            }
        }
        (start, end, tail)
    });
    let output = child.wait_with_output()?;
    let (start, end, tail) = marks.join().map_err(|_| anyhow::anyhow!("the peer's stderr reader panicked"))?;
    if !output.status.success() {
        bail!("{name}: the peer failed ({}): {}", output.status, tail.join("\n"));
    }
    let out: Value = serde_json::from_slice(&output.stdout).with_context(|| format!("{name}: the peer's output"))?;
    let floats = |key: &str| -> Vec<f64> {
        out[key].as_array().map(|a| a.iter().filter_map(Value::as_f64).collect()).unwrap_or_default()
    };
    let fixture_ms = match (start, end) {
        (Some(start), Some(end)) => (end - start) as f64 * 10.0,
        _ => bail!("{name}: the peer printed no phase markers"),
    };
    let runs = out["runs"].as_f64().unwrap_or(1.0).max(1.0);
    let data = out["data"].as_str().map(str::to_string);
    if let Some(data) = &data {
        check(data)?;
    }
    Ok(Figures {
        sequential: floats("sequential"),
        concurrent: floats("concurrent"),
        concurrent_total_ms: out["wallMs"].as_f64().unwrap_or(0.0),
        cpu_ms_per_run: (out["cpuMs"].as_f64().unwrap_or(0.0) + fixture_ms) / runs,
        failures: out["failures"].as_u64().unwrap_or(0) as usize,
        first_failure: out["firstFailure"].as_str().map(str::to_string),
        data,
        cpu_apart: None,
    })
}

async fn measure_peers(list: &[Peer], page: &str, args: &Args) -> Result<Vec<(String, Figures)>> {
    let mut out = Vec::new();
    for peer in list {
        let (peer, page, args) = (peer.clone(), page.to_string(), args.clone());
        let figures = tokio::task::spawn_blocking(move || measure_peer(&peer, &page, &args).map(|f| (peer.name(), f)));
        out.push(figures.await??);
    }
    Ok(out)
}

fn row(name: &str, f: &Figures) -> String {
    let seq: Stats = stats(&f.sequential);
    let conc: Stats = stats(&f.concurrent);
    format!(
        "| {name} | {:.1} / {:.1} ms | {:.1} / {:.1} ms | {:.1} | {:.2} ms | {} |",
        seq.median,
        seq.p95,
        conc.median,
        conc.p95,
        f.throughput(),
        f.cpu_ms_per_run,
        f.failures
    )
}

/// Ratios of one round, by name, for the summary.
type Ratios = Vec<(String, f64)>;

/// One measurement's table; answers its ratios.
fn report(title: &str, args: &Args, rows: &[(String, Figures)]) -> Ratios {
    println!("\n### {title}\n");
    println!(
        "| engine | sequential median / p95 | c={c} median / p95 | c={c} runs/s | CPU per run at c={c} | failed |",
        c = args.concurrency
    );
    println!("|---|---|---|---|---|---|");
    for (name, f) in rows {
        println!("{}", row(name, f));
    }
    let find = |name: &str| rows.iter().find(|(n, _)| n == name).map(|(_, f)| f);
    let mut ratios = Ratios::new();
    println!();
    if let (Some(fast), Some(browser)) = (find("static"), find("puppeteer")) {
        let same = browser.data.is_some() && browser.data == fast.data;
        println!(
            "throughput ratio static / puppeteer: **{:.1}x**; sequential latency ratio: {:.2}x; CPU per run ratio: {:.2}x; identical data: {}",
            fast.throughput() / browser.throughput(),
            stats(&fast.sequential).median / stats(&browser.sequential).median,
            fast.cpu_ms_per_run / browser.cpu_ms_per_run,
            if same { "yes" } else { "NO" },
        );
        ratios.push(("static / puppeteer throughput".into(), fast.throughput() / browser.throughput()));
    }
    if let (Some(auto), Some(fast)) = (find("auto"), find("static")) {
        println!(
            "auto / static: throughput {:.2}x, sequential latency {:.2}x; auto's data identical to static's: {}",
            auto.throughput() / fast.throughput(),
            stats(&auto.sequential).median / stats(&fast.sequential).median,
            if auto.data.is_some() && auto.data == fast.data { "yes" } else { "NO" },
        );
        ratios.push(("auto / static throughput".into(), auto.throughput() / fast.throughput()));
    }
    if let Some(fast) = find("static") {
        let peers: Vec<&(String, Figures)> = rows.iter().filter(|(n, _)| n.starts_with("peer ")).collect();
        for (name, peer) in &peers {
            let same = peer.data.is_some() && peer.data == fast.data;
            println!(
                "static / {name}: throughput **{:.2}x**, CPU per run {:.2}x, sequential latency {:.2}x; identical data: {}",
                fast.throughput() / peer.throughput(),
                fast.cpu_ms_per_run / peer.cpu_ms_per_run,
                stats(&fast.sequential).median / stats(&peer.sequential).median,
                if same { "yes" } else { "NO" },
            );
        }
        let fetching = peers.iter().filter(|(n, _)| !n.contains(" only)"));
        if let Some((best, peer)) = fetching.max_by(|a, b| a.1.throughput().total_cmp(&b.1.throughput())) {
            println!(
                "static / best peer ({best}): throughput **{:.2}x**, CPU per run {:.2}x",
                fast.throughput() / peer.throughput(),
                fast.cpu_ms_per_run / peer.cpu_ms_per_run
            );
            ratios.push(("static / best peer throughput".into(), fast.throughput() / peer.throughput()));
            ratios.push(("static / best peer CPU per run".into(), fast.cpu_ms_per_run / peer.cpu_ms_per_run));
        }
    }
    for (name, f) in rows {
        if let Some((own, children)) = f.cpu_apart {
            println!("{name}: CPU per run {own:.2} ms in the svc process, {children:.2} ms in its child processes");
        }
    }
    for (name, f) in rows {
        if let Some(failure) = &f.first_failure {
            println!("first {name} failure: {failure}");
        }
    }
    ratios
}

/// One summary line per row or ratio: its value in each round, then the
/// median, lowest and highest.
fn summary_line(name: &str, values: &[f64], decimals: usize) -> String {
    let s = stats(values);
    let each: Vec<String> = values.iter().map(|v| format!("{v:.decimals$}")).collect();
    format!(
        "| {name} | {} | **{:.decimals$}** | {:.decimals$} - {:.decimals$} |",
        each.join(", "),
        s.median,
        s.min,
        s.max
    )
}

/// Per measurement: each row's runs/s and CPU per run, and each ratio, over the rounds.
struct Rounds {
    title: &'static str,
    throughput: Vec<(String, Vec<f64>)>,
    cpu: Vec<(String, Vec<f64>)>,
    ratios: Vec<(String, Vec<f64>)>,
}

impl Rounds {
    fn new(title: &'static str) -> Rounds {
        Rounds { title, throughput: vec![], cpu: vec![], ratios: vec![] }
    }

    fn add(&mut self, rows: &[(String, Figures)], ratios: Ratios) {
        fn push(into: &mut Vec<(String, Vec<f64>)>, name: &str, value: f64) {
            match into.iter_mut().find(|(n, _)| n == name) {
                Some((_, values)) => values.push(value),
                None => into.push((name.to_string(), vec![value])),
            }
        }
        for (name, f) in rows {
            push(&mut self.throughput, name, f.throughput());
            push(&mut self.cpu, name, f.cpu_ms_per_run);
        }
        for (name, value) in ratios {
            push(&mut self.ratios, &name, value);
        }
    }

    fn print(&self) {
        println!("\n### Over the rounds: {}\n", self.title);
        println!("| row | each round | median | lowest - highest |");
        println!("|---|---|---|---|");
        for (name, values) in &self.throughput {
            println!("{}", summary_line(&format!("{name}: runs/s"), values, 0));
        }
        for (name, values) in &self.cpu {
            println!("{}", summary_line(&format!("{name}: CPU ms per run"), values, 2));
        }
        for (name, values) in &self.ratios {
            println!("{}", summary_line(name, values, 2));
        }
    }
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .unwrap_or_default()
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ")
}

fn main() -> Result<()> {
    let args = Args::parse();
    if let Ok(filter) = std::env::var("ENGINE_BENCH_LOG") {
        tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).init();
    }
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    runtime.block_on(async {
        let base = serve_fixture().await?;
        let page = format!("{base}/items/{ITEMS}");
        let peers = peers(&args);
        if !peers.is_empty() && !args.peer_dir.join("node_modules").is_dir() {
            bail!(
                "the peers are not installed: run `npm ci` in {} (or pass `--peers none`)",
                args.peer_dir.display()
            );
        }
        println!(
            "engine-bench: {ITEMS}-item page, {} warm-up, {} sequential, {} runs at concurrency {}, {}; peers: {} ({} processes x {} in flight)",
            args.warmup,
            args.sequential,
            args.runs,
            args.concurrency,
            if args.skip_browser { "static only".to_string() } else { format!("Chromium {}", args.chromium) },
            if peers.is_empty() { "none".to_string() } else { peers.iter().map(Peer::name).collect::<Vec<_>>().join(", ") },
            args.peer_processes,
            args.peer_inflight,
        );
        let end_to_end = match args.skip_end_to_end {
            true => None,
            false => Some(EndToEnd::start(&args, &page).await?),
        };
        let engine_only = (!args.skip_engine_only).then(|| EngineOnly::start(&args, &page));
        let mut over_e2e = Rounds::new("end to end");
        let mut over_engine = Rounds::new("engine only");
        for round in 1..=args.rounds {
            let svc_first = round % 2 == 1;
            println!(
                "\n## Round {round} of {} ({} first; load average {})",
                args.rounds,
                if svc_first { "svc" } else { "the peers" },
                load_average()
            );
            if let Some(end_to_end) = &end_to_end {
                let (mut svc, mut others) = (vec![], vec![]);
                if !svc_first {
                    others = measure_peers(&peers, &page, &args).await?;
                }
                svc.extend(end_to_end.measure(&args).await?);
                if svc_first {
                    others = measure_peers(&peers, &page, &args).await?;
                }
                let rows: Vec<(String, Figures)> = svc.into_iter().chain(others).collect();
                let title = "End to end: trigger to finished row (the peers: their fetch-parse-extract loop)";
                let ratios = report(title, &args, &rows);
                over_e2e.add(&rows, ratios);
            }
            if let Some(engine_only) = &engine_only {
                let (mut svc, mut others) = (vec![], vec![]);
                if !svc_first {
                    others = measure_peers(&peers, &page, &args).await?;
                }
                svc.extend(engine_only.measure(&args).await?);
                if svc_first {
                    others = measure_peers(&peers, &page, &args).await?;
                }
                let rows: Vec<(String, Figures)> = svc.into_iter().chain(others).collect();
                let title = "Engine only: Engine::run (the peers: their fetch-parse-extract loop)";
                let ratios = report(title, &args, &rows);
                over_engine.add(&rows, ratios);
            }
            println!("\n(load average after round {round}: {})", load_average());
        }
        if args.rounds > 1 {
            if end_to_end.is_some() {
                over_e2e.print();
            }
            if engine_only.is_some() {
                over_engine.print();
            }
        }
        if let Some(end_to_end) = end_to_end {
            end_to_end.stop().await?;
        }
        if let Some(engine_only) = engine_only {
            engine_only.stop().await;
        }
        Ok(())
    })
}
