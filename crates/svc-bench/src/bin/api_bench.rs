//! Throughput and latency of `GET /api/scraps/:id` with an API key and with
//! a web session (JWT), measured with wrk against the in-process server,
//! beside `GET /healthz` (the same server with no authentication and no
//! database work) as the ceiling.
//!
//!     cargo run --release -p svc-bench --bin api-bench -- --backend sqlite
//!     SVC_TEST_POSTGRES_URL=postgres://... cargo run --release -p svc-bench --bin api-bench -- --backend postgres
//!
//! Needs `wrk` (Debian package). Prints one markdown table row per case.

use std::process::Command;

use anyhow::{Context, Result, bail};
use chrono::Utc;
use clap::Parser;
use serde_json::{Value, json};
use svc_domain::history::{HistoryRow, StatusDetail, TriggeredBy};
use svc_domain::{OrgId, ScrapId};
use svc_server::{App, Config};
use svc_storage::testing::TestDb;

#[derive(Parser)]
struct Args {
    /// sqlite or postgres (postgres reads SVC_TEST_POSTGRES_URL).
    #[arg(long, default_value = "sqlite")]
    backend: String,
    #[arg(long, default_value_t = 64)]
    connections: u32,
    #[arg(long, default_value_t = 2)]
    threads: u32,
    #[arg(long, default_value = "10s")]
    duration: String,
    /// Worker threads of the server's runtime (default: one per core).
    #[arg(long)]
    server_threads: Option<usize>,
}

struct WrkResult {
    rps: f64,
    /// Requests completed in the whole case.
    requests: u64,
    p50: String,
    p99: String,
    errors: String,
}

fn wrk(args: &Args, url: &str, bearer: Option<&str>) -> Result<WrkResult> {
    let mut cmd = Command::new("wrk");
    cmd.args(["-t", &args.threads.to_string(), "-c", &args.connections.to_string(), "-d", &args.duration, "--latency"]);
    if let Some(b) = bearer {
        cmd.args(["-H", &format!("Authorization: Bearer {b}")]);
    }
    let out = cmd.arg(url).output().context("run wrk (apt-get install wrk)")?;
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    if !out.status.success() {
        bail!("wrk failed: {text}{}", String::from_utf8_lossy(&out.stderr));
    }
    let field = |prefix: &str| -> Option<String> {
        text.lines().map(str::trim).find(|l| l.starts_with(prefix)).map(|l| l[prefix.len()..].trim().to_string())
    };
    let rps: f64 = field("Requests/sec:").context("no Requests/sec in wrk output")?.parse()?;
    // "  123456 requests in 10.00s, 45.67MB read"
    let requests: u64 = text
        .lines()
        .find_map(|l| l.trim().split_once(" requests in ").and_then(|(n, _)| n.trim().parse().ok()))
        .context("no request count in wrk output")?;
    let non_2xx = field("Non-2xx or 3xx responses:").unwrap_or_else(|| "0".into());
    let socket = field("Socket errors:").unwrap_or_else(|| "none".into());
    Ok(WrkResult {
        rps,
        requests,
        p50: field("50%").unwrap_or_default(),
        p99: field("99%").unwrap_or_default(),
        errors: format!("non-2xx {non_2xx}; socket errors {socket}"),
    })
}

/// CPU time (user and system) this process, the server, has used so far:
/// from `/proc/self/stat`, in the kernel's 100 ticks a second. wrk is
/// another process, so it is not counted.
fn server_cpu() -> Result<std::time::Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat")?;
    let fields: Vec<&str> = stat.rsplit_once(')').context("stat")?.1.split_whitespace().collect();
    let ticks: u64 = fields[11].parse::<u64>()? + fields[12].parse::<u64>()?;
    Ok(std::time::Duration::from_millis(ticks * 10))
}

/// The seeded scrap's id, its scoped key, a key without the read scope, and
/// the session token of its owner.
async fn seed(base: &str, store: &dyn svc_storage::Store) -> Result<(String, String, String, String)> {
    let http = reqwest::Client::new();
    let signup: Value = http
        .post(format!("{base}/api/auth/signup"))
        .json(&json!({"email": "bench@example.com", "password": "bench-password"}))
        .send()
        .await?
        .json()
        .await?;
    let token = signup["token"].as_str().context("signup token")?.to_string();
    let org = OrgId::parse(signup["organization"]["id"].as_str().context("org id")?).context("org id")?;
    let scrap: Value = http
        .post(format!("{base}/api/scraps"))
        .bearer_auth(&token)
        .json(&json!({"title": "Bench", "url": "https://example.com", "request": "returnData([1])", "cron": "*/5 * * * *"}))
        .send()
        .await?
        .json()
        .await?;
    let scrap_id = scrap["id"].as_str().context("scrap id")?.to_string();
    // A scrap with a full history, so that the `history` id list is real work.
    for _ in 0..60 {
        let scrap = ScrapId::parse(&scrap_id).context("id")?;
        let mut row = HistoryRow::pending(scrap, org, TriggeredBy::Cron, "tier0", Utc::now());
        row.status_detail = Some(StatusDetail::Success);
        row.data = "[1]".into();
        row.length = 1;
        row.time_ms = Some(300);
        row.finished_at = Some(Utc::now());
        store.insert_history(&row).await?;
    }
    let key: Value = http
        .post(format!("{base}/api/developers/keys"))
        .bearer_auth(&token)
        .json(&json!({"name": "bench", "scopes": ["svc:scraps:read"], "scrapIds": [scrap_id]}))
        .send()
        .await?
        .json()
        .await?;
    let plain = key["plainKey"].as_str().context("plain key")?.to_string();
    let unscoped: Value = http
        .post(format!("{base}/api/developers/keys"))
        .bearer_auth(&token)
        .json(&json!({"name": "no read scope", "scopes": ["svc:history:read"]}))
        .send()
        .await?
        .json()
        .await?;
    let unscoped = unscoped["plainKey"].as_str().context("plain key")?.to_string();
    let check = http.get(format!("{base}/api/scraps/{scrap_id}")).bearer_auth(&plain).send().await?;
    if !check.status().is_success() {
        bail!("seeded key cannot read the scrap: {}", check.status());
    }
    Ok((scrap_id, plain, unscoped, token))
}

fn main() -> Result<()> {
    let args = Args::parse();
    let mut runtime = tokio::runtime::Builder::new_multi_thread();
    if let Some(n) = args.server_threads {
        runtime.worker_threads(n);
    }
    let runtime = runtime.enable_all().build()?;
    runtime.block_on(async {
        let db = match args.backend.as_str() {
            "sqlite" => TestDb::sqlite(),
            "postgres" => TestDb::postgres().await.context("set SVC_TEST_POSTGRES_URL")?,
            other => bail!("unknown backend {other}"),
        };
        let config = Config::load(
            None,
            [("SVC_DATABASE_URL".to_string(), db.url.clone()), ("SVC_SECRET_KEY".to_string(), db.key().to_base64())],
        )?;
        let app = App::build(config).await?;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let base = format!("http://{}", listener.local_addr()?);
        let store = app.store().clone();
        let server = tokio::spawn(app.serve(listener, std::future::pending()));
        let (scrap_id, key, unscoped, session) = seed(&base, &*store).await?;

        let cases = [
            ("GET /healthz (ceiling: no auth, no database)", format!("{base}/healthz"), None),
            (
                "GET /api/scraps/:id with a key lacking the scope (403: key check only)",
                format!("{base}/api/scraps/{scrap_id}"),
                Some(unscoped.clone()),
            ),
            ("GET /api/scraps/:id with an API key", format!("{base}/api/scraps/{scrap_id}"), Some(key.clone())),
            (
                "GET /api/scraps/:id with a session (JWT)",
                format!("{base}/api/scraps/{scrap_id}"),
                Some(session.clone()),
            ),
        ];
        // CPU per request is the server's cost, steadier than requests/s on
        // a shared machine: the budget of 20,000 requests/s on 2 cores is
        // 100 µs of CPU per request.
        println!("| backend | case | connections | requests/s | server CPU per request | p50 | p99 | errors |");
        println!("|---|---|---|---|---|---|---|---|");
        for (name, url, bearer) in cases {
            let a = &args;
            let cpu_before = server_cpu()?;
            let result = tokio::task::spawn_blocking({
                let (url, bearer) = (url.clone(), bearer.clone());
                let a = Args {
                    backend: a.backend.clone(),
                    connections: a.connections,
                    threads: a.threads,
                    duration: a.duration.clone(),
                    server_threads: a.server_threads,
                };
                move || wrk(&a, &url, bearer.as_deref())
            })
            .await??;
            let cpu = server_cpu()?.saturating_sub(cpu_before);
            let per_request_us = cpu.as_secs_f64() * 1e6 / result.requests.max(1) as f64;
            println!(
                "| {} | {name} | {} | {:.0} | {:.0} µs | {} | {} | {} |",
                args.backend, args.connections, result.rps, per_request_us, result.p50, result.p99, result.errors
            );
        }
        server.abort();
        Ok(())
    })
}
