//! Role-aware screens (issue 37): a viewer sees no Run, Edit, Save,
//! Delete, New scrap, Restore or banner change; an editor sees those but no channel,
//! webhook or member management. The server refuses regardless (tested in
//! `members`); these are the screens, in a real Chromium.

use reqwest::StatusCode;
use serde_json::json;

use super::browser::{Tab, WebBrowser};
use super::developers::log_in;
use crate::common::{Account, TestApp};

/// `email` signs up and joins `owner`'s organization as `role` (where its
/// next log-in enters: the organization used last).
async fn member(app: &TestApp, owner: &Account, email: &str, role: &str) -> Account {
    let (status, invite) =
        app.post("/api/organization/invites", &owner.token, json!({"email": email, "role": role})).await;
    assert_eq!(status, StatusCode::CREATED, "{invite}");
    let token = invite["link"].as_str().unwrap().split("token=").nth(1).unwrap().to_string();
    let account = app.signup(email).await;
    let (status, joined) = app.post("/api/invites/accept", &account.token, json!({"token": token})).await;
    assert_eq!(status, StatusCode::OK, "{joined}");
    account
}

async fn has_text(tab: &Tab, text: &str) -> bool {
    tab.text().await.contains(text)
}

#[tokio::test]
async fn a_viewer_sees_no_writes_and_an_editor_no_management() {
    let app = TestApp::start().await;
    let ada = app.signup("ada@example.com").await;
    let scrap = app.create_scrap(&ada, "Prices").await["id"].as_str().unwrap().to_string();
    let (status, _) =
        app.post("/api/developers/channels", &ada.token, json!({"name": "ops", "url": "ntfy://alerts"})).await;
    let with_channel = status == StatusCode::CREATED;
    let cat = member(&app, &ada, "cat@example.com", "viewer").await;
    let bob = member(&app, &ada, "bob@example.com", "editor").await;

    let browser = WebBrowser::launch().await;
    let viewer = browser.tab(&app.base).await;
    log_in(&viewer, &cat).await;
    assert!(!viewer.has_button("New scrap").await, "a viewer creates no scrap");
    assert!(has_text(&viewer, "Your role here is viewer").await);
    viewer.screenshots("scrap-list-viewer").await;
    viewer.open(&format!("/scraps/{scrap}")).await;
    for refused in ["Run now", "Edit", "Delete", "Replace the address", "Upload", "Use a screenshot of the page"] {
        assert!(!viewer.has_button(refused).await, "a viewer sees no {refused}");
    }
    assert!(viewer.has_button("Versions").await, "reading stays");
    assert!(has_text(&viewer, "not run, edit or delete it").await);
    viewer.screenshots("scrap-page-viewer").await;
    viewer.open(&format!("/scraps/{scrap}/edit")).await;
    assert!(!viewer.has_button("Save").await && !viewer.has_button("Test run").await);
    assert!(has_text(&viewer, "you may read this scrap, not change it").await);

    let editor_browser = WebBrowser::launch().await;
    let editor = editor_browser.tab(&app.base).await;
    log_in(&editor, &bob).await;
    assert!(editor.has_button("New scrap").await);
    editor.open(&format!("/scraps/{scrap}")).await;
    for allowed in ["Run now", "Edit", "Delete", "Upload", "Use a screenshot of the page"] {
        assert!(editor.has_button(allowed).await, "an editor sees {allowed}");
    }
    editor.open("/settings/channels").await;
    assert!(!editor.has_button("Save channel").await, "an editor saves no channel");
    if with_channel {
        assert!(!editor.has_button("Send test message").await);
    }
    assert!(has_text(&editor, "owners and admins save, test and delete channels").await);
    editor.screenshots("channels-editor").await;
    editor.open("/settings/members").await;
    assert!(!editor.has_button("Invite").await, "an editor invites no one");

    // The owner sees them all.
    let owner = browser.tab(&app.base).await;
    log_in(&owner, &ada).await;
    owner.open("/settings/channels").await;
    assert!(owner.has_button("Save channel").await);
    browser.close().await;
    editor_browser.close().await;
}
