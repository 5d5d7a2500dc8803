use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use svc_service::Services;

use crate::ApiError;
use crate::commands::{IntoCommand, ScrapBody};
use crate::extract::{ApiJson, Caller, ListQuery, WebSession, parse_id};
use crate::views::{self, ActivityView, ListView, ScrapView, VersionView};

pub(crate) async fn list(
    State(services): State<Arc<Services>>,
    Caller(principal): Caller,
    query: ListQuery,
) -> Result<Json<ListView<ScrapView>>, ApiError> {
    let found = services.scraps.list(&principal, query.search, query.page).await?;
    Ok(Json(views::list(found, ScrapView::from)))
}

pub(crate) async fn get(
    State(services): State<Arc<Services>>,
    Caller(principal): Caller,
    Path(id): Path<String>,
) -> Result<Json<ScrapView>, ApiError> {
    let id = parse_id("id", &id)?;
    Ok(Json(ScrapView::from(services.scraps.get(&principal, id).await?)))
}

pub(crate) async fn create(
    State(services): State<Arc<Services>>,
    WebSession(session): WebSession,
    ApiJson(body): ApiJson<ScrapBody>,
) -> Result<(StatusCode, Json<ScrapView>), ApiError> {
    let scrap = services.scraps.create(&session, body.into_command()).await?;
    Ok((StatusCode::CREATED, Json(ScrapView::from(scrap))))
}

pub(crate) async fn update(
    State(services): State<Arc<Services>>,
    WebSession(session): WebSession,
    Path(id): Path<String>,
    ApiJson(body): ApiJson<ScrapBody>,
) -> Result<Json<ScrapView>, ApiError> {
    let id = parse_id("id", &id)?;
    Ok(Json(ScrapView::from(services.scraps.update(&session, id, body.into_command()).await?)))
}

pub(crate) async fn delete(
    State(services): State<Arc<Services>>,
    WebSession(session): WebSession,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    let id = parse_id("id", &id)?;
    services.scraps.delete(&session, id).await?;
    Ok(StatusCode::NO_CONTENT)
}

pub(crate) async fn activities(
    State(services): State<Arc<Services>>,
    Caller(principal): Caller,
    Path(id): Path<String>,
    query: ListQuery,
) -> Result<Json<ListView<ActivityView>>, ApiError> {
    let id = parse_id("id", &id)?;
    let found = services.scraps.activities(&principal, id, query.page).await?;
    Ok(Json(views::list(found, ActivityView::from)))
}

/// `GET /api/scraps/:id/versions`: the script's versions, newest first.
pub(crate) async fn versions(
    State(services): State<Arc<Services>>,
    Caller(principal): Caller,
    Path(id): Path<String>,
    query: ListQuery,
) -> Result<Json<ListView<VersionView>>, ApiError> {
    let id = parse_id("id", &id)?;
    let found = services.scraps.versions(&principal, id, query.page).await?;
    Ok(Json(views::list(found, VersionView::from)))
}

/// `GET /api/scraps/:id/versions/:version`.
pub(crate) async fn version(
    State(services): State<Arc<Services>>,
    Caller(principal): Caller,
    Path((id, version)): Path<(String, String)>,
) -> Result<Json<VersionView>, ApiError> {
    let id = parse_id("id", &id)?;
    let version = parse_id("version", &version)?;
    Ok(Json(services.scraps.version(&principal, id, version).await?.into()))
}

/// `POST /api/scraps/:id/versions/:version/restore`: 201 with the new
/// version (a copy of the restored one, now current).
pub(crate) async fn restore_version(
    State(services): State<Arc<Services>>,
    Caller(principal): Caller,
    Path((id, version)): Path<(String, String)>,
) -> Result<(StatusCode, Json<VersionView>), ApiError> {
    let id = parse_id("id", &id)?;
    let version = parse_id("version", &version)?;
    let restored = services.scraps.restore_version(&principal, id, version).await?;
    Ok((StatusCode::CREATED, Json(restored.into())))
}
