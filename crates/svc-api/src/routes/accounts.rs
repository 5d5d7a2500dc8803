use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use svc_service::Services;
use svc_service::accounts::{LoginInput, SignupInput};

use crate::ApiError;
use crate::extract::{ApiJson, WebSession};
use crate::views::{self, LoginView, MeView, SignupView};

pub(crate) async fn signup(
    State(services): State<Arc<Services>>,
    ApiJson(input): ApiJson<SignupInput>,
) -> Result<(StatusCode, Json<SignupView>), ApiError> {
    let created = services.accounts.signup(input).await?;
    Ok((StatusCode::CREATED, Json(views::signup(created))))
}

pub(crate) async fn login(
    State(services): State<Arc<Services>>,
    ApiJson(input): ApiJson<LoginInput>,
) -> Result<Json<LoginView>, ApiError> {
    Ok(Json(views::login(services.accounts.login(input).await?)))
}

pub(crate) async fn me(
    State(services): State<Arc<Services>>,
    WebSession(session): WebSession,
) -> Result<Json<MeView>, ApiError> {
    Ok(Json(MeView::from(services.accounts.me(&session).await?)))
}
