//! The scheduler with N scraps scheduled every minute (default 100,000):
//! firing lag (scheduled instant -> history row written) at p50/p99/max and
//! the process's CPU use while firing and while idle between minutes.
//!
//! Beside it, in the same run and on a fresh database with the same scraps,
//! the peer baseline: the polling loop people write by hand (every second,
//! load every scheduled scrap, evaluate its cron, enqueue what came due),
//! enqueuing through the same store call.
//!
//!     cargo run --release -p svc-bench --bin sched-bench -- --backend sqlite
//!     SVC_TEST_POSTGRES_URL=postgres://... cargo run --release -p svc-bench --bin sched-bench -- --backend postgres
//!
//! Prints one markdown table row per case.

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use chrono::{DateTime, DurationRound, TimeDelta, Utc};
use clap::Parser;
use svc_bench::{bench_organization, fresh_store};
use svc_domain::activity::Activity;
use svc_domain::history::{HistoryRow, TriggeredBy};
use svc_domain::scrap::Scrap;
use svc_domain::{ObjectId, OrgId};
use svc_server::{App, Config};
use svc_storage::{HistoryFilter, ScrapFilter, Store};
use tokio::net::TcpListener;

#[derive(Parser)]
struct Args {
    /// sqlite or postgres (postgres reads SVC_TEST_POSTGRES_URL).
    #[arg(long, default_value = "sqlite")]
    backend: String,
    #[arg(long, default_value_t = 100_000)]
    scraps: usize,
    /// Idle window measured after the minute's ticks are all enqueued.
    #[arg(long, default_value_t = 20)]
    idle_secs: u64,
    /// Skip the polling peer.
    #[arg(long)]
    no_peer: bool,
}

/// User + system CPU time of this process.
fn cpu_time() -> Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after_name = stat.rsplit_once(')').map(|(_, rest)| rest).unwrap_or("");
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    // Fields 14 and 15 of stat (utime, stime), counted after the name.
    let ticks: u64 = fields.get(11).and_then(|u| u.parse().ok()).unwrap_or(0)
        + fields.get(12).and_then(|s| s.parse().ok()).unwrap_or(0);
    Duration::from_millis(ticks * 10) // USER_HZ = 100 on Linux
}

/// One organization with `n` scraps due at `first_tick`, every minute.
async fn seed(store: &Arc<dyn Store>, n: usize, first_tick: DateTime<Utc>) -> Result<OrgId> {
    let now = Utc::now();
    let (org_id, user_id) = bench_organization(&**store).await?;
    let per_task = n.div_ceil(4);
    let mut tasks = Vec::new();
    for t in 0..4 {
        let store = store.clone();
        tasks.push(tokio::spawn(async move {
            for i in (t * per_task)..((t + 1) * per_task).min(n) {
                let scrap = Scrap {
                    // No worker serves it: runs stay queued, the bench measures enqueueing.
                    containers: vec!["bench-idle".into()],
                    cron: Some("* * * * *".into()),
                    next_fire_at: Some(first_tick),
                    ..Scrap::new(
                        org_id,
                        user_id,
                        format!("scrap {i}"),
                        format!("https://example.com/{i}"),
                        "returnData([1])",
                        now,
                    )
                };
                let log = Activity {
                    id: ObjectId::new(),
                    organization_id: org_id,
                    scrap_id: scrap.id,
                    kind: "scrap.created".into(),
                    actor: "bench".into(),
                    message: "Scrap created".into(),
                    history_id: None,
                    created_at: now,
                };
                store.insert_scrap(&scrap, &log).await?;
            }
            anyhow::Ok(())
        }));
    }
    for t in tasks {
        t.await??;
    }
    Ok(org_id)
}

struct Measured {
    p50: f64,
    p99: f64,
    max: f64,
    firing_cpu: Duration,
    firing_wall: Duration,
    idle_cpu_pct: f64,
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1]
}

/// Waits for the minute at `tick` to be enqueued, then measures idle CPU.
async fn measure(
    store: &Arc<dyn Store>,
    org: OrgId,
    n: usize,
    tick: DateTime<Utc>,
    idle: Duration,
) -> Result<Measured> {
    let until_tick = (tick - Utc::now()).to_std().unwrap_or_default();
    tokio::time::sleep(until_tick).await;
    let cpu0 = cpu_time();
    let wall0 = Instant::now();
    let deadline = wall0 + Duration::from_secs(55);
    loop {
        let total = store.list_history(org, &HistoryFilter { limit: 1, ..Default::default() }).await?.total;
        if total as usize >= n {
            break;
        }
        if Instant::now() > deadline {
            bail!("only {total} of {n} ticks enqueued within 55 s");
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    let firing_cpu = cpu_time() - cpu0;
    let firing_wall = wall0.elapsed();
    let cpu1 = cpu_time();
    tokio::time::sleep(idle).await;
    let idle_cpu_pct = (cpu_time() - cpu1).as_secs_f64() / idle.as_secs_f64() * 100.0;

    let rows = store.list_history(org, &HistoryFilter { limit: n as i64, ..Default::default() }).await?.items;
    let mut lags: Vec<f64> = rows.iter().map(|r| (r.created_at - tick).num_milliseconds() as f64 / 1000.0).collect();
    lags.sort_by(f64::total_cmp);
    Ok(Measured {
        p50: percentile(&lags, 0.50),
        p99: percentile(&lags, 0.99),
        max: *lags.last().context("no rows")?,
        firing_cpu,
        firing_wall,
        idle_cpu_pct,
    })
}

/// The first minute boundary at least `lead` from now.
fn minute_after(lead: Duration) -> DateTime<Utc> {
    let t = Utc::now() + TimeDelta::from_std(lead).unwrap();
    t.duration_trunc(TimeDelta::minutes(1)).unwrap() + TimeDelta::minutes(1)
}

async fn bench_svc(args: &Args) -> Result<Measured> {
    let (db, store) = fresh_store(&args.backend).await?;
    let lead = Duration::from_secs(15) + Duration::from_micros(args.scraps as u64 * 400);
    let tick = minute_after(lead);
    let seeding = Instant::now();
    let org = seed(&store, args.scraps, tick).await?;
    eprintln!("svc: seeded {} scraps in {:.1?}; first tick {tick}", args.scraps, seeding.elapsed());
    if Utc::now() > tick - TimeDelta::seconds(2) {
        bail!("seeding ran past the first tick; rerun (or lower --scraps)");
    }
    let config = Config::load(
        None,
        [
            ("SVC_DATABASE_URL", db.url.as_str()),
            ("SVC_SECRET_KEY", db.key().to_base64().as_str()),
            ("SVC_EMBEDDED_WORKER", "false"),
            ("SVC_SCHEDULER", "true"),
        ]
        .map(|(k, v)| (k.to_string(), v.to_string())),
    )?;
    let app = App::build(config).await?;
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(app.serve(listener, async move {
        let _ = stopped.await;
    }));
    let measured = measure(&store, org, args.scraps, tick, Duration::from_secs(args.idle_secs)).await;
    let _ = stop.send(());
    let _ = server.await;
    store.close().await;
    measured
}

/// The peer: every second, every scheduled scrap is loaded and its cron
/// evaluated; those with a firing in (last scan, now] are enqueued.
async fn polling_peer(
    store: Arc<dyn Store>,
    org: OrgId,
    first_tick: DateTime<Utc>,
    stop: tokio::sync::watch::Receiver<bool>,
) -> Result<()> {
    // Measured from `first_tick` on, like svc's scheduler (whose scraps
    // are first due then).
    let mut last = first_tick - TimeDelta::milliseconds(1);
    let mut every = tokio::time::interval(Duration::from_secs(1));
    while !*stop.borrow() {
        every.tick().await;
        let now = Utc::now();
        if now < first_tick {
            continue;
        }
        let all = store.list_scraps(org, &ScrapFilter { limit: i64::MAX / 2, ..Default::default() }).await?.items;
        for (i, scrap) in all.into_iter().enumerate() {
            if i % 1000 == 0 {
                tokio::task::yield_now().await;
            }
            let Some(expr) = &scrap.cron else { continue };
            let cron: croner::Cron = expr.parse().context("cron")?;
            let Ok(next) = cron.find_next_occurrence(&last, false) else { continue };
            if next <= now {
                let row = HistoryRow::pending(scrap.id, org, TriggeredBy::Cron, "tier0", Utc::now());
                let log = Activity {
                    id: ObjectId::new(),
                    organization_id: org,
                    scrap_id: scrap.id,
                    kind: "run.triggered".into(),
                    actor: "system".into(),
                    message: "Run triggered (cron)".into(),
                    history_id: Some(row.id),
                    created_at: Utc::now(),
                };
                store.enqueue_run(&row, &scrap.containers, None, &log).await?;
            }
        }
        last = now;
    }
    Ok(())
}

async fn bench_peer(args: &Args) -> Result<Measured> {
    let (db, store) = fresh_store(&args.backend).await?;
    let lead = Duration::from_secs(15) + Duration::from_micros(args.scraps as u64 * 400);
    let tick = minute_after(lead);
    let org = seed(&store, args.scraps, tick).await?;
    if Utc::now() > tick - TimeDelta::seconds(2) {
        bail!("seeding ran past the first tick; rerun (or lower --scraps)");
    }
    // Its own thread, runtime and pool, as its own process would have.
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let url = db.url.clone();
    let peer = std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
        runtime.block_on(async move {
            let store =
                svc_storage::connect(&url, svc_storage::Sealer::new(svc_storage::MasterKey::generate())).await?;
            polling_peer(store, org, tick, stopped).await
        })
    });
    let measured = measure(&store, org, args.scraps, tick, Duration::from_secs(args.idle_secs)).await;
    let _ = stop.send(true);
    let _ = tokio::task::spawn_blocking(move || peer.join()).await;
    store.close().await;
    measured
}

fn row(name: &str, args: &Args, m: &Measured) {
    println!(
        "| {name} | {} | {} | {:.2} s | {:.2} s | {:.2} s | {:.1} s CPU in {:.1} s | {:.2}% |",
        args.backend,
        args.scraps,
        m.p50,
        m.p99,
        m.max,
        m.firing_cpu.as_secs_f64(),
        m.firing_wall.as_secs_f64(),
        m.idle_cpu_pct
    );
}

#[tokio::main]
async fn main() -> Result<()> {
    let args = Args::parse();
    println!("| scheduler | backend | scraps | lag p50 | lag p99 | lag max | firing | idle CPU |");
    println!("|---|---|---|---|---|---|---|---|");
    let svc = bench_svc(&args).await?;
    row("svc (wakes for the next due tick)", &args, &svc);
    if !args.no_peer {
        let peer = bench_peer(&args).await?;
        row("peer (polls every scrap every second)", &args, &peer);
    }
    Ok(())
}
