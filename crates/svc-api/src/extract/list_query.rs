use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use serde::Deserialize;
use svc_domain::ScrapId;
use svc_service::ServiceError;
use svc_service::paging::PageRequest;

use crate::ApiError;
use crate::extract::parse_id;
use crate::extract::query::query_object;

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct Raw {
    page: Option<String>,
    per_page: Option<String>,
    search: Option<String>,
    scrap: Option<String>,
}

/// `page`, `perPage`, `search` and `scrap` of list routes, each checked.
pub(crate) struct ListQuery {
    pub page: PageRequest,
    pub search: Option<String>,
    pub scrap: Option<ScrapId>,
}

/// `page` and `perPage` as the OpenAPI document shows them (`ListQuery`
/// reads them as text, to name a malformed one in its 422).
#[derive(utoipa::IntoParams)]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
#[allow(dead_code)]
pub(crate) struct Paging {
    /// The page, from 1 (default 1).
    #[param(minimum = 1, maximum = 1000000)]
    page: Option<i64>,
    /// Items per page, 1 to 100 (default 20).
    #[param(minimum = 1, maximum = 100)]
    per_page: Option<i64>,
}

fn integer(field: &str, raw: Option<String>) -> Result<Option<i64>, ApiError> {
    raw.map(|s| {
        s.trim().parse::<i64>().map_err(|_| ServiceError::validation(field, format!("`{s}` is not an integer")).into())
    })
    .transpose()
}

impl<S: Send + Sync> FromRequestParts<S> for ListQuery {
    type Rejection = ApiError;
    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        let raw: Raw = serde_json::from_value(serde_json::Value::Object(query_object(parts)?))
            .map_err(|e| ServiceError::validation("query", format!("malformed query string: {e}")))?;
        let page = PageRequest::new(integer("page", raw.page)?, integer("perPage", raw.per_page)?)?;
        let scrap = raw.scrap.filter(|s| !s.is_empty()).map(|s| parse_id("scrap", &s)).transpose()?;
        Ok(ListQuery { page, search: raw.search, scrap })
    }
}
