//! Issue 35 in the web app: the run page of a crawl lists its pages
//! (status, label, items, time, error), the scrap page's latest data is the
//! whole run, and the editor's Test run runs a crawl with a cap of 10 pages
//! and lists the pages it visited.

use serde_json::json;
use svc_domain::plan::Plan;

use super::browser::{Tab, WebBrowser, js_str};
use super::scrap_page::log_in;
use crate::common::TestApp;
use crate::common::catalog_site::{CatalogSite, catalog_script};

const LOOPBACK_ONLY: (&str, &str) = ("SVC_ALLOW_PRIVATE_NETWORKS", "127.0.0.0/8");

async fn text_of(tab: &Tab, selector: &str) -> String {
    tab.eval(&format!("(document.querySelector({}) || {{}}).innerText || ''", js_str(selector))).await
}

async fn chips(tab: &Tab, table: &str) -> Vec<String> {
    tab.eval(&format!("[...document.querySelectorAll('{table} tbody .chip')].map(c => c.textContent)")).await
}

#[tokio::test]
async fn a_crawl_s_run_page_lists_its_pages_and_the_scrap_page_shows_the_whole_run() {
    let site = CatalogSite::start(true).await;
    let app = TestApp::start_with(&[LOOPBACK_ONLY]).await;
    let alice = app.signup("alice@example.com").await;
    app.store.set_plan(alice.org(), Plan::Growth).await.unwrap();
    let sid = app
        .scrap_with(
            &alice,
            json!({"title": "Lamp catalog", "url": format!("{}/", site.base), "scrapper": "static",
                   "request": catalog_script("depth=2")}),
        )
        .await;
    let (_, run) = app.run_and_wait(&alice.token, &sid).await;
    assert_eq!((run["statusDetail"].as_str(), run["length"].as_i64()), (Some("success"), Some(20)), "{run}");
    let rid = run["id"].as_str().unwrap();

    let browser = WebBrowser::launch().await;
    let tab = browser.tab(&app.base).await;
    log_in(&tab, &alice).await;
    tab.open(&format!("/scraps/{sid}/history/{rid}")).await;
    let head = text_of(&tab, "#run-pages .section-head").await;
    assert!(head.contains("25 pages in this crawl"), "{head}");
    let shown = chips(&tab, "#run-pages").await;
    assert_eq!(shown.len(), 25, "one page of the list holds them all");
    assert_eq!(shown.iter().filter(|c| *c == "OK").count(), 23, "{shown:?}");
    assert!(shown.contains(&"Error".to_string()) && shown.contains(&"Skipped: robots.txt".to_string()), "{shown:?}");
    let rows = text_of(&tab, "#run-pages tbody").await;
    assert!(rows.contains("/broken") && rows.contains("500"), "the broken page and why: {rows}");
    assert!(rows.contains("robots.txt disallows it"), "{rows}");
    let first: String = tab.eval("document.querySelector('#run-pages tbody tr td .url').textContent").await;
    assert_eq!(first, format!("{}/", site.base), "the start page first");
    tab.screenshots("run-crawl-pages").await;

    // The scrap page's latest data is the whole run: 20 items, not the start page's none.
    tab.open(&format!("/scraps/{sid}")).await;
    let latest = text_of(&tab, "#latest-data").await;
    assert!(latest.contains("Lamp 1") && latest.contains("Lamp 20"), "{latest}");
    // A run of one page has no pages section.
    let single = app
        .scrap_with(
            &alice,
            json!({"title": "One page", "url": format!("{}/item/3", site.base), "scrapper": "static",
                                    "request": "returnData([{t: document.title}])"}),
        )
        .await;
    let (_, one) = app.run_and_wait(&alice.token, &single).await;
    tab.open(&format!("/scraps/{single}/history/{}", one["id"].as_str().unwrap())).await;
    let none: bool = tab.eval("document.getElementById('run-pages') === null").await;
    assert!(none, "no pages section for a run of one page");
    browser.close().await;
}

#[tokio::test]
async fn the_editor_s_test_run_crawls_at_most_ten_pages_and_lists_them() {
    let site = CatalogSite::start(false).await;
    let app = TestApp::start_with(&[LOOPBACK_ONLY]).await;
    let alice = app.signup("alice@example.com").await;
    app.store.set_plan(alice.org(), Plan::Growth).await.unwrap();
    let browser = WebBrowser::launch().await;
    let tab = browser.tab(&app.base).await;
    log_in(&tab, &alice).await;
    tab.open("/scraps/new").await;
    tab.fill("Title", "Lamp catalog").await;
    tab.fill("URL", &format!("{}/", site.base)).await;
    tab.fill("Script", &catalog_script("pages=200")).await;
    tab.click_and_load("Test run").await;
    let result = text_of(&tab, "#test-result").await;
    assert!(result.contains("8 items"), "ten pages: the index, a listing and 8 details: {result}");
    assert!(result.contains("A test run visits at most 10 pages"), "{result}");
    let shown = chips(&tab, "#test-result .run-pages").await;
    assert_eq!(shown, vec!["OK".to_string(); 10], "{shown:?}");
    tab.screenshots("test-run-crawl").await;
    // Nothing was stored.
    let me = app.services.auth.session(&alice.token).await.unwrap();
    let none = app.services.scraps.overview(&me, None, false, Default::default()).await.unwrap();
    assert_eq!(none.total, 0);
    browser.close().await;
}
