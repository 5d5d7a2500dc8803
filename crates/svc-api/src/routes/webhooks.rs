use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use svc_domain::{ObjectId, WebhookId};
use svc_service::Services;

use crate::ApiError;
use crate::commands::{IntoCommand, WebhookBody};
use crate::extract::{ApiJson, ListQuery, Paging, PathId, PathIds, WebSession};
use crate::views::{self, AttemptView, CreatedWebhookView, ListView, RedeliveryView, WebhookView};

/// Create a webhook
///
/// Answers the webhook with `plainSecret`, shown this once. The URL must be
/// https and resolve to public addresses.
#[utoipa::path(
    post,
    path = "/api/developers/webhooks",
    operation_id = "createWebhook",
    tag = "webhooks",
    request_body = WebhookBody,
    responses((status = 201, description = "the new webhook, with `plainSecret`", body = CreatedWebhookView))
)]
pub(crate) async fn create(
    State(services): State<Arc<Services>>,
    WebSession(session): WebSession,
    ApiJson(body): ApiJson<WebhookBody>,
) -> Result<(StatusCode, Json<CreatedWebhookView>), ApiError> {
    Ok((
        StatusCode::CREATED,
        Json(views::created_webhook(services.webhooks.create(&session, body.into_command()).await?)),
    ))
}

/// List webhooks
#[utoipa::path(
    get,
    path = "/api/developers/webhooks",
    operation_id = "listWebhooks",
    tag = "webhooks",
    params(Paging),
    responses((status = 200, description = "one page of webhooks", body = ListView<WebhookView>))
)]
pub(crate) async fn list(
    State(services): State<Arc<Services>>,
    WebSession(session): WebSession,
    query: ListQuery,
) -> Result<Json<ListView<WebhookView>>, ApiError> {
    let found = services.webhooks.list(&session, query.page).await?;
    Ok(Json(views::list(found, WebhookView::from)))
}

/// Get a webhook
#[utoipa::path(
    get,
    path = "/api/developers/webhooks/{id}",
    operation_id = "getWebhook",
    tag = "webhooks",
    params(("id" = String, Path, description = "the webhook's id")),
    responses((status = 200, description = "the webhook", body = WebhookView))
)]
pub(crate) async fn get(
    State(services): State<Arc<Services>>,
    WebSession(session): WebSession,
    PathId(id): PathId<WebhookId>,
) -> Result<Json<WebhookView>, ApiError> {
    Ok(Json(WebhookView::from(services.webhooks.get(&session, id).await?)))
}

/// Update a webhook
///
/// A partial update (`PUT` and `PATCH` alike): absent fields are left
/// alone; `scrapIds: []` makes the webhook organization-wide.
#[utoipa::path(
    method(put, patch),
    path = "/api/developers/webhooks/{id}",
    operation_id = "updateWebhook",
    tag = "webhooks",
    params(("id" = String, Path, description = "the webhook's id")),
    request_body = WebhookBody,
    responses((status = 200, description = "the webhook as updated", body = WebhookView))
)]
pub(crate) async fn update(
    State(services): State<Arc<Services>>,
    WebSession(session): WebSession,
    PathId(id): PathId<WebhookId>,
    ApiJson(body): ApiJson<WebhookBody>,
) -> Result<Json<WebhookView>, ApiError> {
    Ok(Json(WebhookView::from(services.webhooks.update(&session, id, body.into_command()).await?)))
}

/// Delete a webhook
#[utoipa::path(
    delete,
    path = "/api/developers/webhooks/{id}",
    operation_id = "deleteWebhook",
    tag = "webhooks",
    params(("id" = String, Path, description = "the webhook's id")),
    responses((status = 204, description = "deleted"))
)]
pub(crate) async fn delete(
    State(services): State<Arc<Services>>,
    WebSession(session): WebSession,
    PathId(id): PathId<WebhookId>,
) -> Result<StatusCode, ApiError> {
    services.webhooks.delete(&session, id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// A webhook's delivery log
///
/// Every attempt, newest first.
#[utoipa::path(
    get,
    path = "/api/developers/webhooks/{id}/deliveries",
    operation_id = "listDeliveries",
    tag = "webhooks",
    params(("id" = String, Path, description = "the webhook's id"), Paging),
    responses((status = 200, description = "one page of attempts", body = ListView<AttemptView>))
)]
pub(crate) async fn deliveries(
    State(services): State<Arc<Services>>,
    WebSession(session): WebSession,
    PathId(id): PathId<WebhookId>,
    query: ListQuery,
) -> Result<Json<ListView<AttemptView>>, ApiError> {
    let found = services.webhooks.deliveries(&session, id, query.page).await?;
    Ok(Json(views::list(found, AttemptView::from)))
}

/// Redeliver an event
///
/// Sends the event of an attempt again, as a new chain of attempts (a new
/// `webhook-id`), for receivers that were down past the third attempt.
#[utoipa::path(
    post,
    path = "/api/developers/webhooks/{id}/deliveries/{deliveryId}/redeliver",
    operation_id = "redeliver",
    tag = "webhooks",
    params(("id" = String, Path, description = "the webhook's id"), ("deliveryId" = String, Path, description = "the id of an attempt of the event")),
    responses((status = 202, description = "the new delivery, queued", body = RedeliveryView))
)]
pub(crate) async fn redeliver(
    State(services): State<Arc<Services>>,
    WebSession(session): WebSession,
    PathIds(id, delivery): PathIds<WebhookId, ObjectId>,
) -> Result<(StatusCode, Json<RedeliveryView>), ApiError> {
    Ok((StatusCode::ACCEPTED, Json(RedeliveryView::from(services.webhooks.redeliver(&session, id, delivery).await?))))
}
