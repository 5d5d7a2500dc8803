//! `/unsubscribe?token=…`: the one-click unsubscribe of release
//! announcements. A `POST` (RFC 8058: mail clients send
//! `List-Unsubscribe=One-Click` from their own servers) stops them at once;
//! a `GET` (a person following the link) asks first. The signed token is
//! the credential: no log-in, no CSRF token.

use std::sync::Arc;

use askama::Template;
use axum::extract::{Query, State};
use axum::response::Response;
use serde::Deserialize;
use svc_service::Services;

use super::render;
use crate::chrome::Chrome;
use crate::page_error::PageError;

#[derive(Deserialize)]
pub(crate) struct TokenQuery {
    #[serde(default)]
    token: String,
}

#[derive(Template)]
#[template(path = "unsubscribe.html")]
struct UnsubscribePage {
    chrome: Chrome,
    token: String,
    done: bool,
}

fn not_ours() -> PageError {
    PageError::NotFound("This unsubscribe link is not valid. Copy the whole link from the email.".into())
}

pub(crate) async fn page(
    State(services): State<Arc<Services>>,
    Query(q): Query<TokenQuery>,
) -> Result<Response, PageError> {
    if !services.announcements.token_is_valid(&q.token) {
        return Err(not_ours());
    }
    render(&UnsubscribePage { chrome: Chrome::anonymous("Unsubscribe"), token: q.token, done: false })
}

pub(crate) async fn one_click(
    State(services): State<Arc<Services>>,
    Query(q): Query<TokenQuery>,
) -> Result<Response, PageError> {
    if !services.announcements.unsubscribe(&q.token).await? {
        return Err(not_ours());
    }
    render(&UnsubscribePage { chrome: Chrome::anonymous("Unsubscribed"), token: String::new(), done: true })
}
