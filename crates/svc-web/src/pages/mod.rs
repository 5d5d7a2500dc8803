//! The routes of the web app: one module per screen.

mod admin;
mod audit_log;
mod auth;
mod banner;
mod channels;
mod feed;
mod fix_review;
mod keys;
mod members;
mod pager;
mod recipient_confirm;
mod recipient_notice;
mod run_page;
mod run_progress;
mod scrap_editor;
mod scrap_list;
mod scrap_page;
mod scrap_picker;
mod script_versions;
mod settings;
mod unsubscribe;
mod webhooks;

use std::sync::Arc;

use askama::Template;
use axum::Router;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use svc_service::Services;

use crate::assets;
use crate::page_error::PageError;

pub(crate) fn routes() -> Router<Arc<Services>> {
    Router::new()
        .route("/", get(scrap_list::page))
        .route("/scraps/new", get(scrap_editor::new_page).post(scrap_editor::create))
        .route("/scraps/schedule-preview", get(scrap_editor::schedule_preview))
        .route("/scraps/{scrap}/edit", get(scrap_editor::edit_page).post(scrap_editor::update))
        .route("/scraps/{scrap}/login", post(scrap_editor::set_login))
        .route("/scraps/{scrap}/login/remove", post(scrap_editor::remove_login))
        .route("/scraps/{scrap}/session/forget", post(scrap_editor::forget_session))
        .route("/scraps/{scrap}/recipients/resend", post(recipient_notice::resend))
        .route("/login", get(auth::login_page).post(auth::login))
        .route("/signup", get(auth::signup_page).post(auth::signup))
        .route("/logout", post(auth::logout))
        .route("/scraps/{scrap}", get(scrap_page::page))
        .route("/scraps/{scrap}/run", post(scrap_page::run))
        .route("/scraps/{scrap}/delete", post(scrap_page::delete))
        .route("/scraps/{scrap}/banner", post(banner::upload))
        .route("/scraps/{scrap}/banner/screenshot", post(banner::screenshot))
        .route("/scraps/{scrap}/banner/remove", post(banner::remove))
        .route("/scraps/{scrap}/versions", get(script_versions::page))
        .route("/scraps/{scrap}/versions/{version}/restore", post(script_versions::restore))
        .route("/scraps/{scrap}/ai-fix", get(fix_review::page))
        .route("/scraps/{scrap}/ai-fix/versions/{version}/approve", post(fix_review::approve_version))
        .route("/scraps/{scrap}/ai-fix/proposals/{proposal}/approve", post(fix_review::approve_proposal))
        .route("/scraps/{scrap}/ai-fix/proposals/{proposal}/dismiss", post(fix_review::dismiss_proposal))
        .route("/scraps/{scrap}/history/{run}", get(run_page::page))
        .route("/scraps/{scrap}/history/{run}/progress", get(run_progress::progress))
        .route("/scraps/{scrap}/history/{run}/data.json", get(run_page::json))
        .route("/scraps/{scrap}/history/{run}/data.csv", get(run_page::csv))
        .route("/scraps/{scrap}/history/{run}/data.ndjson", get(run_page::ndjson))
        .route("/scraps/{scrap}/history/{run}/data.xlsx", get(run_page::xlsx))
        .route("/scraps/{scrap}/feed.atom", get(feed::atom))
        .route("/scraps/{scrap}/feed.rss", get(feed::rss))
        .route("/scraps/{scrap}/feed/rotate", post(feed::rotate))
        .route("/developers/keys", get(keys::page).post(keys::create))
        .route("/developers/keys/{key}/revoke", post(keys::revoke))
        .route("/developers/webhooks", get(webhooks::page).post(webhooks::create))
        .route("/developers/webhooks/{webhook}", get(webhooks::show).post(webhooks::update))
        .route("/developers/webhooks/{webhook}/edit", get(webhooks::edit_page))
        .route("/developers/webhooks/{webhook}/delete", post(webhooks::delete))
        .route("/developers/webhooks/{webhook}/deliveries", get(webhooks::deliveries_page))
        .route("/developers/webhooks/{webhook}/deliveries/{delivery}/redeliver", post(webhooks::redeliver))
        .route("/settings", get(settings::page))
        .route("/settings/channels", get(channels::page).post(channels::create))
        .route("/settings/channels/{channel}/test", post(channels::test))
        .route("/settings/channels/{channel}/delete", post(channels::delete))
        .route("/settings/email", post(settings::change_email))
        .route("/settings/history", post(settings::set_history))
        .route("/settings/audit", get(audit_log::page))
        .route("/settings/password", post(settings::change_password))
        .route("/settings/sessions/{session}/end", post(settings::end_session))
        .route("/settings/sessions/end-all", post(settings::end_all_sessions))
        .route("/settings/members", get(members::page))
        .route("/settings/members/invite", post(members::invite))
        .route("/settings/members/{member}/role", post(members::set_role))
        .route("/settings/members/{member}/remove", post(members::remove))
        .route("/settings/invites/{invite}/withdraw", post(members::withdraw))
        .route("/settings/organizations/{org}/switch", post(members::switch))
        .route("/invites/accept", get(members::accept_page).post(members::accept))
        .route("/admin", get(admin::page))
        .route("/admin/announcements", post(admin::announce))
        .route("/unsubscribe", get(unsubscribe::page).post(unsubscribe::one_click))
        .route("/banners/{token}", get(banner::image))
        .route("/recipients/confirm", get(recipient_confirm::page).post(recipient_confirm::confirm))
        .route("/assets/app.css", get(assets::css))
        .route("/assets/app.js", get(assets::js))
        .layer(axum::middleware::map_response(page_headers))
}

/// What every page says about itself: no framing, only its own scripts,
/// styles and forms; nothing cached that holds a user's data.
async fn page_headers(mut response: Response) -> Response {
    let headers = response.headers_mut();
    let is_html =
        headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).is_some_and(|v| v.starts_with("text/html"));
    if is_html {
        headers.insert(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(
                "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; \
                 connect-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'",
            ),
        );
        headers.entry(header::CACHE_CONTROL).or_insert(HeaderValue::from_static("no-store"));
    }
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("same-origin"));
    response
}

/// An id from a page's query; anything else is a thing that does not exist
/// (ids in a page's path are read by `crate::path_id::PathId`).
pub(crate) fn object_id(raw: &str, what: &'static str) -> Result<svc_domain::ObjectId, PageError> {
    svc_domain::ObjectId::parse(raw).ok_or_else(|| svc_service::ServiceError::NotFound(what).into())
}

/// A rendered page.
pub(crate) fn render(page: &impl Template) -> Result<Response, PageError> {
    Ok(Html(page.render()?).into_response())
}

/// A rendered page with another status than 200 (a form shown again with
/// its errors: 422, or 409 for a conflict).
pub(crate) fn render_status(status: StatusCode, page: &impl Template) -> Result<Response, PageError> {
    Ok((status, Html(page.render()?)).into_response())
}

/// The `page` query parameter of a list: a whole number from 1, else 1.
pub(crate) fn page_number(raw: Option<&str>) -> i64 {
    raw.and_then(|p| p.parse().ok()).filter(|p| *p >= 1).unwrap_or(1)
}
