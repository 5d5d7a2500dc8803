//! Crawls of a 106-page catalog (issue 35): svc's `static` and `puppeteer`
//! engines against Crawlee's CheerioCrawler and PuppeteerCrawler, measured
//! side by side in one benchmark run.
//!
//! The catalog is served by this binary on 127.0.0.1:0, the shape of the
//! crawl tests' site: an index (`/`) links to the first of 5 listings
//! (`/catalog?page=N`), each listing 20 items (`/item/K`, a detail page
//! with a title and a price) and linking to the next listing; 106 pages,
//! and a robots.txt that disallows `/private`.
//!
//! - svc: the in-process app (fresh SQLite, the embedded worker), one
//!   `static` and one `puppeteer` scrap per `--parallel` setting with the
//!   crawl script below (`// svc:crawl pages=200 parallel=P`), each crawl
//!   measured from `POST /api/scraps/worker/:id?wait=120` to the finished
//!   row. Every run must end `success` with the 100 records in order, and
//!   list 106 pages, all `ok`.
//! - the peer, `bench/crawlee-peer/peer.js`: the same crawl with Crawlee
//!   (CheerioCrawler, PuppeteerCrawler on the same Chromium), its
//!   concurrency fixed at P, the same 100 records checked in the same
//!   order; spawned once per round and crawler, a warm-up crawl first.
//!
//! Each round measures, per `--parallel` setting, svc-static, CheerioCrawler,
//! svc-puppeteer and PuppeteerCrawler, svc first in odd rounds and Crawlee
//! first in even ones. Also per crawl: the whole machine's busy CPU time
//! (the site's server, svc or node, and Chromium; and whatever else runs on
//! the machine then).
//!
//!     (cd bench/crawlee-peer && PUPPETEER_SKIP_DOWNLOAD=1 npm ci)
//!     cargo build --release -p svc-bench --bin crawl-bench
//!     target/release/crawl-bench --rounds 5 --parallel 2,4
//!
//! Needs `node` and `chromium` (Debian packages). Linux only (reads /proc).

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use anyhow::{Context, Result, bail};
use axum::Router;
use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use clap::Parser;
use serde_json::{Value, json};
use svc_bench::sampler::{cpu_jiffies, cpu_ms};
use svc_bench::stats::stats;
use svc_server::{App, Config};
use svc_storage::testing::TestDb;

const LISTINGS: usize = 5;
const PER_LISTING: usize = 20;
const RECORDS: usize = LISTINGS * PER_LISTING;
/// The index, the listings and the details.
const PAGES: usize = 1 + LISTINGS + RECORDS;

#[derive(Parser, Clone)]
struct Args {
    /// Measured crawls per engine and setting.
    #[arg(long, default_value_t = 5)]
    rounds: usize,
    /// svc's `parallel=` and Crawlee's concurrency (min = max), each setting
    /// measured for both, comma-separated.
    #[arg(long, default_value = "2", value_delimiter = ',')]
    parallel: Vec<u32>,
    /// Unmeasured crawls per svc scrap before the rounds (the browser's start among them).
    #[arg(long, default_value_t = 1)]
    warmup: usize,
    /// Unmeasured crawls in each peer process before its measured one.
    #[arg(long, default_value_t = 1)]
    peer_warmup: usize,
    #[arg(long, default_value = "/usr/bin/chromium")]
    chromium: String,
    /// Folder of peer.js, with its node_modules installed.
    #[arg(long, default_value = concat!(env!("CARGO_MANIFEST_DIR"), "/../../bench/crawlee-peer"))]
    peer_dir: PathBuf,
    #[arg(long)]
    skip_svc: bool,
    #[arg(long)]
    skip_peer: bool,
    /// Only these engine pairs: `static` (svc-static, CheerioCrawler) and/or `puppeteer`.
    #[arg(long, default_value = "static,puppeteer", value_delimiter = ',')]
    pairs: Vec<String>,
}

/// The crawl script, the crawl tests' `catalog_script`: listing pages
/// enqueue their items (`detail`, with the listing's number) and the next
/// listing (`list`); detail pages return one record.
fn crawl_script(parallel: u32) -> String {
    format!(
        "// svc:crawl pages=200 parallel={parallel}\n\
         if (SVC.label === 'detail') {{\n\
           returnData([{{ title: document.querySelector('h1').textContent, price: document.querySelector('.price').textContent, from: SVC.data && SVC.data.listing }}]);\n\
         }} else {{\n\
           const listing = new URL(location.href).searchParams.get('page');\n\
           for (const a of document.querySelectorAll('a.item')) SVC.enqueue(a.href, {{ label: 'detail', data: {{ listing }} }});\n\
           for (const a of document.querySelectorAll('a.next')) SVC.enqueue(a.href, {{ label: 'list' }});\n\
           returnData([]);\n\
         }}"
    )
}

// ---------------------------------------------------------------- the site

fn html(body: String) -> Response {
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        format!("<!doctype html><html><body>{body}</body></html>"),
    )
        .into_response()
}

async fn catalog(State(hits): State<&'static AtomicU64>, request: Request) -> Response {
    hits.fetch_add(1, Ordering::Relaxed);
    let path = request.uri().path();
    let query = request.uri().query().unwrap_or_default();
    match path {
        "/" => html("<h1>Lamp catalog</h1><a class=\"next\" href=\"/catalog?page=1\">Browse the catalog</a>".into()),
        "/robots.txt" => {
            (StatusCode::OK, [(header::CONTENT_TYPE, "text/plain")], "User-agent: *\nDisallow: /private\n")
                .into_response()
        }
        "/catalog" => {
            let n: usize = query.strip_prefix("page=").and_then(|p| p.parse().ok()).unwrap_or(0);
            if !(1..=LISTINGS).contains(&n) {
                return StatusCode::NOT_FOUND.into_response();
            }
            let mut body = format!("<h1>Lamps, page {n}</h1><ul>");
            for k in (n - 1) * PER_LISTING + 1..=n * PER_LISTING {
                body.push_str(&format!("<li><a class=\"item\" href=\"/item/{k}\">Lamp {k}</a></li>"));
            }
            body.push_str("</ul>");
            if n < LISTINGS {
                body.push_str(&format!("<a class=\"next\" href=\"/catalog?page={}\">Next</a>", n + 1));
            }
            html(body)
        }
        p if p.starts_with("/item/") => {
            let k = &p["/item/".len()..];
            html(format!("<h1>Lamp {k}</h1><span class=\"price\">{k}.00</span>"))
        }
        _ => StatusCode::NOT_FOUND.into_response(),
    }
}

/// Serves the catalog; returns its start URL (`http://127.0.0.1:PORT/`).
async fn serve_catalog(hits: &'static AtomicU64) -> Result<String> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}/", listener.local_addr()?);
    let app = Router::new().fallback(catalog).with_state(hits);
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    Ok(url)
}

// ---------------------------------------------------------------- measurements

/// One measured crawl.
#[derive(Clone, Debug, Default)]
struct Crawl {
    wall_ms: f64,
    /// Busy CPU ms of the whole machine during the crawl.
    cpu_ms: f64,
    /// Requests the site served during the crawl.
    requests: u64,
    /// svc: the row's `time` (the engine side of the run, start page to the
    /// last page); the peer: the time to its launched browser, if any.
    inner_ms: Option<f64>,
    /// svc: the pages' own times (ms), by label.
    page_ms: Vec<(String, f64)>,
}

/// The whole machine's busy CPU ms so far. (Not the process trees': the
/// renderers of svc's sandboxed Chromium are reaped where their CPU time is
/// not passed on to a parent this process can see.)
fn machine_cpu_ms() -> f64 {
    cpu_ms((0, 0), cpu_jiffies())
}

struct Svc {
    http: reqwest::Client,
    base: String,
    token: String,
}

impl Svc {
    async fn post(&self, path: &str, body: Value) -> Result<Value> {
        let response =
            self.http.post(format!("{}{path}", self.base)).bearer_auth(&self.token).json(&body).send().await?;
        let status = response.status();
        let value: Value = response.json().await?;
        if !status.is_success() {
            bail!("POST {path}: HTTP {status}: {value}");
        }
        Ok(value)
    }

    async fn get(&self, path: &str) -> Result<Value> {
        let response = self.http.get(format!("{}{path}", self.base)).bearer_auth(&self.token).send().await?;
        let status = response.status();
        let value: Value = response.json().await?;
        if !status.is_success() {
            bail!("GET {path}: HTTP {status}: {value}");
        }
        Ok(value)
    }

    async fn scrap(&self, engine: &str, parallel: u32, url: &str) -> Result<String> {
        let scrap = self
            .post(
                "/api/scraps",
                json!({"title": format!("Catalog on {engine}, parallel={parallel}"), "url": url,
                       "scrapper": engine, "request": crawl_script(parallel)}),
            )
            .await?;
        Ok(scrap["id"].as_str().with_context(|| format!("create scrap: {scrap}"))?.to_string())
    }

    /// One crawl, trigger to finished row, checked.
    async fn crawl(&self, scrap: &str, hits: &AtomicU64) -> Result<Crawl> {
        let (hits0, cpu0) = (hits.load(Ordering::Relaxed), machine_cpu_ms());
        let started = Instant::now();
        let row = self.post(&format!("/api/scraps/worker/{scrap}?wait=120"), json!({})).await;
        let wall_ms = started.elapsed().as_secs_f64() * 1000.0;
        let cpu_ms = machine_cpu_ms() - cpu0;
        let requests = hits.load(Ordering::Relaxed) - hits0;
        let row = row?;
        if row["statusDetail"] != json!("success") || row["length"] != json!(RECORDS) {
            bail!("run ended {} with length {}: {}", row["statusDetail"], row["length"], row["error"]);
        }
        let data: Vec<Value> = serde_json::from_str(row["data"].as_str().unwrap_or("[]"))?;
        check_records(&data)?;
        let id = row["id"].as_str().context("row id")?;
        let mut pages: Vec<Value> = Vec::new();
        for n in 1.. {
            let page = self.get(&format!("/api/historys/{id}/pages?perPage=100&page={n}")).await?;
            let more = page["data"].as_array().cloned().unwrap_or_default();
            let total = page["total"].as_u64().unwrap_or(0) as usize;
            pages.extend(more.iter().cloned());
            if more.is_empty() || pages.len() >= total {
                break;
            }
        }
        let ok = pages.iter().filter(|p| p["status"] == "ok").count();
        if pages.len() != PAGES || ok != PAGES {
            bail!("{} pages listed, {ok} ok (expected {PAGES})", pages.len());
        }
        let page_ms = pages
            .iter()
            .map(|p| (p["label"].as_str().unwrap_or("").to_string(), p["time"].as_f64().unwrap_or(f64::NAN)))
            .collect();
        Ok(Crawl { wall_ms, cpu_ms, requests, inner_ms: row["time"].as_f64(), page_ms })
    }
}

/// The 100 records, "Lamp 1" to "Lamp 100" in order, with their listing.
fn check_records(data: &[Value]) -> Result<()> {
    if data.len() != RECORDS {
        bail!("{} records, expected {RECORDS}", data.len());
    }
    for (i, record) in data.iter().enumerate() {
        let k = i + 1;
        let listing = (i / PER_LISTING + 1).to_string();
        let expected = json!({"title": format!("Lamp {k}"), "price": format!("{k}.00"), "from": listing});
        if *record != expected {
            bail!("record {i}: {record}, expected {expected}");
        }
    }
    Ok(())
}

async fn start_svc(
    args: &Args,
) -> Result<(TestDb, Svc, tokio::sync::oneshot::Sender<()>, tokio::task::JoinHandle<Result<()>>)> {
    let db = TestDb::sqlite();
    let env = [
        ("SVC_DATABASE_URL", db.url.clone()),
        ("SVC_SECRET_KEY", db.key().to_base64()),
        ("SVC_ALLOW_PRIVATE_NETWORKS", "true".into()),
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
    Ok((db, Svc { http, base, token }, stop, server))
}

/// The peer: one process, `--peer-warmup` crawls, then one measured crawl.
fn peer_crawl(
    args: &Args,
    crawler: &str,
    parallel: u32,
    url: &str,
    hits: &'static AtomicU64,
) -> Result<(Crawl, Value)> {
    if !args.peer_dir.join("node_modules/crawlee").is_dir() {
        bail!("crawlee is not installed: run `PUPPETEER_SKIP_DOWNLOAD=1 npm ci` in {}", args.peer_dir.display());
    }
    let mut child = Command::new("node")
        .arg(args.peer_dir.join("peer.js"))
        .args(["--url", url, "--crawler", crawler])
        .args(["--concurrency", &parallel.to_string()])
        .args(["--warmup", &args.peer_warmup.to_string(), "--rounds", "1"])
        .args(["--chromium", &args.chromium])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .context("run node (apt-get install nodejs)")?;
    // CPU and site requests at the peer's marks around its measured crawl.
    type Mark = (String, f64, u64);
    let marks: Arc<Mutex<Vec<Mark>>> = Arc::default();
    let stderr = child.stderr.take().context("stderr")?;
    let reader = {
        let marks = marks.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                match line.strip_prefix("MARK ") {
                    Some(mark) => {
                        marks.lock().unwrap().push((mark.to_string(), machine_cpu_ms(), hits.load(Ordering::Relaxed)))
                    }
                    None => eprintln!("peer: {line}"),
                }
            }
        })
    };
    let out = child.wait_with_output()?;
    let _ = reader.join();
    if !out.status.success() {
        bail!("peer.js --crawler {crawler} failed ({})", out.status);
    }
    let report: Value = serde_json::from_slice(&out.stdout).context("peer.js output")?;
    let round = &report["rounds"][0];
    let marks = marks.lock().unwrap().clone();
    let at = |name: &str| marks.iter().find(|(n, _, _)| n == name).map(|(_, c, h)| (*c, *h));
    let (Some((cpu0, hits0)), Some((cpu1, hits1))) = (at("start"), at("end")) else {
        bail!("peer.js printed no marks");
    };
    let crawl = Crawl {
        wall_ms: round["wallMs"].as_f64().context("wallMs")?,
        cpu_ms: cpu1 - cpu0,
        requests: hits1 - hits0,
        inner_ms: round["launchMs"].as_f64(),
        page_ms: vec![],
    };
    Ok((crawl, report))
}

// ---------------------------------------------------------------- report

#[derive(Default)]
struct Row {
    name: String,
    pair: String,
    parallel: u32,
    crawls: Vec<Crawl>,
}

impl Row {
    fn walls(&self) -> Vec<f64> {
        self.crawls.iter().map(|c| c.wall_ms).collect()
    }
}

fn print_report(rows: &[Row], versions: &str) {
    println!();
    println!(
        "Crawls of the 106-page catalog, trigger (svc) or `crawler.run()` (Crawlee) to the checked 100 records ({versions}):"
    );
    println!();
    println!(
        "| pair | parallel / concurrency | crawler | median wall ms | min - max ms | each round ms | median machine CPU ms | each round machine CPU ms | median ms per page |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for row in rows.iter().filter(|r| !r.crawls.is_empty()) {
        let w = stats(&row.walls());
        let cpu = stats(&row.crawls.iter().map(|c| c.cpu_ms).collect::<Vec<_>>());
        let each: Vec<String> = row.walls().iter().map(|v| format!("{v:.0}")).collect();
        let each_cpu: Vec<String> = row.crawls.iter().map(|c| format!("{:.0}", c.cpu_ms)).collect();
        println!(
            "| {} | {} | {} | {:.0} | {:.0} - {:.0} | {} | {:.0} | {} | {:.1} |",
            row.pair,
            row.parallel,
            row.name,
            w.median,
            w.min,
            w.max,
            each.join(", "),
            cpu.median,
            each_cpu.join(", "),
            w.median / PAGES as f64
        );
    }
    println!();
    println!("svc ÷ Crawlee, median wall time (below 1: svc faster), and per round:");
    println!();
    println!("| pair | parallel | svc ÷ Crawlee (medians) | per round | svc at least as fast? |");
    println!("|---|---|---|---|---|");
    let svc_rows: Vec<&Row> = rows.iter().filter(|r| r.name.starts_with("svc")).collect();
    for svc in svc_rows {
        let Some(peer) =
            rows.iter().find(|r| !r.name.starts_with("svc") && r.pair == svc.pair && r.parallel == svc.parallel)
        else {
            continue;
        };
        if svc.crawls.is_empty() || peer.crawls.is_empty() {
            continue;
        }
        let ratio = stats(&svc.walls()).median / stats(&peer.walls()).median;
        let each: Vec<String> =
            svc.crawls.iter().zip(&peer.crawls).map(|(s, p)| format!("{:.2}", s.wall_ms / p.wall_ms)).collect();
        println!(
            "| {} | {} | {ratio:.2}x | {} | {} |",
            svc.pair,
            svc.parallel,
            each.join(", "),
            if ratio <= 1.0 { "yes" } else { "no" }
        );
    }
    println!();
    println!("Inside each crawl (medians over the rounds):");
    println!();
    println!(
        "| crawler | parallel | wall ms | svc: row `time` ms / Crawlee: to the launched browser ms | site requests | svc: page times ms, start / list / detail (median) | svc: sum of page times ÷ parallel ms |"
    );
    println!("|---|---|---|---|---|---|---|");
    for row in rows.iter().filter(|r| !r.crawls.is_empty()) {
        let inner: Vec<f64> = row.crawls.iter().filter_map(|c| c.inner_ms).collect();
        let requests: Vec<f64> = row.crawls.iter().map(|c| c.requests as f64).collect();
        let by_label = |label: &str| {
            let v: Vec<f64> = row
                .crawls
                .iter()
                .flat_map(|c| c.page_ms.iter().filter(|(l, _)| l == label).map(|(_, ms)| *ms))
                .collect();
            if v.is_empty() { "-".to_string() } else { format!("{:.0}", stats(&v).median) }
        };
        let sums: Vec<f64> = row
            .crawls
            .iter()
            .filter(|c| !c.page_ms.is_empty())
            .map(|c| c.page_ms.iter().map(|(_, ms)| ms).sum::<f64>() / row.parallel as f64)
            .collect();
        println!(
            "| {} | {} | {:.0} | {} | {:.0} | {} / {} / {} | {} |",
            row.name,
            row.parallel,
            stats(&row.walls()).median,
            if inner.is_empty() { "-".to_string() } else { format!("{:.0}", stats(&inner).median) },
            stats(&requests).median,
            by_label("start"),
            by_label("list"),
            by_label("detail"),
            if sums.is_empty() { "-".to_string() } else { format!("{:.0}", stats(&sums).median) },
        );
    }
}

// ---------------------------------------------------------------- main

fn main() -> Result<()> {
    let args = Args::parse();
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    runtime.block_on(async {
        // The site's request counter, read by the peer's stderr reader too.
        let hits: &'static AtomicU64 = Box::leak(Box::new(AtomicU64::new(0)));
        let url = serve_catalog(hits).await?;
        let pairs: Vec<(&str, &str, &str, &str)> =
            [("static", "static", "svc-static", "cheerio"), ("puppeteer", "puppeteer", "svc-puppeteer", "puppeteer")]
                .into_iter()
                .filter(|(pair, ..)| args.pairs.iter().any(|p| p == pair))
                .collect();

        let svc = if args.skip_svc { None } else { Some(start_svc(&args).await?) };
        let mut scraps = Vec::new();
        let mut rows = Vec::new();
        for &parallel in &args.parallel {
            for &(pair, engine, svc_name, crawler) in &pairs {
                if let Some((_, client, ..)) = &svc {
                    let scrap = client.scrap(engine, parallel, &url).await?;
                    for _ in 0..args.warmup {
                        client.crawl(&scrap, hits).await.with_context(|| format!("{svc_name} warm-up"))?;
                    }
                    scraps.push(scrap);
                } else {
                    scraps.push(String::new());
                }
                rows.push(Row { name: svc_name.into(), pair: pair.into(), parallel, ..Default::default() });
                let peer_name = if crawler == "cheerio" { "CheerioCrawler" } else { "PuppeteerCrawler" };
                rows.push(Row { name: peer_name.into(), pair: pair.into(), parallel, ..Default::default() });
            }
        }
        let mut versions = String::new();
        let mut failures = 0;
        for round in 1..=args.rounds {
            let svc_first = round % 2 == 1;
            let mut i = 0;
            for &parallel in &args.parallel {
                for &(_, _, svc_name, crawler) in &pairs {
                    let scrap = scraps[i / 2].clone();
                    for turn in 0..2 {
                        if (turn == 0) == svc_first {
                            let Some((_, client, ..)) = &svc else { continue };
                            match client.crawl(&scrap, hits).await {
                                Ok(crawl) => {
                                    eprintln!("round {round}: {svc_name} parallel={parallel}: {:.0} ms", crawl.wall_ms);
                                    rows[i].crawls.push(crawl);
                                }
                                Err(e) => {
                                    failures += 1;
                                    eprintln!("round {round}: {svc_name} parallel={parallel}: FAILED: {e:#}");
                                }
                            }
                        } else if !args.skip_peer {
                            let outcome =
                                tokio::task::block_in_place(|| peer_crawl(&args, crawler, parallel, &url, hits));
                            match outcome {
                                Ok((crawl, report)) => {
                                    eprintln!(
                                        "round {round}: {} concurrency={parallel}: {:.0} ms",
                                        rows[i + 1].name,
                                        crawl.wall_ms
                                    );
                                    versions = format!(
                                        "Crawlee {}, puppeteer-core {}, node {}",
                                        report["crawleeVersion"].as_str().unwrap_or("?"),
                                        report["puppeteerVersion"].as_str().unwrap_or("?"),
                                        report["nodeVersion"].as_str().unwrap_or("?")
                                    );
                                    rows[i + 1].crawls.push(crawl);
                                }
                                Err(e) => {
                                    failures += 1;
                                    eprintln!("round {round}: {crawler} concurrency={parallel}: FAILED: {e:#}");
                                }
                            }
                        }
                    }
                    i += 2;
                }
            }
        }
        print_report(&rows, &format!("{versions}; Chromium: {}", args.chromium));
        if let Some((db, _, stop, server)) = svc {
            let _ = stop.send(());
            server.await??;
            drop(db);
        }
        if failures > 0 {
            bail!("{failures} crawls failed");
        }
        Ok(())
    })
}
