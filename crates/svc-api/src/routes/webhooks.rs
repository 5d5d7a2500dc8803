use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use svc_service::Services;

use crate::ApiError;
use crate::commands::{IntoCommand, WebhookBody};
use crate::extract::{ApiJson, ListQuery, WebSession, parse_id};
use crate::views::{self, AttemptView, CreatedWebhookView, ListView, RedeliveryView, WebhookView};

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

pub(crate) async fn list(
    State(services): State<Arc<Services>>,
    WebSession(session): WebSession,
    query: ListQuery,
) -> Result<Json<ListView<WebhookView>>, ApiError> {
    let found = services.webhooks.list(&session, query.page).await?;
    Ok(Json(views::list(found, WebhookView::from)))
}

pub(crate) async fn get(
    State(services): State<Arc<Services>>,
    WebSession(session): WebSession,
    Path(id): Path<String>,
) -> Result<Json<WebhookView>, ApiError> {
    let id = parse_id("id", &id)?;
    Ok(Json(WebhookView::from(services.webhooks.get(&session, id).await?)))
}

pub(crate) async fn update(
    State(services): State<Arc<Services>>,
    WebSession(session): WebSession,
    Path(id): Path<String>,
    ApiJson(body): ApiJson<WebhookBody>,
) -> Result<Json<WebhookView>, ApiError> {
    let id = parse_id("id", &id)?;
    Ok(Json(WebhookView::from(services.webhooks.update(&session, id, body.into_command()).await?)))
}

pub(crate) async fn delete(
    State(services): State<Arc<Services>>,
    WebSession(session): WebSession,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    let id = parse_id("id", &id)?;
    services.webhooks.delete(&session, id).await?;
    Ok(StatusCode::NO_CONTENT)
}

pub(crate) async fn deliveries(
    State(services): State<Arc<Services>>,
    WebSession(session): WebSession,
    Path(id): Path<String>,
    query: ListQuery,
) -> Result<Json<ListView<AttemptView>>, ApiError> {
    let id = parse_id("id", &id)?;
    let found = services.webhooks.deliveries(&session, id, query.page).await?;
    Ok(Json(views::list(found, AttemptView::from)))
}

pub(crate) async fn redeliver(
    State(services): State<Arc<Services>>,
    WebSession(session): WebSession,
    Path((id, delivery)): Path<(String, String)>,
) -> Result<(StatusCode, Json<RedeliveryView>), ApiError> {
    let id = parse_id("id", &id)?;
    let delivery = parse_id("deliveryId", &delivery)?;
    Ok((StatusCode::ACCEPTED, Json(RedeliveryView::from(services.webhooks.redeliver(&session, id, delivery).await?))))
}
