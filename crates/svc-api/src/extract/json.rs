use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use axum::http::StatusCode;
use axum::http::header::CONTENT_TYPE;
use axum::response::IntoResponse;
use serde::de::DeserializeOwned;
use svc_service::ServiceError;

use crate::ApiError;

/// A JSON body: 415 without a JSON content type, 413 over the size limit,
/// 400 when it is not JSON, 422 naming the field when it has the wrong shape.
pub(crate) struct ApiJson<T>(pub T);

fn is_json(req: &Request) -> bool {
    req.headers().get(CONTENT_TYPE).and_then(|v| v.to_str().ok()).and_then(|v| v.split(';').next()).is_some_and(
        |mime| {
            let mime = mime.trim().to_ascii_lowercase();
            mime == "application/json" || (mime.starts_with("application/") && mime.ends_with("+json"))
        },
    )
}

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for ApiJson<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        if !is_json(&req) {
            return Err(ApiError::UnsupportedMediaType);
        }
        let bytes = Bytes::from_request(req, state).await.map_err(|rejection| {
            if rejection.into_response().status() == StatusCode::PAYLOAD_TOO_LARGE {
                ApiError::PayloadTooLarge
            } else {
                ApiError::BadJson("the request body could not be read".into())
            }
        })?;
        // Syntax first (400), then shape (422), so that a body that is not
        // JSON is reported as such even when its readable start has the
        // wrong shape.
        let json: serde_json::Value = serde_json::from_slice(&bytes)
            .map_err(|e| ApiError::BadJson(format!("the body is not valid JSON: {e}")))?;
        let value = serde_path_to_error::deserialize(json).map_err(|e| {
            let path = e.path().to_string();
            let field = if path == "." { "body".to_string() } else { path };
            ApiError::Service(ServiceError::validation(field, e.into_inner().to_string()))
        })?;
        Ok(ApiJson(value))
    }
}
