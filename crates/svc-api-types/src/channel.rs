//! Saved chat channels: the body that creates one and how one is shown
//! (its URL redacted: the tokens are never returned).

use serde::{Deserialize, Serialize};
use svc_domain::channel::SavedChannel;
use utoipa::ToSchema;

use crate::iso;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(description = "The body of `POST /api/developers/channels`. `name` (1-40 of a-z 0-9 - _) is how \
    scraps refer to it (`alert: \"channel:NAME\"`); `url` is a channel URL in Apprise's syntax: \
    `slack://A/B/C`, `discord://ID/TOKEN`, `workflows://HOST/WORKFLOW/SIGNATURE` (Microsoft Teams), \
    `tgram://BOT_TOKEN/CHAT_ID`, `ntfy://TOPIC`, `ntfys://HOST/TOPIC`, `mmosts://HOST/TOKEN`, `jsons://HOST/PATH`.")]
pub struct ChannelBody {
    #[schema(pattern = "^[a-z0-9_-]{1,40}$")]
    pub name: String,
    #[schema(pattern = r"^\s*(slack|discord|workflows?|tgram|ntfys?|mmosts?|jsons?|https)://[^\s/?#]")]
    pub url: String,
}

/// A saved channel as svc shows it: the URL with its secrets redacted.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChannelView {
    pub id: String,
    pub name: String,
    /// `slack`, `discord`, `teams`, `telegram`, `ntfy`, `mattermost` or `json`.
    pub service: String,
    /// The URL, every token cut to its last 4 characters.
    pub redacted_url: String,
    /// What a scrap's `alert` (or other recipient field) says to use it.
    pub reference: String,
    pub created_at: String,
}

impl From<SavedChannel> for ChannelView {
    fn from(c: SavedChannel) -> Self {
        ChannelView {
            service: c.service().map(|s| s.as_str()).unwrap_or("unknown").to_string(),
            redacted_url: c.redacted_url(),
            id: c.id.to_string(),
            reference: format!("channel:{}", c.name),
            name: c.name,
            created_at: iso(c.created_at),
        }
    }
}

/// How a test message went.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChannelTestView {
    pub delivered: bool,
    /// Why not, when not delivered.
    pub error: Option<String>,
}
