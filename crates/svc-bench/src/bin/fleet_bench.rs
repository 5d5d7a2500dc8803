//! A fleet of scraps on one machine, svc against a plain puppeteer-core
//! program, side by side in one command (issue "A fleet of scraps on one
//! machine"):
//!
//! - `--sites` sites, each on its own loopback host (127.0.0.2, .3, ...),
//!   one page each: 50 `<li>` items, an image and a web font, like
//!   run-bench's page but with each site's own texts;
//! - `--scraps` scraps over `--orgs` organizations: scrap `i` belongs to
//!   organization `i % orgs` and loads site `i % sites`; each scrap runs
//!   once, all triggered at once (one `POST /api/scraps/worker/:id?wait=`
//!   each, concurrently), svc's worker at `--concurrency`;
//! - the peer, `bench/puppeteer-peer/fleet.js`, does the same jobs in the
//!   same order with `--concurrency` workers and a new browser context per
//!   job (the isolation a multi-tenant service owes), on the same browser
//!   binary with puppeteer's own defaults.
//!
//! Variants, every round, each on a fresh svc (new SQLite database) and a
//! fresh peer: `fleet-<orgs>` for each value of `--orgs` (default 12 and 1,
//! a self-hosting team), and `single` (`--scraps` runs of one scrap, all
//! triggered at once). Before each variant both sides make `--warmup` runs
//! on a site of their own (the browser launch among them), unmeasured.
//!
//! Reported per variant and side: runs/s (all runs / time from the
//! triggers to the last finished run), the median and 95th percentile time
//! from trigger to finished, the median time of a run itself (svc: the
//! history row's `time`; peer: its job), the whole machine's CPU per run,
//! and the peak PSS summed over all browser processes (sampled from /proc,
//! PSS every `--pss-every` x 100 ms). With `--rounds`, svc and the peer
//! alternate who goes first, and the ratios are summarized.
//!
//!     (cd bench/puppeteer-peer && npm ci)
//!     cargo build --release -p svc-bench --bin fleet-bench
//!     target/release/fleet-bench --rounds 3
//!     target/release/fleet-bench --scraps 48 --orgs 12 --single 0      # quick
//!     target/release/fleet-bench --svc-setting SVC_WARM_PAGES=0 ...    # svc changed
//!     target/release/fleet-bench --svc-row 'unshared:SVC_WARM_PAGES_SHARED=false'   # one more svc row
//!
//! Needs `node` and Debian's headless shell. Linux only (reads /proc).

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use axum::Router;
use axum::extract::State;
use axum::http::header;
use axum::response::{Html, IntoResponse};
use axum::routing::get;
use clap::Parser;
use serde_json::{Value, json};
use svc_bench::items_page::{ITEMS, PNG};
use svc_bench::sampler::{MemPeak, Sampler, cpu_jiffies, cpu_ms};
use svc_bench::stats::{Stats, stats};
use svc_server::{App, Config};
use svc_storage::testing::TestDb;

const EXTRACTION: &str = "returnData([...document.querySelectorAll('li')].map(li => li.textContent))";

#[derive(Parser, Clone)]
struct Args {
    /// Scraps in the fleet (and runs in the single-scrap variant).
    #[arg(long, default_value_t = 240)]
    scraps: usize,
    /// Organizations the scraps are spread over, one variant per value.
    #[arg(long, value_delimiter = ',', default_value = "12,1")]
    orgs: Vec<usize>,
    /// Sites, each on its own loopback host (at most 250).
    #[arg(long, default_value_t = 24)]
    sites: usize,
    /// Also the single-scrap variant: this many runs of one scrap (0: skip).
    #[arg(long)]
    single: Option<usize>,
    #[arg(long, default_value_t = 4)]
    concurrency: usize,
    /// Unmeasured runs per side and variant, on a site of their own.
    #[arg(long, default_value_t = 3)]
    warmup: usize,
    #[arg(long, default_value_t = 1)]
    rounds: usize,
    #[arg(long, default_value = "/usr/lib/chromium/chromium-headless-shell")]
    chromium: String,
    /// Folder of fleet.js, with its node_modules installed.
    #[arg(long, default_value = concat!(env!("CARGO_MANIFEST_DIR"), "/../../bench/puppeteer-peer"))]
    peer_dir: PathBuf,
    /// Extra svc settings (`NAME=value`), for experiments.
    #[arg(long = "svc-setting")]
    svc_settings: Vec<String>,
    /// More svc rows in every variant and round, each with its own
    /// settings on top of `--svc-setting`: `label:NAME=value,NAME=value`.
    #[arg(long = "svc-row")]
    svc_rows: Vec<String>,
    /// PSS is read on every N-th sampling pass (passes are 100 ms apart).
    #[arg(long, default_value_t = 1)]
    pss_every: u64,
    #[arg(long)]
    skip_peer: bool,
    #[arg(long)]
    skip_svc: bool,
}

// ---------------------------------------------------------------- sites

/// Site `n`'s page: 50 items of its own, its own title and colour.
fn site_page(n: usize) -> String {
    let items: String = (0..ITEMS).map(|i| format!("<li class=\"item\">Site {n} item {i}</li>")).collect();
    format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>Site {n}</title><style>\
         @font-face {{ font-family: SiteFont; src: url(/font.woff2) format(\"woff2\"); }}\
         body {{ font-family: SiteFont, sans-serif; color: #{:06x}; }}</style></head>\
         <body><h1>Catalogue of site {n}</h1><img src=\"/image.png\" width=\"64\" height=\"64\" alt=\"logo\">\
         <ul id=\"list\">{items}</ul><p>Updated daily.</p></body></html>",
        (n * 2_654_435_761) % 0xff_ffff
    )
}

fn first_item(site: usize) -> String {
    format!("Site {site} item 0")
}

/// Serves site `n` on 127.0.0.`n + 2` (port 0); its page's URL.
async fn serve_site(n: usize) -> Result<String> {
    let page = Arc::new(site_page(n));
    let font: Arc<Vec<u8>> = Arc::new((0..20 * 1024).map(|i| (i * 7 % 251) as u8).collect());
    const NO_STORE: (header::HeaderName, &str) = (header::CACHE_CONTROL, "no-store");
    let app = Router::new()
        .route(
            "/items",
            get(|State((page, _)): State<(Arc<String>, Arc<Vec<u8>>)>| async move {
                ([NO_STORE], Html(page.as_str().to_owned()))
            }),
        )
        .route("/image.png", get(|| async { ([(header::CONTENT_TYPE, "image/png"), NO_STORE], PNG).into_response() }))
        .route(
            "/font.woff2",
            get(|State((_, font)): State<(Arc<String>, Arc<Vec<u8>>)>| async move {
                ([(header::CONTENT_TYPE, "font/woff2"), NO_STORE], font.as_slice().to_vec()).into_response()
            }),
        )
        .with_state((page, font));
    let host = format!("127.0.0.{}", n + 2);
    let listener = tokio::net::TcpListener::bind(format!("{host}:0")).await.with_context(|| format!("bind {host}"))?;
    let url = format!("http://{}/items", listener.local_addr()?);
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    Ok(url)
}

// ---------------------------------------------------------------- variants

#[derive(Clone, Copy, Debug)]
enum Variant {
    /// The fleet over this many organizations.
    Fleet(usize),
    /// Runs of one scrap.
    Single(usize),
}

impl Variant {
    fn name(self) -> String {
        match self {
            Variant::Fleet(orgs) => format!("fleet-{orgs}"),
            Variant::Single(_) => "single".into(),
        }
    }
}

/// One job of a variant: which scrap (index into the variant's scraps) and
/// what it must return.
#[derive(Clone)]
struct Job {
    scrap: usize,
    url: String,
    first: String,
}

/// The variant's scraps (organization, site) and jobs, in trigger order.
fn plan(variant: Variant, args: &Args, sites: &[String]) -> (Vec<(usize, usize)>, Vec<Job>) {
    match variant {
        Variant::Fleet(orgs) => {
            let scraps: Vec<(usize, usize)> = (0..args.scraps).map(|i| (i % orgs, i % args.sites)).collect();
            let jobs = scraps
                .iter()
                .enumerate()
                .map(|(i, &(_, site))| Job { scrap: i, url: sites[site].clone(), first: first_item(site) })
                .collect();
            (scraps, jobs)
        }
        Variant::Single(runs) => {
            let jobs = (0..runs).map(|_| Job { scrap: 0, url: sites[0].clone(), first: first_item(0) }).collect();
            (vec![(0, 0)], jobs)
        }
    }
}

#[derive(Default)]
struct SideResult {
    runs: usize,
    total_ms: f64,
    /// From the triggers to each run's end.
    finished: Vec<f64>,
    /// Each run's own time.
    run_ms: Vec<f64>,
    failures: Vec<String>,
    cpu_ms_per_run: f64,
    mem: MemPeak,
    /// Processes and PSS by kind at the peak.
    at_peak: String,
}

impl SideResult {
    fn throughput(&self) -> f64 {
        self.finished.len() as f64 / (self.total_ms / 1000.0)
    }
}

// ---------------------------------------------------------------- svc

struct Org {
    token: String,
}

async fn signup(http: &reqwest::Client, base: &str, n: usize) -> Result<Org> {
    let body: Value = http
        .post(format!("{base}/api/auth/signup"))
        .json(&json!({"email": format!("fleet{n}@example.com"), "password": "fleet-bench-password"}))
        .send()
        .await?
        .json()
        .await?;
    let token = body["token"].as_str().with_context(|| format!("signup: {body}"))?.to_string();
    Ok(Org { token })
}

async fn create_scrap(http: &reqwest::Client, base: &str, org: &Org, title: &str, url: &str) -> Result<String> {
    let body: Value = http
        .post(format!("{base}/api/scraps"))
        .bearer_auth(&org.token)
        .json(&json!({"title": title, "url": url, "request": EXTRACTION}))
        .send()
        .await?
        .json()
        .await?;
    Ok(body["id"].as_str().with_context(|| format!("create scrap: {body}"))?.to_string())
}

/// One run, trigger to finished row: the row's `time` (ms).
async fn run_once(http: &reqwest::Client, base: &str, token: &str, scrap: &str, first: &str) -> Result<f64> {
    let response = http.post(format!("{base}/api/scraps/worker/{scrap}?wait=120")).bearer_auth(token).send().await?;
    let status = response.status();
    let mut row: Value = response.json().await?;
    // Not finished within the longest wait: read the row until it is.
    if status.as_u16() == 202 {
        let id = row["id"].as_str().context("the pending row's id")?.to_string();
        while row["statusDetail"].is_null() {
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            row = http.get(format!("{base}/api/historys/{id}")).bearer_auth(token).send().await?.json().await?;
        }
    } else if status.as_u16() != 200 {
        bail!("HTTP {status}: {row}");
    }
    if row["statusDetail"] != json!("success") || row["length"] != json!(ITEMS) {
        bail!("run ended {} with length {}: {}", row["statusDetail"], row["length"], row["error"]);
    }
    let data: Vec<String> = serde_json::from_str(row["data"].as_str().unwrap_or("[]"))?;
    if data.first().map(String::as_str) != Some(first) {
        bail!("unexpected first item {:?} (want {first:?})", data.first());
    }
    Ok(row["time"].as_f64().unwrap_or(f64::NAN))
}

async fn bench_svc(
    round: usize,
    variant: Variant,
    args: &Args,
    row_settings: &[(String, String)],
    sites: &[String],
    warmup_site: &str,
    sampler: &Sampler,
) -> Result<SideResult> {
    // One peak per round: the label names it.
    let label = format!("svc {} {row_settings:?} round {round}", variant.name());
    let db = TestDb::sqlite();
    let base_env = [
        ("SVC_DATABASE_URL", db.url.clone()),
        ("SVC_SECRET_KEY", db.key().to_base64()),
        ("SVC_ALLOW_PRIVATE_NETWORKS", "true".into()),
        ("SVC_WORKER_CONCURRENCY", args.concurrency.to_string()),
        ("SVC_CHROMIUM", args.chromium.clone()),
        ("SVC_FREE_GRANT", "1000000000".into()),
    ];
    let mut env: BTreeMap<String, String> = base_env.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
    for setting in &args.svc_settings {
        let (name, value) = setting.split_once('=').context("--svc-setting takes NAME=value")?;
        env.insert(name.to_string(), value.to_string());
    }
    env.extend(row_settings.iter().cloned());
    let app = App::build(Config::load(None, env)?).await?;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let base = format!("http://{}", listener.local_addr()?);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(app.serve(listener, async move {
        let _ = stopped.await;
    }));
    let http = reqwest::Client::builder().pool_max_idle_per_host(1024).build()?;

    let (scraps, jobs) = plan(variant, args, sites);
    let org_count = scraps.iter().map(|&(org, _)| org + 1).max().unwrap_or(1);
    let mut orgs = Vec::new();
    for n in 0..org_count {
        orgs.push(signup(&http, &base, n).await?);
    }
    let mut ids = Vec::new();
    for (i, &(org, site)) in scraps.iter().enumerate() {
        ids.push(create_scrap(&http, &base, &orgs[org], &format!("Scrap {i} of site {site}"), &sites[site]).await?);
    }
    let warm = create_scrap(&http, &base, &orgs[0], "Warm-up", warmup_site).await?;
    let warm_first = first_item(sites.len());
    for _ in 0..args.warmup {
        run_once(&http, &base, &orgs[0].token, &warm, &warm_first).await.context("warm-up run")?;
    }

    eprintln!("{label}: {} runs of {} scraps over {} organizations", jobs.len(), scraps.len(), org_count);
    let me = std::process::id();
    Sampler::set(&sampler.handle(), Some(&label), me);
    let cpu0 = cpu_jiffies();
    let started = Instant::now();
    let mut tasks = Vec::new();
    for job in &jobs {
        let (http, base) = (http.clone(), base.clone());
        let token = orgs[scraps[job.scrap].0].token.clone();
        let (scrap, first) = (ids[job.scrap].clone(), job.first.clone());
        tasks.push(tokio::spawn(async move {
            let outcome = run_once(&http, &base, &token, &scrap, &first).await;
            (outcome, started.elapsed().as_secs_f64() * 1000.0)
        }));
    }
    let mut result = SideResult { runs: jobs.len(), ..Default::default() };
    for task in tasks {
        match task.await? {
            (Ok(time), at) => {
                result.finished.push(at);
                result.run_ms.push(time);
            }
            (Err(e), _) => result.failures.push(e.to_string()),
        }
    }
    result.total_ms = started.elapsed().as_secs_f64() * 1000.0;
    result.cpu_ms_per_run = cpu_ms(cpu0, cpu_jiffies()) / jobs.len().max(1) as f64;
    Sampler::set(&sampler.handle(), None, me);
    result.mem = sampler.peak(&label);
    result.at_peak = sampler.at_peak(&label);

    let _ = stop.send(());
    server.await?.context("svc server")?;
    drop(db);
    Ok(result)
}

// ---------------------------------------------------------------- peer

fn bench_peer(
    round: usize,
    variant: Variant,
    args: &Args,
    sites: &[String],
    warmup_site: &str,
    sampler: &Sampler,
) -> Result<SideResult> {
    let script = args.peer_dir.join("fleet.js");
    if !args.peer_dir.join("node_modules/puppeteer-core").is_dir() {
        bail!("puppeteer-core is not installed: run `npm ci` in {}", args.peer_dir.display());
    }
    let label = format!("peer {} round {round}", variant.name());
    let (_, jobs) = plan(variant, args, sites);
    let warm_first = first_item(sites.len());
    let mut list: Vec<Value> =
        (0..args.warmup).map(|_| json!({"url": warmup_site, "first": warm_first, "items": ITEMS})).collect();
    list.extend(jobs.iter().map(|j| json!({"url": j.url, "first": j.first, "items": ITEMS})));
    let dir = tempfile::tempdir()?;
    let (fleet_file, warm_file) = (dir.path().join("fleet.json"), dir.path().join("warm.json"));
    std::fs::write(&fleet_file, serde_json::to_vec(&list[args.warmup..])?)?;
    std::fs::write(&warm_file, serde_json::to_vec(&list[..args.warmup])?)?;

    let mut child = Command::new("node")
        .arg(&script)
        .args(["--jobs", &fleet_file.display().to_string()])
        .args(["--warmupJobs", &warm_file.display().to_string()])
        .args(["--concurrency", &args.concurrency.to_string()])
        .args(["--chromium", &args.chromium])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .context("run node (apt-get install nodejs)")?;
    let pid = child.id();
    let state = sampler.handle();
    let stderr = child.stderr.take().context("stderr")?;
    let cpu_at_start = Arc::new(std::sync::Mutex::new(None));
    let reader = {
        let (state, label, cpu_at_start) = (state.clone(), label.clone(), cpu_at_start.clone());
        std::thread::spawn(move || {
            let mut log = Vec::new();
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                match line.strip_prefix("PHASE ") {
                    Some("fleet") => {
                        *cpu_at_start.lock().unwrap() = Some(cpu_jiffies());
                        Sampler::set(&state, Some(&label), pid);
                    }
                    Some(_) => Sampler::set(&state, None, pid),
                    None => log.push(line),
                }
            }
            log
        })
    };
    let mut stdout = String::new();
    std::io::Read::read_to_string(&mut child.stdout.take().context("stdout")?, &mut stdout)?;
    let status = child.wait()?;
    let cpu1 = cpu_jiffies();
    let log = reader.join().map_err(|_| anyhow::anyhow!("stderr reader panicked"))?;
    Sampler::set(&state, None, std::process::id());
    if !status.success() {
        bail!("fleet peer failed ({status}): {}", log.join("\n"));
    }
    let out: Value = serde_json::from_str(stdout.trim()).with_context(|| format!("peer output: {stdout}"))?;
    let floats = |key: &str| -> Vec<f64> {
        out[key].as_array().map(|a| a.iter().filter_map(Value::as_f64).collect()).unwrap_or_default()
    };
    let cpu0 = cpu_at_start.lock().unwrap().context("the peer never started its fleet")?;
    Ok(SideResult {
        runs: jobs.len(),
        total_ms: out["totalMs"].as_f64().unwrap_or(f64::NAN),
        finished: floats("finishedMs"),
        run_ms: floats("runMs"),
        failures: out["failures"]
            .as_array()
            .map(|a| a.iter().map(|f| f.as_str().unwrap_or_default().to_string()).collect())
            .unwrap_or_default(),
        // The peer's process exits after its last job: its CPU to then.
        cpu_ms_per_run: cpu_ms(cpu0, cpu1) / jobs.len().max(1) as f64,
        mem: sampler.peak(&label),
        at_peak: sampler.at_peak(&label),
    })
}

// ---------------------------------------------------------------- report

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

fn row(variant: Variant, side: &str, r: &SideResult) -> String {
    let (finished, run): (Stats, Stats) = (stats(&r.finished), stats(&r.run_ms));
    let failed = if r.failures.is_empty() {
        String::new()
    } else {
        format!(" | {} FAILED, first: {}", r.failures.len(), r.failures[0])
    };
    format!(
        "| {} | {side} | {}/{} | {:.1} | {:.0} / {:.0} ms | {:.0} ms | {:.0} ms | {:.0} MiB ({} processes) |{failed}",
        variant.name(),
        r.finished.len(),
        r.runs,
        r.throughput(),
        finished.median,
        finished.p95,
        run.median,
        r.cpu_ms_per_run,
        mib(r.mem.pss_kib),
        r.mem.processes,
    )
}

const HEADER: &str = "| variant | side | ok/runs | runs/s | trigger to finished, median / p95 | run itself, median | machine CPU per run | peak browser PSS |\n|---|---|---|---|---|---|---|---|";

#[tokio::main]
async fn main() -> Result<()> {
    let args = Args::parse();
    if let Ok(filter) = std::env::var("FLEET_BENCH_LOG") {
        tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).init();
    }
    if args.sites == 0 || args.sites > 250 || args.scraps == 0 {
        bail!("--sites must be 1 to 250 and --scraps at least 1");
    }
    let mut sites = Vec::new();
    for n in 0..=args.sites {
        sites.push(serve_site(n).await?);
    }
    let warmup_site = sites.pop().expect("the warm-up site");
    let sampler = Sampler::start_with_pss_every(args.pss_every);
    let mut extra_rows: Vec<(String, Vec<(String, String)>)> = Vec::new();
    for spec in &args.svc_rows {
        let (label, settings) = spec.split_once(':').context("--svc-row takes label:NAME=value,...")?;
        let settings = settings
            .split(',')
            .map(|kv| kv.split_once('=').map(|(k, v)| (k.to_string(), v.to_string())))
            .collect::<Option<Vec<_>>>()
            .context("--svc-row takes label:NAME=value,...")?;
        extra_rows.push((label.to_string(), settings));
    }
    let mut variants: Vec<Variant> = args.orgs.iter().map(|&o| Variant::Fleet(o.max(1))).collect();
    let single = args.single.unwrap_or(args.scraps);
    if single > 0 {
        variants.push(Variant::Single(single));
    }
    println!(
        "fleet-bench: {} scraps, {} sites, concurrency {}, browser {}; svc settings {:?}",
        args.scraps, args.sites, args.concurrency, args.chromium, args.svc_settings
    );
    // (variant name) -> per round (throughput ratio, PSS ratio, CPU ratio)
    let mut ratios: BTreeMap<String, Vec<(f64, f64, f64)>> = BTreeMap::new();
    for round in 1..=args.rounds {
        println!("\n### Round {round} of {}\n\n{HEADER}", args.rounds);
        for &variant in &variants {
            let svc_first = round % 2 == 1;
            let mut svc = None;
            let mut peer = None;
            for turn in 0..2 {
                if (turn == 0) == svc_first {
                    if !args.skip_svc {
                        let r = bench_svc(round, variant, &args, &[], &sites, &warmup_site, &sampler).await?;
                        println!("{}", row(variant, "svc", &r));
                        eprintln!("  svc at its peak: {}", r.at_peak);
                        svc = Some(r);
                        for (label, settings) in &extra_rows {
                            let r = bench_svc(round, variant, &args, settings, &sites, &warmup_site, &sampler).await?;
                            println!("{}", row(variant, &format!("svc, {label}"), &r));
                            eprintln!("  svc, {label}, at its peak: {}", r.at_peak);
                        }
                    }
                } else if !args.skip_peer {
                    // The sites go on being served by the runtime's other threads.
                    let r = tokio::task::block_in_place(|| {
                        bench_peer(round, variant, &args, &sites, &warmup_site, &sampler)
                    })?;
                    println!("{}", row(variant, "puppeteer-core", &r));
                    eprintln!("  puppeteer-core at its peak: {}", r.at_peak);
                    peer = Some(r);
                }
            }
            if let (Some(svc), Some(peer)) = (svc, peer) {
                let ratio = (
                    svc.throughput() / peer.throughput(),
                    svc.mem.pss_kib as f64 / peer.mem.pss_kib.max(1) as f64,
                    svc.cpu_ms_per_run / peer.cpu_ms_per_run,
                );
                println!(
                    "| {} | svc / peer | | **{:.2}x** | | | {:.2}x | **{:.2}x** |",
                    variant.name(),
                    ratio.0,
                    ratio.2,
                    ratio.1
                );
                ratios.entry(variant.name()).or_default().push(ratio);
            }
        }
    }
    if !ratios.is_empty() {
        println!("\n### svc / peer over {} rounds: median (lowest-highest)\n", args.rounds);
        println!("| variant | throughput | peak browser PSS | machine CPU per run |\n|---|---|---|---|");
        for (name, rs) in &ratios {
            let pick = |f: fn(&(f64, f64, f64)) -> f64| {
                let s = stats(&rs.iter().map(f).collect::<Vec<_>>());
                format!("{:.2}x ({:.2}-{:.2})", s.median, s.min, s.max)
            };
            println!("| {name} | {} | {} | {} |", pick(|r| r.0), pick(|r| r.1), pick(|r| r.2));
        }
    }
    Ok(())
}
