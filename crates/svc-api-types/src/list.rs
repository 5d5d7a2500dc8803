use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// `{"data": [...], "total": N, "page": P, "perPage": PP}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListView<T> {
    pub data: Vec<T>,
    pub total: i64,
    pub page: i64,
    pub per_page: i64,
}
