//! `/`: the scraps with schedule, next run and last run; search, "only
//! failing" and pages, each kept in the links of the others.

use serde_json::json;
use svc_domain::history::StatusDetail;

use super::browser::{Tab, WebBrowser};
use super::scrap_page::log_in;
use crate::common::TestApp;

#[tokio::test]
async fn the_list_shows_each_scraps_last_run_and_filters_and_pages() {
    let app = TestApp::start().await;
    let alice = app.signup("alice@example.com").await;
    let mut ids = vec![];
    for i in 0..23 {
        let scrapper = match i {
            21 => "static",
            20 => "auto",
            _ => "puppeteer",
        };
        let body = json!({"title": format!("Shop {i:02}"), "url": format!("https://shop{i}.example.com/"),
                          "request": "returnData([])", "cron": if i == 22 { json!("*/15 * * * *") } else { json!(null) },
                          "cronTimezone": "Europe/Paris", "scrapper": scrapper});
        ids.push(app.scrap_with(&alice, body).await);
    }
    // The newest scraps come first: 22 (scheduled, succeeded), 21 (failed), 20 (empty), 19 (running).
    app.insert_run(&alice, &ids[22], Some(StatusDetail::Success)).await;
    app.insert_run(&alice, &ids[21], Some(StatusDetail::Success)).await;
    app.insert_run(&alice, &ids[21], Some(StatusDetail::Error)).await;
    app.insert_run(&alice, &ids[20], Some(StatusDetail::Empty)).await;
    app.insert_run(&alice, &ids[19], None).await;
    // Another organization's scraps never show.
    let bob = app.signup("bob@example.com").await;
    app.create_scrap(&bob, "Bob's secret").await;

    let browser = WebBrowser::launch().await;
    let tab = browser.tab(&app.base).await;
    log_in(&tab, &alice).await;
    let first = rows(&tab).await;
    assert_eq!(first.len(), 20, "a page holds 20");
    assert!(first[0][0].starts_with("Shop 22") && first[0][0].contains("shop22.example.com"), "{:?}", first[0]);
    let engines: Vec<&str> = first[..3].iter().map(|r| r[1].as_str()).collect();
    assert_eq!(engines, ["browser", "static", "auto"], "each scrap's engine");
    assert!(
        first[0][2].starts_with("every 15 minutes, Europe/Paris") && first[0][2].contains("next"),
        "{:?}",
        first[0]
    );
    assert_eq!((first[0][3].as_str(), first[0][4].as_str()), ("Success", "1"));
    assert_eq!(first[1][3], "Error", "the last run counts: {:?}", first[1]);
    assert_eq!(first[2][3], "Empty");
    assert_eq!(first[3][3], "Running");
    assert_eq!(first[4][3], "Never run");
    assert_eq!(first[4][2], "manual runs only");
    let text = tab.text().await;
    assert!(text.contains("Page 1 of 2") && !text.contains("Bob's secret"), "{text}");
    tab.screenshots("scraps-list-full").await;

    tab.click_and_load("Next →").await;
    assert_eq!(tab.path().await, "/?page=2");
    assert_eq!(rows(&tab).await.len(), 3);

    // Only failing: the error and the empty run, not the running one.
    tab.open("/").await;
    tab.check("Only failing", true).await;
    tab.click_and_load("Search").await;
    let failing: Vec<String> = rows(&tab).await.into_iter().map(|r| r[0].lines().next().unwrap().to_string()).collect();
    assert_eq!(failing, ["Shop 21", "Shop 20"]);

    // Search keeps the filter; nothing found says so.
    tab.fill("Search", "shop21").await;
    tab.click_and_load("Search").await;
    assert_eq!(tab.path().await, "/?search=shop21&failing=1");
    assert_eq!(rows(&tab).await.len(), 1);
    tab.fill("Search", "no such shop").await;
    tab.click_and_load("Search").await;
    let text = tab.text().await;
    assert!(text.contains("No scrap matches") && text.contains("Show all scraps"), "{text}");
    browser.close().await;
}

/// The cells of the list's rows, as text.
async fn rows(tab: &Tab) -> Vec<Vec<String>> {
    tab.eval("[...document.querySelectorAll('table.scraps tbody tr')].map(tr => [...tr.cells].map(td => td.innerText.trim()))")
        .await
}
