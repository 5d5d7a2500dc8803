//! Test runs (the web app's "Test run" of an unsaved script) on a real
//! Chromium against the local fixture site: the result comes back, nothing
//! is stored or sent, the organization is charged.

use crate::common;

use std::sync::Arc;
use std::time::Duration;

use common::receiver::Receiver;
use common::{Account, TestApp, fixture};
use reqwest::StatusCode;
use serde_json::json;
use svc_domain::plan::Plan;
use svc_engine::ScriptResult;
use svc_server::webhook_client::HttpWebhookClient;
use svc_service::outbox::dispatcher::{DispatchConfig, Dispatcher};
use svc_service::paging::PageRequest;
use svc_service::runs::TestRun;
use svc_service::{Principal, ServiceError, Session};

const PRIVATE_OK: (&str, &str) = ("SVC_ALLOW_PRIVATE_NETWORKS", "true");
/// Webhook deliveries are sent by the test's own sweeps.
const NO_DISPATCHER: (&str, &str) = ("SVC_WEBHOOK_DISPATCHER", "false");

const ITEMS: &str = "returnData([...document.querySelectorAll('li.item')].map(li => li.textContent))";

async fn session(app: &TestApp, account: &Account) -> Session {
    app.services.auth.session(&account.token).await.expect("session")
}

async fn balance(app: &TestApp, session: &Session) -> i64 {
    app.services.accounts.me(session).await.unwrap().1.balance
}

fn draft(url: &str, script: &str) -> TestRun {
    TestRun {
        url: url.to_string(),
        script: script.to_string(),
        params: vec![],
        param: None,
        scrap: None,
        scrapper: None,
    }
}

/// A dispatcher over the app's store whose `sweep` sends what is due.
fn dispatcher(app: &TestApp) -> Arc<Dispatcher> {
    Arc::new(Dispatcher::new(
        app.store.clone(),
        Arc::new(HttpWebhookClient::new(Duration::from_secs(10), true.into())),
        DispatchConfig {
            retry_delays: vec![],
            sweep_interval: Duration::from_secs(60),
            timeout: Duration::from_secs(10),
            max_in_flight: 16,
        },
        Arc::new(tokio::sync::Notify::new()),
    ))
}

#[tokio::test]
async fn a_test_run_returns_the_data_charges_and_stores_or_sends_nothing() {
    let site = fixture::start().await;
    let receiver = Receiver::start(&[]).await;
    let app = TestApp::start_with(&[PRIVATE_OK, NO_DISPATCHER]).await;
    let alice = app.signup("alice@example.com").await;
    app.store.set_plan(alice.org(), Plan::Growth).await.unwrap();
    let (status, hook) = app
        .post(
            "/api/developers/webhooks",
            &alice.token,
            json!({"url": receiver.url, "events": ["scrap.success", "scrap.failure"]}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{hook}");
    let hook = svc_domain::WebhookId::parse(hook["id"].as_str().unwrap()).unwrap();
    let me = session(&app, &alice).await;
    let before = balance(&app, &me).await;

    let script = "returnData([SVC.param, SVC.triggeredBy, ...[...document.querySelectorAll('li.item')].map(li => li.textContent)])";
    let run = TestRun {
        params: vec![svc_domain::scrap::ParamSet { key: "fr".into(), value: json!({"lang": "fr"}) }],
        param: Some("fr".into()),
        ..draft(&format!("{}/items/3", site.base), script)
    };
    let outcome = app.services.runs.test_run(&me, run).await.unwrap();
    match &outcome.result {
        ScriptResult::Data { json, length } => {
            assert_eq!(*length, 5);
            let data: serde_json::Value = serde_json::from_str(json).unwrap();
            assert_eq!(data, json!([{"key": "fr", "value": {"lang": "fr"}}, "user", "Item 0", "Item 1", "Item 2"]));
        }
        other => panic!("expected data, got {other:?}"),
    }
    assert!(outcome.duration_ms > 0);
    assert!(outcome.units >= 1);
    assert_eq!(outcome.snapshot, None);
    let after = balance(&app, &me).await;
    assert_eq!(after, before - outcome.units, "charged as a run");
    assert!(after < before, "lowered by at least one unit");

    // No history row, no activity, no webhook delivery.
    let principal: Principal = me.clone().into();
    let history = app.services.history.list(&principal, None, PageRequest::default()).await.unwrap();
    assert_eq!(history.total, 0, "{:?}", history.items);
    assert!(dispatcher(&app).sweep(chrono::Utc::now() + chrono::Duration::days(1)).await.unwrap().is_empty());
    assert!(receiver.hits().is_empty());
    let attempts = app.services.webhooks.deliveries(&me, hook, PageRequest::default()).await.unwrap();
    assert_eq!(attempts.total, 0);

    // A real run of the same script, for contrast: its row, and its delivery.
    let sid = app
        .scrap_with(&alice, json!({"title": "Items", "url": format!("{}/items/3", site.base), "request": ITEMS}))
        .await;
    let (status, row) = app.run_and_wait(&alice.token, &sid).await;
    assert_eq!(status, StatusCode::OK, "{row}");
    assert_eq!(app.services.history.list(&principal, None, PageRequest::default()).await.unwrap().total, 1);
    let sent = dispatcher(&app).sweep(chrono::Utc::now() + chrono::Duration::days(1)).await.unwrap();
    assert_eq!(sent.len(), 1, "{sent:?}");
    let hits = receiver.hits();
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].json()["historyId"], row["id"]);
}

#[tokio::test]
async fn a_failing_test_run_reports_the_failure() {
    let site = fixture::start().await;
    let app = TestApp::start_with(&[PRIVATE_OK, NO_DISPATCHER]).await;
    let alice = app.signup("alice@example.com").await;
    let me = session(&app, &alice).await;
    let before = balance(&app, &me).await;

    let outcome = app
        .services
        .runs
        .test_run(&me, draft(&format!("{}/items/3", site.base), "throw new Error('no prices today')"))
        .await
        .unwrap();
    match &outcome.result {
        ScriptResult::Failed { message } => assert!(message.contains("no prices today"), "{message}"),
        other => panic!("expected a failure, got {other:?}"),
    }
    // The author sees the page as it was (screenshot), never its markup.
    let capture = outcome.snapshot.clone().expect("a failure capture");
    let shot = capture["screenshot"].as_str().expect("a screenshot");
    assert!(shot.starts_with("iVBOR"), "a base64 PNG");
    assert!(capture.get("html").is_none(), "the page markup is for platform admins: {capture}");
    assert_eq!(balance(&app, &me).await, before - outcome.units);

    let outcome =
        app.services.runs.test_run(&me, draft(&format!("{}/status/404", site.base), "returnData([1])")).await.unwrap();
    match &outcome.result {
        ScriptResult::Failed { message } => assert!(message.contains("404"), "{message}"),
        other => panic!("expected a failure, got {other:?}"),
    }
    let principal: Principal = me.into();
    assert_eq!(app.services.history.list(&principal, None, PageRequest::default()).await.unwrap().total, 0);
}

#[tokio::test]
async fn a_test_run_needs_a_balance_and_a_web_url() {
    let site = fixture::start().await;
    let app = TestApp::start_with(&[PRIVATE_OK, NO_DISPATCHER]).await;
    let alice = app.signup("alice@example.com").await;
    let me = session(&app, &alice).await;
    let url = format!("{}/items/3", site.base);

    for bad in ["file:///etc/passwd", "javascript:alert(1)", "/items/3", ""] {
        match app.services.runs.test_run(&me, draft(bad, ITEMS)).await {
            Err(ServiceError::Validation { field, .. }) => assert_eq!(field, "url", "{bad}"),
            other => panic!("{bad}: expected a validation error on url, got {other:?}"),
        }
    }
    match app.services.runs.test_run(&me, draft(&url, " ")).await {
        Err(ServiceError::Validation { field, .. }) => assert_eq!(field, "request"),
        other => panic!("expected a validation error on request, got {other:?}"),
    }

    let left = balance(&app, &me).await;
    app.store.add_balance(alice.org(), -left).await.unwrap();
    match app.services.runs.test_run(&me, draft(&url, ITEMS)).await {
        Err(ServiceError::InsufficientBalance) => {}
        other => panic!("expected InsufficientBalance, got {other:?}"),
    }
    assert_eq!(balance(&app, &me).await, 0, "nothing charged");
}

/// A site whose `/held` page answers only once released, and which counts
/// the requests of each path.
struct HeldSite {
    base: String,
    hits: Arc<std::sync::Mutex<Vec<String>>>,
    release: tokio::sync::watch::Sender<bool>,
}

impl HeldSite {
    async fn start() -> HeldSite {
        use axum::extract::{Path, State};
        use axum::response::Html;
        type Shared = (Arc<std::sync::Mutex<Vec<String>>>, tokio::sync::watch::Receiver<bool>);
        async fn page(State((hits, mut released)): State<Shared>, Path(name): Path<String>) -> Html<String> {
            hits.lock().unwrap().push(name.clone());
            if name == "held" {
                let _ = released.wait_for(|r| *r).await;
            }
            Html(format!("<ul><li class=\"item\">{name}</li></ul>"))
        }
        let hits = Arc::new(std::sync::Mutex::new(Vec::new()));
        let (release, released) = tokio::sync::watch::channel(false);
        let router =
            axum::Router::new().route("/{name}", axum::routing::get(page)).with_state((hits.clone(), released));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, router).await });
        HeldSite { base, hits, release }
    }

    fn hits(&self, name: &str) -> usize {
        self.hits.lock().unwrap().iter().filter(|hit| *hit == name).count()
    }
}

/// Polls `done` until it holds, with a deadline.
async fn until(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while !done() {
        assert!(tokio::time::Instant::now() < deadline, "never: {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A test run takes one of the worker's run slots (`SVC_WORKER_CONCURRENCY`):
/// with one slot, busy with a queued run, the test run waits, and runs once
/// the slot is free.
#[tokio::test]
async fn a_test_run_waits_for_a_run_slot_of_the_worker() {
    let site = HeldSite::start().await;
    let app = TestApp::start_with(&[PRIVATE_OK, ("SVC_WORKER_CONCURRENCY", "1")]).await;
    let alice = app.signup("alice@example.com").await;
    let me = session(&app, &alice).await;
    let scrap = app
        .scrap_with(
            &alice,
            json!({"title": "Held", "url": format!("{}/held", site.base), "scrapper": "static", "request": ITEMS}),
        )
        .await;
    let (status, _) = app.post(&format!("/api/scraps/worker/{scrap}"), &alice.token, json!(null)).await;
    assert_eq!(status, StatusCode::ACCEPTED);
    until("the worker's run is on the held page", || site.hits("held") == 1).await;
    let used = app.services.runs.slot_use().expect("the embedded worker's slots");
    assert_eq!((used.capacity, used.busy, used.waiting), (1, 1, 0));

    let services = app.services.clone();
    let quick = TestRun { scrapper: Some("static".into()), ..draft(&format!("{}/quick", site.base), ITEMS) };
    let test_run = tokio::spawn(async move { services.runs.test_run(&me, quick).await });
    until("the test run waits for a slot", || app.services.runs.slot_use().unwrap().waiting == 1).await;
    assert_eq!(site.hits("quick"), 0, "the test run has not started");

    site.release.send(true).unwrap();
    let outcome = test_run.await.unwrap().expect("the test run ran");
    assert_eq!(outcome.result, ScriptResult::Data { json: "[\"quick\"]".into(), length: 1 });
    assert_eq!(site.hits("quick"), 1);
    until("every slot is free again", || app.services.runs.slot_use().unwrap().busy == 0).await;
}
