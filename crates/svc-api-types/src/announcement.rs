use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// The body of `POST /api/developers/announcements`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AnnouncementBody {
    pub subject: String,
    /// Markdown or plain text.
    pub text: String,
}

/// The answer (202): the announcement and how many users it is queued for.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct AnnouncementQueued {
    pub id: String,
    pub recipients: usize,
}
