//! Outages and shutdown: the database going away under load (a TCP relay
//! between svc and PostgreSQL that the test cuts and restores), the store
//! closed, and what a shutdown leaves behind (webhook attempts in flight,
//! runs in flight past the grace period).

use crate::common;

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use common::held_page::HeldPage;
use common::receiver::Receiver;
use common::{Account, TestApp, assert_error};
use reqwest::StatusCode;
use serde_json::{Value, json};
use svc_domain::plan::Plan;
use svc_storage::testing::TestDb;
use tokio::net::{TcpListener, TcpSocket, TcpStream};
use tokio::sync::watch;
use tokio::time::Instant;

const PRIVATE_OK: (&str, &str) = ("SVC_ALLOW_PRIVATE_NETWORKS", "true");
/// How long the tests wait for what must happen (polling, never sleeping).
const DEADLINE: Duration = Duration::from_secs(60);

/// A TCP relay to PostgreSQL that the test cuts (the listener closes, so new
/// connections are refused, and every relayed connection is dropped, as
/// when the server goes down) and restores (on the same port).
struct Relay {
    addr: SocketAddr,
    up: watch::Sender<bool>,
}

impl Relay {
    async fn start(upstream: SocketAddr) -> Relay {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (up, up_rx) = watch::channel(true);
        tokio::spawn(async move {
            let mut listener = Some(listener);
            loop {
                let mut rx = up_rx.clone();
                if rx.wait_for(|up| *up).await.is_err() {
                    return;
                }
                let bound = match listener.take() {
                    Some(l) => l,
                    None => {
                        let socket = TcpSocket::new_v4().unwrap();
                        socket.set_reuseaddr(true).unwrap();
                        socket.bind(addr).unwrap();
                        socket.listen(64).unwrap()
                    }
                };
                loop {
                    tokio::select! {
                        accepted = bound.accept() => {
                            let Ok((client, _)) = accepted else { continue };
                            let mut cut = up_rx.clone();
                            tokio::spawn(async move {
                                let Ok(server) = TcpStream::connect(upstream).await else { return };
                                let (mut client, mut server) = (client, server);
                                tokio::select! {
                                    _ = tokio::io::copy_bidirectional(&mut client, &mut server) => {}
                                    _ = cut.wait_for(|up| !*up) => {}
                                }
                                // Dropped: both ends see the connection end.
                            });
                        }
                        _ = rx.wait_for(|up| !*up) => break,
                    }
                }
                // `bound` is dropped here: the port refuses connections.
            }
        });
        Relay { addr, up }
    }

    fn cut(&self) {
        self.up.send_replace(false);
    }

    fn restore(&self) {
        self.up.send_replace(true);
    }
}

/// The address of `db`'s PostgreSQL server, and `db`'s url through a relay on `port`.
fn via_relay(db: &TestDb, port: u16) -> (SocketAddr, String) {
    let url = url::Url::parse(&db.url).unwrap();
    let server = format!("{}:{}", url.host_str().unwrap(), url.port().unwrap_or(5432));
    let server = std::net::ToSocketAddrs::to_socket_addrs(&server).unwrap().find(|a| a.is_ipv4()).expect("IPv4");
    let mut through = url.clone();
    through.set_host(Some("127.0.0.1")).unwrap();
    through.set_port(Some(port)).unwrap();
    (server, through.to_string())
}

/// What one request got: status, body, `Retry-After`.
#[derive(Debug)]
struct Answer {
    status: StatusCode,
    body: Value,
    retry_after: Option<String>,
    /// How long the request took (reported, not asserted).
    took: Duration,
}

async fn answer(response: reqwest::Response) -> Answer {
    let status = response.status();
    let retry_after = response.headers().get("retry-after").map(|v| v.to_str().unwrap().to_string());
    let text = response.text().await.unwrap();
    let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
    Answer { status, body, retry_after, took: Duration::ZERO }
}

async fn readyz(app: &TestApp) -> Answer {
    answer(app.http.get(format!("{}/readyz", app.base)).send().await.expect("the server answers")).await
}

/// Polls `/readyz` until it answers `status`, with a deadline.
async fn ready_becomes(app: &TestApp, status: StatusCode) -> Answer {
    let deadline = Instant::now() + DEADLINE;
    loop {
        let got = readyz(app).await;
        if got.status == status {
            return got;
        }
        assert!(Instant::now() < deadline, "/readyz never answered {status}: {got:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A 503 for an unreachable database: the error shape, `UNAVAILABLE`, `Retry-After`.
fn assert_unavailable(got: &Answer) {
    assert_error(got.status, &got.body, StatusCode::SERVICE_UNAVAILABLE, "UNAVAILABLE");
    let secs: u64 = got.retry_after.as_deref().expect("Retry-After").parse().expect("Retry-After in seconds");
    assert!(secs > 0, "{got:?}");
}

async fn static_scrap(app: &TestApp, account: &Account, url: &str) -> String {
    let script = "returnData([...document.querySelectorAll('li.item')].map(li => li.textContent))";
    app.scrap_with(account, json!({"title": "Items", "url": url, "request": script, "scrapper": "static"})).await
}

/// Polls a history row until it is finished, with a deadline.
async fn finished_row(app: &TestApp, account: &Account, history: &str) -> Value {
    let deadline = Instant::now() + DEADLINE;
    loop {
        let (status, row) = app.get(&format!("/api/historys/{history}"), &account.token).await;
        assert_eq!(status, StatusCode::OK, "{row}");
        if !row["statusDetail"].is_null() {
            return row;
        }
        assert!(Instant::now() < deadline, "run {history} never finished: {row}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// PostgreSQL goes away under load and comes back: requests fail with 503
/// `UNAVAILABLE` and `Retry-After` (never a 500), `/readyz` says 503 while
/// `/healthz` stays 200, and once the database is back the same process
/// serves again, its worker runs every run that got a 202, and nothing panicked.
#[tokio::test]
async fn a_database_outage_answers_503_and_the_app_recovers_without_a_restart() {
    let Some(db) = TestDb::postgres().await else {
        println!("skipped outage::a_database_outage_...: SVC_TEST_POSTGRES_URL is not set");
        return;
    };
    let (server, _) = via_relay(&db, 0);
    let relay = Relay::start(server).await;
    let (_, url) = via_relay(&db, relay.addr.port());
    let page = HeldPage::start(0).await;
    let settings = [PRIVATE_OK, ("SVC_DATABASE_TIMEOUT", "2s"), ("SVC_RUN_TIMEOUT", "5s")];
    let app = TestApp::start_via(db, &url, &settings).await;
    let alice = app.signup("alice@example.com").await;
    let scrap = static_scrap(&app, &alice, &page.url).await;
    assert_eq!(readyz(&app).await.status, StatusCode::OK);

    // Load: four clients trigger runs one after another until told to stop.
    let stop = Arc::new(AtomicBool::new(false));
    let (tx, mut answers) = tokio::sync::mpsc::unbounded_channel::<Answer>();
    let mut clients = Vec::new();
    for _ in 0..4 {
        let (http, base, token, scrap, stop, tx) =
            (app.http.clone(), app.base.clone(), alice.token.clone(), scrap.clone(), stop.clone(), tx.clone());
        clients.push(tokio::spawn(async move {
            while !stop.load(Ordering::SeqCst) {
                let started = Instant::now();
                let sent = http.post(format!("{base}/api/scraps/worker/{scrap}")).bearer_auth(&token).send().await;
                let mut got = answer(sent.expect("the server answers every request")).await;
                got.took = started.elapsed();
                let _ = tx.send(got);
            }
        }));
    }
    drop(tx);
    let mut seen: Vec<Answer> = Vec::new();
    // Collects answers until `enough` holds for what came since `from`.
    async fn collect(
        answers: &mut tokio::sync::mpsc::UnboundedReceiver<Answer>,
        seen: &mut Vec<Answer>,
        what: &str,
        enough: impl Fn(&[Answer]) -> bool,
    ) {
        let from = seen.len();
        let deadline = Instant::now() + DEADLINE;
        while !enough(&seen[from..]) {
            let next = tokio::time::timeout_at(deadline, answers.recv()).await;
            match next {
                Ok(Some(a)) => seen.push(a),
                _ => panic!("never saw {what}; since then: {:?}", &seen[from..]),
            }
        }
    }
    let accepted = |a: &[Answer]| a.iter().filter(|a| a.status == StatusCode::ACCEPTED).count();
    let refused = |a: &[Answer]| a.iter().filter(|a| a.status == StatusCode::SERVICE_UNAVAILABLE).count();
    collect(&mut answers, &mut seen, "5 runs accepted before the outage", |a| accepted(a) >= 5).await;

    relay.cut();
    collect(&mut answers, &mut seen, "8 requests refused during the outage", |a| refused(a) >= 8).await;
    assert_unavailable(&ready_becomes(&app, StatusCode::SERVICE_UNAVAILABLE).await);
    let health = app.http.get(format!("{}/healthz", app.base)).send().await.unwrap();
    assert_eq!(health.status(), StatusCode::OK, "liveness does not depend on the database");

    relay.restore();
    let restored = Instant::now();
    let ready = ready_becomes(&app, StatusCode::OK).await;
    let ready_after = restored.elapsed();
    assert_eq!(ready.body["status"], "ready", "{:?}", ready.body);
    collect(&mut answers, &mut seen, "5 runs accepted after the outage", |a| accepted(a) >= 5).await;
    stop.store(true, Ordering::SeqCst);
    for client in clients {
        client.await.expect("no client panicked");
    }
    while let Some(a) = answers.recv().await {
        seen.push(a);
    }

    let (mut ok, mut unavailable) = (Vec::new(), 0);
    for a in &seen {
        match a.status {
            StatusCode::ACCEPTED => ok.push(a.body["historyId"].as_str().expect("historyId").to_string()),
            StatusCode::SERVICE_UNAVAILABLE => {
                assert_unavailable(a);
                unavailable += 1;
            }
            other => panic!("only 202 or 503 during an outage, got {other}: {a:?}"),
        }
    }
    assert!(unavailable >= 8 && ok.len() >= 10, "{unavailable} refused, {} accepted", ok.len());
    let slowest_503 = seen.iter().filter(|a| a.status == StatusCode::SERVICE_UNAVAILABLE).map(|a| a.took).max();
    println!(
        "outage: {} accepted, {unavailable} refused (slowest 503 {slowest_503:?}, SVC_DATABASE_TIMEOUT 2s); \
         /readyz 200 again {ready_after:?} after the restore",
        ok.len()
    );
    // Every accepted run has its row, and the worker (same process) ran it.
    for history in &ok {
        let row = finished_row(&app, &alice, history).await;
        assert_eq!(row["statusDetail"], "success", "{row}");
    }
    app.shut_down().await;
}

/// With SQLite too: a closed store makes `/readyz` and the API answer 503
/// `UNAVAILABLE` with `Retry-After`, while `/healthz` stays 200.
#[tokio::test]
async fn a_closed_store_answers_503_unavailable_on_readyz_and_the_api() {
    let app = TestApp::start().await;
    let alice = app.signup("alice@example.com").await;
    let ready = readyz(&app).await;
    assert_eq!((ready.status, ready.body["status"].as_str()), (StatusCode::OK, Some("ready")), "{ready:?}");
    assert_eq!(ready.body["database"], app.store.backend());

    app.store.close().await;
    assert_unavailable(&readyz(&app).await);
    let listed =
        answer(app.request(reqwest::Method::GET, "/api/scraps", Some(&alice.token)).send().await.unwrap()).await;
    assert_unavailable(&listed);
    let health = app.http.get(format!("{}/healthz", app.base)).send().await.unwrap();
    assert_eq!(health.status(), StatusCode::OK);
}

/// Shutdown while a webhook attempt is in flight: the app does not close its
/// store before the attempt is answered and recorded, so the attempt is not
/// sent a second time afterwards.
#[tokio::test]
async fn shutdown_waits_for_the_webhook_attempt_in_flight_and_records_it_once() {
    let page = HeldPage::start(0).await;
    let receiver = Receiver::holding().await;
    let app = TestApp::start_with(&[PRIVATE_OK]).await;
    let alice = app.signup("alice@example.com").await;
    app.store.set_plan(alice.org(), Plan::Growth).await.unwrap();
    let scrap = static_scrap(&app, &alice, &page.url).await;
    let (status, hook) = app
        .post("/api/developers/webhooks", &alice.token, json!({"url": receiver.url, "events": ["scrap.success"]}))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{hook}");
    let hook = hook["id"].as_str().unwrap().to_string();
    let (status, run) = app.run_and_wait(&alice.token, &scrap).await;
    assert_eq!((status, &run["statusDetail"]), (StatusCode::OK, &json!("success")), "{run}");
    receiver.wait_for(1, DEADLINE).await;

    // The receiver holds its answer: the app must not finish stopping.
    let mut stopping = Box::pin(app.shut_down());
    let early = tokio::time::timeout(Duration::from_secs(2), &mut stopping).await;
    assert!(early.is_err(), "the app stopped (and closed its store) with a webhook attempt unanswered");
    receiver.release();
    let db = stopping.await.expect("the test database");

    // Another process on the same database: the attempt is recorded, and
    // nothing is left to send.
    let again = TestApp::start_on_db(db, &[PRIVATE_OK]).await;
    let (status, log) =
        again.get(&format!("/api/developers/webhooks/{hook}/deliveries?perPage=100"), &alice.token).await;
    assert_eq!(status, StatusCode::OK, "{log}");
    let states: Vec<(i64, &str)> = log["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| (a["attempt"].as_i64().unwrap(), a["state"].as_str().unwrap()))
        .collect();
    assert_eq!(states, vec![(1, "delivered")], "{log}");
    let later = chrono::Utc::now() + chrono::Duration::days(1);
    let due = again.store.claim_deliveries(later, later + chrono::Duration::hours(1), 10).await.unwrap();
    assert!(due.is_empty(), "the delivered attempt is not sent again: {due:?}");
    assert_eq!(receiver.hits().len(), 1, "one request");
}

/// Shutdown with a run in flight past the grace period: the run is released
/// at once (not after its lease) and another worker runs it to the end,
/// without counting a retry.
#[tokio::test]
async fn a_run_still_going_after_the_grace_period_is_released_for_another_worker() {
    let page = HeldPage::start(1).await;
    let settings = [PRIVATE_OK, ("SVC_SHUTDOWN_GRACE", "500ms")];
    let first = TestApp::start_with(&settings).await;
    let alice = first.signup("alice@example.com").await;
    let scrap = static_scrap(&first, &alice, &page.url).await;
    let (status, accepted) = first.post(&format!("/api/scraps/worker/{scrap}"), &alice.token, json!({})).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{accepted}");
    let history = accepted["historyId"].as_str().unwrap().to_string();
    page.wait_for(1, DEADLINE).await;

    // The first app's worker holds the run; a second app (its own worker)
    // runs beside it, then the first one stops.
    let second = first.another_on_same_db(&settings).await;
    let db =
        tokio::time::timeout(DEADLINE, first.shut_down()).await.expect("the first app stops after its grace period");
    let row = finished_row(&second, &alice, &history).await;
    assert_eq!(row["statusDetail"], "success", "{row}");
    assert_eq!(row["retries"], 0, "a release is not a retry: {row}");
    assert_eq!(page.hits(), 2, "the held load, then the second worker's");
    page.release();
    second.shut_down().await;
    drop(db);
}
