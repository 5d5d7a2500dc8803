use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use svc_service::Services;

use crate::ApiError;
use crate::commands::{IntoCommand, NewKeyBody};
use crate::extract::{ApiJson, ListQuery, WebSession, parse_id};
use crate::views::{self, CreatedKeyView, KeyView, ListView};

pub(crate) async fn create(
    State(services): State<Arc<Services>>,
    WebSession(session): WebSession,
    ApiJson(body): ApiJson<NewKeyBody>,
) -> Result<Json<CreatedKeyView>, ApiError> {
    Ok(Json(views::created_key(services.keys.create(&session, body.into_command()).await?)))
}

pub(crate) async fn list(
    State(services): State<Arc<Services>>,
    WebSession(session): WebSession,
    query: ListQuery,
) -> Result<Json<ListView<KeyView>>, ApiError> {
    let found = services.keys.list(&session, query.page).await?;
    Ok(Json(views::list(found, KeyView::from)))
}

pub(crate) async fn revoke(
    State(services): State<Arc<Services>>,
    WebSession(session): WebSession,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    let id = parse_id("id", &id)?;
    services.keys.revoke(&session, id).await?;
    Ok(StatusCode::NO_CONTENT)
}
