//! `/api/scraps/:id/banner`: a scrap's banner image. `POST` takes a
//! `multipart/form-data` body whose `file` part is a PNG, JPEG or WebP (the
//! whole body at most 2 MiB, the server's body limit: 413 beyond); the
//! image is decoded and encoded again without its metadata, and the scrap's
//! `banner` becomes the path that serves it (`/banners/TOKEN.EXT`, no
//! credential: the token is unguessable and new with each image).
//! `POST .../banner/screenshot` makes a screenshot of the scrap's page its
//! banner; `DELETE` removes it (`banner` becomes empty). Writes take a web
//! session, like every write of a scrap (an API key gets 401).

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::extract::multipart::{Multipart, MultipartRejection};
use axum::http::StatusCode;
use svc_api_types::ScrapView;
use svc_domain::ScrapId;
use svc_service::{ServiceError, Services};
use utoipa::ToSchema;

use crate::ApiError;
use crate::extract::{PathId, WebSession};

/// The upload form: one part, `file`.
#[derive(ToSchema)]
#[allow(dead_code)]
pub(crate) struct BannerUpload {
    /// The image: PNG, JPEG or WebP, at most 2 MiB.
    #[schema(value_type = String, format = Binary)]
    file: Vec<u8>,
}

fn unreadable(status: StatusCode, why: impl std::fmt::Display) -> ApiError {
    if status == StatusCode::PAYLOAD_TOO_LARGE {
        return ApiError::PayloadTooLarge;
    }
    ApiError::Service(ServiceError::validation("file", format!("the multipart body cannot be read: {why}")))
}

/// The bytes of the form's `file` part.
async fn file_part(form: Result<Multipart, MultipartRejection>) -> Result<Vec<u8>, ApiError> {
    let mut form = form.map_err(|e| match e {
        MultipartRejection::InvalidBoundary(_) => ApiError::Service(ServiceError::validation(
            "file",
            "send the image as `multipart/form-data` with a `file` part",
        )),
        other => unreadable(other.status(), other.body_text()),
    })?;
    while let Some(field) = form.next_field().await.map_err(|e| unreadable(e.status(), e.body_text()))? {
        if field.name() == Some("file") {
            let bytes = field.bytes().await.map_err(|e| unreadable(e.status(), e.body_text()))?;
            return Ok(bytes.to_vec());
        }
    }
    Err(ApiError::Service(ServiceError::validation("file", "is required: a PNG, JPEG or WebP image")))
}

/// Upload a scrap's banner
///
/// A `multipart/form-data` body with one part, `file`: a PNG, JPEG or WebP
/// image (the whole body at most 2 MiB). The image is decoded and encoded
/// again, without its metadata (EXIF and the like); anything else is
/// refused with 422. The scrap's `banner` becomes the path that serves the
/// image (`/banners/TOKEN.EXT`, readable without a credential: the token is
/// random and new with each image).
#[utoipa::path(
    post,
    path = "/api/scraps/{id}/banner",
    operation_id = "uploadBanner",
    tag = "scraps",
    params(("id" = String, Path, description = "the scrap's id")),
    request_body(content = BannerUpload, content_type = "multipart/form-data"),
    responses((status = 200, description = "the scrap with its new banner", body = ScrapView))
)]
pub(crate) async fn upload(
    State(services): State<Arc<Services>>,
    WebSession(session): WebSession,
    PathId(id): PathId<ScrapId>,
    form: Result<Multipart, MultipartRejection>,
) -> Result<Json<ScrapView>, ApiError> {
    // Who may, and which scrap, before the body is read.
    services.banners.check_writable(&session, id).await?;
    let bytes = file_part(form).await?;
    Ok(Json(ScrapView::from(services.banners.upload(&session, id, bytes).await?)))
}

/// Remove a scrap's banner
///
/// The scrap's `banner` becomes empty and its former path stops serving the image.
#[utoipa::path(
    delete,
    path = "/api/scraps/{id}/banner",
    operation_id = "deleteBanner",
    tag = "scraps",
    params(("id" = String, Path, description = "the scrap's id")),
    responses((status = 200, description = "the scrap without a banner", body = ScrapView))
)]
pub(crate) async fn remove(
    State(services): State<Arc<Services>>,
    WebSession(session): WebSession,
    PathId(id): PathId<ScrapId>,
) -> Result<Json<ScrapView>, ApiError> {
    Ok(Json(ScrapView::from(services.banners.remove(&session, id).await?)))
}

/// Use a screenshot of the scrap's page as its banner
///
/// The scrap's URL is loaded by the browser engine of the server that
/// answers, under the same isolation as a run (no site login, a context of
/// its own), and a PNG of the viewport becomes the banner. Charged like a
/// test run; nothing is added to the run history. A page that cannot be
/// loaded is refused with 422 on `url`, saying why.
#[utoipa::path(
    post,
    path = "/api/scraps/{id}/banner/screenshot",
    operation_id = "screenshotBanner",
    tag = "scraps",
    params(("id" = String, Path, description = "the scrap's id")),
    responses((status = 200, description = "the scrap with a screenshot of its page as banner", body = ScrapView))
)]
pub(crate) async fn screenshot(
    State(services): State<Arc<Services>>,
    WebSession(session): WebSession,
    PathId(id): PathId<ScrapId>,
) -> Result<Json<ScrapView>, ApiError> {
    Ok(Json(ScrapView::from(services.runs.screenshot_banner(&session, id).await?)))
}
