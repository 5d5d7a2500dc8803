//! Webhook deliveries per second from the dispatcher to local receivers,
//! sent with the real HTTP client, recorded in the real store.
//!
//! Two cases, each on a fresh database with N deliveries queued over W
//! webhooks: every receiver answers at once; and 10% of the webhooks point
//! at a receiver that never answers (each attempt runs into the timeout).
//! The figure that matters in the second case is how fast the other 90%
//! are delivered. Beside each, the peer baseline: a plain loop that sends
//! one delivery after the other (what a hand-written sender does), given
//! the same deliveries for a fixed window.
//!
//!     cargo run --release -p svc-bench --bin webhook-bench -- --backend sqlite
//!     SVC_TEST_POSTGRES_URL=postgres://... cargo run --release -p svc-bench --bin webhook-bench -- --backend postgres

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use axum::Router;
use axum::routing::post;
use chrono::Utc;
use clap::Parser;
use svc_bench::{bench_organization, fresh_store};
use svc_domain::webhook::{AttemptState, Delivery, DeliveryAttempt, Webhook, WebhookEvent};
use svc_domain::{HistoryId, ObjectId, OrgId, ScrapId, WebhookId};
use svc_server::webhook_client::HttpWebhookClient;
use svc_service::outbox::dispatcher::{DispatchConfig, Dispatcher, WebhookTransport};
use svc_storage::Store;
use svc_storage::testing::TestDb;
use tokio::net::TcpListener;

#[derive(Parser)]
struct Args {
    #[arg(long, default_value = "sqlite")]
    backend: String,
    #[arg(long, default_value_t = 20_000)]
    deliveries: usize,
    #[arg(long, default_value_t = 100)]
    webhooks: usize,
    /// Per-attempt timeout in seconds (the service's default is 10).
    #[arg(long, default_value_t = 10)]
    timeout: u64,
    /// How long the sequential peer runs per case, in seconds.
    #[arg(long, default_value_t = 30)]
    peer_secs: u64,
}

/// A receiver that answers 200 at once (`fast`) or never (`slow`).
async fn receiver(fast: bool, count: Arc<AtomicU64>) -> Result<String> {
    let app = Router::new().route(
        "/hook",
        post(move || {
            let count = count.clone();
            async move {
                count.fetch_add(1, Ordering::Relaxed);
                if !fast {
                    tokio::time::sleep(Duration::from_secs(3600)).await;
                }
                "ok"
            }
        }),
    );
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}/hook", listener.local_addr()?);
    tokio::spawn(async move { axum::serve(listener, app).await });
    Ok(url)
}

struct Setup {
    _db: TestDb,
    store: Arc<dyn Store>,
    org: OrgId,
    fast_hooks: Vec<WebhookId>,
    fast_deliveries: usize,
    all: Vec<Delivery>,
}

async fn setup(args: &Args, slow_share: f64, fast_url: &str, slow_url: &str) -> Result<Setup> {
    let (db, store) = fresh_store(&args.backend).await?;
    let now = Utc::now();
    let (org_id, _) = bench_organization(&*store).await?;
    let slow_count = (args.webhooks as f64 * slow_share).round() as usize;
    let mut hooks = Vec::new();
    for i in 0..args.webhooks {
        let slow = i % (args.webhooks / slow_count.max(1)).max(1) == 0
            && hooks.iter().filter(|(_, s)| *s).count() < slow_count;
        let hook = Webhook {
            id: WebhookId::new(),
            organization_id: org_id,
            url: if slow { slow_url.to_string() } else { fast_url.to_string() },
            events: vec![WebhookEvent::ScrapSuccess],
            scrap_ids: vec![],
            active: true,
            secret: svc_service::outbox::webhook_signing::new_secret(),
            created_at: now,
            updated_at: now,
        };
        store.insert_webhook(&hook).await?;
        hooks.push((hook.id, slow));
    }
    let payload = serde_json::json!({"historyId": ObjectId::new().to_string(), "scrapId": ObjectId::new().to_string(), "status": "success", "statusDetail": "success", "runtime": 120, "resultPreview": "[{\"title\":\"Item 1\"}]", "triggeredBy": "cron"}).to_string();
    let all: Vec<Delivery> = (0..args.deliveries)
        .map(|i| {
            let (hook, _) = hooks[i % hooks.len()];
            Delivery {
                id: ObjectId::new(),
                organization_id: org_id,
                webhook_id: hook,
                event: WebhookEvent::ScrapSuccess,
                history_id: HistoryId::new(),
                scrap_id: ScrapId::new(),
                payload: payload.clone(),
                attempts: 0,
                created_at: now,
            }
        })
        .collect();
    let fast_hooks: Vec<WebhookId> = hooks.iter().filter(|(_, s)| !s).map(|(h, _)| *h).collect();
    let fast_deliveries = all.iter().filter(|d| fast_hooks.contains(&d.webhook_id)).count();
    Ok(Setup { _db: db, store, org: org_id, fast_hooks, fast_deliveries, all })
}

async fn recorded(store: &dyn Store, org: OrgId, hooks: &[WebhookId]) -> Result<usize> {
    let mut total = 0;
    for h in hooks {
        total += store.list_attempts(org, *h, 0, 1).await?.total as usize;
    }
    Ok(total)
}

/// svc's dispatcher: time until every delivery to a fast receiver is sent
/// and recorded.
async fn svc_case(args: &Args, slow_share: f64) -> Result<(usize, Duration)> {
    let fast_url = receiver(true, Arc::new(AtomicU64::new(0))).await?;
    let slow_url = receiver(false, Arc::new(AtomicU64::new(0))).await?;
    let s = setup(args, slow_share, &fast_url, &slow_url).await?;
    for chunk in s.all.chunks(1000) {
        s.store.insert_deliveries(chunk, Utc::now()).await?;
    }
    let timeout = Duration::from_secs(args.timeout);
    let transport = Arc::new(HttpWebhookClient::new(timeout, true.into()));
    let config = DispatchConfig {
        retry_delays: vec![Duration::from_secs(60), Duration::from_secs(300)],
        sweep_interval: Duration::from_secs(60),
        timeout,
        max_in_flight: 1024,
    };
    let dispatcher =
        Arc::new(Dispatcher::new(s.store.clone(), transport, config, Arc::new(tokio::sync::Notify::new())));
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let started = Instant::now();
    let task = tokio::spawn(dispatcher.run(async move {
        let _ = stopped.await;
    }));
    loop {
        if recorded(&*s.store, s.org, &s.fast_hooks).await? >= s.fast_deliveries {
            break;
        }
        if started.elapsed() > Duration::from_secs(300) {
            bail!("fast deliveries not done in 300 s");
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let elapsed = started.elapsed();
    let _ = stop.send(());
    task.abort();
    s.store.close().await;
    Ok((s.fast_deliveries, elapsed))
}

/// The peer: one delivery after the other, same client and signing, same
/// recording, for `peer_secs`; returns deliveries completed to fast receivers.
async fn peer_case(args: &Args, slow_share: f64) -> Result<(usize, Duration)> {
    let fast_url = receiver(true, Arc::new(AtomicU64::new(0))).await?;
    let slow_url = receiver(false, Arc::new(AtomicU64::new(0))).await?;
    let s = setup(args, slow_share, &fast_url, &slow_url).await?;
    for chunk in s.all.chunks(1000) {
        s.store.insert_deliveries(chunk, Utc::now()).await?;
    }
    let client = HttpWebhookClient::new(Duration::from_secs(args.timeout), true.into());
    let window = Duration::from_secs(args.peer_secs);
    let started = Instant::now();
    let mut fast_done = 0;
    while started.elapsed() < window {
        let now = Utc::now();
        let Some((d, Some(hook))) = s.store.claim_deliveries(now, now + chrono::Duration::minutes(1), 1).await?.pop()
        else {
            break;
        };
        let body = svc_service::outbox::webhook_payload::body_at(&d.payload, now);
        let headers = [
            ("content-type", "application/json".to_string()),
            ("x-webhook-event", d.event.as_str().to_string()),
            ("x-webhook-signature", svc_service::outbox::webhook_signing::hex_signature(&hook.secret, &body)),
        ];
        let answer = client.post(&hook.url, &headers, body).await;
        let attempt = DeliveryAttempt {
            id: ObjectId::new(),
            delivery_id: d.id,
            organization_id: d.organization_id,
            webhook_id: d.webhook_id,
            event: d.event,
            history_id: d.history_id,
            attempt: 1,
            state: if answer.is_ok() { AttemptState::Delivered } else { AttemptState::Failed },
            response_status: answer.as_ref().ok().map(|r| r.status as i64),
            response_body: None,
            error: answer.err(),
            duration_ms: None,
            created_at: Utc::now(),
            next_retry_at: None,
        };
        s.store.record_attempt(&d, &attempt, None).await?;
        if s.fast_hooks.contains(&d.webhook_id) {
            fast_done += 1;
        }
    }
    let elapsed = started.elapsed();
    s.store.close().await;
    Ok((fast_done, elapsed))
}

#[tokio::main]
async fn main() -> Result<()> {
    let args = Args::parse();
    println!("| sender | backend | receivers | deliveries to fast receivers | time | deliveries/s |");
    println!("|---|---|---|---|---|---|");
    for (label, share) in [("all answer at once", 0.0), ("10% never answer", 0.1)] {
        let (n, t) = svc_case(&args, share).await?;
        println!(
            "| svc dispatcher | {} | {label} | {n} | {:.2} s | {:.0} |",
            args.backend,
            t.as_secs_f64(),
            n as f64 / t.as_secs_f64()
        );
        let (n, t) = peer_case(&args, share).await?;
        println!(
            "| peer (one at a time) | {} | {label} | {n} | {:.2} s | {:.0} |",
            args.backend,
            t.as_secs_f64(),
            n as f64 / t.as_secs_f64()
        );
    }
    Ok(())
}
