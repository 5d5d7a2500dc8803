use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// The body of `POST /api/developers/announcements`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AnnouncementBody {
    /// One line of 1 to 200 characters.
    #[schema(min_length = 1, pattern = r"\S")]
    pub subject: String,
    /// Markdown or plain text, up to 100 KiB.
    #[schema(min_length = 1, pattern = r"\S")]
    pub text: String,
}

/// The answer (202): the announcement and how many users it is queued for.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct AnnouncementQueued {
    pub id: String,
    pub recipients: usize,
}
