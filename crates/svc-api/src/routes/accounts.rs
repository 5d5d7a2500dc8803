use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use svc_service::Services;

use crate::ApiError;
use svc_api_types::PasswordBody;
use svc_domain::SessionId;
use svc_service::ServiceError;
use svc_service::accounts::Login;

use crate::client_ip::LoginClient;
use crate::commands::{IntoCommand, SignupBody};
use crate::extract::{ApiJson, ListQuery, Paging, PathId, WebSession};
use crate::views::{self, ListView, LoginView, MeView, SessionView, SignupView};
use svc_api_types::LoginBody;

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
    LoginClient(from): LoginClient,
    ApiJson(body): ApiJson<SignupBody>,
) -> Result<(StatusCode, Json<SignupView>), ApiError> {
    let created = services.accounts.signup(body.into_command(), from).await?;
    Ok((StatusCode::CREATED, Json(views::signup(created))))
}

/// Log in
///
/// Answers a session token (JWT, 24 h) for an email and password, and
/// opens a session on the caller's device (its `User-Agent`) and address.
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
    LoginClient(from): LoginClient,
    ApiJson(body): ApiJson<LoginBody>,
) -> Result<Json<LoginView>, ApiError> {
    let organization = match body.organization_id.as_deref() {
        Some(raw) => Some(crate::extract::parse_id("organizationId", raw)?),
        None => None,
    };
    let login = Login { email: body.email, password: body.password, organization };
    Ok(Json(views::login(services.accounts.login(login, from).await?)))
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

/// Log out
///
/// Ends the session of the bearer token: from now on every server answers
/// 401 to it.
#[utoipa::path(
    post,
    path = "/api/auth/logout",
    operation_id = "logout",
    tag = "auth",
    responses((status = 204, description = "the session ended"))
)]
pub(crate) async fn logout(
    State(services): State<Arc<Services>>,
    WebSession(session): WebSession,
) -> Result<StatusCode, ApiError> {
    services.sessions.log_out(&session).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Change the password
///
/// Replaces the account's password, given the current one, and ends every
/// other session of the account (the caller's stays open).
#[utoipa::path(
    put,
    path = "/api/auth/password",
    operation_id = "changePassword",
    tag = "auth",
    request_body = PasswordBody,
    responses((status = 204, description = "changed; the other sessions ended"))
)]
pub(crate) async fn change_password(
    State(services): State<Arc<Services>>,
    WebSession(session): WebSession,
    ApiJson(body): ApiJson<PasswordBody>,
) -> Result<StatusCode, ApiError> {
    services.accounts.change_password(&session, &body.current_password, &body.new_password).await.map_err(|e| {
        match e {
            // The service names the new password as sign-up does.
            ServiceError::Validation { field, message } if field == "password" => {
                ServiceError::validation("newPassword", message)
            }
            e => e,
        }
    })?;
    Ok(StatusCode::NO_CONTENT)
}

/// List sessions
///
/// The account's live sessions (not ended, not expired), most recently
/// seen first; `current` marks the caller's.
#[utoipa::path(
    get,
    path = "/api/auth/sessions",
    operation_id = "listSessions",
    tag = "auth",
    params(Paging),
    responses((status = 200, description = "one page of sessions", body = ListView<SessionView>))
)]
pub(crate) async fn sessions(
    State(services): State<Arc<Services>>,
    WebSession(session): WebSession,
    query: ListQuery,
) -> Result<Json<ListView<SessionView>>, ApiError> {
    let found = services.sessions.list(&session, query.page).await?;
    Ok(Json(views::list(found, views::session)))
}

/// End a session
///
/// Signs one of the account's sessions out (the caller's own included).
#[utoipa::path(
    delete,
    path = "/api/auth/sessions/{id}",
    operation_id = "endSession",
    tag = "auth",
    params(("id" = String, Path, description = "the session's id")),
    responses((status = 204, description = "the session ended"))
)]
pub(crate) async fn end_session(
    State(services): State<Arc<Services>>,
    WebSession(session): WebSession,
    PathId(id): PathId<SessionId>,
) -> Result<StatusCode, ApiError> {
    services.sessions.end(&session, id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Sign out everywhere
///
/// Ends every session of the account, the caller's included.
#[utoipa::path(
    delete,
    path = "/api/auth/sessions",
    operation_id = "endAllSessions",
    tag = "auth",
    responses((status = 204, description = "every session ended"))
)]
pub(crate) async fn end_all_sessions(
    State(services): State<Arc<Services>>,
    WebSession(session): WebSession,
) -> Result<StatusCode, ApiError> {
    services.sessions.end_all(&session).await?;
    Ok(StatusCode::NO_CONTENT)
}
