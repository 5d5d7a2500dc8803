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

pub(crate) async fn signup(
    State(services): State<Arc<Services>>,
    ClientAddr(from): ClientAddr,
    ApiJson(body): ApiJson<SignupBody>,
) -> Result<(StatusCode, Json<SignupView>), ApiError> {
    let created = services.accounts.signup(body.into_command(), from).await?;
    Ok((StatusCode::CREATED, Json(views::signup(created))))
}

pub(crate) async fn login(
    State(services): State<Arc<Services>>,
    ClientAddr(from): ClientAddr,
    ApiJson(body): ApiJson<LoginBody>,
) -> Result<Json<LoginView>, ApiError> {
    Ok(Json(views::login(services.accounts.login(body.into_command(), from).await?)))
}

pub(crate) async fn me(
    State(services): State<Arc<Services>>,
    WebSession(session): WebSession,
) -> Result<Json<MeView>, ApiError> {
    Ok(Json(MeView::from(services.accounts.me(&session).await?)))
}
