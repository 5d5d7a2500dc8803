//! Settings > Chat channels in a real Chromium: save a channel (its URL
//! shown redacted afterwards), a bad URL said next to its field, "Send test
//! message" to a local chat service (delivered, and refused with the
//! service's answer), and the scrap page's log of channel sends.

use std::time::Duration;

use super::browser::WebBrowser;
use super::developers::log_in;
use crate::common::TestApp;
use crate::common::chat_service::ChatService;

#[tokio::test]
async fn channels_are_saved_redacted_and_tested_from_settings() {
    let chat = ChatService::start().await;
    let urls = format!("slack={0},discord={0},telegram={0},teams={0}", chat.base);
    let app =
        TestApp::start_with(&[("SVC_ALLOW_PRIVATE_NETWORKS", "true"), ("SVC_CHANNEL_API_URLS", urls.as_str())]).await;
    let dana = app.signup("dana@example.com").await;
    let browser = WebBrowser::launch().await;
    let tab = browser.tab(&app.base).await;
    log_in(&tab, &dana).await;

    tab.open("/settings").await;
    tab.click_and_load("Manage chat channels").await;
    assert_eq!(tab.path().await, "/settings/channels");
    assert!(tab.text().await.contains("No channel yet."));

    // A malformed URL is said next to its field, the form kept.
    tab.fill("Name", "ops").await;
    tab.fill("Channel URL", "irc://irc.example/ops").await;
    tab.click_and_load("Save channel").await;
    let text = tab.text().await;
    assert!(text.contains("is not a channel svc knows"), "{text}");
    assert_eq!(tab.value("Name").await, "ops");
    tab.screenshots("settings-channels-error").await;

    tab.fill("Channel URL", "slack://T0AAAA/B0BBBB/SeCrEtToKeN1234").await;
    tab.click_and_load("Save channel").await;
    let text = tab.text().await;
    assert!(text.contains("Channel ops saved") && text.contains("channel:ops") && text.contains("Slack"), "{text}");
    assert!(text.contains("slack://T0AAAA/B0BBBB/…1234"), "{text}");
    assert!(!tab.html().await.contains("SeCrEtToKeN"), "the token is never shown again");
    let refusing = format!("json://{}/refuses", chat.authority);
    tab.fill("Name", "zz-receiver").await;
    tab.fill("Channel URL", &refusing).await;
    tab.click_and_load("Save channel").await;

    tab.click_and_load("Send test message").await;
    assert!(tab.text().await.contains("Test message sent to ops."), "{}", tab.text().await);
    let got = chat.wait_for(1, Duration::from_secs(30)).await;
    assert_eq!(got[0].path, "/services/T0AAAA/B0BBBB/SeCrEtToKeN1234");
    assert_eq!(got[0].json()["blocks"][0]["type"], "header");
    tab.screenshots("settings-channels").await;
    tab.color_scheme(true).await;
    tab.screenshots("settings-channels-dark").await;
    tab.color_scheme(false).await;

    chat.answer(&[(404, "no_such_hook")]);
    tab.run(
        "window.__svcOldPage = true; [...document.querySelectorAll('form[action$=\"/test\"] button')].pop().click()",
    )
    .await;
    tab.wait_for("window.__svcOldPage === undefined && document.readyState === 'complete'", "the test's page").await;
    let text = tab.text().await;
    assert!(text.contains("The test message to zz-receiver was not delivered") && text.contains("404"), "{text}");
    tab.screenshots("settings-channels-refused").await;

    // A send that failed for good is listed on the admin page, with why.
    app.services.admin.grant_admin("dana@example.com").await.unwrap();
    let scrap = app.create_scrap(&dana, "Prices").await["id"].as_str().unwrap().to_string();
    let email = svc_domain::email::Email {
        id: svc_domain::ObjectId::new(),
        organization_id: dana.org(),
        kind: svc_domain::email::EmailKind::Alert,
        to: "channel:gone".into(),
        subject: "Prices is failing (error)".into(),
        text: "The run failed.".into(),
        html: None,
        attachment: None,
        unsubscribe_url: None,
        scrap_id: svc_domain::ScrapId::parse(&scrap),
        history_id: None,
        created_at: chrono::Utc::now(),
    };
    app.store.queue_emails(&[email], chrono::Utc::now()).await.unwrap();
    app.services.runs.signals.emails.notify_one();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while app.store.failed_emails(dana.org(), 10).await.unwrap().is_empty() {
        assert!(tokio::time::Instant::now() < deadline, "the send did not fail");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    tab.open("/admin").await;
    let text = tab.text().await;
    assert!(text.contains("Failed emails and chat messages") && text.contains("unknown channel `gone`"), "{text}");
    tab.screenshots("admin-failed-sends").await;
    browser.close().await;
}
