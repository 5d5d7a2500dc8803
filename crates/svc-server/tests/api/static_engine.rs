//! Scraps on the `static` engine end to end: created over REST, run by the
//! embedded worker without a browser, recorded like any run.

use crate::common;

use common::{TestApp, assert_error, fixture};
use reqwest::StatusCode;
use serde_json::{Value, json};
use svc_engine::ScriptResult;
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
    unknown["scrapper"] = json!("playwright");
    let (status, err) = app.post("/api/scraps", &alice.token, unknown).await;
    assert_error(status, &err, StatusCode::UNPROCESSABLE_ENTITY, "VALIDATION");
    assert!(err["description"].as_str().unwrap().contains("puppeteer, static, auto"), "{err}");
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

/// A page whose list is built by its own JavaScript: empty to the static engine.
fn built_in_the_browser(n: usize) -> String {
    format!(
        "<!doctype html><html><head><title>Shop</title></head><body><ul id=\"list\"></ul><script>\
         for (let i = 0; i < {n}; i++) {{ const li = document.createElement('li'); li.className = 'item'; \
         li.textContent = 'Item ' + i; document.getElementById('list').appendChild(li); }}</script></body></html>"
    )
}

/// `scrapper: "auto"` on real engines: a server-rendered page is compared
/// once and then fetched by the static engine alone; a page built by its
/// JavaScript falls back to the browser and stays there; the activity log
/// says which engine was chosen and why.
#[tokio::test]
async fn auto_runs_static_where_it_finds_the_items_and_the_browser_elsewhere() {
    let site = common::site::Site::start().await;
    let items: String = (0..5).map(|i| format!("<li class=\"item\">Item {i}</li>")).collect();
    site.set(
        "/ssr",
        200,
        &format!("<!doctype html><html><head><title>Shop</title></head><body><ul>{items}</ul></body></html>"),
    );
    site.set("/csr", 200, &built_in_the_browser(5));
    let app = TestApp::start_with(&[PRIVATE_OK]).await;
    let alice = app.signup("alice@example.com").await;
    let scrap = |path: &str| json!({"title": path, "url": site.url(path), "request": ITEMS, "scrapper": "auto"});
    let (status, ssr) = app.post("/api/scraps", &alice.token, scrap("/ssr")).await;
    assert_eq!((status, ssr["scrapper"].as_str()), (StatusCode::CREATED, Some("auto")), "{ssr}");
    let (_, csr) = app.post("/api/scraps", &alice.token, scrap("/csr")).await;
    let (ssr, csr) = (ssr["id"].as_str().unwrap(), csr["id"].as_str().unwrap());
    let five = json!(["Item 0", "Item 1", "Item 2", "Item 3", "Item 4"]);

    for (id, path, second_run) in [(ssr, "/ssr", ["static"]), (csr, "/csr", ["browser"])] {
        let (_, row) = app.run_and_wait(&alice.token, id).await;
        assert_eq!((row["statusDetail"].as_str(), data(&row)), (Some("success"), five.clone()), "{path}: {row}");
        assert_eq!(site.engines(path), ["static", "browser"], "{path}: the first run compares");
        let (_, row) = app.run_and_wait(&alice.token, id).await;
        assert_eq!(data(&row), five, "{path}: {row}");
        assert_eq!(site.engines(path), second_run, "{path}: then one engine");
    }

    let log = |id: &str| {
        let path = format!("/api/scraps/{id}/activities");
        let token = alice.token.clone();
        let app = &app;
        async move {
            let (status, page) = app.get(&path, &token).await;
            assert_eq!(status, StatusCode::OK, "{page}");
            let entries: Vec<String> = page["data"]
                .as_array()
                .or_else(|| page.as_array())
                .expect("a list of activities")
                .iter()
                .filter(|a| a.to_string().contains("Automatic engine"))
                .map(|a| a.to_string())
                .collect();
            entries
        }
    };
    let ssr_log = log(ssr).await;
    assert!(ssr_log.len() == 1 && ssr_log[0].contains("static found the same 5 items as the browser"), "{ssr_log:?}");
    let csr_log = log(csr).await;
    assert!(
        csr_log.len() == 1 && csr_log[0].contains("the browser found 5 items and static found nothing"),
        "{csr_log:?}"
    );

    // Unknown engines are still refused; a fixed proxy tier is refused for auto.
    let (status, body) = app.put(&format!("/api/scraps/{ssr}"), &alice.token, json!({"proxyTier": "tier1"})).await;
    assert_error(status, &body, StatusCode::UNPROCESSABLE_ENTITY, "VALIDATION");
}
