use serde::{Deserialize, Serialize};
use svc_domain::member::{Invite, Member};
use utoipa::ToSchema;

use crate::{OrganizationView, iso};

/// A member of the organization.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MemberView {
    pub user_id: String,
    pub email: String,
    pub name: String,
    /// `owner`, `admin`, `editor` or `viewer`.
    pub role: String,
    pub joined_at: String,
}

impl From<Member> for MemberView {
    fn from(m: Member) -> Self {
        MemberView {
            user_id: m.user_id.to_string(),
            email: m.email,
            name: m.name,
            role: m.role.as_str().to_string(),
            joined_at: iso(m.joined_at),
        }
    }
}

/// The body of `POST /api/organization/invites`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(description = "Whom to invite and with which role (`owner` only by an owner).")]
pub struct InviteBody {
    /// An email address; white space around it is ignored. (Every email
    /// pattern spells out the server's white space, Unicode's: `\s` differs
    /// by engine, e.g. ECMAScript's holds U+FEFF and not U+0085, Python's
    /// holds U+001C to U+001F.)
    #[schema(
        max_length = 254,
        pattern = r"^[\t-\r \u0085\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000]*[^@\t-\r \u0085\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000]+@[^@\t-\r \u0085\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000]+[\t-\r \u0085\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000]*$"
    )]
    pub email: String,
    #[schema(pattern = "^(owner|admin|editor|viewer)$")]
    pub role: String,
}

/// A pending invitation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InviteView {
    pub id: String,
    pub email: String,
    pub role: String,
    pub expires_at: String,
    pub created_at: String,
}

impl From<Invite> for InviteView {
    fn from(i: Invite) -> Self {
        InviteView {
            id: i.id.to_string(),
            email: i.email,
            role: i.role.as_str().to_string(),
            expires_at: iso(i.expires_at),
            created_at: iso(i.created_at),
        }
    }
}

/// A new invitation with its accept link (shown this once: pass it on when
/// the server sends no email).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreatedInviteView {
    pub id: String,
    pub email: String,
    pub role: String,
    pub expires_at: String,
    /// The accept page's address; it works once, until `expiresAt`.
    pub link: String,
}

/// The body of `POST /api/invites/accept`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AcceptInviteBody {
    /// The `token` of the invitation link.
    #[schema(min_length = 1, max_length = 200)]
    pub token: String,
}

/// The organization joined, the role there, and a session token for it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AcceptedInviteView {
    pub organization: OrganizationView,
    pub role: String,
    /// A session token (JWT) for the joined organization.
    pub token: String,
}

/// The body of `PUT /api/organization/members/:userId`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RoleBody {
    #[schema(pattern = "^(owner|admin|editor|viewer)$")]
    pub role: String,
}
