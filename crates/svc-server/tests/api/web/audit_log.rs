//! Settings → Audit log and the history age limit, in a real Chromium;
//! the refusals over plain HTTP.

use reqwest::StatusCode;
use serde_json::json;

use super::browser::WebBrowser;
use super::developers::log_in;
use super::{csrf_token_of, session_cookie};
use crate::common::TestApp;

#[tokio::test]
async fn the_audit_log_page_lists_entries_a_page_at_a_time() {
    let app = TestApp::start_with(&[("SVC_EMBEDDED_WORKER", "false")]).await;
    let dana = app.signup("dana@example.com").await;
    let browser = WebBrowser::launch().await;
    let tab = browser.tab(&app.base).await;
    log_in(&tab, &dana).await;

    tab.open("/settings/audit").await;
    assert!(tab.text().await.contains("Nothing recorded yet."));

    // 30 entries: two pages of 25.
    for i in 0..15 {
        let (id, _) = app.create_key(&dana, json!({"name": format!("deploy key {i}")})).await;
        let (status, _) = app.delete(&format!("/api/developers/keys/{id}"), &dana.token).await;
        assert_eq!(status, StatusCode::NO_CONTENT);
    }
    tab.open("/settings").await;
    tab.click_and_load("Audit log").await;
    assert_eq!(tab.path().await, "/settings/audit");
    let text = tab.text().await;
    assert!(text.contains("30 entries") && text.contains("Page 1 of 2"), "{text}");
    let rows: i64 = tab.eval("document.querySelectorAll('table.audit-list tbody tr').length").await;
    assert_eq!(rows, 25);
    let first: String = tab.eval("document.querySelector('table.audit-list tbody tr').innerText").await;
    assert!(
        first.contains("API key revoked") && first.contains("dana@example.com") && first.contains("deploy key 14"),
        "newest first: {first}"
    );
    assert!(first.contains("127.0.0.1"), "the address: {first}");
    tab.screenshots("audit-log").await;
    tab.color_scheme(true).await;
    tab.screenshots("audit-log-dark").await;
    tab.color_scheme(false).await;

    tab.click_and_load("Next →").await;
    assert_eq!(tab.path().await, "/settings/audit?page=2");
    let rows: i64 = tab.eval("document.querySelectorAll('table.audit-list tbody tr').length").await;
    assert_eq!(rows, 5);
    let last: String = tab.eval("[...document.querySelectorAll('table.audit-list tbody tr')].pop().innerText").await;
    assert!(last.contains("API key created") && last.contains("deploy key 0"), "oldest last: {last}");
    tab.open("/settings/audit?page=abc").await;
    assert!(tab.text().await.contains("Page 1 of 2"), "a bad page number is the first page");
    browser.close().await;
}

#[tokio::test]
async fn the_history_age_limit_is_set_in_settings_and_audited() {
    let app = TestApp::start_with(&[("SVC_EMBEDDED_WORKER", "false")]).await;
    let dana = app.signup("dana@example.com").await;
    let browser = WebBrowser::launch().await;
    let tab = browser.tab(&app.base).await;
    log_in(&tab, &dana).await;

    tab.open("/settings").await;
    assert!(tab.text().await.contains("Every run is kept."));
    // Bad input: said next to the field, what was typed kept.
    tab.run("document.getElementById('history-days').removeAttribute('max')").await;
    tab.fill("Delete runs older than (days)", "5000").await;
    tab.click_and_load("Save history setting").await;
    let text = tab.text().await;
    assert!(text.contains("from 1 to 3650 days"), "{text}");
    assert_eq!(tab.value("Delete runs older than (days)").await, "5000");
    tab.screenshots("settings-history-error").await;

    tab.fill("Delete runs older than (days)", "30").await;
    tab.click_and_load("Save history setting").await;
    assert_eq!(tab.path().await, "/settings?saved=history");
    let text = tab.text().await;
    assert!(text.contains("Runs are kept for 30 days.") && text.contains("history setting was saved"), "{text}");
    assert_eq!(tab.value("Delete runs older than (days)").await, "30");
    tab.screenshots("settings-history").await;
    let (_, body) = app.get("/api/organization/settings", &dana.token).await;
    assert_eq!(body["historyRetentionDays"], 30);

    tab.fill("Delete runs older than (days)", "").await;
    tab.click_and_load("Save history setting").await;
    assert!(tab.text().await.contains("Every run is kept."));

    tab.open("/settings/audit").await;
    let text = tab.text().await;
    assert!(text.contains("Settings changed") && text.contains("history: 30 days to kept"), "{text}");
    browser.close().await;
}

#[tokio::test]
async fn the_history_form_needs_the_csrf_token_and_the_log_shows_only_its_organization() {
    let app = TestApp::start_with(&[("SVC_EMBEDDED_WORKER", "false")]).await;
    let erin = app.signup("erin@example.com").await;
    let frank = app.signup("frank@example.com").await;
    app.create_key(&frank, json!({"name": "frank's key"})).await;
    let post = |csrf: String| {
        app.http
            .post(format!("{}/settings/history", app.base))
            .header("cookie", session_cookie(&erin.token))
            .header("origin", &app.base)
            .form(&[("historyRetentionDays", "7"), ("csrf", csrf.as_str())])
            .send()
    };
    assert_eq!(post(String::new()).await.unwrap().status(), StatusCode::FORBIDDEN);
    let (_, body) = app.get("/api/organization/settings", &erin.token).await;
    assert_eq!(body["historyRetentionDays"], serde_json::Value::Null, "nothing saved");
    let saved = post(csrf_token_of(&app, &erin.token).await).await.unwrap();
    assert!(saved.status().is_success() || saved.status() == StatusCode::SEE_OTHER, "{}", saved.status());
    let (_, body) = app.get("/api/organization/settings", &erin.token).await;
    assert_eq!(body["historyRetentionDays"], 7);

    // An email change through the form is audited with both addresses.
    let changed = app
        .http
        .post(format!("{}/settings/email", app.base))
        .header("cookie", session_cookie(&erin.token))
        .header("origin", &app.base)
        .form(&[
            ("email", "erin.new@example.com"),
            ("currentPassword", "password-123"),
            ("csrf", csrf_token_of(&app, &erin.token).await.as_str()),
        ])
        .send()
        .await
        .unwrap();
    assert!(changed.status().is_success() || changed.status() == StatusCode::SEE_OTHER, "{}", changed.status());

    let page = app
        .http
        .get(format!("{}/settings/audit", app.base))
        .header("cookie", session_cookie(&erin.token))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(page.contains("Settings changed") && !page.contains("frank"), "only erin's organization");
    assert!(page.contains("Email changed") && page.contains("from erin@example.com to erin.new@example.com"), "{page}");
}
