use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Every error response: `{"type": "error", "message", "description", "code", "field"?}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ErrorBody {
    #[serde(rename = "type")]
    pub kind: String,
    pub message: String,
    pub description: String,
    pub code: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
}
