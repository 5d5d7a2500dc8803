use serde::{Deserialize, Serialize};
use svc_domain::recipient::RecipientAddress;
use utoipa::ToSchema;

use crate::iso;

/// An address outside the organization's members that a scrap sends to.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RecipientView {
    pub email: String,
    /// `pending` (nothing is sent to it until it confirms) or `confirmed`.
    pub state: String,
    pub created_at: String,
    /// When the last confirmation mail was queued (null: none was, e.g. email is off).
    pub sent_at: Option<String>,
    pub confirmed_at: Option<String>,
    /// When "send again" may mail another link (null: now, or confirmed).
    pub resend_at: Option<String>,
}

impl From<RecipientAddress> for RecipientView {
    fn from(r: RecipientAddress) -> Self {
        let pending = r.state == svc_domain::recipient::RecipientState::Pending;
        RecipientView {
            resend_at: if pending { r.resend_at().map(iso) } else { None },
            email: r.email,
            state: r.state.as_str().to_string(),
            created_at: iso(r.created_at),
            sent_at: r.sent_at.map(iso),
            confirmed_at: r.confirmed_at.map(iso),
        }
    }
}

/// The body of `POST /api/organization/recipients/resend`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(description = "The pending address to mail a new confirmation link.")]
pub struct ResendBody {
    /// An email address; white space around it is ignored.
    #[schema(
        max_length = 254,
        pattern = r"^[\t-\r \u0085\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000]*[^@\t-\r \u0085\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000]+@[^@\t-\r \u0085\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000]+[\t-\r \u0085\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000]*$"
    )]
    pub email: String,
}
