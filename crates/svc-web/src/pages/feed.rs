//! `/scraps/:id/feed.atom?token=…` and `/scraps/:id/feed.rss?token=…`: the
//! scrap's feed of what changed between its successful runs, for feed
//! readers, which cannot send a header: the token in the address is the
//! credential (no log-in, no cookie). A wrong, rotated or malformed token
//! is 404, like another organization's scrap. The token rides in the query,
//! which the request span never logs (ARCHITECTURE.md, Observability).
//! `POST /scraps/:id/feed/rotate` (the scrap page's form) replaces it.

use std::sync::Arc;

use axum::extract::{Query, State};
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Redirect, Response};
use serde::Deserialize;
use svc_domain::ScrapId;
use svc_service::Services;
use svc_service::outbox::feeds::Feed;

use crate::page_error::PageError;
use crate::pages::auth::Nothing;
use crate::path_id::PathId;
use crate::present::feed_xml;
use crate::signed_in::SignedForm;

#[derive(Deserialize)]
pub(crate) struct TokenQuery {
    #[serde(default)]
    token: String,
}

fn not_found() -> PageError {
    PageError::NotFound("There is no feed at this address. Copy the feed's address from the scrap's page again: it changes when someone replaces it.".into())
}

async fn feed_of(services: &Services, id: Result<PathId<ScrapId>, PageError>, token: &str) -> Result<Feed, PageError> {
    let PathId(id) = id.map_err(|_| not_found())?;
    services.feeds.feed(id, token).await.map_err(|e| match e {
        svc_service::ServiceError::NotFound(_) => not_found(),
        other => other.into(),
    })
}

fn xml(body: String, content_type: &'static str) -> Response {
    let mut response = body.into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    // Readers poll: they may keep it a little, but never share it.
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("private, max-age=60"));
    response
}

pub(crate) async fn atom(
    State(services): State<Arc<Services>>,
    id: Result<PathId<ScrapId>, PageError>,
    Query(q): Query<TokenQuery>,
) -> Result<Response, PageError> {
    let feed = feed_of(&services, id, &q.token).await?;
    Ok(xml(feed_xml::atom(&feed), "application/atom+xml; charset=utf-8"))
}

pub(crate) async fn rss(
    State(services): State<Arc<Services>>,
    id: Result<PathId<ScrapId>, PageError>,
    Query(q): Query<TokenQuery>,
) -> Result<Response, PageError> {
    let feed = feed_of(&services, id, &q.token).await?;
    Ok(xml(feed_xml::rss(&feed), "application/rss+xml; charset=utf-8"))
}

/// Replaces the scrap's feed token, then back to the scrap page's feed.
pub(crate) async fn rotate(
    State(services): State<Arc<Services>>,
    id: Result<PathId<ScrapId>, PageError>,
    SignedForm { user, .. }: SignedForm<Nothing>,
) -> Result<Response, PageError> {
    // The id is read after the session and CSRF checks of the form.
    let PathId(id) = id?;
    services.feeds.rotate(&user.session, id).await?;
    Ok(Redirect::to(&format!("/scraps/{id}?feed=rotated#feed")).into_response())
}
