//! Server time of the web app's pages for an organization of 1,000 scraps
//! (each with a finished run), measured in-process (the router called
//! directly, no socket), beside the REST list of the same scraps as JSON
//! (`GET /api/scraps`, the API's answer to the same question) in the same run.
//!
//!     cargo run --release -p svc-bench --bin web-bench -- --backend sqlite
//!     SVC_TEST_POSTGRES_URL=postgres://... cargo run --release -p svc-bench --bin web-bench -- --backend postgres
//!
//! Prints one markdown table row per page.

use std::time::Instant;

use anyhow::{Context, Result, bail};
use axum::body::Body;
use axum::http::{Request, StatusCode};
use chrono::Utc;
use clap::Parser;
use svc_bench::stats::stats;
use svc_domain::history::{HistoryRow, StatusDetail, TriggeredBy};
use svc_server::{App, Config};
use svc_service::accounts::Signup;
use svc_service::scraps::input::ScrapChanges;
use svc_storage::testing::TestDb;
use tower::ServiceExt;

#[derive(Parser)]
struct Args {
    /// sqlite or postgres (postgres reads SVC_TEST_POSTGRES_URL).
    #[arg(long, default_value = "sqlite")]
    backend: String,
    #[arg(long, default_value_t = 1000)]
    scraps: usize,
    /// Timed requests per page (after 20 untimed ones).
    #[arg(long, default_value_t = 300)]
    requests: usize,
}

fn main() -> Result<()> {
    let args = Args::parse();
    tokio::runtime::Builder::new_multi_thread().enable_all().build()?.block_on(run(args))
}

async fn run(args: Args) -> Result<()> {
    let db = match args.backend.as_str() {
        "sqlite" => TestDb::sqlite(),
        "postgres" => TestDb::postgres().await.context("SVC_TEST_POSTGRES_URL is not set")?,
        other => bail!("unknown backend {other}"),
    };
    let settings = [
        ("SVC_DATABASE_URL".to_string(), db.url.clone()),
        ("SVC_SECRET_KEY".into(), db.key().to_base64()),
        ("SVC_EMBEDDED_WORKER".into(), "false".into()),
        ("SVC_SCHEDULER".into(), "false".into()),
        ("SVC_WEBHOOK_DISPATCHER".into(), "false".into()),
    ];
    let app = App::build(Config::load(None, settings)?).await?;
    let services = app.services().clone();
    let signup = Signup { email: "bench@example.com".into(), password: "password-123".into(), name: None };
    let created = services.accounts.signup(signup, std::net::IpAddr::V4(std::net::Ipv4Addr::LOCALHOST)).await?;
    let token = created.token.token.clone();
    let session = services.auth.session(&token).await?;

    let started = Instant::now();
    for i in 0..args.scraps {
        let changes = ScrapChanges {
            title: Some(format!("Scrap {i:04} prices")),
            description: Some(format!("Prices of shop number {i}")),
            url: Some(format!("https://shop{i}.example.com/prices")),
            request: Some("returnData([...document.querySelectorAll('li')].map(li => li.textContent))".into()),
            cron: Some((i % 2 == 0).then(|| "*/15 * * * *".to_string())),
            cron_timezone: Some(if i % 3 == 0 { "Europe/Paris".into() } else { "UTC".into() }),
            ..ScrapChanges::default()
        };
        let scrap = services.scraps.create(&session, changes).await?;
        let mut row = HistoryRow::pending(scrap.id, session.org(), TriggeredBy::Cron, "tier0", Utc::now());
        row.status_detail = Some(if i % 10 == 0 { StatusDetail::Error } else { StatusDetail::Success });
        row.data = format!(
            "[{}]",
            (0..20).map(|n| format!("{{\"n\":{n},\"name\":\"item {n}\"}}")).collect::<Vec<_>>().join(",")
        );
        row.length = 20;
        row.time_ms = Some(800);
        row.finished_at = Some(Utc::now());
        app.store().insert_history(&row).await?;
    }
    eprintln!("loaded {} scraps with a run each in {:.1} s", args.scraps, started.elapsed().as_secs_f64());

    let router = svc_api::router(services.clone(), svc_api::HttpOptions::default());
    let cookie = format!("svc_session={token}");
    let newest = services.scraps.overview(&session, None, false, Default::default()).await?.items.remove(0);
    let first = newest.scrap.id;
    let run = newest.last_run.context("the newest scrap's run")?.id;
    let cases: Vec<(&str, String, bool)> = vec![
        ("web: scraps list, page 1", "/".into(), false),
        ("web: scraps list, page 50", "/?page=50".into(), false),
        ("web: scraps list, only failing", "/?failing=1".into(), false),
        ("web: scraps list, search", "/?search=scrap+0999".into(), false),
        ("web: scrap editor", format!("/scraps/{first}/edit"), false),
        ("web: scrap page (latest data, runs, activity)", format!("/scraps/{first}"), false),
        ("web: run page (table, JSON, what changed)", format!("/scraps/{first}/history/{run}"), false),
        ("REST: GET /api/scraps (JSON, page 1)", "/api/scraps".into(), true),
    ];
    println!("| page | bytes | median ms | p95 ms | max ms |");
    println!("|---|---:|---:|---:|---:|");
    for (name, path, bearer) in cases {
        let request = || {
            let r = Request::get(&path);
            let r =
                if bearer { r.header("authorization", format!("Bearer {token}")) } else { r.header("cookie", &cookie) };
            r.body(Body::empty()).unwrap()
        };
        let mut bytes = 0;
        let mut samples = Vec::with_capacity(args.requests);
        for i in 0..(20 + args.requests) {
            let t = Instant::now();
            let response = router.clone().oneshot(request()).await?;
            let status = response.status();
            let body = axum::body::to_bytes(response.into_body(), usize::MAX).await?;
            let ms = t.elapsed().as_secs_f64() * 1000.0;
            if status != StatusCode::OK {
                bail!("{path}: {status}: {}", String::from_utf8_lossy(&body));
            }
            bytes = body.len();
            if i >= 20 {
                samples.push(ms);
            }
        }
        let s = stats(&samples);
        println!("| {name} | {bytes} | {:.2} | {:.2} | {:.2} |", s.median, s.p95, s.max);
    }
    app.close().await;
    Ok(())
}
