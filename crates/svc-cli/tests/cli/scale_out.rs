//! Scale-out on PostgreSQL (skipped without `SVC_TEST_POSTGRES_URL`): two
//! `svc server` processes and two `svc worker` processes on one database,
//! started at once, as docs/several-nodes.md describes them. The
//! servers serve the API and each runs the scheduler and the webhook
//! dispatcher, without an embedded worker: the workers do every run (and
//! send webhooks too), so that their logs tell which one ran each.
//!
//! - 200 triggers, spread over both servers, each run once by one of the
//!   workers (the target site numbers its requests, so a run executed twice
//!   would show), and each run's webhook sent once;
//! - a schedule firing every 5 seconds, watched for a minute: one tick per
//!   instant, although both servers' schedulers look for due ticks;
//! - the trigger limit per key and the log-in limit per email hold across
//!   both servers, for requests sent to both at once.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, Utc};
use reqwest::Method;
use serde_json::{Value, json};
use svc_storage::testing::TestDb;
use tokio::net::TcpListener;
use tokio::task::JoinSet;

use crate::process::SvcProcess;
use crate::receiver::Receiver;

/// How long the tests wait for what must happen (polling, never sleeping).
const DEADLINE: Duration = Duration::from_secs(180);
const PASSWORD: &str = "password-123";
/// The script of every scrap here: the items' text (the site's request number).
const SCRIPT: &str = "returnData([...document.querySelectorAll('li.item')].map(li => li.textContent))";

/// A target site that numbers the requests for its pages (`/static`,
/// `/browser`) across paths, and answers each with its number as the one
/// item: a run's data says which request was its page load.
#[derive(Clone)]
struct CountingSite {
    base: String,
    hits: Hits,
}

/// `(path, number)` of every page request, in order.
type Hits = Arc<Mutex<Vec<(String, u64)>>>;

async fn numbered(State(hits): State<Hits>, request: Request) -> Response {
    let path = request.uri().path().to_string();
    if path != "/static" && path != "/browser" {
        return StatusCode::NOT_FOUND.into_response();
    }
    let n = {
        let mut hits = hits.lock().unwrap();
        let n = hits.len() as u64 + 1;
        hits.push((path, n));
        n
    };
    let html = format!(
        "<!doctype html><html><head><title>Counter</title></head><body><ul><li class=\"item\">{n}</li></ul></body></html>"
    );
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], html).into_response()
}

impl CountingSite {
    async fn start() -> CountingSite {
        let hits = Hits::default();
        let app = Router::new().fallback(numbered).with_state(hits.clone());
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        CountingSite { base, hits }
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    fn hits(&self) -> Vec<(String, u64)> {
        self.hits.lock().unwrap().clone()
    }
}

/// An HTTP answer: status, `Retry-After` (when sent) and JSON body (`Null` when none).
struct Answer {
    status: u16,
    retry_after: Option<u64>,
    body: Value,
}

/// The two servers' base URLs, and a client for them.
#[derive(Clone)]
struct Api {
    bases: Vec<String>,
    http: reqwest::Client,
}

impl Api {
    async fn call(
        &self,
        server: usize,
        method: Method,
        path: &str,
        bearer: Option<&str>,
        body: Option<Value>,
    ) -> Answer {
        let mut request = self.http.request(method, format!("{}{path}", self.bases[server]));
        if let Some(bearer) = bearer {
            request = request.bearer_auth(bearer);
        }
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.unwrap_or_else(|e| panic!("{path} on server {server}: {e}"));
        let status = response.status().as_u16();
        let retry_after = response
            .headers()
            .get(header::RETRY_AFTER)
            .map(|v| v.to_str().unwrap().parse().expect("Retry-After in seconds"));
        let bytes = response.bytes().await.unwrap();
        let body = if bytes.is_empty() { Value::Null } else { serde_json::from_slice(&bytes).expect("a JSON body") };
        Answer { status, retry_after, body }
    }

    /// A call that must succeed; its body.
    async fn ok(&self, server: usize, method: Method, path: &str, bearer: &str, body: Option<Value>) -> Value {
        let answer = self.call(server, method, path, Some(bearer), body).await;
        assert!((200..300).contains(&answer.status), "{path} on server {server}: {} {}", answer.status, answer.body);
        answer.body
    }

    /// Signs `email` up on server 0; the session token.
    async fn sign_up(&self, email: &str) -> String {
        let body = json!({"email": email, "password": PASSWORD});
        let answer = self.call(0, Method::POST, "/api/auth/signup", None, Some(body)).await;
        assert_eq!(answer.status, 201, "{}", answer.body);
        answer.body["token"].as_str().unwrap().to_string()
    }

    /// Creates a scrap of `url` on `scrapper` with `SCRIPT` (and `extra`
    /// fields) on `server`; its JSON.
    async fn create_scrap(&self, server: usize, jwt: &str, url: &str, scrapper: &str, extra: Value) -> Value {
        let mut body =
            json!({"title": format!("Counter ({scrapper})"), "url": url, "request": SCRIPT, "scrapper": scrapper});
        body.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        self.ok(server, Method::POST, "/api/scraps", jwt, Some(body)).await
    }

    /// Every item of a list endpoint, read 100 a page from `server`.
    async fn all(&self, server: usize, jwt: &str, path: &str) -> Vec<Value> {
        let mut items = Vec::new();
        let joint = if path.contains('?') { '&' } else { '?' };
        for page in 1.. {
            let list = self.ok(server, Method::GET, &format!("{path}{joint}perPage=100&page={page}"), jwt, None).await;
            let data = list["data"].as_array().unwrap();
            items.extend(data.iter().cloned());
            if data.is_empty() || items.len() as u64 >= list["total"].as_u64().unwrap() {
                break;
            }
        }
        items
    }

    /// Polls a history list (`/api/historys...`, from both servers in turn)
    /// until `ready` says it holds what the test waits for, with a deadline.
    async fn history_until(&self, jwt: &str, path: &str, ready: impl Fn(&[Value]) -> bool) -> Vec<Value> {
        let deadline = Instant::now() + DEADLINE;
        for round in 0usize.. {
            let rows = self.all(round % 2, jwt, path).await;
            if ready(&rows) {
                return rows;
            }
            assert!(Instant::now() < deadline, "the history never got there: {} rows", rows.len());
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
        unreachable!()
    }
}

/// Two `svc server` processes and `workers` `svc worker --id default`
/// processes on one database, all started at once; killed on drop.
struct Cluster {
    api: Api,
    servers: Vec<SvcProcess>,
    workers: Vec<SvcProcess>,
}

impl Cluster {
    /// `server_env` goes to both servers on top of theirs: each listens on
    /// a port of its choosing and has no embedded worker; the scheduler and
    /// the webhook dispatcher are on (the defaults). The workers log each
    /// run they finish (`run finished history=...`, debug).
    fn start(db: &TestDb, workers: usize, server_env: &[(&str, &str)]) -> Cluster {
        let mut env = vec![("SVC_LISTEN", "127.0.0.1:0"), ("SVC_EMBEDDED_WORKER", "false")];
        env.extend_from_slice(server_env);
        let servers: Vec<SvcProcess> = (0..2).map(|_| SvcProcess::start(db, &["server"], &env)).collect();
        let worker_env = [("RUST_LOG", "info,svc_service::runs::worker=debug")];
        let workers: Vec<SvcProcess> =
            (0..workers).map(|_| SvcProcess::start(db, &["worker", "--id", "default"], &worker_env)).collect();
        let bases = servers.iter().map(SvcProcess::listening).collect();
        for worker in &workers {
            worker.wait_line(|l| l.starts_with("svc: worker for container `default` (database: postgres)"));
        }
        Cluster { api: Api { bases, http: reqwest::Client::new() }, servers, workers }
    }

    /// The warnings and errors in `server`'s log, for a failure's message.
    fn server_trouble(&self, server: usize) -> String {
        let lines = self.servers[server].lines();
        lines.into_iter().filter(|l| l.contains(" WARN ") || l.contains(" ERROR ")).collect::<Vec<_>>().join("\n")
    }

    /// The history ids of the runs each worker finished, from its log.
    fn finished_by_worker(&self) -> Vec<Vec<String>> {
        self.workers
            .iter()
            .map(|worker| {
                worker
                    .lines()
                    .iter()
                    .filter(|l| l.contains("run finished"))
                    .map(|l| {
                        l.split(|c: char| !c.is_ascii_alphanumeric())
                            .find(|w| w.len() == 24 && w.bytes().all(|b| b.is_ascii_hexdigit()))
                            .unwrap_or_else(|| panic!("a history id in {l:?}"))
                            .to_string()
                    })
                    .collect()
            })
            .collect()
    }
}

/// A fresh PostgreSQL database, or `None` (the test named `test` is
/// skipped) without `SVC_TEST_POSTGRES_URL`.
async fn postgres(test: &str) -> Option<TestDb> {
    let db = TestDb::postgres().await;
    if db.is_none() {
        println!("skipped {test}: SVC_TEST_POSTGRES_URL is not set");
    }
    db
}

/// `svc admin ARGS` on `db`, which must succeed.
fn admin(db: &TestDb, args: &[&str]) {
    let mut all = vec!["admin"];
    all.extend_from_slice(args);
    let mut command = SvcProcess::start(db, &all, &[]);
    let status = command.exited();
    assert_eq!(status.code(), Some(0), "svc {all:?}: {}", command.lines().join("\n"));
}

fn time(iso: &Value) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(iso.as_str().expect("a timestamp")).expect("RFC 3339").with_timezone(&Utc)
}

/// 200 triggers with API keys, alternately on either server (four keys,
/// 50 triggers each, each key on both servers: under the limit of 60 per
/// key): every one is accepted, every run ends `success` once, each by one
/// worker (both work), the site saw each run's page load once, and each
/// run's webhook arrives once although four dispatchers share the outbox.
///
/// 196 runs use the `static` engine, 4 the browser: both engines run in
/// the worker processes, and the bulk stays cheap on a 2-core machine
/// (two workers with a browser each would spend the test's time starting
/// renderers, not proving anything about several nodes).
#[tokio::test(flavor = "multi_thread")]
async fn two_servers_and_two_workers_run_each_of_200_triggers_once_and_send_each_webhook_once() {
    let Some(db) = postgres("scale_out::two_servers_and_two_workers_run_...").await else { return };
    let site = CountingSite::start().await;
    let receiver = Receiver::start(&[]).await;
    let cluster = Cluster::start(&db, 2, &[]);
    let api = cluster.api.clone();

    // Signed up on server 0, the session works on server 1: one JWT
    // secret, generated once in the database.
    let jwt = api.sign_up("alice@example.com").await;
    admin(&db, &["set-plan", "--email", "alice@example.com", "--plan", "growth"]);
    let static_scrap = api.create_scrap(1, &jwt, &site.url("/static"), "static", json!({})).await;
    let browser_scrap = api.create_scrap(0, &jwt, &site.url("/browser"), "puppeteer", json!({})).await;
    let hook = json!({"url": receiver.url, "events": ["scrap.success", "scrap.failure"]});
    api.ok(1, Method::POST, "/api/developers/webhooks", &jwt, Some(hook)).await;
    let mut keys = Vec::new();
    for k in 0..4 {
        let key =
            api.ok(k % 2, Method::POST, "/api/developers/keys", &jwt, Some(json!({"name": format!("k{k}")}))).await;
        keys.push(key["plainKey"].as_str().unwrap().to_string());
    }

    let started = Instant::now();
    let mut triggers = JoinSet::new();
    for i in 0..200usize {
        let api = api.clone();
        let server = i % 2;
        let key = keys[(i / 2) % 4].clone();
        let (scrap, path) = if i % 50 == 25 { (&browser_scrap, "/browser") } else { (&static_scrap, "/static") };
        let route = format!("/api/scraps/worker/{}", scrap["id"].as_str().unwrap());
        triggers.spawn(async move {
            let answer = api.call(server, Method::POST, &route, Some(&key), None).await;
            (i, answer, path)
        });
    }
    // history id -> the page its run loads.
    let mut paths: HashMap<String, &str> = HashMap::new();
    while let Some(done) = triggers.join_next().await {
        let (i, answer, path) = done.unwrap();
        let server = i % 2;
        assert_eq!(
            answer.status,
            202,
            "trigger {i} on server {server}: {}\n{}",
            answer.body,
            cluster.server_trouble(server)
        );
        let history = answer.body["historyId"].as_str().unwrap().to_string();
        assert!(paths.insert(history, path).is_none(), "a history id given twice");
    }
    let accepted = started.elapsed();

    let rows = api
        .history_until(&jwt, "/api/historys", |rows| {
            rows.len() >= 200 && rows.iter().all(|r| !r["statusDetail"].is_null())
        })
        .await;
    let finished = started.elapsed();
    assert_eq!(rows.len(), 200, "no other run was made");
    let mut numbers: BTreeMap<u64, String> = BTreeMap::new();
    for row in &rows {
        let id = row["id"].as_str().unwrap();
        assert!(paths.contains_key(id), "a run that was not triggered: {row}");
        assert_eq!(row["statusDetail"], "success", "{row}");
        assert_eq!(row["retries"], 0, "{row}");
        assert_eq!(row["triggeredBy"], "api", "{row}");
        let data: Vec<String> = serde_json::from_str(row["data"].as_str().unwrap()).unwrap();
        assert_eq!(data.len(), 1, "{row}");
        let n: u64 = data[0].parse().unwrap();
        assert!(numbers.insert(n, id.to_string()).is_none(), "two runs got page load {n}");
    }
    // The site saw 200 page loads, each one a run's (a run executed twice
    // would have loaded its page twice), each on the page of its scrap.
    let hits = site.hits();
    assert_eq!(hits.len(), 200, "page loads: {hits:?}");
    for (path, n) in &hits {
        let run = numbers.get(n).unwrap_or_else(|| panic!("page load {n} ({path}) is no run's"));
        assert_eq!(paths[run.as_str()], path, "run {run} loaded {path}");
    }

    // Each run finished by exactly one worker, and both did some.
    let by_worker = cluster.finished_by_worker();
    let mut finished_once: BTreeSet<&str> = BTreeSet::new();
    for ids in &by_worker {
        assert!(!ids.is_empty(), "a worker ran nothing: {:?}", by_worker.iter().map(Vec::len).collect::<Vec<_>>());
        for id in ids {
            assert!(finished_once.insert(id), "run {id} finished twice");
        }
    }
    assert_eq!(finished_once.len(), 200);
    assert!(finished_once.iter().all(|id| paths.contains_key(*id)));
    for worker in &cluster.workers {
        let lost: Vec<String> = worker.lines().into_iter().filter(|l| l.contains("lease was lost")).collect();
        assert!(lost.is_empty(), "{lost:?}");
    }

    // One webhook per run, although both servers and both workers dispatch.
    let deliveries = receiver.wait_for(200, DEADLINE).await;
    let delivered = started.elapsed();
    let mut hooked: BTreeSet<String> = BTreeSet::new();
    for hit in &deliveries {
        let history = hit.json()["historyId"].as_str().unwrap().to_string();
        assert!(paths.contains_key(&history), "{history}");
        assert!(hooked.insert(history.clone()), "webhook of {history} sent twice");
    }
    assert_eq!(receiver.hits().len(), 200, "no webhook sent twice");
    println!(
        "scale_out: 200 triggers accepted after {accepted:?}, finished after {finished:?} \
         (runs by worker: {:?}), webhooks delivered after {delivered:?}",
        by_worker.iter().map(Vec::len).collect::<Vec<_>>()
    );
}

/// The 5-second grid instant at or before `t` (milliseconds).
fn instant_of(t: DateTime<Utc>) -> i64 {
    t.timestamp_millis().div_euclid(5000) * 5000
}

/// A schedule firing every 5 seconds (six fields, seconds first), watched
/// for a minute of real time, with a scheduler in each server: each
/// instant from the first after the scrap was saved is fired exactly once
/// (a run, or a tick skipped because the previous run was still going),
/// none is missed, and every run succeeds.
#[tokio::test(flavor = "multi_thread")]
async fn a_seconds_cron_fires_once_per_instant_with_a_scheduler_in_each_server() {
    let Some(db) = postgres("scale_out::a_seconds_cron_fires_...").await else { return };
    let site = CountingSite::start().await;
    // Schedules may fire every second here (the default refuses more often than every minute).
    let cluster = Cluster::start(&db, 2, &[("SVC_CRON_MIN_INTERVAL", "1s")]);
    let api = cluster.api.clone();
    let jwt = api.sign_up("carol@example.com").await;
    let scrap = api.create_scrap(0, &jwt, &site.url("/static"), "static", json!({"cron": "*/5 * * * * *"})).await;
    let scrap_id = scrap["id"].as_str().unwrap().to_string();
    // The schedule's first instant: the first of the grid after the save.
    let first = instant_of(time(&scrap["createdAt"])) + 5000;
    let last_wanted = first + 55_000;

    // A cron run's row is written when its tick fires, which is at or after
    // its instant and before the next one (the scheduler fires the latest
    // instant due when it looks): its creation time names its instant.
    let rows = api
        .history_until(&jwt, &format!("/api/historys?scrap={scrap_id}"), |rows| {
            rows.iter().any(|r| instant_of(time(&r["createdAt"])) >= last_wanted)
                && rows.iter().all(|r| !r["statusDetail"].is_null() || instant_of(time(&r["createdAt"])) > last_wanted)
        })
        .await;
    let rows: Vec<&Value> = rows.iter().filter(|r| instant_of(time(&r["createdAt"])) <= last_wanted).collect();
    let activities = api.all(1, &jwt, &format!("/api/scraps/{scrap_id}/activities")).await;

    // Each instant's record: its run, or the activity that says why it was skipped.
    let mut fired: BTreeMap<i64, Vec<String>> = BTreeMap::new();
    for row in &rows {
        assert_eq!(row["triggeredBy"], "cron", "{row}");
        assert_eq!(row["statusDetail"], "success", "{row}");
        let at = instant_of(time(&row["createdAt"]));
        fired.entry(at).or_default().push(format!("run {}", row["id"]));
    }
    for activity in &activities {
        let message = activity["message"].as_str().unwrap();
        assert_ne!(activity["type"], "schedule.missed", "{activity}");
        if activity["type"] == "schedule.skipped" {
            let at = message.strip_prefix("Scheduled run of ").and_then(|m| m.split(' ').next()).unwrap();
            let at = time(&json!(at)).timestamp_millis();
            if at <= last_wanted {
                fired.entry(at).or_default().push(message.to_string());
            }
        }
    }
    // Each run was queued once: one `run.triggered` entry each.
    let triggered: Vec<&Value> =
        activities.iter().filter(|a| a["type"] == "run.triggered").map(|a| &a["historyId"]).collect();
    for row in &rows {
        assert_eq!(triggered.iter().filter(|h| **h == &row["id"]).count(), 1, "{row}");
    }
    let expected: Vec<i64> = (first..=last_wanted).step_by(5000).collect();
    let seen: Vec<i64> = fired.keys().copied().collect();
    assert_eq!(seen, expected, "one tick per instant, none missed: {fired:?}");
    for (at, records) in &fired {
        assert_eq!(records.len(), 1, "instant {at} fired {records:?}");
    }
    let skipped = expected.len() - rows.len();
    println!(
        "scale_out: {} instants over a minute: {} runs, {skipped} skipped (a run still going)",
        expected.len(),
        rows.len()
    );
}

/// The trigger limit (60 per key in any 15 minutes) and the log-in limit
/// (20 per email) are one bucket for both servers: 70 triggers sent to
/// both at once are 60 accepted and 10 refused with `Retry-After`, and one
/// more on either server is refused; likewise for 24 log-ins. Runs are
/// not needed here: no worker.
#[tokio::test(flavor = "multi_thread")]
async fn the_trigger_and_login_limits_hold_across_both_servers() {
    let Some(db) = postgres("scale_out::the_trigger_and_login_limits_...").await else { return };
    let site = CountingSite::start().await;
    let cluster = Cluster::start(&db, 0, &[]);
    let api = cluster.api.clone();
    let jwt = api.sign_up("dave@example.com").await;
    let scrap = api.create_scrap(1, &jwt, &site.url("/static"), "static", json!({})).await;
    let route = format!("/api/scraps/worker/{}", scrap["id"].as_str().unwrap());
    let key = api.ok(0, Method::POST, "/api/developers/keys", &jwt, Some(json!({"name": "limited"}))).await;
    let key = key["plainKey"].as_str().unwrap().to_string();

    let mut triggers = JoinSet::new();
    for i in 0..70usize {
        let (api, route, key) = (api.clone(), route.clone(), key.clone());
        triggers.spawn(async move { (i % 2, api.call(i % 2, Method::POST, &route, Some(&key), None).await) });
    }
    let mut accepted = [0usize; 2];
    let mut refused = 0;
    while let Some(done) = triggers.join_next().await {
        let (server, answer) = done.unwrap();
        match answer.status {
            202 => accepted[server] += 1,
            429 => {
                refused += 1;
                assert_rate_limited(&answer);
            }
            other => panic!("trigger on server {server}: {other} {}\n{}", answer.body, cluster.server_trouble(server)),
        }
    }
    assert_eq!(accepted[0] + accepted[1], 60, "{accepted:?}");
    assert!(accepted.iter().all(|n| *n > 0), "both servers accepted some: {accepted:?}");
    assert_eq!(refused, 10);
    for server in 0..2 {
        let answer = api.call(server, Method::POST, &route, Some(&key), None).await;
        assert_eq!(answer.status, 429, "the 61st on server {server}: {}", answer.body);
        assert_rate_limited(&answer);
    }
    // Another key of the organization has its own bucket.
    let other = api.ok(1, Method::POST, "/api/developers/keys", &jwt, Some(json!({"name": "other"}))).await;
    let answer = api.call(0, Method::POST, &route, other["plainKey"].as_str(), None).await;
    assert_eq!(answer.status, 202, "{}", answer.body);

    // 24 log-ins with a wrong password, at once on both servers: 20 are
    // checked (401), and past the per-email limit this address gets one
    // more try only if none of its failures was recorded yet (an address
    // that has not failed on the email is not locked out); the rest are
    // refused before any password hashing.
    let mut logins = JoinSet::new();
    for i in 0..24usize {
        let api = api.clone();
        let body = json!({"email": "dave@example.com", "password": "not-the-password"});
        logins.spawn(async move { api.call(i % 2, Method::POST, "/api/auth/login", None, Some(body)).await });
    }
    let mut statuses: BTreeMap<u16, usize> = BTreeMap::new();
    while let Some(done) = logins.join_next().await {
        let answer = done.unwrap();
        if answer.status == 429 {
            assert_rate_limited(&answer);
        }
        *statuses.entry(answer.status).or_default() += 1;
    }
    let checked = statuses.get(&401).copied().unwrap_or(0);
    assert!(checked == 20 || checked == 21, "20 checked, 21 at most: {statuses:?}");
    assert_eq!(statuses.get(&429).copied().unwrap_or(0), 24 - checked, "{statuses:?}");
    for server in 0..2 {
        let body = json!({"email": "dave@example.com", "password": PASSWORD});
        let answer = api.call(server, Method::POST, "/api/auth/login", None, Some(body)).await;
        assert_eq!(answer.status, 429, "even the right password, on server {server}: {}", answer.body);
    }
}

fn assert_rate_limited(answer: &Answer) {
    assert_eq!(answer.body["code"], "RATE_LIMITED", "{}", answer.body);
    let retry_after = answer.retry_after.expect("Retry-After");
    assert!((1..=15 * 60).contains(&retry_after), "Retry-After: {retry_after}");
}
