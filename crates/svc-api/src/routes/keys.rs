use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use svc_domain::KeyId;
use svc_service::Services;

use crate::ApiError;
use crate::commands::{IntoCommand, NewKeyBody};
use crate::extract::{ApiJson, ListQuery, Paging, PathId, WebSession};
use crate::views::{self, CreatedKeyView, KeyView, ListView};

/// Create an API key
///
/// Answers the key with `plainKey`, shown this once (only a hash is kept).
/// `scopes` and `scrapIds` are set here for good: keys have no update.
#[utoipa::path(
    post,
    path = "/api/developers/keys",
    operation_id = "createKey",
    tag = "keys",
    request_body = NewKeyBody,
    responses((status = 200, description = "the new key, with `plainKey` and the applied `expiresAt`", body = CreatedKeyView))
)]
pub(crate) async fn create(
    State(services): State<Arc<Services>>,
    WebSession(session): WebSession,
    ApiJson(body): ApiJson<NewKeyBody>,
) -> Result<Json<CreatedKeyView>, ApiError> {
    Ok(Json(views::created_key(services.keys.create(&session, body.into_command()).await?)))
}

/// List API keys
///
/// The organization's keys that are not revoked, with a short `prefix`
/// instead of the key.
#[utoipa::path(
    get,
    path = "/api/developers/keys",
    operation_id = "listKeys",
    tag = "keys",
    params(Paging),
    responses((status = 200, description = "one page of keys", body = ListView<KeyView>))
)]
pub(crate) async fn list(
    State(services): State<Arc<Services>>,
    WebSession(session): WebSession,
    query: ListQuery,
) -> Result<Json<ListView<KeyView>>, ApiError> {
    let found = services.keys.list(&session, query.page).await?;
    Ok(Json(views::list(found, KeyView::from)))
}

/// Revoke an API key
///
/// The key stops working at once.
#[utoipa::path(
    delete,
    path = "/api/developers/keys/{id}",
    operation_id = "revokeKey",
    tag = "keys",
    params(("id" = String, Path, description = "the key's id")),
    responses((status = 204, description = "revoked"))
)]
pub(crate) async fn revoke(
    State(services): State<Arc<Services>>,
    WebSession(session): WebSession,
    PathId(id): PathId<KeyId>,
) -> Result<StatusCode, ApiError> {
    services.keys.revoke(&session, id).await?;
    Ok(StatusCode::NO_CONTENT)
}
