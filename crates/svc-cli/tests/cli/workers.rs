//! `svc worker` processes on PostgreSQL (skipped without
//! `SVC_TEST_POSTGRES_URL`): a worker killed with SIGKILL mid-run, whose
//! run another worker retries after its lease, and a worker stopped with
//! SIGTERM past its grace period, whose run another worker takes at once.
//! The API is the in-process app (no embedded worker) on the same database.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use svc_domain::plan::Plan;
use svc_server::{App, Config};
use svc_storage::testing::TestDb;
use tokio::net::TcpListener;

#[path = "../../../svc-server/tests/api/common/held_page.rs"]
mod held_page;

use crate::process::SvcProcess;
use crate::receiver::Receiver;
use held_page::HeldPage;

/// How long the tests wait for what must happen (polling, never sleeping):
/// longer than a lease (`SVC_RUN_TIMEOUT` + 30 s) and a reaper's round (10 s).
const DEADLINE: Duration = Duration::from_secs(120);

/// The API on `db` in this process, without a worker of its own.
struct Api {
    base: String,
    http: reqwest::Client,
    token: String,
    _stop: tokio::sync::oneshot::Sender<()>,
}

impl Api {
    /// Starts the app, signs a Growth user up, and creates a `static` scrap
    /// of `page` with a webhook to `receiver`; returns the scrap id.
    async fn start(db: &TestDb, page: &HeldPage, receiver: &Receiver) -> (Api, String) {
        let env = [
            ("SVC_DATABASE_URL", db.url.clone()),
            ("SVC_SECRET_KEY", db.key().to_base64()),
            ("SVC_ALLOW_PRIVATE_NETWORKS", "true".into()),
            ("SVC_EMBEDDED_WORKER", "false".into()),
            ("SVC_SCHEDULER", "false".into()),
        ];
        let config = Config::load(None, env.map(|(k, v)| (k.to_string(), v))).unwrap();
        let app = App::build(config).await.unwrap();
        let store = app.store().clone();
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        tokio::spawn(app.serve(listener, async move {
            let _ = stopped.await;
        }));
        let http = reqwest::Client::new();
        let signup: Value = http
            .post(format!("{base}/api/auth/signup"))
            .json(&json!({"email": "alice@example.com", "password": "password-123"}))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let token = signup["token"].as_str().expect("a token").to_string();
        let org = svc_domain::OrgId::parse(signup["organization"]["id"].as_str().unwrap()).unwrap();
        store.set_plan(org, Plan::Growth).await.unwrap();
        let api = Api { base, http, token, _stop: stop };
        let script = "returnData([...document.querySelectorAll('li.item')].map(li => li.textContent))";
        let scrap = api
            .post("/api/scraps", json!({"title": "Items", "url": page.url, "request": script, "scrapper": "static"}))
            .await;
        api.post(
            "/api/developers/webhooks",
            json!({"url": receiver.url, "events": ["scrap.success", "scrap.failure"]}),
        )
        .await;
        (api, scrap["id"].as_str().unwrap().to_string())
    }

    async fn post(&self, path: &str, body: Value) -> Value {
        let response =
            self.http.post(format!("{}{path}", self.base)).bearer_auth(&self.token).json(&body).send().await.unwrap();
        assert!(response.status().is_success(), "{path}: {}", response.status());
        response.json().await.unwrap()
    }

    async fn get(&self, path: &str) -> Value {
        let response = self.http.get(format!("{}{path}", self.base)).bearer_auth(&self.token).send().await.unwrap();
        assert!(response.status().is_success(), "{path}: {}", response.status());
        response.json().await.unwrap()
    }

    async fn trigger(&self, scrap: &str) -> String {
        let accepted = self.post(&format!("/api/scraps/worker/{scrap}"), json!({})).await;
        accepted["historyId"].as_str().unwrap().to_string()
    }

    /// Polls the run until it is finished, with a deadline.
    async fn finished(&self, history: &str) -> Value {
        let deadline = Instant::now() + DEADLINE;
        loop {
            let row = self.get(&format!("/api/historys/{history}")).await;
            if !row["statusDetail"].is_null() {
                return row;
            }
            assert!(Instant::now() < deadline, "run {history} never finished: {row}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Polls the webhook's delivery log until an attempt is recorded, with a deadline.
    async fn recorded_attempts(&self) -> Vec<Value> {
        let hooks = self.get("/api/developers/webhooks").await;
        let hook = hooks["data"][0]["id"].as_str().unwrap().to_string();
        let deadline = Instant::now() + DEADLINE;
        loop {
            let log = self.get(&format!("/api/developers/webhooks/{hook}/deliveries?perPage=100")).await;
            let attempts = log["data"].as_array().unwrap().clone();
            if !attempts.is_empty() {
                return attempts;
            }
            assert!(Instant::now() < deadline, "no webhook attempt recorded");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

/// A worker killed with SIGKILL while its run's page load is in flight:
/// another worker retries the run after the lease, and the run's webhook
/// is delivered exactly once.
#[tokio::test(flavor = "multi_thread")]
async fn a_worker_killed_mid_run_is_retried_by_another_after_its_lease_and_its_webhook_fires_once() {
    let Some(db) = TestDb::postgres().await else {
        println!("skipped workers::a_worker_killed_mid_run_...: SVC_TEST_POSTGRES_URL is not set");
        return;
    };
    let page = HeldPage::start(1).await;
    let receiver = Receiver::start(&[]).await;
    let (api, scrap) = Api::start(&db, &page, &receiver).await;
    // The lease is SVC_RUN_TIMEOUT + 30 s.
    let short_lease = [("SVC_RUN_TIMEOUT", "5s")];
    let mut first = SvcProcess::worker(&db, "default", &short_lease);
    let history = api.trigger(&scrap).await;
    page.wait_for(1, DEADLINE).await;
    first.signal("KILL");
    let status = first.exited();
    assert_eq!(status.code(), None, "killed by a signal: {status:?}");

    let _second = SvcProcess::worker(&db, "default", &short_lease);
    let row = api.finished(&history).await;
    assert_eq!(row["statusDetail"], "success", "{row}");
    assert_eq!(row["retries"], 1, "retried once: {row}");
    assert_eq!(page.hits(), 2, "the killed worker's load, then the retry's");
    let attempts = api.recorded_attempts().await;
    let states: Vec<(i64, &str)> =
        attempts.iter().map(|a| (a["attempt"].as_i64().unwrap(), a["state"].as_str().unwrap())).collect();
    assert_eq!(states, vec![(1, "delivered")], "{attempts:?}");
    let hits = receiver.hits();
    assert_eq!(hits.len(), 1, "one delivery");
    assert_eq!(hits[0].json()["historyId"], json!(history));
    page.release();
}

/// A worker stopped with SIGTERM while its run cannot finish within
/// `SVC_SHUTDOWN_GRACE`: it releases the run as it stops, and the other
/// worker runs it at once (not after the lease: no retry is counted), and
/// the run's webhook fires once.
#[tokio::test(flavor = "multi_thread")]
async fn a_worker_stopped_past_its_grace_period_releases_its_run_to_another_at_once() {
    let Some(db) = TestDb::postgres().await else {
        println!("skipped workers::a_worker_stopped_past_...: SVC_TEST_POSTGRES_URL is not set");
        return;
    };
    let page = HeldPage::start(1).await;
    let receiver = Receiver::start(&[]).await;
    let (api, scrap) = Api::start(&db, &page, &receiver).await;
    let mut first = SvcProcess::worker(&db, "default", &[("SVC_SHUTDOWN_GRACE", "1s")]);
    let history = api.trigger(&scrap).await;
    page.wait_for(1, DEADLINE).await;
    let _second = SvcProcess::worker(&db, "default", &[]);

    first.signal("TERM");
    let status = first.exited();
    assert_eq!(status.code(), Some(0), "a clean stop: {status:?}");
    let row = api.finished(&history).await;
    assert_eq!(row["statusDetail"], "success", "{row}");
    assert_eq!(row["retries"], 0, "released, not expired: {row}");
    assert_eq!(page.hits(), 2);
    let attempts = api.recorded_attempts().await;
    assert_eq!(attempts.len(), 1, "{attempts:?}");
    assert_eq!(attempts[0]["state"], "delivered");
    assert_eq!(receiver.hits().len(), 1, "one delivery");
    page.release();
}
