use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use svc_api_types::AnnouncementQueued;
use svc_service::Services;

use crate::ApiError;
use crate::commands::{AnnouncementBody, IntoCommand};
use crate::extract::{ApiJson, Caller};

/// `POST /api/developers/announcements`: 202 once queued for every user.
pub(crate) async fn announce(
    State(services): State<Arc<Services>>,
    Caller(principal): Caller,
    ApiJson(body): ApiJson<AnnouncementBody>,
) -> Result<(StatusCode, Json<AnnouncementQueued>), ApiError> {
    let queued = services.announcements.announce(&principal, body.into_command()).await?;
    Ok((StatusCode::ACCEPTED, Json(AnnouncementQueued { id: queued.id.to_string(), recipients: queued.recipients })))
}
