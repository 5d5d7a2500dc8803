//! The scrap page's feed card: the address shown is the one the `<head>`
//! advertises and the one that serves the feed; **Replace the address**
//! (after a confirmation) gives a new one and the old one stops working.

use reqwest::StatusCode;

use super::browser::{Tab, WebBrowser};
use super::scrap_page::log_in;
use crate::common::TestApp;
use crate::exports::insert_run_with;

/// Says yes to the page's next `confirm()`.
async fn accept_confirm(tab: &Tab) {
    tab.run("window.confirm = (q) => { sessionStorage.setItem('asked', q); return true; }").await;
}

async fn shown_address(tab: &Tab) -> String {
    tab.eval("document.getElementById('feed-atom-url').textContent").await
}

async fn advertised(tab: &Tab, kind: &str) -> String {
    tab.eval(&format!("document.head.querySelector('link[rel=alternate][type=\"{kind}\"]').href")).await
}

#[tokio::test]
async fn the_scrap_page_shows_and_replaces_its_feed_address() {
    let app = TestApp::start().await;
    let alice = app.signup("alice@example.com").await;
    let sid = app.create_scrap(&alice, "Weekly prices").await["id"].as_str().unwrap().to_string();
    insert_run_with(&app, &alice, &sid, r#"[{"id":1,"price":10}]"#).await;
    insert_run_with(&app, &alice, &sid, r#"[{"id":1,"price":12},{"id":2,"price":5}]"#).await;

    let browser = WebBrowser::launch().await;
    let tab = browser.tab(&app.base).await;
    log_in(&tab, &alice).await;
    tab.open(&format!("/scraps/{sid}")).await;
    let text = tab.text().await;
    for expected in ["Feed of changes", "Atom feed address", "RSS 2.0 feed", "Replace the address"] {
        assert!(text.contains(expected), "{expected:?} in:\n{text}");
    }
    let address = shown_address(&tab).await;
    assert!(address.starts_with(&format!("{}/scraps/{sid}/feed.atom?token=feed_", app.base)), "{address}");
    assert_eq!(advertised(&tab, "application/atom+xml").await, address, "the head advertises the shown address");
    let rss: String = tab.eval("document.getElementById('feed-rss-link').href").await;
    assert_eq!(advertised(&tab, "application/rss+xml").await, rss);
    let feed = reqwest::get(&address).await.unwrap();
    assert_eq!(feed.status(), StatusCode::OK);
    assert!(feed.text().await.unwrap().contains("1 added, 1 changed"));
    tab.run("document.getElementById('feed').scrollIntoView()").await;
    tab.screenshots("scrap-feed").await;

    accept_confirm(&tab).await;
    tab.click_and_load("Replace the address").await;
    let asked: String = tab.eval("sessionStorage.getItem('asked')").await;
    assert!(asked.contains("stops working"), "{asked}");
    assert!(tab.text().await.contains("The feed has a new address"));
    let replaced = shown_address(&tab).await;
    assert_ne!(replaced, address);
    assert_eq!(advertised(&tab, "application/atom+xml").await, replaced);
    assert_eq!(reqwest::get(&address).await.unwrap().status(), StatusCode::NOT_FOUND);
    assert_eq!(reqwest::get(&replaced).await.unwrap().status(), StatusCode::OK);
    tab.screenshots("scrap-feed-rotated").await;
    browser.close().await;
}
