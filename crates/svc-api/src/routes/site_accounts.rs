//! `/api/scraps/:id/account` and `/api/scraps/:id/session`: a scrap's site
//! login, write-only (answers show `a***`, never the password or the whole
//! username), and its saved browser session. Writes take a web session
//! (an API key gets 401); the read needs `svc:scraps:read`.

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use svc_api_types::{SiteAccountBody, SiteAccountView, iso};
use svc_domain::ScrapId;
use svc_service::scraps::site_accounts::AccountStatus;
use svc_service::{ServiceError, Services};

use crate::ApiError;
use crate::extract::{ApiJson, Caller, PathId, WebSession};

fn view(status: AccountStatus) -> SiteAccountView {
    SiteAccountView {
        has_account: status.has_account,
        username: status.username_hint,
        has_session: status.has_session,
        session_saved_at: status.session_saved_at.map(iso),
    }
}

/// A body of the wrong shape is refused naming the field, without echoing
/// what was sent in it (serde's message quotes the value).
fn without_values(refusal: ApiError) -> ApiError {
    match refusal {
        ApiError::Service(ServiceError::Validation { field, .. }) if field == "username" || field == "password" => {
            ApiError::Service(ServiceError::validation(field, "must be a string"))
        }
        other => other,
    }
}

/// Set a scrap's site login
///
/// Stores the username and password the scrap's runs log in with (sealed
/// at rest). The answer shows `a***`, never the password or the whole username.
#[utoipa::path(
    put,
    path = "/api/scraps/{id}/account",
    operation_id = "putSiteAccount",
    tag = "site accounts",
    params(("id" = String, Path, description = "the scrap's id")),
    request_body = SiteAccountBody,
    responses((status = 200, description = "the login's status", body = SiteAccountView))
)]
pub(crate) async fn put_account(
    State(services): State<Arc<Services>>,
    WebSession(session): WebSession,
    PathId(id): PathId<ScrapId>,
    body: Result<ApiJson<SiteAccountBody>, ApiError>,
) -> Result<Json<SiteAccountView>, ApiError> {
    let ApiJson(body) = body.map_err(without_values)?;
    let username = body.username.unwrap_or_default();
    let password = body.password.unwrap_or_default();
    Ok(Json(view(services.site_accounts.set_account(&session, id, username, password).await?)))
}

/// Remove a scrap's site login
///
/// The saved browser session goes with it.
#[utoipa::path(
    delete,
    path = "/api/scraps/{id}/account",
    operation_id = "deleteSiteAccount",
    tag = "site accounts",
    params(("id" = String, Path, description = "the scrap's id")),
    responses((status = 204, description = "removed"))
)]
pub(crate) async fn delete_account(
    State(services): State<Arc<Services>>,
    WebSession(session): WebSession,
    PathId(id): PathId<ScrapId>,
) -> Result<StatusCode, ApiError> {
    services.site_accounts.delete_account(&session, id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// A scrap's site login status
///
/// Whether the scrap has a login (its username's first character only) and
/// a saved browser session.
#[utoipa::path(
    get,
    path = "/api/scraps/{id}/account",
    operation_id = "getSiteAccount",
    tag = "site accounts",
    params(("id" = String, Path, description = "the scrap's id")),
    responses((status = 200, description = "the login's status", body = SiteAccountView))
)]
pub(crate) async fn get_account(
    State(services): State<Arc<Services>>,
    Caller(principal): Caller,
    PathId(id): PathId<ScrapId>,
) -> Result<Json<SiteAccountView>, ApiError> {
    Ok(Json(view(services.site_accounts.account_status(&principal, id).await?)))
}

/// Forget a scrap's saved browser session
///
/// The next run starts logged out.
#[utoipa::path(
    delete,
    path = "/api/scraps/{id}/session",
    operation_id = "deleteSiteSession",
    tag = "site accounts",
    params(("id" = String, Path, description = "the scrap's id")),
    responses((status = 204, description = "forgotten"))
)]
pub(crate) async fn delete_session(
    State(services): State<Arc<Services>>,
    WebSession(session): WebSession,
    PathId(id): PathId<ScrapId>,
) -> Result<StatusCode, ApiError> {
    services.site_accounts.forget_session(&session, id).await?;
    Ok(StatusCode::NO_CONTENT)
}
