use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use svc_api_types::{ChannelBody, ChannelTestView, ChannelView, ListView};
use svc_domain::ObjectId;
use svc_service::Services;

use crate::ApiError;
use crate::extract::{ApiJson, PathId, WebSession};

/// Save a chat channel
///
/// The URL (Apprise's syntax) is checked, sealed at rest and never
/// returned whole: the answer shows it redacted.
#[utoipa::path(
    post,
    path = "/api/developers/channels",
    operation_id = "createChannel",
    tag = "channels",
    request_body = ChannelBody,
    responses((status = 201, description = "the saved channel, its URL redacted", body = ChannelView))
)]
pub(crate) async fn create(
    State(services): State<Arc<Services>>,
    WebSession(session): WebSession,
    ApiJson(body): ApiJson<ChannelBody>,
) -> Result<(StatusCode, Json<ChannelView>), ApiError> {
    let saved = services.channels.create(&session, &body.name, &body.url).await?;
    Ok((StatusCode::CREATED, Json(ChannelView::from(saved))))
}

/// List saved chat channels
///
/// By name, every URL redacted.
#[utoipa::path(
    get,
    path = "/api/developers/channels",
    operation_id = "listChannels",
    tag = "channels",
    responses((status = 200, description = "the organization's channels", body = ListView<ChannelView>))
)]
pub(crate) async fn list(
    State(services): State<Arc<Services>>,
    WebSession(session): WebSession,
) -> Result<Json<ListView<ChannelView>>, ApiError> {
    let all = services.channels.list(&session).await?;
    let total = all.len() as i64;
    Ok(Json(ListView {
        data: all.into_iter().map(ChannelView::from).collect(),
        total,
        page: 1,
        per_page: total.max(1),
    }))
}

/// Delete a saved chat channel
///
/// Scraps that still name it fail their sends to it at once (logged).
#[utoipa::path(
    delete,
    path = "/api/developers/channels/{id}",
    operation_id = "deleteChannel",
    tag = "channels",
    params(("id" = String, Path, description = "the channel's id")),
    responses((status = 204, description = "deleted"))
)]
pub(crate) async fn delete(
    State(services): State<Arc<Services>>,
    WebSession(session): WebSession,
    PathId(id): PathId<ObjectId>,
) -> Result<StatusCode, ApiError> {
    services.channels.delete(&session, id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Send a test message to a saved channel
///
/// Sent now, not queued: the answer says whether the service took it.
#[utoipa::path(
    post,
    path = "/api/developers/channels/{id}/test",
    operation_id = "testChannel",
    tag = "channels",
    params(("id" = String, Path, description = "the channel's id")),
    responses((status = 200, description = "how the test message went", body = ChannelTestView))
)]
pub(crate) async fn test(
    State(services): State<Arc<Services>>,
    WebSession(session): WebSession,
    PathId(id): PathId<ObjectId>,
) -> Result<Json<ChannelTestView>, ApiError> {
    let outcome = services.channels.test(&session, id).await?;
    Ok(Json(ChannelTestView { delivered: outcome.is_ok(), error: outcome.err() }))
}
