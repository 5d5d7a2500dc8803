//! The in-process app on port 0 with a fresh database per test, and helpers
//! that speak HTTP to it. `SVC_TEST_BACKEND=postgres` (with
//! `SVC_TEST_POSTGRES_URL`) runs the same tests on PostgreSQL.

pub mod canary;
pub mod catalog_site;
pub mod chat_service;
pub mod fixture;
pub mod held_page;
pub mod login_site;
pub mod openai;
/// The upstream proxy and tier-gated site stand-ins, shared with svc-runner's tests.
#[path = "../../../../svc-runner/tests/runner/stand_ins.rs"]
#[allow(dead_code)]
pub mod proxies;
pub mod receiver;
pub mod site;
pub mod smtp;

use std::sync::Arc;

use chrono::Utc;
use reqwest::{Method, RequestBuilder, StatusCode};
use serde_json::{Value, json};
use svc_domain::history::{HistoryRow, StatusDetail, TriggeredBy};
use svc_domain::{OrgId, ScrapId};
use svc_server::{App, Config};
use svc_service::Services;
use svc_storage::Store;
use svc_storage::testing::TestDb;
use tokio::net::TcpListener;
use tokio::sync::oneshot;

pub struct TestApp {
    pub base: String,
    /// `http://ADDR` of `SVC_METRICS_LISTEN` when the test set it.
    pub metrics_base: Option<String>,
    pub http: reqwest::Client,
    pub services: Arc<Services>,
    /// The app's store, for fixtures that set up what no route can (finished
    /// runs, plans); what the tests check goes through HTTP or the services.
    pub store: Arc<dyn Store>,
    pub db_url: String,
    /// The master key settings this app started with (`SVC_SECRET_KEY...`),
    /// which `another_on_same_db` repeats.
    pub secret_settings: Vec<(String, String)>,
    shutdown: Option<oneshot::Sender<()>>,
    /// The serving task, which closes the store when it ends.
    served: Option<tokio::task::JoinHandle<Result<(), svc_server::LaunchError>>>,
    _db: Option<TestDb>,
}

/// A signed-up user.
pub struct Account {
    pub token: String,
    pub user_id: String,
    pub org_id: String,
    pub email: String,
}

impl Account {
    pub fn org(&self) -> OrgId {
        OrgId::parse(&self.org_id).unwrap()
    }
}

pub async fn fresh_db() -> TestDb {
    if std::env::var("SVC_TEST_BACKEND").as_deref() == Ok("postgres") {
        TestDb::postgres().await.expect("SVC_TEST_BACKEND=postgres needs SVC_TEST_POSTGRES_URL")
    } else {
        TestDb::sqlite()
    }
}

impl TestApp {
    pub async fn start() -> TestApp {
        Self::start_with(&[]).await
    }

    /// With extra `SVC_*` settings. The app seals with the test database's
    /// own master key (`SVC_SECRET_KEY`) unless `settings` name a key or a
    /// key file.
    pub async fn start_with(settings: &[(&str, &str)]) -> TestApp {
        let db = fresh_db().await;
        Self::start_on_db(db, settings).await
    }

    /// An app on `db` (which it keeps alive), as `start_with`.
    pub async fn start_on_db(db: TestDb, settings: &[(&str, &str)]) -> TestApp {
        let url = db.url.clone();
        let key = vec![("SVC_SECRET_KEY".to_string(), db.key().to_base64())];
        Self::start_on(&url, Some(db), settings, key).await
    }

    /// An app that reaches `db` at `url` (the same database by another
    /// route, such as a relay the test can cut), keeping `db` alive.
    pub async fn start_via(db: TestDb, url: &str, settings: &[(&str, &str)]) -> TestApp {
        let key = vec![("SVC_SECRET_KEY".to_string(), db.key().to_base64())];
        Self::start_on(url, Some(db), settings, key).await
    }

    /// Another app on this app's database (as a second `svc server` would
    /// be), with the same master key unless `settings` name one.
    pub async fn another_on_same_db(&self, settings: &[(&str, &str)]) -> TestApp {
        Self::start_on(&self.db_url, None, settings, self.secret_settings.clone()).await
    }

    /// The settings of an app on `db_url`: `settings`, after the master key
    /// settings `default_key` unless `settings` name a key or a key file.
    pub fn env(db_url: &str, settings: &[(&str, &str)], default_key: &[(String, String)]) -> Vec<(String, String)> {
        let mut env = vec![("SVC_DATABASE_URL".to_string(), db_url.to_string())];
        // The browser under test, when not the default one (scripts/test.sh
        // runs the run suites on Debian's headless shell too).
        if let Ok(chromium) = std::env::var("SVC_TEST_CHROMIUM") {
            env.push(("SVC_CHROMIUM".to_string(), chromium));
        }
        if !settings.iter().any(|(k, _)| *k == "SVC_SECRET_KEY" || *k == "SVC_SECRET_KEY_FILE") {
            env.extend(default_key.iter().cloned());
        }
        env.extend(settings.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        env
    }

    async fn start_on(
        db_url: &str,
        db: Option<TestDb>,
        settings: &[(&str, &str)],
        default_key: Vec<(String, String)>,
    ) -> TestApp {
        let env = Self::env(db_url, settings, &default_key);
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let bound = listener.local_addr().unwrap();
        let secret_settings: Vec<(String, String)> =
            env.iter().filter(|(k, _)| k.starts_with("SVC_SECRET_KEY")).cloned().collect();
        let config = Config::load(None, env).expect("test config").listening_on(bound);
        let mut app = App::build(config).await.expect("build app");
        let metrics_base = app.bind_metrics().await.expect("bind SVC_METRICS_LISTEN").map(|a| format!("http://{a}"));
        let services = app.services().clone();
        let store = app.store().clone();
        let base = format!("http://{bound}");
        let (tx, rx) = oneshot::channel::<()>();
        let served = tokio::spawn(app.serve(listener, async move {
            let _ = rx.await;
        }));
        TestApp {
            base,
            metrics_base,
            http: reqwest::Client::new(),
            services,
            store,
            db_url: db_url.to_string(),
            secret_settings,
            shutdown: Some(tx),
            served: Some(served),
            _db: db,
        }
    }

    pub fn request(&self, method: Method, path: &str, bearer: Option<&str>) -> RequestBuilder {
        let r = self.http.request(method, format!("{}{}", self.base, path));
        match bearer {
            Some(b) => r.bearer_auth(b),
            None => r,
        }
    }

    /// Sends and returns status and JSON body (`Null` for an empty body).
    pub async fn send(&self, r: RequestBuilder) -> (StatusCode, Value) {
        let response = r.send().await.expect("request");
        let status = response.status();
        let text = response.text().await.unwrap();
        let body =
            if text.is_empty() { Value::Null } else { serde_json::from_str(&text).unwrap_or(Value::String(text)) };
        (status, body)
    }

    pub async fn get(&self, path: &str, bearer: &str) -> (StatusCode, Value) {
        self.send(self.request(Method::GET, path, Some(bearer))).await
    }

    pub async fn post(&self, path: &str, bearer: &str, body: Value) -> (StatusCode, Value) {
        self.send(self.request(Method::POST, path, Some(bearer)).json(&body)).await
    }

    pub async fn put(&self, path: &str, bearer: &str, body: Value) -> (StatusCode, Value) {
        self.send(self.request(Method::PUT, path, Some(bearer)).json(&body)).await
    }

    pub async fn delete(&self, path: &str, bearer: &str) -> (StatusCode, Value) {
        self.send(self.request(Method::DELETE, path, Some(bearer))).await
    }

    /// Confirms a recipient as its person does: the link's page, then its
    /// button (a `POST`). Answers the status and the page.
    pub async fn confirm_recipient(&self, token: &str) -> (StatusCode, String) {
        let url = format!("{}/recipients/confirm?token={token}", self.base);
        let res = self.http.post(&url).send().await.unwrap();
        let status = res.status();
        (status, res.text().await.unwrap())
    }

    /// The scrap's activities of `kind`, once there are `n` or more (polled
    /// for up to a minute: a run's emails are decided as it finishes, and a
    /// delivery's entry is written once the receiver has answered).
    pub async fn activities_of(&self, account: &Account, scrap: &str, kind: &str, n: usize) -> Vec<Value> {
        let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(60);
        loop {
            let (_, log) = self.get(&format!("/api/scraps/{scrap}/activities?perPage=100"), &account.token).await;
            let found: Vec<Value> =
                log["data"].as_array().unwrap().iter().filter(|a| a["type"] == kind).cloned().collect();
            if found.len() >= n {
                return found;
            }
            assert!(tokio::time::Instant::now() < deadline, "fewer than {n} `{kind}`: {log}");
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
    }

    /// Confirms the recipient whose confirmation mail is `mail`.
    pub async fn confirm_by_mail(&self, mail: &smtp::Captured) {
        let (status, page) = self.confirm_recipient(&mail.confirmation_token()).await;
        assert_eq!(status, StatusCode::OK, "{page}");
    }

    pub async fn signup(&self, email: &str) -> Account {
        let (status, body) = self
            .send(
                self.request(Method::POST, "/api/auth/signup", None)
                    .json(&json!({"email": email, "password": "password-123"})),
            )
            .await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
        Account {
            token: body["token"].as_str().unwrap().to_string(),
            user_id: body["user"]["id"].as_str().unwrap().to_string(),
            org_id: body["organization"]["id"].as_str().unwrap().to_string(),
            email: email.to_string(),
        }
    }

    /// Creates a scrap with `title` and returns its JSON.
    pub async fn create_scrap(&self, account: &Account, title: &str) -> Value {
        let body = json!({"title": title, "url": "https://example.com/items", "request": "returnData([1, 2, 3])"});
        let (status, scrap) = self.post("/api/scraps", &account.token, body).await;
        assert_eq!(status, StatusCode::CREATED, "{scrap}");
        scrap
    }

    /// Creates a key with `body` and returns `(id, plainKey)`.
    pub async fn create_key(&self, account: &Account, body: Value) -> (String, String) {
        let (status, key) = self.post("/api/developers/keys", &account.token, body).await;
        assert_eq!(status, StatusCode::OK, "{key}");
        (key["id"].as_str().unwrap().to_string(), key["plainKey"].as_str().unwrap().to_string())
    }

    /// Creates a scrap from a JSON body and returns its id.
    pub async fn scrap_with(&self, account: &Account, body: Value) -> String {
        let (status, scrap) = self.post("/api/scraps", &account.token, body).await;
        assert_eq!(status, StatusCode::CREATED, "{scrap}");
        scrap["id"].as_str().unwrap().to_string()
    }

    /// Triggers a run and waits (server-side, up to 60 s) for its end; returns the status and body.
    pub async fn run_and_wait(&self, bearer: &str, scrap: &str) -> (StatusCode, Value) {
        self.send(self.request(Method::POST, &format!("/api/scraps/worker/{scrap}?wait=60"), Some(bearer))).await
    }

    /// Stores a finished run of `scrap`, as the run workers will.
    pub async fn insert_run(&self, account: &Account, scrap: &str, detail: Option<StatusDetail>) -> HistoryRow {
        let mut row =
            HistoryRow::pending(ScrapId::parse(scrap).unwrap(), account.org(), TriggeredBy::Api, "tier0", Utc::now());
        row.status_detail = detail;
        row.data = "[{\"n\":1}]".into();
        row.length = 1;
        row.time_ms = Some(120);
        row.costs = Some(svc_domain::costs::Costs::of_loads(2048, 0.0, true));
        row.meter = Some(svc_domain::meter::Meter::of_loads(1, 1, Some(0)));
        row.error_snapshot = Some(json!({"html": "<html></html>", "selector": null, "screenshot": null}));
        row.finished_at = Some(Utc::now());
        self.store.insert_history(&row).await.unwrap();
        row
    }
}

impl TestApp {
    /// Stops this app (as a server going down would) and hands back its
    /// database, which outlives it.
    pub fn stop(mut self) -> Option<TestDb> {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        self._db.take()
    }

    /// Stops this app and waits until it has stopped and closed its store
    /// (its database files are then as a stopped server leaves them).
    pub async fn shut_down(mut self) -> Option<TestDb> {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(served) = self.served.take() {
            served.await.expect("the app stops").expect("the app served");
        }
        self._db.take()
    }
}

impl Drop for TestApp {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
    }
}

/// Asserts the error shape `{type, message, description, code}` and the code.
pub fn assert_error(status: StatusCode, body: &Value, expected_status: StatusCode, code: &str) {
    assert_eq!(status, expected_status, "{body}");
    assert_eq!(body["type"], "error", "{body}");
    assert_eq!(body["code"], code, "{body}");
    assert!(body["message"].as_str().is_some_and(|m| !m.is_empty()), "{body}");
    assert!(body["description"].as_str().is_some_and(|m| !m.is_empty()), "{body}");
}

/// Parses CSV as svc writes it (the run page's download, email attachments),
/// strictly RFC 4180: CRLF after every record, quotes doubled.
pub fn parse_csv(text: &str) -> Vec<Vec<String>> {
    let (mut records, mut record, mut field) = (Vec::new(), Vec::new(), String::new());
    let (mut quoted, mut was_quoted) = (false, false);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if quoted {
            match c {
                '"' if chars.peek() == Some(&'"') => {
                    chars.next();
                    field.push('"');
                }
                '"' => quoted = false,
                c => field.push(c),
            }
            continue;
        }
        match c {
            '"' if field.is_empty() && !was_quoted => (quoted, was_quoted) = (true, true),
            ',' => {
                record.push(std::mem::take(&mut field));
                was_quoted = false;
            }
            '\r' => {
                assert_eq!(chars.next(), Some('\n'), "a record ends in CRLF");
                record.push(std::mem::take(&mut field));
                records.push(std::mem::take(&mut record));
                was_quoted = false;
            }
            '\n' => panic!("a bare LF outside quotes"),
            '"' => panic!("a quote inside an unquoted field"),
            c => field.push(c),
        }
    }
    assert!(field.is_empty() && record.is_empty() && !quoted, "the last record ends in CRLF");
    records
}
