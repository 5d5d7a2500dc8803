//! Addresses the organization's scraps send to outside its members, and
//! whether each has confirmed (issue 37). Web sessions only.

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use svc_api_types::{ListView, RecipientView, ResendBody};
use svc_service::Services;

use crate::ApiError;
use crate::extract::{ApiJson, ListQuery, Paging, WebSession};
use crate::views;

/// List recipients
///
/// The addresses outside the organization's members that its scraps name
/// (`emailNotifRecipient`, `digestRecipient`, `alert`), in address order:
/// `pending` ones receive nothing until they confirm through the link
/// mailed to them; members' own addresses never need to. Every member may
/// read them.
#[utoipa::path(
    get,
    path = "/api/organization/recipients",
    operation_id = "listRecipients",
    tag = "members",
    params(Paging),
    responses((status = 200, description = "one page of recipients", body = ListView<RecipientView>))
)]
pub(crate) async fn list(
    State(services): State<Arc<Services>>,
    WebSession(session): WebSession,
    query: ListQuery,
) -> Result<Json<ListView<RecipientView>>, ApiError> {
    let found = services.recipients.list(&session, query.page).await?;
    Ok(Json(views::list(found, RecipientView::from)))
}

/// Send a confirmation again
///
/// Mails a pending address a new confirmation link (the previous one stops
/// working). At most one mail per address an hour (409
/// `CONFIRMATION_RECENTLY_SENT`); an address that receives already: 409
/// `ALREADY_CONFIRMED`; a server without email: 409 `EMAIL_OFF`. Editors,
/// admins and owners.
#[utoipa::path(
    post,
    path = "/api/organization/recipients/resend",
    operation_id = "resendRecipientConfirmation",
    tag = "members",
    request_body = ResendBody,
    responses((status = 200, description = "the pending recipient, its mail queued", body = RecipientView))
)]
pub(crate) async fn resend(
    State(services): State<Arc<Services>>,
    WebSession(session): WebSession,
    ApiJson(body): ApiJson<ResendBody>,
) -> Result<Json<RecipientView>, ApiError> {
    Ok(Json(services.recipients.send_again(&session, &body.email).await?.into()))
}
