//! Runs end to end on a real Chromium against a local fixture site: the
//! trigger routes, the script contract, outcomes, isolation, the plan gate,
//! and recovery of a run whose worker died.

use crate::common;

use std::sync::Arc;
use std::time::Duration;

use chrono::Utc;
use common::{TestApp, assert_error, fixture};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use svc_domain::ObjectId;
use svc_engine::BrowserSandbox;
use svc_runner::sandbox::SandboxSetting;

const PRIVATE_OK: (&str, &str) = ("SVC_ALLOW_PRIVATE_NETWORKS", "true");

fn data(row: &Value) -> Value {
    serde_json::from_str(row["data"].as_str().expect("data is a JSON string")).unwrap()
}

/// An engine of its own (the browser under test, private networks allowed).
fn engine_on_private_networks(runs_per_browser: u64, spare_pages: usize) -> svc_runner::ChromiumEngine {
    engine_as(svc_runner::sandbox::DEFAULT_BROWSER_USER, runs_per_browser, spare_pages)
}

/// The same, with Chromium run as `browser_user` when the tests run as root.
fn engine_as(browser_user: &str, runs_per_browser: u64, spare_pages: usize) -> svc_runner::ChromiumEngine {
    svc_runner::ChromiumEngine::new(engine_config(browser_user, runs_per_browser, spare_pages))
}

/// The configuration of those engines: the browser under test, private
/// networks allowed, no warm pages.
pub(crate) fn engine_config(browser_user: &str, runs_per_browser: u64, spare_pages: usize) -> svc_runner::EngineConfig {
    svc_runner::EngineConfig {
        chromium: svc_runner::browser::find_chromium(std::env::var("SVC_TEST_CHROMIUM").ok().as_deref()),
        browser_user: browser_user.into(),
        sandbox: Default::default(),
        allow_private_networks: true.into(),
        runs_per_browser,
        spare_pages,
        warm_pages: 0,
        resolver: Default::default(),
        tiers: Default::default(),
    }
}

/// A job for an engine driven directly.
pub(crate) fn job_for(url: &str, script: &str) -> svc_engine::RunJob {
    svc_engine::RunJob {
        history_id: ObjectId::new().to_string(),
        url: url.to_string(),
        script: script.to_string(),
        param: None,
        params: vec![],
        triggered_by: "user",
        timeout: Duration::from_secs(20),
        loads: Default::default(),
        capture_page: svc_engine::PageCapture::Never,
        tier: 0,
        account: None,
        session: None,
        scrapper: "puppeteer".into(),
        reuse: None,
        confined_to: None,
        organization: None,
        page: svc_engine::PageInput::single(),
    }
}

/// Polls a history row until it is finished, with a deadline.
async fn finished_row(app: &TestApp, bearer: &str, id: &str) -> Value {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        let (status, row) = app.get(&format!("/api/historys/{id}"), bearer).await;
        assert_eq!(status, StatusCode::OK, "{row}");
        if !row["status"].is_null() {
            return row;
        }
        assert!(tokio::time::Instant::now() < deadline, "run {id} did not finish: {row}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn a_triggered_run_extracts_and_is_recorded() {
    let site = fixture::start().await;
    let app = TestApp::start_with(&[PRIVATE_OK]).await;
    let alice = app.signup("alice@example.com").await;
    let url = format!("{}/items/50", site.base);
    let sid = app
        .scrap_with(&alice, json!({"title": "Items", "url": url, "request": "returnData([...document.querySelectorAll('li.item')].map(li => li.textContent))"}))
        .await;
    let (_, key) = app
        .create_key(
            &alice,
            json!({"name": "runner", "scopes": ["svc:scraps:run", "svc:history:read", "svc:scraps:read"]}),
        )
        .await;

    // Without wait: 202 and the pending run.
    let (status, pending) = app.send(app.request(Method::POST, &format!("/api/scraps/worker/{sid}"), Some(&key))).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{pending}");
    assert_eq!(pending["scrapId"], sid.as_str());
    assert_eq!(pending["status"], Value::Null);
    assert_eq!(pending["triggeredBy"], "api");
    let hid = pending["historyId"].as_str().unwrap().to_string();
    assert_eq!(hid.len(), 24);

    let row = finished_row(&app, &key, &hid).await;
    assert_eq!(row["status"], true, "{row}");
    assert_eq!(row["statusDetail"], "success");
    assert_eq!(row["length"], 50);
    assert_eq!(data(&row)[0], "Item 0");
    assert_eq!(data(&row)[49], "Item 49");
    assert!(row["time"].as_i64().unwrap() > 0);
    assert_eq!(row["triggeredBy"], "api");
    assert_eq!(row["type"], "scrap_run");
    assert_eq!(row["proxyTier"], "tier0", "the tier that ran: auto starts direct");
    assert_eq!(row["retries"], 0);
    assert_eq!(row["error"], Value::Null);
    assert!(row.get("costs").is_none(), "owners do not see costs");

    // With wait: 200 and the finished row; a web session triggers as `user`.
    let (status, row2) = app.run_and_wait(&alice.token, &sid).await;
    assert_eq!(status, StatusCode::OK, "{row2}");
    assert_eq!(row2["triggeredBy"], "user");
    assert_eq!(row2["statusDetail"], "success");

    // GET /api/scraps/load/:id does the same.
    let (status, row3) =
        app.send(app.request(Method::GET, &format!("/api/scraps/load/{sid}?wait=60"), Some(&key))).await;
    assert_eq!(status, StatusCode::OK, "{row3}");
    assert_eq!(row3["length"], 50);

    let (_, scrap) = app.get(&format!("/api/scraps/{sid}"), &key).await;
    assert_eq!(scrap["history"], json!([row3["id"], row2["id"], hid]), "most recent first");

    let (_, log) = app.get(&format!("/api/scraps/{sid}/activities"), &key).await;
    let kinds: Vec<&str> = log["data"].as_array().unwrap().iter().map(|a| a["type"].as_str().unwrap()).collect();
    assert_eq!(kinds.iter().filter(|k| **k == "run.triggered").count(), 3, "{kinds:?}");
    assert_eq!(kinds.iter().filter(|k| **k == "run.finished").count(), 3, "{kinds:?}");
}

/// Images and fonts are not loaded unless the script opts back in with a
/// leading `// svc:load` comment; stylesheets and scripts always load.
#[tokio::test]
async fn images_and_fonts_load_only_when_the_script_asks() {
    let app = TestApp::start_with(&[PRIVATE_OK]).await;
    let alice = app.signup("alice@example.com").await;
    let cases = [
        ("", false, false),
        ("// svc:load images\n", true, false),
        ("// what the page shows\n\n// svc:load images, fonts\n", true, true),
        // Not a leading comment: an ordinary comment.
        ("const title = document.title;\n// svc:load images\n", false, false),
    ];
    for (directive, image, font) in cases {
        let site = fixture::start().await;
        // The font is fetched when text needs it; ask for it explicitly.
        let request = format!(
            "{directive}await document.fonts.load('16px Face').catch(() => null);\nreturnData([document.title]);"
        );
        let url = format!("{}/assets", site.base);
        let sid = app.scrap_with(&alice, json!({"title": "Assets", "url": url, "request": request})).await;
        let (status, row) = app.run_and_wait(&alice.token, &sid).await;
        assert_eq!(status, StatusCode::OK, "{row}");
        assert_eq!(row["statusDetail"], "success", "{row}");
        assert_eq!(data(&row), json!(["assets"]));
        let hits = site.asset_hits.lock().unwrap().clone();
        assert!(site.asset_hit("style.css"), "{directive:?}: stylesheets always load: {hits:?}");
        assert_eq!(site.asset_hit("pic.png"), image, "{directive:?}: the image: {hits:?}");
        assert_eq!(site.asset_hit("face.woff2"), font, "{directive:?}: the web font: {hits:?}");
    }
}

#[tokio::test]
async fn the_svc_object_params_and_helpers_follow_the_contract() {
    let site = fixture::start().await;
    let app = TestApp::start_with(&[PRIVATE_OK]).await;
    let alice = app.signup("alice@example.com").await;
    let url = format!("{}/late", site.base);
    let script = r#"
        const before = document.querySelectorAll('li.late').length;
        const first = await SVC.waitFor('li.late', 5000);
        await SVC.sleep(10);
        let mutated = true;
        try { SVC.url = 'changed'; mutated = SVC.url === 'changed'; } catch (e) { mutated = false; }
        returnData([{
            url: SVC.url, param: SVC.param, params: SVC.params, historyId: SVC.historyId,
            triggeredBy: SVC.triggeredBy, frozen: Object.isFrozen(SVC), mutated, before,
            found: first.textContent,
        }]);
        returnData([1, 2, 3]);
    "#;
    let params = json!([{"key": "fr", "value": {"lang": "fr"}}, {"key": "de", "value": {"lang": "de"}}]);
    let sid = app.scrap_with(&alice, json!({"title": "SVC", "url": url, "request": script, "params": params})).await;

    let (status, row) = app
        .send(app.request(Method::POST, &format!("/api/scraps/worker/{sid}?wait=60&param=de"), Some(&alice.token)))
        .await;
    assert_eq!(status, StatusCode::OK, "{row}");
    assert_eq!(row["statusDetail"], "success", "{row}");
    assert_eq!(row["length"], 1, "the first returnData call wins");
    let seen = &data(&row)[0];
    assert_eq!(seen["url"], url.as_str());
    assert_eq!(seen["param"], json!({"key": "de", "value": {"lang": "de"}}));
    assert_eq!(seen["params"], params);
    assert_eq!(seen["historyId"], row["id"]);
    assert_eq!(seen["triggeredBy"], "user");
    assert_eq!(seen["frozen"], true);
    assert_eq!(seen["mutated"], false);
    assert_eq!(seen["before"], 0, "the items arrive after load");
    assert_eq!(seen["found"], "late 0");

    let (status, row) = app.run_and_wait(&alice.token, &sid).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(data(&row)[0]["param"], Value::Null, "no param query: null");

    let (status, err) =
        app.send(app.request(Method::POST, &format!("/api/scraps/worker/{sid}?param=xx"), Some(&alice.token))).await;
    assert_error(status, &err, StatusCode::UNPROCESSABLE_ENTITY, "VALIDATION");
    assert_eq!(err["field"], "param");
    for wait in ["121", "-1", "soon"] {
        let (status, err) = app
            .send(app.request(Method::POST, &format!("/api/scraps/worker/{sid}?wait={wait}"), Some(&alice.token)))
            .await;
        assert_error(status, &err, StatusCode::UNPROCESSABLE_ENTITY, "VALIDATION");
    }
}

#[tokio::test]
async fn empty_and_regression_outcomes() {
    let site = fixture::start().await;
    let app = TestApp::start_with(&[PRIVATE_OK]).await;
    let alice = app.signup("alice@example.com").await;
    let url = format!("{}/items/1", site.base);
    let script = "returnData(Array.from({ length: SVC.param ? SVC.param.value : 0 }, (_, i) => i))";
    let params = json!([{"key": "ten", "value": 10}, {"key": "four", "value": 4}, {"key": "five", "value": 5}]);
    let sid = app.scrap_with(&alice, json!({"title": "Counts", "url": url, "request": script, "params": params})).await;
    let run = |param: &'static str| {
        let path = format!("/api/scraps/worker/{sid}?wait=60{param}");
        let r = app.request(Method::POST, &path, Some(&alice.token));
        async { app.send(r).await.1 }
    };

    let empty = run("").await;
    assert_eq!(empty["statusDetail"], "empty", "{empty}");
    assert_eq!(empty["status"], false);
    assert_eq!(empty["length"], 0);

    let ten = run("&param=ten").await;
    assert_eq!(ten["statusDetail"], "success");
    let four = run("&param=four").await;
    assert_eq!(four["statusDetail"], "regression", "4 < 10 / 2: {four}");
    assert_eq!(four["status"], false);
    assert_eq!(four["length"], 4);
    let five = run("&param=five").await;
    assert_eq!(five["statusDetail"], "success", "5 is not below half of the last success (10)");
}

#[tokio::test]
async fn runs_are_isolated_and_pages_cannot_forge_results() {
    let site = fixture::start().await;
    let app = TestApp::start_with(&[PRIVATE_OK]).await;
    let alice = app.signup("alice@example.com").await;
    let cookie = app
        .scrap_with(
            &alice,
            json!({"title": "Cookie", "url": format!("{}/cookie", site.base),
            "request": "returnData([document.getElementById('seen').textContent, document.cookie])"}),
        )
        .await;
    for _ in 0..2 {
        let (_, row) = app.run_and_wait(&alice.token, &cookie).await;
        assert_eq!(row["statusDetail"], "success", "{row}");
        assert_eq!(data(&row)[0], "", "no cookie from an earlier run reached the server: {row}");
        assert_eq!(data(&row)[1], "visited=yes", "the run's own cookie is visible to it");
    }

    let hostile = app
        .scrap_with(&alice, json!({"title": "Hostile", "url": format!("{}/hostile", site.base),
            "request": "returnData([document.getElementById('x').dataset.pageSawSvc, typeof window.SVC, String(window.returnData)])"}))
        .await;
    let (_, row) = app.run_and_wait(&alice.token, &hostile).await;
    assert_eq!(row["statusDetail"], "success", "{row}");
    assert_eq!(data(&row), json!(["undefined", "undefined", "undefined"]), "page and script worlds are apart");
}

/// The script is compiled in its world from the call's arguments (an
/// `eval`-like step): a page whose policy refuses scripts, `eval` and
/// strings that are not Trusted Types still has its items read; a script
/// that tries to close its function does not compile; and the script sees
/// `SVC` and `returnData`, nothing of the code that runs it.
#[tokio::test]
async fn the_script_is_compiled_apart_and_no_page_policy_stops_it() {
    let site = fixture::start().await;
    let app = TestApp::start_with(&[PRIVATE_OK]).await;
    let alice = app.signup("alice@example.com").await;
    let scrap = |title: &str, path: &str, script: &str| json!({"title": title, "url": format!("{}{path}", site.base), "request": script});
    let strict = app
        .scrap_with(
            &alice,
            scrap(
                "Strict",
                "/strict-policy",
                "returnData([...document.querySelectorAll('.item')].map(li => li.textContent))",
            ),
        )
        .await;
    let (_, row) = app.run_and_wait(&alice.token, &strict).await;
    assert_eq!(row["statusDetail"], "success", "{row}");
    assert_eq!(data(&row), json!(["Item 0", "Item 1", "Item 2"]));

    let escape = "}); return { ok: true, json: '[\"forged\"]', length: 1 }; (async () => {";
    let escape = app.scrap_with(&alice, scrap("Escape", "/items/3", escape)).await;
    let (_, row) = app.run_and_wait(&alice.token, &escape).await;
    assert_eq!(row["statusDetail"], "error", "{row}");
    let error = row["error"].as_str().unwrap();
    assert!(error.starts_with("the script could not run: SyntaxError"), "{error}");

    let seen = "returnData([typeof input, typeof body, typeof finish, typeof deepFreeze, typeof waitFor, \
                typeof sleep, typeof SVC.waitFor, typeof returnData, arguments.length])";
    let seen = app.scrap_with(&alice, scrap("Seen", "/items/3", seen)).await;
    let (_, row) = app.run_and_wait(&alice.token, &seen).await;
    assert_eq!(row["statusDetail"], "success", "{row}");
    let u = "undefined";
    assert_eq!(
        data(&row),
        json!([u, u, u, u, u, u, "function", "function", 2]),
        "only SVC and returnData, as arguments"
    );
}

#[tokio::test]
async fn trigger_scopes_allow_lists_and_tenancy() {
    let site = fixture::start().await;
    let app = TestApp::start_with(&[PRIVATE_OK]).await;
    let alice = app.signup("alice@example.com").await;
    let mallory = app.signup("mallory@example.com").await;
    let body = json!({"title": "A", "url": format!("{}/items/2", site.base), "request": "returnData([1])"});
    let a = app.scrap_with(&alice, body.clone()).await;
    let b = app.scrap_with(&alice, body).await;
    let (_, read_only) = app.create_key(&alice, json!({"name": "r", "scopes": ["svc:scraps:read"]})).await;
    let (_, only_a) = app.create_key(&alice, json!({"name": "a", "scopes": ["svc:scraps:run"], "scrapIds": [a]})).await;
    let (_, mallory_key) = app.create_key(&mallory, json!({"name": "m"})).await;

    for route in ["worker", "load"] {
        let method = if route == "worker" { Method::POST } else { Method::GET };
        let path = |id: &str| format!("/api/scraps/{route}/{id}");
        let (status, err) = app.send(app.request(method.clone(), &path(&a), Some(&read_only))).await;
        assert_error(status, &err, StatusCode::FORBIDDEN, "INSUFFICIENT_SCOPE");
        assert!(err["description"].as_str().unwrap().contains("svc:scraps:run"));
        let (status, err) = app.send(app.request(method.clone(), &path(&b), Some(&only_a))).await;
        assert_error(status, &err, StatusCode::FORBIDDEN, "SCRAP_NOT_IN_KEY_SCOPE");
        let (status, err) = app.send(app.request(method.clone(), &path(&a), Some(&mallory_key))).await;
        assert_error(status, &err, StatusCode::NOT_FOUND, "NOT_FOUND");
        let (status, err) = app.send(app.request(method.clone(), &path(&a), Some(&mallory.token))).await;
        assert_error(status, &err, StatusCode::NOT_FOUND, "NOT_FOUND");
        let (status, err) = app.send(app.request(method.clone(), &path("nothex"), Some(&alice.token))).await;
        assert_error(status, &err, StatusCode::UNPROCESSABLE_ENTITY, "VALIDATION");
        let (status, _) = app.send(app.request(method.clone(), &path(&a), Some(&only_a))).await;
        assert_eq!(status, StatusCode::ACCEPTED);
    }
    let (_, runs) = app.get(&format!("/api/historys?scrap={b}"), &alice.token).await;
    assert_eq!(runs["total"], 0, "refused triggers wrote nothing");
}

#[tokio::test]
async fn live_json_is_for_growth_and_pro() {
    let site = fixture::start().await;
    let app = TestApp::start_with(&[PRIVATE_OK]).await;
    let alice = app.signup("alice@example.com").await;
    let sid = app
        .scrap_with(
            &alice,
            json!({"title": "Live", "url": format!("{}/items/3", site.base),
            "request": "returnData([...document.querySelectorAll('li')].map(li => ({ name: li.textContent })))"}),
        )
        .await;
    let path = format!("/api/scraps/{sid}/data");
    let (status, err) = app.get(&path, &alice.token).await;
    assert_error(status, &err, StatusCode::FORBIDDEN, "PLAN_REQUIRED");

    app.services.admin.set_plan("alice@example.com", svc_domain::plan::Plan::Growth).await.unwrap();
    let (status, err) = app.get(&path, &alice.token).await;
    assert_error(status, &err, StatusCode::NOT_FOUND, "NOT_FOUND");
    let (_, row) = app.run_and_wait(&alice.token, &sid).await;
    assert_eq!(row["statusDetail"], "success");
    let (status, live) = app.get(&path, &alice.token).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(live, json!([{"name": "Item 0"}, {"name": "Item 1"}, {"name": "Item 2"}]));

    let (_, key) = app.create_key(&alice, json!({"name": "k"})).await;
    let (status, err) = app.get(&path, &key).await;
    assert_error(status, &err, StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
}

#[tokio::test]
async fn the_scrap_keeps_the_50_newest_run_ids() {
    let site = fixture::start().await;
    let app = TestApp::start_with(&[PRIVATE_OK, ("SVC_WORKER_CONCURRENCY", "4")]).await;
    let alice = app.signup("alice@example.com").await;
    let sid = app
        .scrap_with(
            &alice,
            json!({"title": "Many", "url": format!("{}/items/1", site.base), "request": "returnData([SVC.historyId])"}),
        )
        .await;
    let mut ids = Vec::new();
    for _ in 0..52 {
        let (status, pending) =
            app.send(app.request(Method::POST, &format!("/api/scraps/worker/{sid}"), Some(&alice.token))).await;
        assert_eq!(status, StatusCode::ACCEPTED);
        ids.push(pending["historyId"].as_str().unwrap().to_string());
    }
    for id in &ids {
        let row = finished_row(&app, &alice.token, id).await;
        assert_eq!(row["statusDetail"], "success", "{row}");
        assert_eq!(data(&row)[0], id.as_str(), "each run saw its own history id");
    }
    let (_, scrap) = app.get(&format!("/api/scraps/{sid}"), &alice.token).await;
    let newest: Vec<&str> = ids.iter().rev().take(50).map(String::as_str).collect();
    assert_eq!(scrap["history"], json!(newest));
}

/// A run whose worker died is retried once its lease expires, and finished
/// as `error` when the retry's worker dies too. Driven step by step: no
/// embedded worker, the reaper and a worker called directly.
#[tokio::test]
async fn a_run_whose_worker_died_is_retried_then_failed() {
    let site = fixture::start().await;
    let app = TestApp::start_with(&[PRIVATE_OK, ("SVC_EMBEDDED_WORKER", "false")]).await;
    let alice = app.signup("alice@example.com").await;
    let sid = app
        .scrap_with(
            &alice,
            json!({"title": "Lost", "url": format!("{}/items/2", site.base), "request": "returnData([1, 2])"}),
        )
        .await;
    let engine = Arc::new(engine_on_private_networks(10, 1));
    let worker = svc_service::Worker::new(
        app.services.clone(),
        engine.clone(),
        "default",
        svc_service::schedule::RunSlots::new(1),
    );
    let store = app.store.clone();
    let expired = Utc::now() - chrono::Duration::seconds(1);

    // First run: its worker "dies" (claims with a lease that has already ended).
    let (_, pending) =
        app.send(app.request(Method::POST, &format!("/api/scraps/worker/{sid}"), Some(&alice.token))).await;
    let hid = pending["historyId"].as_str().unwrap().to_string();
    let claim = store.claim_run("default", "dead-worker", expired).await.unwrap().expect("queued run");
    assert_eq!(claim.history_id.to_string(), hid);
    assert!(!worker.try_step().await.unwrap(), "a held run is not claimed twice");
    let reaped = app.services.runs.reap_lost_runs().await.unwrap();
    assert_eq!(reaped.requeued, vec![claim.history_id]);
    assert!(worker.try_step().await.unwrap(), "the requeued run is claimed again");
    let (_, row) = app.get(&format!("/api/historys/{hid}"), &alice.token).await;
    assert_eq!(row["statusDetail"], "success", "{row}");
    assert_eq!(row["retries"], 1);

    // The dead worker's late result is dropped: its claim is gone.
    let report = svc_engine::EngineReport {
        result: svc_engine::ScriptResult::Data { json: "[9]".into(), length: 1 },
        duration_ms: 1,
        bytes: 0,
        snapshot: None,
        status: None,
        html: None,
        session: None,
        enqueued: vec![],
    };
    let stale_row = store.history_row(alice.org(), claim.history_id).await.unwrap().unwrap();
    app.services.runs.finish(&claim, stale_row, report).await.unwrap();
    let (_, row) = app.get(&format!("/api/historys/{hid}"), &alice.token).await;
    assert_eq!(row["length"], 2, "the late result did not overwrite the row");

    // Second run: both attempts die, so it ends as an error, never pending forever.
    let (_, pending) =
        app.send(app.request(Method::POST, &format!("/api/scraps/worker/{sid}"), Some(&alice.token))).await;
    let hid = pending["historyId"].as_str().unwrap().to_string();
    for _ in 0..2 {
        store.claim_run("default", "dead-worker", expired).await.unwrap().expect("queued run");
        app.services.runs.reap_lost_runs().await.unwrap();
    }
    let (_, row) = app.get(&format!("/api/historys/{hid}"), &alice.token).await;
    assert_eq!(row["status"], false, "{row}");
    assert_eq!(row["statusDetail"], "error");
    assert!(row["error"].as_str().unwrap().contains("worker"), "{row}");
    assert_eq!(row["retries"], 1);
    assert!(!worker.try_step().await.unwrap(), "nothing left in the queue");
    let _ = ObjectId::new();
    engine.close().await;
}

fn process_gone(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        // A zombie (state Z) still has an entry: not gone.
        Ok(stat) => stat.rsplit(')').next().is_some_and(|rest| rest.trim_start().starts_with('X')),
    }
}

pub(crate) async fn wait_gone(pid: u32, what: &str) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while !process_gone(pid) {
        assert!(tokio::time::Instant::now() < deadline, "{what} chromium {pid} is still there (or a zombie)");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The engine survives its browser being killed, and leaves no process
/// (nor zombie) behind, neither the killed one nor the one it closes.
#[tokio::test]
async fn chromium_is_replaced_after_a_crash_and_leaves_no_process() {
    use svc_engine::Engine;
    use svc_engine::ScriptResult;

    let site = fixture::start().await;
    let engine = engine_on_private_networks(100, 1);
    let job = || {
        let script = "returnData([...document.querySelectorAll('li')].map(li => li.textContent))";
        job_for(&format!("{}/items/3", site.base), script)
    };
    let first = engine.run(job()).await;
    assert!(matches!(first.result, ScriptResult::Data { length: 3, .. }), "{first:?}");
    let pid = engine.browser_pid().await.expect("a browser runs");
    let killed = std::process::Command::new("kill").args(["-9", &pid.to_string()]).status().unwrap();
    assert!(killed.success());

    // A run caught by the crash may end as an error; the engine then starts a new browser.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        let report = engine.run(job()).await;
        if matches!(report.result, ScriptResult::Data { length: 3, .. }) {
            break;
        }
        assert!(matches!(report.result, ScriptResult::Failed { .. }));
        assert!(tokio::time::Instant::now() < deadline, "no successful run after the crash: {report:?}");
    }
    let second = engine.browser_pid().await.expect("a new browser runs");
    assert_ne!(second, pid);
    wait_gone(pid, "the killed").await;
    engine.close().await;
    wait_gone(second, "the closed").await;
}

/// Every connection a run opens goes through the engine's egress proxy:
/// the page, a `fetch`, and a WebSocket handshake, which the browser's
/// request interception never sees (the proxy's own tests show what it
/// refuses).
#[tokio::test]
async fn pages_fetches_and_websockets_leave_through_the_egress_proxy() {
    use std::sync::atomic::Ordering;
    use svc_engine::Engine;
    use svc_engine::ScriptResult;

    let site = fixture::start().await;
    let engine = engine_on_private_networks(100, 0);
    let script = r#"
        const fetched = await fetch('/items/1').then((r) => r.status);
        const socket = await new Promise((resolve) => {
          const ws = new WebSocket('ws://' + location.host + '/socket');
          ws.onopen = () => resolve('open');
          ws.onerror = () => resolve('error');
        });
        returnData([fetched, socket]);
    "#;
    let report = engine.run(job_for(&format!("{}/items/3", site.base), script)).await;
    // The fixture speaks no WebSocket: the handshake reaches it and fails.
    assert!(matches!(&report.result, ScriptResult::Data { json, .. } if json == r#"[200,"error"]"#), "{report:?}");
    let stats = engine.egress_stats().expect("the proxy runs with the browser");
    assert!(stats.forwarded.load(Ordering::Relaxed) >= 2, "the page and the fetch: {stats:?}");
    assert!(stats.tunnels.load(Ordering::Relaxed) >= 1, "the WebSocket handshake: {stats:?}");
    engine.close().await;
}

/// A field of `/proc/<pid>/status` (e.g. `Uid`), its first value.
fn proc_status(pid: u32, field: &str) -> Option<String> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with(&format!("{field}:")))?;
    line.split_whitespace().nth(1).map(str::to_string)
}

/// The processes under `root` (children, grandchildren...), with their command lines.
fn descendants(root: u32) -> Vec<(u32, String)> {
    let mut parents = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else { continue };
        if let Some(ppid) = proc_status(pid, "PPid").and_then(|p| p.parse::<u32>().ok()) {
            parents.push((pid, ppid));
        }
    }
    let mut found = vec![root];
    let mut i = 0;
    while i < found.len() {
        let parent = found[i];
        found.extend(parents.iter().filter(|(_, ppid)| *ppid == parent).map(|(pid, _)| *pid));
        i += 1;
    }
    found[1..]
        .iter()
        .map(|pid| {
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            (*pid, String::from_utf8_lossy(&cmdline).replace('\0', " "))
        })
        .collect()
}

/// Whether an unprivileged user can make the namespaces Chromium's sandbox
/// needs here (what decides whether it can run with it).
fn host_can_sandbox(user: Option<&svc_runner::sandbox::BrowserUser>) -> bool {
    let mut command = match user {
        Some(user) => {
            let mut c = std::process::Command::new("setpriv");
            c.args([format!("--reuid={}", user.uid), format!("--regid={}", user.gid), "--clear-groups".into()]);
            c.arg("unshare");
            c
        }
        None => std::process::Command::new("unshare"),
    };
    command.args(["--user", "--pid", "--fork", "true"]).status().is_ok_and(|s| s.success())
}

/// Chromium runs as an unprivileged user when svc runs as root, and with
/// its sandbox, which is required: the renderers live in user namespaces of
/// their own, and `--no-sandbox` is not on the command line. Where the host
/// cannot give the sandbox, the run fails saying how to fix it. This test
/// says first which of the two this machine is.
#[tokio::test]
async fn chromium_runs_unprivileged_and_sandboxed() {
    use svc_engine::Engine;
    use svc_engine::ScriptResult;

    let site = fixture::start().await;
    // A spare page keeps a renderer up after the run.
    let engine = engine_on_private_networks(100, 1);
    assert_eq!(engine.sandbox().0, BrowserSandbox::On, "required, before any launch");
    let report = engine.run(job_for(&format!("{}/items/3", site.base), "returnData([document.title])")).await;
    let (sandbox, user) = engine.sandbox();
    let root = proc_status(std::process::id(), "Uid").as_deref() == Some("0");
    let can = host_can_sandbox(user.as_ref());
    eprintln!("this host can give Chromium its sandbox: {can} (svc as root: {root}, browser user {user:?})");
    if !can {
        let ScriptResult::Failed { message } = &report.result else { panic!("without a sandbox, no run: {report:?}") };
        assert!(
            message.contains("Chromium cannot start with its sandbox") && message.contains("SVC_BROWSER_SANDBOX=off")
        );
        assert!(matches!(sandbox, BrowserSandbox::Unavailable(_)), "{sandbox:?}");
        assert_eq!(engine.browser_pid().await, None, "no browser runs");
        return;
    }
    assert!(matches!(report.result, ScriptResult::Data { length: 1, .. }), "{report:?}");
    assert_eq!(sandbox, BrowserSandbox::On);
    let pid = engine.browser_pid().await.expect("a browser runs");

    let uid = proc_status(pid, "Uid").expect("the browser's uid");
    if root {
        let user = user.as_ref().expect("as root, chromium runs as another user");
        assert_eq!(user.name, "nobody");
        assert_eq!(uid, user.uid.to_string(), "the browser process runs as {}", user.name);
    } else {
        assert_eq!(user, None);
    }
    let cmdline = String::from_utf8_lossy(&std::fs::read(format!("/proc/{pid}/cmdline")).unwrap()).replace('\0', " ");
    assert!(!cmdline.contains("--no-sandbox"), "{cmdline}");

    let own_namespace = std::fs::read_link(format!("/proc/{pid}/ns/user")).unwrap();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    let renderers = loop {
        let renderers: Vec<_> =
            descendants(pid).into_iter().filter(|(_, cmd)| cmd.contains("--type=renderer")).collect();
        if !renderers.is_empty() {
            break renderers;
        }
        assert!(tokio::time::Instant::now() < deadline, "no renderer under {pid}: {:?}", descendants(pid));
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    for (renderer, _) in renderers {
        let namespace = std::fs::read_link(format!("/proc/{renderer}/ns/user")).unwrap();
        assert_ne!(namespace, own_namespace, "renderer {renderer} is in a user namespace of its own");
        assert_eq!(proc_status(renderer, "Uid"), Some(uid.clone()), "renderer {renderer} runs as the browser");
    }
    engine.close().await;
    wait_gone(pid, "the closed").await;
}

/// A browser that dies while starting (by SIGSEGV, as CI once saw Debian's
/// full Chromium do) is started once more: the run succeeds and the sandbox
/// is not marked unavailable. The stand-in is a script that crashes on its
/// first start and is the real browser after.
#[tokio::test]
async fn a_browser_that_crashes_while_starting_is_started_once_more() {
    use std::os::unix::fs::PermissionsExt;
    use svc_engine::Engine;
    use svc_engine::ScriptResult;

    let site = fixture::start().await;
    let real = svc_runner::browser::find_chromium(std::env::var("SVC_TEST_CHROMIUM").ok().as_deref())
        .expect("a Chromium (scripts/setup.sh installs it)");
    // Readable by the browser's user, and the marker writable by it.
    let dir = tempfile::Builder::new().prefix("svc-crashing-browser-").tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
    let crashed = dir.path().join("crashed");
    let program = dir.path().join("chromium");
    std::fs::write(
        &program,
        format!(
            "#!/bin/sh\nif [ ! -e '{crashed}' ]; then : > '{crashed}'; ulimit -c 0; kill -SEGV $$; fi\nexec '{real}' \"$@\"\n",
            crashed = crashed.display(),
            real = real.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
    let config = engine_config(svc_runner::sandbox::DEFAULT_BROWSER_USER, 100, 0);
    let engine = svc_runner::ChromiumEngine::new(svc_runner::EngineConfig { chromium: Some(program), ..config });
    let report = engine.run(job_for(&format!("{}/items/3", site.base), "returnData([document.title])")).await;
    let (sandbox, user) = engine.sandbox();
    if !host_can_sandbox(user.as_ref()) {
        eprintln!("skipped: this host cannot give Chromium its sandbox, so no start succeeds");
        engine.close().await;
        return;
    }
    assert!(crashed.exists(), "the stand-in crashed on its first start");
    assert!(matches!(report.result, ScriptResult::Data { length: 1, .. }), "{report:?}");
    assert_eq!(sandbox, BrowserSandbox::On);
    assert!(engine.browser_pid().await.is_some(), "the second start runs");
    engine.close().await;
}

/// Where Chromium cannot have its sandbox (here: left as root, which it
/// refuses to sandbox), the engine does not fall back to `--no-sandbox`:
/// the run fails with what to fix. Only `SVC_BROWSER_SANDBOX=off` runs it
/// without, and the engine says so.
#[tokio::test]
async fn without_a_sandbox_chromium_runs_only_when_the_operator_says_so() {
    use svc_engine::Engine;
    use svc_engine::ScriptResult;

    if proc_status(std::process::id(), "Uid").as_deref() != Some("0") {
        eprintln!("skipped: not root, so SVC_BROWSER_USER has no effect");
        return;
    }
    let site = fixture::start().await;
    let url = format!("{}/items/3", site.base);
    let refusing = engine_as("root", 100, 0);
    let report = refusing.run(job_for(&url, "returnData([document.title])")).await;
    let ScriptResult::Failed { message } = &report.result else { panic!("no run without the sandbox: {report:?}") };
    for part in ["Chromium cannot start with its sandbox", "SVC_BROWSER_USER is root", "SVC_BROWSER_SANDBOX=off"] {
        assert!(message.contains(part), "{part:?} in {message}");
    }
    assert_eq!(refusing.sandbox(), (BrowserSandbox::Unavailable(message.clone()), None));
    assert_eq!(refusing.browser_pid().await, None, "no browser runs");
    refusing.close().await;

    let config = svc_runner::EngineConfig { sandbox: SandboxSetting::Off, ..engine_config("root", 100, 0) };
    let engine = svc_runner::ChromiumEngine::new(config);
    assert_eq!(engine.sandbox(), (BrowserSandbox::Off, None));
    let report = engine.run(job_for(&url, "returnData([document.title])")).await;
    assert!(matches!(report.result, ScriptResult::Data { length: 1, .. }), "{report:?}");
    assert_eq!(engine.sandbox(), (BrowserSandbox::Off, None));
    let pid = engine.browser_pid().await.expect("a browser runs");
    assert_eq!(proc_status(pid, "Uid").as_deref(), Some("0"));
    let cmdline = String::from_utf8_lossy(&std::fs::read(format!("/proc/{pid}/cmdline")).unwrap()).replace('\0', " ");
    assert!(cmdline.contains("--no-sandbox"), "{cmdline}");
    engine.close().await;
    wait_gone(pid, "the closed").await;
}

/// Scripts that exhaust the page: a synchronous endless loop, a JS heap
/// that grows without end, a 2 GB buffer. Each ends as a failed run (at the
/// run timeout or the memory cap) while a run beside it on the same browser
/// succeeds, its renderer does not outlive it, and the next run succeeds.
#[tokio::test]
async fn runaway_scripts_end_at_the_timeout_or_memory_cap_and_the_next_run_succeeds() {
    use svc_engine::Engine;
    use svc_engine::ScriptResult;

    let site = fixture::start().await;
    let engine = engine_on_private_networks(100, 0);
    let page = format!("{}/items/3", site.base);
    let ok = "returnData([...document.querySelectorAll('li')].map(li => li.textContent))";
    let first = engine.run(job_for(&page, ok)).await;
    assert!(matches!(first.result, ScriptResult::Data { length: 3, .. }), "{first:?}");
    let browser = engine.browser_pid().await.expect("a browser runs");

    // The endless loop ends at its 10 s timeout. The two that crash get a
    // timeout they should never meet: V8's last-resort collections near the
    // heap cap took more than 10 s on a loaded 2-core machine with the full
    // browser (a CI run), and the crash, not the time, is what is tested.
    let cases = [
        ("endless loop", "while (true) {}", 10, "timed out after 10 s"),
        // Past the 512 MiB JavaScript heap.
        ("growing heap", "const a = []; for (;;) a.push(new Array(1024 * 1024).fill(Math.random()));", 120, "crashed"),
        // Outside the JavaScript heap: past the renderer's 1 GiB.
        ("2 GB buffer", "const b = new Uint8Array(2 * 1024 ** 3); b.fill(1); returnData([b.length]);", 120, "crashed"),
    ];
    for (what, script, timeout, says) in cases {
        let mut job = job_for(&page, script);
        job.timeout = Duration::from_secs(timeout);
        let started = tokio::time::Instant::now();
        let (report, beside) = tokio::join!(engine.run(job), engine.run(job_for(&page, ok)));
        eprintln!("{what}: {:?} after {:?}", report.result, started.elapsed());
        assert!(matches!(beside.result, ScriptResult::Data { length: 3, .. }), "beside {what}: {beside:?}");
        assert!(
            matches!(&report.result, ScriptResult::Failed { message } if message.contains(says)),
            "{what}: {report:?}"
        );
        let next = engine.run(job_for(&page, ok)).await;
        assert!(matches!(next.result, ScriptResult::Data { length: 3, .. }), "after {what}: {next:?}");
        // The runaway renderer does not outlive its run: gone, or (a
        // spinning one that Chromium's full browser keeps after disposing its
        // context) killed once over its CPU cap, 25 s here. Idle renderers
        // (the full browser's first tab) may stay.
        let deadline = tokio::time::Instant::now() + Duration::from_secs(90);
        loop {
            let renderers = svc_runner::renderer_limits::renderers(browser);
            if renderers.iter().all(|(_, usage)| usage.cpu < Duration::from_secs(5)) {
                break;
            }
            assert!(tokio::time::Instant::now() < deadline, "after {what}, a busy renderer is left: {renderers:?}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    assert_eq!(engine.browser_pid().await, Some(browser), "the same browser throughout");
    engine.close().await;
}

/// svc's own loopback ports (the browser's DevTools port, the egress proxy)
/// are never a target, even with private networks allowed (as every engine
/// here is): not as the page, not from the script's `fetch`, and not for
/// the static engine.
#[tokio::test]
async fn the_devtools_port_and_the_egress_proxy_are_never_reachable() {
    use svc_engine::Engine;
    use svc_engine::ScriptResult;

    let site = fixture::start().await;
    let engine = engine_on_private_networks(100, 0);
    let report = engine.run(job_for(&format!("{}/items/3", site.base), "returnData([document.title])")).await;
    assert!(matches!(report.result, ScriptResult::Data { .. }), "{report:?}");
    let devtools = engine.devtools_port().await.expect("the browser's DevTools port");
    let egress = engine.egress_address().expect("the egress proxy").port();
    let failed = |report: &svc_engine::EngineReport| match &report.result {
        ScriptResult::Failed { message } => message.clone(),
        other => panic!("must not load: {other:?}"),
    };

    for port in [devtools, egress] {
        // As the page itself, by any name for the address it listens on.
        for host in ["127.0.0.1", "localhost", "0.0.0.0"] {
            let url = format!("http://{host}:{port}/json/version");
            let message = failed(&engine.run(job_for(&url, "returnData([document.body.innerText])")).await);
            assert!(message.contains("one of svc's own"), "navigation to {host}:{port}: {message}");
        }
        // From the script, on an allowed page.
        let script = format!(
            "const r = await fetch('http://127.0.0.1:{port}/json/version').then(r => r.text().then(t => r.status + ' ' + t), e => 'rejected ' + e); returnData([r]);"
        );
        let report = engine.run(job_for(&format!("{}/items/3", site.base), &script)).await;
        let ScriptResult::Data { json, .. } = &report.result else { panic!("the script runs: {report:?}") };
        assert!(!json.contains("webSocketDebuggerUrl") && !json.contains("Browser"), "port {port} answered: {json}");
        assert!(json.contains("one of svc's own") || json.contains("rejected"), "port {port}: {json}");
    }

    // Another loopback address on the DevTools port number is another
    // socket: a local site there is a target like any other.
    let beside = common::site::Site::start_on(("127.0.0.2", devtools)).await;
    beside.set("/", 200, "<title>beside</title>");
    let report = engine.run(job_for(&beside.url("/"), "returnData([document.title])")).await;
    let ScriptResult::Data { json, .. } = &report.result else { panic!("127.0.0.2 is not svc's own: {report:?}") };
    assert!(json.contains("beside"), "{json}");

    // The static engine refuses them too.
    let fixed = svc_static::StaticEngine::new(svc_static::StaticConfig {
        allow_private_networks: true.into(),
        ..svc_static::StaticConfig::default()
    });
    for port in [devtools, egress] {
        let job = svc_engine::RunJob {
            scrapper: "static".into(),
            ..job_for(&format!("http://127.0.0.1:{port}/json/version"), "returnData([1])")
        };
        let message = failed(&fixed.run(job).await);
        assert!(message.contains("one of svc's own"), "static, port {port}: {message}");
    }
    engine.close().await;
}
