use serde::Serialize;
use svc_domain::account::{Organization, User};
use svc_service::accounts::{IssuedToken, SignedUp};

use super::iso;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct UserView {
    id: String,
    email: String,
    name: String,
    organization_id: String,
    is_admin: bool,
    created_at: String,
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

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct OrganizationView {
    id: String,
    name: String,
    plan: &'static str,
    balance: i64,
    default_containers: Vec<String>,
    created_at: String,
}

impl From<Organization> for OrganizationView {
    fn from(o: Organization) -> Self {
        OrganizationView {
            id: o.id.to_string(),
            name: o.name,
            plan: o.plan.as_str(),
            balance: o.balance,
            default_containers: o.default_containers,
            created_at: iso(o.created_at),
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SignupView {
    token: String,
    expires_at: String,
    user: UserView,
    organization: OrganizationView,
}

impl From<SignedUp> for SignupView {
    fn from(s: SignedUp) -> Self {
        SignupView {
            token: s.token.token,
            expires_at: iso(s.token.expires_at),
            user: s.user.into(),
            organization: s.organization.into(),
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct LoginView {
    token: String,
    expires_at: String,
}

impl From<IssuedToken> for LoginView {
    fn from(t: IssuedToken) -> Self {
        LoginView { token: t.token, expires_at: iso(t.expires_at) }
    }
}

#[derive(Serialize)]
pub(crate) struct MeView {
    user: UserView,
    organization: OrganizationView,
}

impl From<(User, Organization)> for MeView {
    fn from((user, organization): (User, Organization)) -> Self {
        MeView { user: user.into(), organization: organization.into() }
    }
}
