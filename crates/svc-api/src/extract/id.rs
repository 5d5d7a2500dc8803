use svc_domain::ObjectId;
use svc_service::ServiceError;

use crate::ApiError;

/// A 24-character hex id from a path or query, else 422 naming `field`.
pub(crate) fn parse_id(field: &str, raw: &str) -> Result<ObjectId, ApiError> {
    ObjectId::parse(raw)
        .ok_or_else(|| ServiceError::validation(field, format!("`{raw}` is not a 24-character hex id")).into())
}
