//! `/recipients/confirm?token=…`: an address a scrap names confirms that it
//! wants what the scrap sends (issue 37). A `GET` (a person, or a mail
//! scanner following the link) only asks; the button's `POST` confirms.
//! The link's secret is the credential: no log-in, no CSRF token.

use std::sync::Arc;

use askama::Template;
use axum::extract::{Query, State};
use axum::response::Response;
use serde::Deserialize;
use svc_service::{ServiceError, Services};

use super::render;
use crate::chrome::Chrome;
use crate::page_error::PageError;

#[derive(Deserialize)]
pub(crate) struct TokenQuery {
    #[serde(default)]
    token: String,
}

#[derive(Template)]
#[template(path = "recipient_confirm.html")]
struct ConfirmPage {
    chrome: Chrome,
    token: String,
    email: String,
    organization: String,
    done: bool,
}

fn not_ours(e: ServiceError) -> PageError {
    match e {
        ServiceError::NotFound(_) => PageError::NotFound(
            "This confirmation link is not valid: copy the whole link from the email, or ask for a new one \
             (a newer mail replaces the link of an older one)."
                .into(),
        ),
        e => e.into(),
    }
}

pub(crate) async fn page(
    State(services): State<Arc<Services>>,
    Query(q): Query<TokenQuery>,
) -> Result<Response, PageError> {
    let (recipient, org) = services.recipients.of_token(&q.token).await.map_err(not_ours)?;
    let done = recipient.state == svc_domain::recipient::RecipientState::Confirmed;
    render(&ConfirmPage {
        chrome: Chrome::anonymous("Confirm your address"),
        token: q.token,
        email: recipient.email,
        organization: org.name,
        done,
    })
}

pub(crate) async fn confirm(
    State(services): State<Arc<Services>>,
    Query(q): Query<TokenQuery>,
) -> Result<Response, PageError> {
    let (recipient, org) = services.recipients.confirm(&q.token).await.map_err(not_ours)?;
    render(&ConfirmPage {
        chrome: Chrome::anonymous("Address confirmed"),
        token: String::new(),
        email: recipient.email,
        organization: org.name,
        done: true,
    })
}
