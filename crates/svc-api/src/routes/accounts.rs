use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use svc_service::Services;

use crate::ApiError;
use crate::client_ip::ClientAddr;
use crate::commands::{IntoCommand, LoginBody, SignupBody};
use crate::extract::{ApiJson, WebSession};
use crate::views::{self, LoginView, MeView, SignupView};

/// Sign up
///
/// Creates a user and its own organization on the Free plan with the
/// signup grant, and answers a session token (JWT).
#[utoipa::path(
    post,
    path = "/api/auth/signup",
    operation_id = "signup",
    tag = "auth",
    request_body = SignupBody,
    responses((status = 201, description = "the new user, its organization and a session token", body = SignupView))
)]
pub(crate) async fn signup(
    State(services): State<Arc<Services>>,
    ClientAddr(from): ClientAddr,
    ApiJson(body): ApiJson<SignupBody>,
) -> Result<(StatusCode, Json<SignupView>), ApiError> {
    let created = services.accounts.signup(body.into_command(), from).await?;
    Ok((StatusCode::CREATED, Json(views::signup(created))))
}

/// Log in
///
/// Answers a session token (JWT, 24 h) for an email and password.
#[utoipa::path(
    post,
    path = "/api/auth/login",
    operation_id = "login",
    tag = "auth",
    request_body = LoginBody,
    responses((status = 200, description = "a session token and its expiry", body = LoginView))
)]
pub(crate) async fn login(
    State(services): State<Arc<Services>>,
    ClientAddr(from): ClientAddr,
    ApiJson(body): ApiJson<LoginBody>,
) -> Result<Json<LoginView>, ApiError> {
    Ok(Json(views::login(services.accounts.login(body.into_command(), from).await?)))
}

/// The caller
///
/// The session's user and organization (plan, compute balance, default containers).
#[utoipa::path(
    get,
    path = "/api/auth/me",
    operation_id = "me",
    tag = "auth",
    responses((status = 200, description = "the user and the organization", body = MeView))
)]
pub(crate) async fn me(
    State(services): State<Arc<Services>>,
    WebSession(session): WebSession,
) -> Result<Json<MeView>, ApiError> {
    Ok(Json(MeView::from(services.accounts.me(&session).await?)))
}
