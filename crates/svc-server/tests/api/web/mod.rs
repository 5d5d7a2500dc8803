//! The web app in a real Chromium against the in-process server, and its
//! session and CSRF rules over plain HTTP. Screenshots of every screen go to
//! `target/tmp/web-screenshots/` (laptop and phone widths).

pub mod browser;

mod developers;
mod sessions;
mod settings;

use crate::common::TestApp;

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
