use std::fmt;

use serde::{Deserialize, Serialize};
use svc_domain::account::{Organization, User};
use utoipa::ToSchema;

use crate::iso;

/// The body of `POST /api/auth/signup` (`Debug` leaves the password out).
#[derive(Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[schema(description = "The body of `POST /api/auth/signup`: an email address (one `@` with text on both \
    sides, no spaces), a password of 8 to 1,024 characters, and an optional name (at most 200 characters \
    once trimmed; blank or absent: the email's local part).")]
pub struct SignupBody {
    #[schema(
        max_length = 254,
        pattern = r"^[\t-\r \u0085\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000]*[^@\t-\r \u0085\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000]+@[^@\t-\r \u0085\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000]+[\t-\r \u0085\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000]*$"
    )]
    pub email: String,
    #[schema(min_length = 8, max_length = 1024)]
    pub password: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(max_length = 200)]
    pub name: Option<String>,
}

/// The body of `POST /api/auth/login` (`Debug` leaves the password out).
#[derive(Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[schema(description = "The body of `POST /api/auth/login`.")]
pub struct LoginBody {
    pub email: String,
    pub password: String,
    /// Which of the user's organizations to enter (24 hex digits); absent:
    /// the one used last. One the user is not a member of: 403.
    #[serde(default, rename = "organizationId", skip_serializing_if = "Option::is_none")]
    #[schema(pattern = "^[0-9a-fA-F]{24}$")]
    pub organization_id: Option<String>,
}

impl fmt::Debug for SignupBody {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SignupBody").field("email", &self.email).field("name", &self.name).finish_non_exhaustive()
    }
}

impl fmt::Debug for LoginBody {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LoginBody")
            .field("email", &self.email)
            .field("organization_id", &self.organization_id)
            .finish_non_exhaustive()
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UserView {
    pub id: String,
    pub email: String,
    pub name: String,
    pub organization_id: String,
    pub is_admin: bool,
    pub created_at: String,
}

impl From<User> for UserView {
    fn from(u: User) -> Self {
        UserView {
            id: u.id.to_string(),
            email: u.email,
            name: u.name,
            organization_id: u.organization_id.to_string(),
            is_admin: u.is_admin,
            created_at: iso(u.created_at),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OrganizationView {
    pub id: String,
    pub name: String,
    pub plan: String,
    pub balance: i64,
    pub default_containers: Vec<String>,
    pub created_at: String,
}

impl From<Organization> for OrganizationView {
    fn from(o: Organization) -> Self {
        OrganizationView {
            id: o.id.to_string(),
            name: o.name,
            plan: o.plan.as_str().to_string(),
            balance: o.balance,
            default_containers: o.default_containers,
            created_at: iso(o.created_at),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SignupView {
    pub token: String,
    pub expires_at: String,
    pub user: UserView,
    pub organization: OrganizationView,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LoginView {
    pub token: String,
    pub expires_at: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct MeView {
    pub user: UserView,
    pub organization: OrganizationView,
}

impl From<(User, Organization)> for MeView {
    fn from((user, organization): (User, Organization)) -> Self {
        MeView { user: user.into(), organization: organization.into() }
    }
}

/// The body of `PUT /api/auth/password` (`Debug` leaves the passwords out).
#[derive(Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(description = "The body of `PUT /api/auth/password`: the account's password now, and a new \
    one of 8 to 1,024 characters.")]
pub struct PasswordBody {
    #[schema(max_length = 1024)]
    pub current_password: String,
    #[schema(min_length = 8, max_length = 1024)]
    pub new_password: String,
}

impl fmt::Debug for PasswordBody {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PasswordBody").finish_non_exhaustive()
    }
}

/// A live web session of the caller's account.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionView {
    pub id: String,
    /// The client's `User-Agent` at log-in (empty when it sent none).
    pub device: String,
    /// The client's address at log-in.
    pub address: String,
    pub created_at: String,
    /// When a request last used the session (kept to within 5 minutes).
    pub last_seen_at: String,
    pub expires_at: String,
    /// Whether this is the session of the request.
    pub current: bool,
}
