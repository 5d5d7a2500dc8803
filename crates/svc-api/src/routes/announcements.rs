use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use svc_api_types::AnnouncementQueued;
use svc_service::Services;

use crate::ApiError;
use crate::commands::{AnnouncementBody, IntoCommand};
use crate::extract::{ApiJson, Caller};

/// Send a release announcement
///
/// Queues an email to every user who receives announcements. A platform
/// admin only: with an API key, its owner must be one.
#[utoipa::path(
    post,
    path = "/api/developers/announcements",
    operation_id = "announce",
    tag = "announcements",
    request_body = AnnouncementBody,
    responses((status = 202, description = "queued, with the number of recipients", body = AnnouncementQueued))
)]
pub(crate) async fn announce(
    State(services): State<Arc<Services>>,
    Caller(principal): Caller,
    ApiJson(body): ApiJson<AnnouncementBody>,
) -> Result<(StatusCode, Json<AnnouncementQueued>), ApiError> {
    let queued = services.announcements.announce(&principal, body.into_command()).await?;
    Ok((StatusCode::ACCEPTED, Json(AnnouncementQueued { id: queued.id.to_string(), recipients: queued.recipients })))
}
