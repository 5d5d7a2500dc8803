//! The web app in a real Chromium against the in-process server, and its
//! session and CSRF rules over plain HTTP. Screenshots of every screen go to
//! `target/tmp/web-screenshots/` (laptop and phone widths).

pub mod browser;

mod ai_editor;
mod audit_log;
mod banner_trends;
mod channels;
mod crawl_pages;
mod developers;
mod feeds;
mod fix_review;
mod history_page;
mod journey;
mod members;
mod recipients;
mod roles;
mod run_progress;
mod scrap_editor;
mod scrap_list;
pub mod scrap_page;
mod sessions;
mod settings;
mod site_login;
mod versions;

use crate::common::TestApp;
use browser::Tab;

/// The session cookie of `token`, as the browser would send it.
pub fn session_cookie(token: &str) -> String {
    format!("svc_session={token}")
}

/// The CSRF token a signed-in page embeds for its scripts.
pub async fn csrf_token_of(app: &TestApp, token: &str) -> String {
    let page = app
        .http
        .get(format!("{}/", app.base))
        .header("cookie", session_cookie(token))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let start = page.find("name=\"csrf-token\" content=\"").expect("the csrf meta tag") + 27;
    page[start..start + page[start..].find('"').unwrap()].to_string()
}

/// Signs up `email` through the sign-up form; the tab is then signed in.
pub async fn sign_up_in(tab: &Tab, email: &str) {
    tab.open("/signup").await;
    tab.fill("Email", email).await;
    tab.fill("Password", "password-123").await;
    tab.click_and_load("Sign up").await;
    assert_eq!(tab.path().await, "/", "signed up and on the scraps list");
}
