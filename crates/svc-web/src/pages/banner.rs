//! `/banners/TOKEN.EXT`: a scrap's banner image, the path its `banner`
//! holds. No log-in: the token (random, new with each image) is the
//! credential, so that an `<img>` shows it anywhere the path is known; a
//! token that is not a scrap's current banner is 404. The bytes never
//! change under a token, so caches may keep them. The scrap page's forms:
//! `POST /scraps/:id/banner` (an upload, multipart), `.../banner/screenshot`
//! and `.../banner/remove`.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Redirect, Response};
use svc_domain::ScrapId;
use svc_service::{ServiceError, Services};

use crate::page_error::PageError;
use crate::pages::auth::Nothing;
use crate::path_id::PathId;
use crate::signed_in::{SignedForm, SignedUpload};

pub(crate) async fn image(
    State(services): State<Arc<Services>>,
    Path(token): Path<String>,
) -> Result<Response, PageError> {
    let banner = services.banners.served(&token).await.map_err(|e| match e {
        ServiceError::NotFound(_) => PageError::NotFound("There is no banner at this address.".into()),
        other => other.into(),
    })?;
    let content_type = HeaderValue::from_str(&banner.content_type).unwrap_or(HeaderValue::from_static("image/png"));
    Ok((
        [
            (header::CONTENT_TYPE, content_type),
            (header::CACHE_CONTROL, HeaderValue::from_static("private, max-age=31536000, immutable")),
            (header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff")),
            (header::CONTENT_SECURITY_POLICY, HeaderValue::from_static("default-src 'none'; sandbox")),
        ],
        banner.bytes,
    )
        .into_response())
}

/// A refusal of the image, on a page that says why.
fn refused(e: ServiceError) -> PageError {
    match e {
        ServiceError::Validation { message, .. } => PageError::Refused {
            status: axum::http::StatusCode::UNPROCESSABLE_ENTITY,
            heading: "This image cannot be the banner",
            message: format!("The file {message}."),
        },
        other => other.into(),
    }
}

/// The scrap page's upload form: the chosen image becomes the banner.
pub(crate) async fn upload(
    State(services): State<Arc<Services>>,
    id: Result<PathId<ScrapId>, PageError>,
    SignedUpload { user, file }: SignedUpload,
) -> Result<Response, PageError> {
    // The id is read after the session and CSRF checks of the form.
    let PathId(id) = id?;
    services.banners.upload(&user.session, id, file).await.map_err(refused)?;
    Ok(Redirect::to(&format!("/scraps/{id}?banner=set")).into_response())
}

/// "Use a screenshot of the page".
pub(crate) async fn screenshot(
    State(services): State<Arc<Services>>,
    id: Result<PathId<ScrapId>, PageError>,
    SignedForm { user, .. }: SignedForm<Nothing>,
) -> Result<Response, PageError> {
    let PathId(id) = id?;
    services.runs.screenshot_banner(&user.session, id).await.map_err(|e| match e {
        ServiceError::Validation { message, .. } => PageError::Refused {
            status: axum::http::StatusCode::UNPROCESSABLE_ENTITY,
            heading: "No screenshot of the page",
            message: format!("{message}."),
        },
        other => other.into(),
    })?;
    Ok(Redirect::to(&format!("/scraps/{id}?banner=set")).into_response())
}

/// "Remove the banner".
pub(crate) async fn remove(
    State(services): State<Arc<Services>>,
    id: Result<PathId<ScrapId>, PageError>,
    SignedForm { user, .. }: SignedForm<Nothing>,
) -> Result<Response, PageError> {
    let PathId(id) = id?;
    services.banners.remove(&user.session, id).await?;
    Ok(Redirect::to(&format!("/scraps/{id}?banner=removed")).into_response())
}
