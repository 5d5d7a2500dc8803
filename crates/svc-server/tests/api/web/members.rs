//! Settings → Members in a real Chromium (issue #37, part 1): the owner
//! invites (the link is shown), an editor signs up from the link, accepts
//! and edits a scrap, a viewer cannot run it, and removing the editor ends
//! their session and their keys at once.

use reqwest::{Method, StatusCode};
use serde_json::json;

use super::browser::{Tab, WebBrowser, js_str};
use super::developers::log_in;
use crate::common::{TestApp, assert_error};

/// Invites `email` as `role` through the form; the link shown.
async fn invite_through_the_form(tab: &Tab, email: &str, role: &str) -> String {
    tab.fill("Email", email).await;
    tab.run(&format!("document.getElementById('invite-role').value = {}", js_str(role))).await;
    tab.click_and_load("Invite").await;
    let text = tab.text().await;
    assert!(text.contains(&format!("{email} is invited")) && text.contains("pass this link on"), "{text}");
    tab.eval("document.getElementById('invite-link').textContent.trim()").await
}

/// Submits the form whose `data-confirm` mentions `what`, saying yes; the question asked.
async fn confirm_and_submit(tab: &Tab, what: &str) -> String {
    tab.run("window.confirm = (q) => { sessionStorage.setItem('asked', q); return true; }").await;
    tab.run(&format!(
        "window.__svcOldPage = true; [...document.querySelectorAll('form[data-confirm]')]\
         .find(f => f.dataset.confirm.includes({})).querySelector('button').click()",
        js_str(what)
    ))
    .await;
    tab.wait_for(
        "window.__svcOldPage === undefined && document.readyState === 'complete'",
        "the page after confirming",
    )
    .await;
    tab.eval("sessionStorage.getItem('asked')").await
}

#[tokio::test]
async fn owner_invites_editor_edits_viewer_cannot_run_and_removal_ends_the_editor() {
    let app = TestApp::start().await;
    let ada = app.signup("ada@example.com").await;
    let scrap = app.create_scrap(&ada, "Prices").await["id"].as_str().unwrap().to_string();
    let owner_browser = WebBrowser::launch().await;
    let owner = owner_browser.tab(&app.base).await;
    log_in(&owner, &ada).await;

    owner.open("/settings").await;
    owner.click_and_load("Members").await;
    assert_eq!(owner.path().await, "/settings/members");
    let bobs_link = invite_through_the_form(&owner, "bob@example.com", "editor").await;
    let cats_link = invite_through_the_form(&owner, "cat@example.com", "viewer").await;
    assert!(bobs_link.contains("/invites/accept?token="), "{bobs_link}");

    // Bob has no account: he signs up from the link, comes back and accepts.
    let editor_browser = WebBrowser::launch().await;
    let editor = editor_browser.tab(&app.base).await;
    let path = &bobs_link[bobs_link.find("/invites").unwrap()..];
    editor.open(path).await;
    let text = editor.text().await;
    assert!(text.contains("Join ada") && text.contains("as an editor"), "{text}");
    editor.screenshots("invite-accept").await;
    editor.click_and_load("Sign up as bob@example.com").await;
    // The invited address, prefilled and read-only.
    assert_eq!(editor.value("Email").await, "bob@example.com");
    let locked: bool = editor.eval("document.getElementById('email').readOnly").await;
    assert!(locked, "the invitation is for that address");
    editor.screenshots("invite-signup").await;
    editor.fill("Password", "password-123").await;
    editor.click_and_load("Sign up").await;
    assert_eq!(editor.path().await, path, "back to the invitation");
    editor.click_and_load("Accept and join").await;
    assert_eq!(editor.path().await, "/settings/members?saved=joined");
    assert!(editor.text().await.contains("You are an editor"));

    // The editor edits Ada's scrap in the web app.
    editor.open(&format!("/scraps/{scrap}/edit")).await;
    editor.fill("Title", "Prices (edited by Bob)").await;
    editor.click_and_load("Save").await;
    let (_, stored) = app.get(&format!("/api/scraps/{scrap}"), &ada.token).await;
    assert_eq!(stored["title"], "Prices (edited by Bob)", "{stored}");

    // Cat, a viewer, reads the scrap but cannot run it, nor can her key.
    let cat = app.signup("cat@example.com").await;
    let token = cats_link.split("token=").nth(1).unwrap();
    let (status, joined) = app.post("/api/invites/accept", &cat.token, json!({"token": token})).await;
    assert_eq!(status, StatusCode::OK, "{joined}");
    let cat_there = joined["token"].as_str().unwrap().to_string();
    let (status, _) = app.get(&format!("/api/scraps/{scrap}"), &cat_there).await;
    assert_eq!(status, StatusCode::OK);
    let (status, body) =
        app.send(app.request(Method::POST, &format!("/api/scraps/worker/{scrap}"), Some(&cat_there))).await;
    assert_error(status, &body, StatusCode::FORBIDDEN, "FORBIDDEN");
    assert!(body["description"].as_str().unwrap().contains("viewer"), "{body}");

    // Bob also has an API key in Ada's organization (made over REST, where
    // log-in enters the organization he used last: Ada's).
    let (status, login) = app
        .send(
            app.request(Method::POST, "/api/auth/login", None)
                .json(&json!({"email": "bob@example.com", "password": "password-123"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{login}");
    let bob_rest = login["token"].as_str().unwrap().to_string();
    let (status, key) = app.post("/api/developers/keys", &bob_rest, json!({"name": "bob's"})).await;
    assert_eq!(status, StatusCode::OK, "{key}");
    let bobs_key = key["plainKey"].as_str().unwrap().to_string();
    let (status, _) = app.get(&format!("/api/scraps/{scrap}"), &bobs_key).await;
    assert_eq!(status, StatusCode::OK);

    owner.open("/settings/members").await;
    let text = owner.text().await;
    assert!(text.contains("bob@example.com") && text.contains("cat@example.com"), "{text}");
    owner.screenshots("members").await;

    // Ada removes Bob: the question says what ends; his session and key stop.
    let asked = confirm_and_submit(&owner, "bob@example.com").await;
    assert!(asked.contains("sessions here end") && asked.contains("API keys they created here are revoked"), "{asked}");
    assert!(owner.text().await.contains("The member was removed"));
    editor.open("/").await;
    assert!(editor.path().await.starts_with("/login"), "the editor's browser session ended");
    let (status, body) = app.get(&format!("/api/scraps/{scrap}"), &bobs_key).await;
    assert_error(status, &body, StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
    let (status, body) = app.get("/api/scraps", &bob_rest).await;
    assert_error(status, &body, StatusCode::UNAUTHORIZED, "UNAUTHORIZED");

    editor_browser.close().await;
    owner_browser.close().await;
}

#[tokio::test]
async fn a_member_switches_organizations_and_a_viewer_sees_no_member_controls() {
    let app = TestApp::start().await;
    let ada = app.signup("ada@example.com").await;
    let cat = app.signup("cat@example.com").await;
    let (status, invite) =
        app.post("/api/organization/invites", &ada.token, json!({"email": "cat@example.com", "role": "viewer"})).await;
    assert_eq!(status, StatusCode::CREATED, "{invite}");
    let token = invite["link"].as_str().unwrap().split("token=").nth(1).unwrap().to_string();
    let (status, body) = app.post("/api/invites/accept", &cat.token, json!({"token": token})).await;
    assert_eq!(status, StatusCode::OK, "{body}");

    let browser = WebBrowser::launch().await;
    let tab = browser.tab(&app.base).await;
    log_in(&tab, &cat).await;
    // Log-in entered the organization joined last: Ada's, as a viewer.
    tab.open("/settings/members").await;
    let text = tab.text().await;
    assert!(text.contains("Members of ada") && text.contains("You are a viewer"), "{text}");
    assert!(!tab.has_button("Invite").await && !tab.has_button("Remove").await, "a viewer manages no one");
    tab.screenshots("members-viewer").await;

    tab.run(&format!(
        "window.__svcOldPage = true; document.querySelector('form[action=\"/settings/organizations/{}/switch\"] button').click()",
        cat.org_id
    ))
    .await;
    tab.wait_for("window.__svcOldPage === undefined && document.readyState === 'complete'", "the switched page").await;
    assert_eq!(tab.path().await, "/");
    tab.open("/settings/members").await;
    let text = tab.text().await;
    assert!(text.contains("Members of cat") && text.contains("You are an owner"), "{text}");
    assert!(tab.has_button("Invite").await);
    browser.close().await;
}
