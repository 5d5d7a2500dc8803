use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use svc_domain::{ObjectId, ScrapId};
use svc_service::Services;

use crate::ApiError;
use crate::commands::{IntoCommand, ScrapBody};
use crate::extract::{ApiJson, Caller, ListQuery, Paging, PathId, PathIds, WebSession};
use crate::views::{self, ActivityView, ListView, ScrapView, VersionView};

/// List scraps
///
/// The organization's scraps; a key with an allow-list sees only those
/// scraps (a shorter list, never 403).
#[utoipa::path(
    get,
    path = "/api/scraps",
    operation_id = "listScraps",
    tag = "scraps",
    params(
        ("search" = Option<String>, Query, max_length = 200,
            description = "matches title, description and url, case-insensitive"),
        Paging,
    ),
    responses((status = 200, description = "one page of scraps", body = ListView<ScrapView>))
)]
pub(crate) async fn list(
    State(services): State<Arc<Services>>,
    Caller(principal): Caller,
    query: ListQuery,
) -> Result<Json<ListView<ScrapView>>, ApiError> {
    let found = services.scraps.list(&principal, query.search, query.page).await?;
    Ok(Json(views::list(found, ScrapView::from)))
}

/// Get a scrap
///
/// The Scrap shape, with the `history` id list.
#[utoipa::path(
    get,
    path = "/api/scraps/{id}",
    operation_id = "getScrap",
    tag = "scraps",
    params(("id" = String, Path, description = "the scrap's id")),
    responses((status = 200, description = "the scrap", body = ScrapView))
)]
pub(crate) async fn get(
    State(services): State<Arc<Services>>,
    Caller(principal): Caller,
    PathId(id): PathId<ScrapId>,
) -> Result<Json<ScrapView>, ApiError> {
    Ok(Json(ScrapView::from(services.scraps.get(&principal, id).await?)))
}

/// Create a scrap
///
/// `title`, `url` and `request` are required.
#[utoipa::path(
    post,
    path = "/api/scraps",
    operation_id = "createScrap",
    tag = "scraps",
    request_body = ScrapBody,
    responses((status = 201, description = "the new scrap", body = ScrapView))
)]
pub(crate) async fn create(
    State(services): State<Arc<Services>>,
    WebSession(session): WebSession,
    ApiJson(body): ApiJson<ScrapBody>,
) -> Result<(StatusCode, Json<ScrapView>), ApiError> {
    let scrap = services.scraps.create(&session, body.into_command()).await?;
    Ok((StatusCode::CREATED, Json(ScrapView::from(scrap))))
}

/// Update a scrap
///
/// A partial update: only the fields present are set (`PUT` and `PATCH` alike).
#[utoipa::path(
    method(put, patch),
    path = "/api/scraps/{id}",
    operation_id = "updateScrap",
    tag = "scraps",
    params(("id" = String, Path, description = "the scrap's id")),
    request_body = ScrapBody,
    responses((status = 200, description = "the scrap as updated", body = ScrapView))
)]
pub(crate) async fn update(
    State(services): State<Arc<Services>>,
    WebSession(session): WebSession,
    PathId(id): PathId<ScrapId>,
    ApiJson(body): ApiJson<ScrapBody>,
) -> Result<Json<ScrapView>, ApiError> {
    Ok(Json(ScrapView::from(services.scraps.update(&session, id, body.into_command()).await?)))
}

/// Delete a scrap
///
/// Its activity log stays readable.
#[utoipa::path(
    delete,
    path = "/api/scraps/{id}",
    operation_id = "deleteScrap",
    tag = "scraps",
    params(("id" = String, Path, description = "the scrap's id")),
    responses((status = 204, description = "deleted"))
)]
pub(crate) async fn delete(
    State(services): State<Arc<Services>>,
    WebSession(session): WebSession,
    PathId(id): PathId<ScrapId>,
) -> Result<StatusCode, ApiError> {
    services.scraps.delete(&session, id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// A scrap's activity log
///
/// Newest first. It outlives the scrap: a deleted scrap's log stays readable.
#[utoipa::path(
    get,
    path = "/api/scraps/{id}/activities",
    operation_id = "listActivities",
    tag = "scraps",
    params(("id" = String, Path, description = "the scrap's id"), Paging),
    responses((status = 200, description = "one page of activities", body = ListView<ActivityView>))
)]
pub(crate) async fn activities(
    State(services): State<Arc<Services>>,
    Caller(principal): Caller,
    PathId(id): PathId<ScrapId>,
    query: ListQuery,
) -> Result<Json<ListView<ActivityView>>, ApiError> {
    let found = services.scraps.activities(&principal, id, query.page).await?;
    Ok(Json(views::list(found, ActivityView::from)))
}

/// List script versions
///
/// The versions of the scrap's script, newest first (the first is the current script).
#[utoipa::path(
    get,
    path = "/api/scraps/{id}/versions",
    operation_id = "listVersions",
    tag = "versions",
    params(("id" = String, Path, description = "the scrap's id"), Paging),
    responses((status = 200, description = "one page of versions", body = ListView<VersionView>))
)]
pub(crate) async fn versions(
    State(services): State<Arc<Services>>,
    Caller(principal): Caller,
    PathId(id): PathId<ScrapId>,
    query: ListQuery,
) -> Result<Json<ListView<VersionView>>, ApiError> {
    let found = services.scraps.versions(&principal, id, query.page).await?;
    Ok(Json(views::list(found, VersionView::from)))
}

/// Get a script version
#[utoipa::path(
    get,
    path = "/api/scraps/{id}/versions/{version}",
    operation_id = "getVersion",
    tag = "versions",
    params(("id" = String, Path, description = "the scrap's id"), ("version" = String, Path, description = "the version's id")),
    responses((status = 200, description = "the version", body = VersionView))
)]
pub(crate) async fn version(
    State(services): State<Arc<Services>>,
    Caller(principal): Caller,
    PathIds(id, version): PathIds<ScrapId, ObjectId>,
) -> Result<Json<VersionView>, ApiError> {
    Ok(Json(services.scraps.version(&principal, id, version).await?.into()))
}

/// Restore a script version
///
/// Makes an older version the scrap's script again, as a new version (a
/// copy of the restored one, now current); nothing is lost. A scrap write:
/// web sessions only, like create, update and delete (an API key gets 401).
#[utoipa::path(
    post,
    path = "/api/scraps/{id}/versions/{version}/restore",
    operation_id = "restoreVersion",
    tag = "versions",
    params(("id" = String, Path, description = "the scrap's id"), ("version" = String, Path, description = "the id of the version to restore")),
    responses((status = 201, description = "the new current version", body = VersionView))
)]
pub(crate) async fn restore_version(
    State(services): State<Arc<Services>>,
    WebSession(session): WebSession,
    PathIds(id, version): PathIds<ScrapId, ObjectId>,
) -> Result<(StatusCode, Json<VersionView>), ApiError> {
    let restored = services.scraps.restore_version(&session, id, version).await?;
    Ok((StatusCode::CREATED, Json(restored.into())))
}
