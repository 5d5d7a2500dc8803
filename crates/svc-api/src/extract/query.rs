use axum::extract::{FromRequestParts, Query};
use axum::http::request::Parts;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use svc_service::ServiceError;

use crate::ApiError;

/// The query string as a JSON object of strings: 422 naming a parameter
/// given more than once (`?wait=1&wait=2`: which one would count?).
pub(crate) fn query_object(parts: &Parts) -> Result<Map<String, Value>, ApiError> {
    let Query(pairs) = Query::<Vec<(String, String)>>::try_from_uri(&parts.uri)
        .map_err(|e| ServiceError::validation("query", format!("malformed query string: {e}")))?;
    let mut object = Map::new();
    for (name, value) in pairs {
        if object.contains_key(&name) {
            return Err(ServiceError::validation(name, "is given more than once").into());
        }
        object.insert(name, Value::String(value));
    }
    Ok(object)
}

/// A route's query parameters, read as text into `T` (whose fields are
/// `Option<String>`, checked by the handler): 422 `VALIDATION` naming the
/// parameter for a repeated one, never axum's plain-text 400. Parameters
/// that `T` does not name are ignored.
pub(crate) struct ApiQuery<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequestParts<S> for ApiQuery<T> {
    type Rejection = ApiError;
    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        let object = query_object(parts)?;
        let value = serde_path_to_error::deserialize(Value::Object(object)).map_err(|e| {
            let path = e.path().to_string();
            let field = if path == "." { "query".to_string() } else { path };
            ApiError::Service(ServiceError::validation(field, e.into_inner().to_string()))
        })?;
        Ok(ApiQuery(value))
    }
}
