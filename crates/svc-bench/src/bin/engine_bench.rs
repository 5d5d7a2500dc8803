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
//! Every run must end `success` with the 50 items, and the static engine's
//! data must be byte for byte the browser engine's. CPU per run is this
//! process (server, worker, static engine, clients, fixture) plus its
//! Chromium processes, read from /proc.
//!
//!     cargo build --release -p svc-bench --bin engine-bench
//!     target/release/engine-bench                         # 20 sequential, 200 at concurrency 4
//!     target/release/engine-bench --sequential 5 --runs 40   # quick
//!     target/release/engine-bench --static-fresh-processes   # engine only: a sandbox process per static run
//!
//! Needs `chromium` (Debian package). Linux only (reads /proc).

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
use svc_bench::sampler::{cpu_split, cpu_split_per_run};
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
    /// Engine only: a fresh sandbox process per static run (`--concurrency`
    /// spares started ahead) instead of one kept for the organization's runs.
    #[arg(long)]
    static_fresh_processes: bool,
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

/// End to end figures of `puppeteer`, `static` and `auto` (whose first,
/// comparing run is among the warm-up runs).
async fn end_to_end(args: &Args, page: &str) -> Result<(Figures, Figures, Figures)> {
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
    let server = tokio::spawn(app.serve(listener, async move {
        let _ = stopped.await;
    }));
    let http = reqwest::Client::new();
    let signup: Value = http
        .post(format!("{base}/api/auth/signup"))
        .json(&json!({"email": "bench@example.com", "password": "bench-password"}))
        .send()
        .await?
        .json()
        .await?;
    let token = signup["token"].as_str().with_context(|| format!("signup: {signup}"))?.to_string();
    let mut figures = Vec::new();
    for scrapper in ["puppeteer", "static", "auto"] {
        let scrap: Value = http
            .post(format!("{base}/api/scraps"))
            .bearer_auth(&token)
            .json(&json!({"title": scrapper, "url": page, "request": EXTRACTION, "scrapper": scrapper}))
            .send()
            .await?
            .json()
            .await?;
        let scrap = scrap["id"].as_str().with_context(|| format!("create scrap: {scrap}"))?.to_string();
        let runner = Arc::new(Trigger { http: http.clone(), base: base.clone(), token: token.clone(), scrap });
        figures.push(measure(&format!("end to end, {scrapper}"), runner, args).await?);
    }
    let _ = stop.send(());
    server.await?.context("svc server")?;
    drop(db);
    let auto = figures.pop().unwrap_or_default();
    let stat = figures.pop().unwrap_or_default();
    Ok((figures.pop().unwrap_or_default(), stat, auto))
}

async fn engine_only(args: &Args, page: &str) -> Result<(Figures, Figures)> {
    let chromium = Arc::new(svc_runner::ChromiumEngine::new(svc_runner::EngineConfig {
        chromium: Some(args.chromium.clone().into()),
        browser_user: svc_runner::sandbox::DEFAULT_BROWSER_USER.into(),
        sandbox: Default::default(),
        allow_private_networks: true.into(),
        runs_per_browser: 200,
        spare_pages: args.concurrency.min(4),
        warm_pages: args.concurrency,
        resolver: Default::default(),
        tiers: Default::default(),
    }));
    let browser = Direct { engine: chromium.clone(), job: job(page, "puppeteer") };
    let browser = measure("engine only, puppeteer", Arc::new(browser), args).await?;
    chromium.close().await;
    let pool = match args.static_fresh_processes {
        true => PoolConfig { reuse: Reuse::Never, spares: args.concurrency, ..PoolConfig::default() },
        false => PoolConfig::default(),
    };
    let sandbox = SandboxConfig { pool, ..SandboxConfig::default() };
    let fast = StaticEngine::new(StaticConfig { allow_private_networks: true.into(), sandbox, ..Default::default() });
    // One organization's runs, as a scrap's runs are.
    let job = RunJob { organization: Some(svc_domain::OrgId::new()), ..job(page, "static") };
    let fast = Direct { engine: Arc::new(fast), job };
    let fast = measure("engine only, static", Arc::new(fast), args).await?;
    Ok((browser, fast))
}

fn row(name: &str, f: &Figures) -> String {
    let seq: Stats = stats(&f.sequential);
    let conc: Stats = stats(&f.concurrent);
    format!(
        "| {name} | {:.1} / {:.1} ms | {:.1} / {:.1} ms | {:.1} | {:.1} ms | {} |",
        seq.median,
        seq.p95,
        conc.median,
        conc.p95,
        f.throughput(),
        f.cpu_ms_per_run,
        f.failures
    )
}

fn report(title: &str, args: &Args, browser: &Figures, fast: &Figures, auto: Option<&Figures>) {
    println!("\n### {title}\n");
    println!(
        "| engine | sequential median / p95 | c={c} median / p95 | c={c} runs/s | CPU per run at c={c} | failed |",
        c = args.concurrency
    );
    println!("|---|---|---|---|---|---|");
    println!("{}", row("puppeteer (Chromium)", browser));
    println!("{}", row("static", fast));
    if let Some(auto) = auto {
        println!("{}", row("auto", auto));
    }
    let same = browser.data.is_some() && browser.data == fast.data;
    println!(
        "\nthroughput ratio static / puppeteer: **{:.1}x**; sequential latency ratio: {:.2}x; CPU per run ratio: {:.2}x; identical data: {}",
        fast.throughput() / browser.throughput(),
        stats(&fast.sequential).median / stats(&browser.sequential).median,
        fast.cpu_ms_per_run / browser.cpu_ms_per_run,
        if same { "yes" } else { "NO" },
    );
    if let Some(auto) = auto {
        println!(
            "auto / static: throughput {:.2}x, sequential latency {:.2}x; auto's data identical to static's: {}",
            auto.throughput() / fast.throughput(),
            stats(&auto.sequential).median / stats(&fast.sequential).median,
            if auto.data.is_some() && auto.data == fast.data { "yes" } else { "NO" },
        );
    }
    for (name, f) in [("puppeteer", browser), ("static", fast)].into_iter().chain(auto.map(|a| ("auto", a))) {
        if let Some(failure) = &f.first_failure {
            println!("first {name} failure: {failure}");
        }
    }
}

fn main() -> Result<()> {
    let args = Args::parse();
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    runtime.block_on(async {
        let base = serve_fixture().await?;
        let page = format!("{base}/items/{ITEMS}");
        println!(
            "engine-bench: {ITEMS}-item page, {} warm-up, {} sequential, {} runs at concurrency {}, Chromium {}",
            args.warmup, args.sequential, args.runs, args.concurrency, args.chromium
        );
        let (browser, fast, auto) = end_to_end(&args, &page).await?;
        report("End to end: trigger to finished row", &args, &browser, &fast, Some(&auto));
        if !args.skip_engine_only {
            let (browser, fast) = engine_only(&args, &page).await?;
            report("Engine only: Engine::run", &args, &browser, &fast, None);
        }
        Ok(())
    })
}
