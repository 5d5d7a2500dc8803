//! Scraps on the `static` engine end to end: created over REST, run by the
//! embedded worker without a browser, recorded like any run.

use crate::common;

use common::{TestApp, assert_error, fixture};
use reqwest::StatusCode;
use serde_json::{Value, json};
use svc_service::run_outcome::ScriptResult;
use svc_service::runs::TestRun;

const PRIVATE_OK: (&str, &str) = ("SVC_ALLOW_PRIVATE_NETWORKS", "true");
const ITEMS: &str = "returnData([...document.querySelectorAll('li.item')].map(li => li.textContent))";

fn data(row: &Value) -> Value {
    serde_json::from_str(row["data"].as_str().expect("data is a JSON string")).unwrap()
}

#[tokio::test]
async fn a_static_scrap_runs_without_a_browser_and_is_recorded() {
    let site = fixture::start().await;
    let app = TestApp::start_with(&[PRIVATE_OK]).await;
    let alice = app.signup("alice@example.com").await;
    let url = format!("{}/items/50", site.base);
    let (status, scrap) = app
        .post(
            "/api/scraps",
            &alice.token,
            json!({"title": "Items", "url": url, "request": ITEMS, "scrapper": "static"}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{scrap}");
    assert_eq!(scrap["scrapper"], "static");
    let sid = scrap["id"].as_str().unwrap();

    let (status, row) = app.run_and_wait(&alice.token, sid).await;
    assert_eq!(status, StatusCode::OK, "{row}");
    assert_eq!(row["statusDetail"], "success", "{row}");
    assert_eq!(row["length"], 50);
    let items = data(&row);
    assert_eq!((items[0].as_str(), items[49].as_str()), (Some("Item 0"), Some("Item 49")));
    assert_eq!(row["proxyTier"], "tier0");
    assert_eq!(row["error"], Value::Null);
    assert!(row["time"].as_i64().is_some());

    // The script's environment, as the browser engine gives it.
    let script = "returnData([SVC.historyId, SVC.triggeredBy, location.href === SVC.url, document.title])";
    let (status, _) = app.put(&format!("/api/scraps/{sid}"), &alice.token, json!({"request": script})).await;
    assert_eq!(status, StatusCode::OK);
    let (_, row) = app.run_and_wait(&alice.token, sid).await;
    assert_eq!(data(&row), json!([row["id"], "user", true, "Items"]), "{row}");

    // A page that answers 404 fails the run with its status, as in the browser.
    let (status, _) =
        app.put(&format!("/api/scraps/{sid}"), &alice.token, json!({"url": format!("{}/status/404", site.base)})).await;
    assert_eq!(status, StatusCode::OK);
    let (_, row) = app.run_and_wait(&alice.token, sid).await;
    assert_eq!(row["statusDetail"], "error", "{row}");
    assert_eq!(row["error"], "the page answered HTTP 404");

    // Content that the page's own JavaScript adds is not there: an empty run.
    let (status, _) = app
        .put(
            &format!("/api/scraps/{sid}"),
            &alice.token,
            json!({"url": format!("{}/late", site.base), "request": "returnData([...document.querySelectorAll('li.late')])"}),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let (_, row) = app.run_and_wait(&alice.token, sid).await;
    assert_eq!(row["statusDetail"], "empty", "{row}");
}

#[tokio::test]
async fn the_static_engine_is_known_and_runs_direct_only() {
    // A configured tier (its proxy is never dialled here).
    let app = TestApp::start_with(&[PRIVATE_OK, ("SVC_PROXY_TIER2", "http://127.0.0.1:9")]).await;
    let alice = app.signup("alice@example.com").await;
    let base = json!({"title": "S", "url": "https://example.com/", "request": "returnData([1])", "scrapper": "static"});
    let mut tiered = base.clone();
    tiered["proxyTier"] = json!("tier2");
    let (status, err) = app.post("/api/scraps", &alice.token, tiered).await;
    assert_error(status, &err, StatusCode::UNPROCESSABLE_ENTITY, "VALIDATION");
    assert!(err["description"].as_str().unwrap().contains("the static engine runs direct only"), "{err}");
    let mut direct = base.clone();
    direct["proxyTier"] = json!("tier0");
    let (status, scrap) = app.post("/api/scraps", &alice.token, direct).await;
    assert_eq!(status, StatusCode::CREATED, "{scrap}");
    let mut unknown = base;
    unknown["scrapper"] = json!("auto");
    let (status, err) = app.post("/api/scraps", &alice.token, unknown).await;
    assert_error(status, &err, StatusCode::UNPROCESSABLE_ENTITY, "VALIDATION");
    assert!(err["description"].as_str().unwrap().contains("puppeteer, static"), "{err}");
}

/// The editor's test run goes to the engine the form names.
#[tokio::test]
async fn a_test_run_uses_the_engine_it_names() {
    let site = fixture::start().await;
    let app = TestApp::start_with(&[PRIVATE_OK]).await;
    let alice = app.signup("alice@example.com").await;
    let session = app.services.auth.session(&alice.token).await.unwrap();
    let run = TestRun {
        url: format!("{}/items/3", site.base),
        script: "await SVC.waitFor('li.late'); returnData([1])".into(),
        params: vec![],
        scrap: None,
        param: None,
        scrapper: Some("static".into()),
    };
    let outcome = app.services.runs.test_run(&session, run).await.unwrap();
    match outcome.result {
        ScriptResult::Failed { message } => {
            assert!(message.contains("the static engine does not wait"), "{message}")
        }
        other => panic!("expected the static engine's answer, got {other:?}"),
    }
}
