//! The walk through the web app, end to end in one browser session:
//! sign up → a scrap with a bad cron (error shown, input kept) → fix → Test
//! run shows the data → Save → Run now shows the result without a reload →
//! the run's page shows the table and its CSV equals the data → a key shown
//! once, then revoked → the webhook screens' plan gate → a form without its
//! CSRF token refused → another organization's scrap is 404.

use reqwest::StatusCode;
use serde_json::Value;

use super::browser::{WebBrowser, js_str};
use super::sign_up_in;
use crate::common::{TestApp, fixture, parse_csv};

const SCRIPT: &str = "returnData([...document.querySelectorAll('li.item')].map(li => ({name: li.textContent, i: Number(li.dataset.i)})))";

#[tokio::test]
async fn the_whole_journey_of_a_new_user() {
    let site = fixture::start().await;
    let app = TestApp::start_with(&[("SVC_ALLOW_PRIVATE_NETWORKS", "true")]).await;
    let browser = WebBrowser::launch().await;
    let tab = browser.tab(&app.base).await;
    sign_up_in(&tab, "journey@example.com").await;

    // A scrap with a bad cron: refused next to the field, everything kept.
    tab.click_and_load("New scrap").await;
    let url = format!("{}/items/4", site.base);
    tab.fill("Title", "Shop items").await;
    tab.fill("URL", &url).await;
    tab.fill("Script", SCRIPT).await;
    tab.fill("Schedule (cron)", "*/0 * * *").await;
    tab.click_and_load("Save").await;
    assert!(tab.eval::<bool>("!!document.getElementById('cron-error')").await, "{}", tab.text().await);
    assert_eq!((tab.value("Title").await, tab.value("URL").await), ("Shop items".to_string(), url.clone()));
    assert_eq!(tab.value("Script").await, SCRIPT);

    // Fixed, test-run (the data shows), saved.
    tab.fill("Schedule (cron)", "0 7 * * *").await;
    tab.click_and_load("Test run").await;
    let result: String = tab.eval("document.getElementById('test-result').innerText").await;
    assert!(result.contains("4 items") && result.contains("Item 3"), "{result}");
    tab.click_and_load("Save").await;
    let path = tab.path().await;
    let scrap_id = path.trim_start_matches("/scraps/").trim_end_matches("?saved=1").to_string();
    assert_eq!(scrap_id.len(), 24, "{path}");

    // Run now: the outcome and the data appear without a reload.
    tab.run("window.__journey = 'same page'").await;
    tab.click("Run now").await;
    tab.wait_for("document.querySelector('#run-status .chip-success')", "the run's outcome").await;
    tab.wait_for("document.querySelector('#latest-data table.data')", "the latest data").await;
    assert_eq!(tab.eval::<String>("window.__journey || 'reloaded'").await, "same page");

    // The run's page: the table, and a CSV download equal to the data.
    tab.click_and_load("View the run").await;
    let cells: Vec<String> = tab
        .eval("[...document.querySelectorAll('table.data tbody tr:first-child td')].map(td => td.textContent)")
        .await;
    assert_eq!(cells, ["Item 0", "0"]);
    let csv_href: String =
        tab.eval("[...document.querySelectorAll('a')].find(a => a.textContent === 'Download CSV').href").await;
    let csv: String = tab.eval(&format!("fetch({}).then(r => r.text())", js_str(&csv_href))).await;
    let json_href: String =
        tab.eval("[...document.querySelectorAll('a')].find(a => a.textContent === 'Download JSON').href").await;
    let json: String = tab.eval(&format!("fetch({}).then(r => r.text())", js_str(&json_href))).await;
    let data: Vec<Value> = serde_json::from_str(&json).unwrap();
    let rows = parse_csv(&csv);
    assert_eq!(rows[0], ["name", "i"]);
    let from_csv: Vec<Value> =
        rows[1..].iter().map(|r| serde_json::json!({"name": r[0], "i": r[1].parse::<i64>().unwrap()})).collect();
    assert_eq!(from_csv, data, "the CSV holds the run's data");
    assert_eq!(data.len(), 4);

    // An API key, shown once, works, and stops working once revoked.
    tab.click_and_load("API keys").await;
    tab.fill("Name", "journey").await;
    tab.click_and_load("Create key").await;
    let plain: String = tab.eval("document.getElementById('new-key').textContent.trim()").await;
    let (status, _) = app.get(&format!("/api/scraps/{scrap_id}"), &plain).await;
    assert_eq!(status, StatusCode::OK);
    tab.open("/developers/keys").await;
    assert!(!tab.html().await.contains(&plain), "the key is shown once");
    tab.run("window.confirm = () => true").await;
    tab.click_and_load("Revoke").await;
    let (status, _) = app.get(&format!("/api/scraps/{scrap_id}"), &plain).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);

    // Webhooks on the Free plan: what it takes, and no form to fill.
    tab.click_and_load("Webhooks").await;
    let text = tab.text().await;
    assert!(text.contains("Webhooks need the Growth or Pro plan"), "{text}");
    assert!(!tab.has_button("Create webhook").await);

    // A form sent without its CSRF token is refused, and nothing changes.
    let status: u16 = tab
        .eval(&format!(
            "fetch('/scraps/{scrap_id}/delete', {{method: 'POST', headers: {{'content-type': \
             'application/x-www-form-urlencoded'}}, body: 'csrf=forged'}}).then(r => r.status)"
        ))
        .await;
    assert_eq!(status, 403);
    tab.open(&format!("/scraps/{scrap_id}")).await;
    assert!(tab.text().await.contains("Shop items"), "still there");

    // Another organization's scrap: not found, as over REST.
    let other = app.signup("other@example.com").await;
    let theirs = app.create_scrap(&other, "Theirs").await;
    let theirs = theirs["id"].as_str().unwrap();
    tab.open(&format!("/scraps/{theirs}")).await;
    let text = tab.text().await;
    assert!(text.contains("Not found") && !text.contains("Theirs"), "{text}");
    let status: u16 = tab.eval(&format!("fetch('/scraps/{theirs}').then(r => r.status)")).await;
    assert_eq!(status, 404);
    browser.close().await;
}
