//! Run now's live status walks through the run's real states: queued (no
//! worker has it), running (a worker claimed it), then its outcome. The
//! test holds the worker's part itself, so each state lasts until it moves on.

use reqwest::StatusCode;
use serde_json::{Value, json};
use svc_engine::{EngineReport, ScriptResult};

use super::browser::WebBrowser;
use super::scrap_page::log_in;
use super::session_cookie;
use crate::common::TestApp;

#[tokio::test]
async fn run_now_says_queued_then_running_then_how_it_ended() {
    let app = TestApp::start_with(&[("SVC_EMBEDDED_WORKER", "false")]).await;
    let alice = app.signup("alice@example.com").await;
    let sid = app
        .scrap_with(&alice, json!({"title": "Held", "url": "https://example.com/", "request": "returnData([1])"}))
        .await;
    let browser = WebBrowser::launch().await;
    let tab = browser.tab(&app.base).await;
    log_in(&tab, &alice).await;
    tab.open(&format!("/scraps/{sid}")).await;
    tab.run("window.__svcMarker = 'same page'").await;
    tab.click("Run now").await;
    tab.wait_for("document.getElementById('run-status').innerText.includes('Queued')", "queued").await;
    assert!(tab.text().await.contains("Waiting for a worker."));

    // The endpoint behind it, over HTTP: the same state, and 404 elsewhere.
    let (_, rows) = app.get(&format!("/api/historys?scrap={sid}"), &alice.token).await;
    let run = rows["data"][0]["id"].as_str().unwrap().to_string();
    let progress = |owner_token: String, path: String| {
        let app = &app;
        async move {
            let response = app
                .http
                .get(format!("{}{path}", app.base))
                .header("cookie", session_cookie(&owner_token))
                .send()
                .await
                .unwrap();
            let status = response.status();
            (status, response.json::<Value>().await.unwrap_or(Value::Null))
        }
    };
    let path = format!("/scraps/{sid}/history/{run}/progress");
    assert_eq!(progress(alice.token.clone(), path.clone()).await, (StatusCode::OK, json!({"state": "queued"})));
    let mallory = app.signup("mallory@example.com").await;
    assert_eq!(progress(mallory.token.clone(), path.clone()).await.0, StatusCode::NOT_FOUND);

    // A worker takes it.
    let claim = app.services.runs.claim("default", "test-worker", &[]).await.unwrap().expect("the queued run");
    tab.wait_for("document.getElementById('run-status').innerText.includes('Running')", "running").await;
    assert_eq!(progress(alice.token.clone(), path.clone()).await.1, json!({"state": "running"}));
    tab.screenshots("scrap-run-running").await;

    // And finishes it: the outcome appears in place.
    let (_, row) = app.services.runs.job(&claim).await.unwrap().unwrap();
    let report = EngineReport {
        result: ScriptResult::Data { json: "[{\"n\":1},{\"n\":2}]".into(), length: 2 },
        duration_ms: 40,
        bytes: 100,
        snapshot: None,
        status: None,
        html: None,
        session: None,
        enqueued: vec![],
    };
    app.services.runs.finish(&claim, row, report).await.unwrap();
    tab.wait_for("document.querySelector('#run-status .chip-success')", "the outcome").await;
    assert!(tab.text().await.contains("Run finished: 2 items."));
    assert_eq!(tab.eval::<String>("window.__svcMarker || 'reloaded'").await, "same page");
    assert_eq!(progress(alice.token.clone(), path).await.1, json!({"state": "finished"}));
    browser.close().await;
}
