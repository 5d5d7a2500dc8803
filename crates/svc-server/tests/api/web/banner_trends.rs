//! The banner's thumbnail in the scrap list and on the scrap page, and the
//! chart of the last runs (items and duration, failed runs marked), in
//! Chromium, light and dark, at laptop and phone widths.

use chrono::{Duration, Utc};
use svc_domain::ScrapId;
use svc_domain::history::{HistoryRow, StatusDetail, TriggeredBy};

use super::browser::WebBrowser;
use super::scrap_page::log_in;
use crate::banners::{png, upload_png};
use crate::common::site::Site;
use crate::common::{Account, TestApp};

/// Stores finished runs of `scrap`: (items, duration ms, outcome), oldest first.
async fn runs(app: &TestApp, who: &Account, scrap: &str, runs: &[(i64, i64, StatusDetail)]) {
    let start = Utc::now() - Duration::hours(runs.len() as i64);
    for (i, (items, ms, detail)) in runs.iter().enumerate() {
        let at = start + Duration::hours(i as i64);
        let mut row = HistoryRow::pending(ScrapId::parse(scrap).unwrap(), who.org(), TriggeredBy::Cron, "tier0", at);
        row.status_detail = Some(*detail);
        row.length = *items;
        row.data = format!("[{}]", vec!["1"; *items as usize].join(","));
        row.time_ms = Some(*ms);
        row.finished_at = Some(at + Duration::milliseconds(*ms));
        app.store.insert_history(&row).await.unwrap();
    }
}

#[tokio::test]
async fn the_banner_is_a_thumbnail_and_the_scrap_page_charts_its_last_runs() {
    use StatusDetail::{Empty, Error, Success};
    let app = TestApp::start().await;
    let ada = app.signup("ada@example.com").await;
    let with = app.create_scrap(&ada, "Price watch").await["id"].as_str().unwrap().to_string();
    let without = app.create_scrap(&ada, "No banner here").await["id"].as_str().unwrap().to_string();
    let path = upload_png(&app, &ada, &with, &png(320, 180)).await["banner"].as_str().unwrap().to_string();
    let history = [
        (40, 1200, Success),
        (42, 1100, Success),
        (41, 1500, Success),
        (0, 30_000, Error),
        (44, 1300, Success),
        (45, 900, Success),
        (0, 800, Empty),
        (47, 1000, Success),
        (48, 1250, Success),
        (50, 1400, Success),
    ];
    runs(&app, &ada, &with, &history).await;

    let browser = WebBrowser::launch().await;
    let tab = browser.tab(&app.base).await;
    log_in(&tab, &ada).await;

    // The list: a loaded thumbnail for the scrap with a banner, none for the other.
    let loaded = "[...document.querySelectorAll('img.list-banner')].map(i => [i.getAttribute('src'), i.complete && i.naturalWidth])";
    tab.wait_for(&format!("{loaded}.every(([_, w]) => w > 0)"), "the list's thumbnails load").await;
    let thumbs: Vec<(String, u32)> = tab.eval(loaded).await;
    assert_eq!(thumbs, vec![(path.clone(), 320)], "one thumbnail, the uploaded image");
    let rows: Vec<bool> = tab
        .eval("[...document.querySelectorAll('table.scraps tbody tr')].map(r => !!r.querySelector('img.list-banner'))")
        .await;
    assert_eq!(rows.iter().filter(|b| **b).count(), 1, "{rows:?}");
    tab.screenshots("banner-list").await;
    tab.color_scheme(true).await;
    tab.screenshots("banner-list-dark").await;
    tab.color_scheme(false).await;

    // The scrap page: the banner and the chart.
    tab.open(&format!("/scraps/{with}")).await;
    tab.wait_for("document.querySelector('img.scrap-banner').complete && document.querySelector('img.scrap-banner').naturalWidth > 0", "the banner loads").await;
    let alt: String = tab.eval("document.querySelector('img.scrap-banner').alt").await;
    assert_eq!(alt, "Banner of Price watch");
    let points: usize = tab.eval("document.querySelectorAll('#run-chart g.run').length").await;
    assert_eq!(points, history.len());
    let failed: Vec<String> =
        tab.eval("[...document.querySelectorAll('#run-chart g.run.failed title')].map(t => t.textContent)").await;
    assert_eq!(failed.len(), 2, "{failed:?}");
    assert!(
        failed[0].starts_with("Run 4 of 10") && failed[0].contains("Error (failed), 0 items, 30.0 s"),
        "{failed:?}"
    );
    assert!(failed[1].contains("Empty (failed)"), "{failed:?}");
    let marks: usize = tab.eval("document.querySelectorAll('#run-chart g.run.failed .failed-mark').length").await;
    assert_eq!(marks, 4, "a cross for items and one for duration per failed run");
    let summary: String = tab.eval("document.getElementById('run-chart-summary').textContent").await;
    assert!(
        summary.starts_with("The last 10 runs: 0 to 50 items per run, taking 800 ms to 30.0 s. 2 failed."),
        "{summary}"
    );
    // It fits its box at every width; no script drew it.
    let fits: bool = tab
        .eval("(() => { const s = document.getElementById('run-chart'); return s.getBoundingClientRect().width <= s.parentElement.getBoundingClientRect().width; })()")
        .await;
    assert!(fits);
    tab.run("document.getElementById('run-history').scrollIntoView()").await;
    tab.screenshots("scrap-trends").await;
    tab.color_scheme(true).await;
    // In dark mode the chart's text takes the theme's light text colour.
    let fill: String = tab.eval("getComputedStyle(document.querySelector('#run-chart text')).fill").await;
    assert_eq!(fill, "rgb(230, 233, 238)", "the dark theme's --text");
    tab.screenshots("scrap-trends-dark").await;
    tab.color_scheme(false).await;

    // A scrap without runs or banner: neither.
    tab.open(&format!("/scraps/{without}")).await;
    let (has_chart, has_banner): (bool, bool) =
        tab.eval("[!!document.getElementById('run-chart'), !!document.querySelector('img.scrap-banner')]").await;
    assert_eq!((has_chart, has_banner), (false, false));
    browser.close().await;
}

#[tokio::test]
async fn the_banner_is_uploaded_replaced_by_a_screenshot_and_removed_from_the_scrap_page() {
    let site = Site::start().await;
    site.set("/shop", 200, "<!doctype html><body style=\"margin:0;background:rgb(30,144,255)\"><h1>Shop</h1></body>");
    let app = TestApp::start_with(&[("SVC_ALLOW_PRIVATE_NETWORKS", "true")]).await;
    let ada = app.signup("ada@example.com").await;
    let id = app
        .scrap_with(&ada, serde_json::json!({"title": "Shop", "url": site.url("/shop"), "request": "returnData([1])"}))
        .await;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("banner.png");
    std::fs::write(&file, png(160, 90)).unwrap();

    let browser = WebBrowser::launch().await;
    let tab = browser.tab(&app.base).await;
    log_in(&tab, &ada).await;
    tab.open(&format!("/scraps/{id}")).await;
    assert!(!tab.has_button("Remove the banner").await, "no banner to remove yet");
    tab.choose_file("#banner-file", &file).await;
    tab.click_and_load("Upload").await;
    assert!(tab.text().await.contains("The banner was changed."));
    let uploaded: String = tab.eval("document.querySelector('img.scrap-banner').getAttribute('src')").await;
    let stored = app.store.scrap(ada.org(), ScrapId::parse(&id).unwrap()).await.unwrap().unwrap();
    assert_eq!(stored.banner, uploaded);
    assert!(uploaded.starts_with("/banners/") && uploaded.ends_with(".png"), "{uploaded}");
    tab.run("document.getElementById('banner').scrollIntoView()").await;
    tab.screenshots("banner-uploaded").await;

    // Not an image: a page that says why, and the banner stays.
    let text = dir.path().join("notes.png");
    std::fs::write(&text, "not an image at all").unwrap();
    tab.choose_file("#banner-file", &text).await;
    tab.click_and_load("Upload").await;
    let refusal = tab.text().await;
    assert!(
        refusal.contains("This image cannot be the banner") && refusal.contains("not a PNG, JPEG or WebP"),
        "{refusal}"
    );
    tab.screenshots("banner-refused").await;
    let stored = app.store.scrap(ada.org(), ScrapId::parse(&id).unwrap()).await.unwrap().unwrap();
    assert_eq!(stored.banner, uploaded);

    tab.open(&format!("/scraps/{id}")).await;
    tab.click_and_load("Use a screenshot of the page").await;
    assert!(tab.text().await.contains("The banner was changed."));
    let shot: String = tab.eval("document.querySelector('img.scrap-banner').getAttribute('src')").await;
    assert_ne!(shot, uploaded);
    tab.wait_for("document.querySelector('img.scrap-banner').naturalWidth > 0", "the screenshot loads").await;
    let width: u32 = tab.eval("document.querySelector('img.scrap-banner').naturalWidth").await;
    assert!(width >= 300, "a screenshot of the viewport, {width} px wide");
    tab.screenshots("banner-screenshot").await;

    tab.click_and_load("Remove the banner").await;
    assert!(tab.text().await.contains("The banner was removed."));
    let none: bool = tab.eval("!document.querySelector('img.scrap-banner')").await;
    assert!(none);
    // Each change is in the activity log.
    let log: String = tab.eval("document.getElementById('activity').textContent").await;
    for entry in
        ["Banner uploaded (PNG, 160 x 90 pixels)", "Banner set from a screenshot of the page", "Banner removed"]
    {
        assert!(log.contains(entry), "{entry:?} in {log}");
    }
    let stored = app.store.scrap(ada.org(), ScrapId::parse(&id).unwrap()).await.unwrap().unwrap();
    assert_eq!(stored.banner, "");
    browser.close().await;
}
