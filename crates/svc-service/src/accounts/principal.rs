//! Who is calling. Values of these types are only made by `AuthService`
//! after a credential was verified, so holding one is proof of
//! authentication; the checks on them (`require`, `require_power`,
//! `may_touch_scrap`) are the authorization.
//!
//! Both carry the member's role in the organization (for a key: its
//! creator's), and `require` checks it along with a key's scopes: every
//! operation that asks for a scope is bounded by the role too, so a viewer's
//! key cannot run a scrap even when its scopes say it may.

use std::net::IpAddr;

use svc_domain::member::{Power, Role};
use svc_domain::scope::Scope;
use svc_domain::{KeyId, OrgId, ScrapId, SessionId, UserId};

use crate::ServiceError;

/// A verified web session (JWT). Operations that only the web app may do
/// take a `Session`, so an API key cannot reach them.
#[derive(Clone, Debug, PartialEq)]
pub struct Session {
    org: OrgId,
    user: UserId,
    is_platform_admin: bool,
    /// The log-in this request rides on (the JWT's `sid`).
    id: SessionId,
    /// The user's role in `org`.
    role: Role,
    /// The client address of the request, when the adapter knows it (what
    /// the audit log records).
    address: Option<IpAddr>,
}

/// The refusal of `power` to `role`: 403 `FORBIDDEN`, naming the role.
fn refuse(role: Role, power: Power) -> ServiceError {
    ServiceError::Forbidden(format!("the {role} role may not {}", power.describe()))
}

/// Fails unless `role` may use every one of `scopes`.
fn role_allows(role: Role, scopes: &[Scope]) -> Result<(), ServiceError> {
    match scopes.iter().find(|s| !role.may(Power::Act(**s))) {
        Some(s) => Err(refuse(role, Power::Act(*s))),
        None => Ok(()),
    }
}

impl Session {
    pub(crate) fn new(org: OrgId, user: UserId, is_platform_admin: bool, id: SessionId, role: Role) -> Self {
        Session { org, user, is_platform_admin, id, role, address: None }
    }
    /// The user's role in the session's organization.
    pub fn role(&self) -> Role {
        self.role
    }
    /// Fails with 403 `FORBIDDEN` naming the role unless it may use every
    /// one of `needed` (a session has no scopes of its own).
    pub fn require(&self, needed: &[Scope]) -> Result<(), ServiceError> {
        role_allows(self.role, needed)
    }
    /// Fails with 403 `FORBIDDEN` naming the role unless it holds `power`.
    pub fn require_power(&self, power: Power) -> Result<(), ServiceError> {
        if self.role.may(power) { Ok(()) } else { Err(refuse(self.role, power)) }
    }
    /// The same session, for a request from `address` (set by the adapter
    /// that made the session known; it grants nothing).
    pub fn from_address(mut self, address: IpAddr) -> Self {
        self.address = Some(address);
        self
    }
    /// The client address of the request, if known.
    pub fn address(&self) -> Option<IpAddr> {
        self.address
    }
    /// The log-in this request rides on.
    pub fn id(&self) -> SessionId {
        self.id
    }
    pub fn org(&self) -> OrgId {
        self.org
    }
    pub fn user(&self) -> UserId {
        self.user
    }
    pub fn is_platform_admin(&self) -> bool {
        self.is_platform_admin
    }
}

/// What a verified API key may do.
#[derive(Clone, Debug, PartialEq)]
pub struct KeyGrant {
    pub key_id: KeyId,
    /// Empty: every action.
    scopes: Vec<Scope>,
    /// Empty: every scrap of the organization.
    scrap_ids: Vec<ScrapId>,
    /// The client address of the request, if known.
    address: Option<IpAddr>,
}

/// A verified caller of a KEY route: a web session or an API key.
#[derive(Clone, Debug, PartialEq)]
pub enum Principal {
    Session(Session),
    Key { org: OrgId, owner: UserId, owner_is_platform_admin: bool, owner_role: Role, grant: KeyGrant },
}

/// Who a key belongs to, as `AuthService` verified it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct KeyHolder {
    pub org: OrgId,
    pub owner: UserId,
    pub owner_is_platform_admin: bool,
    /// The owner's role in `org`: bounds what the key may do.
    pub owner_role: Role,
}

impl Principal {
    pub(crate) fn key(holder: KeyHolder, key_id: KeyId, scopes: Vec<Scope>, scrap_ids: Vec<ScrapId>) -> Self {
        let KeyHolder { org, owner, owner_is_platform_admin, owner_role } = holder;
        Principal::Key {
            org,
            owner,
            owner_is_platform_admin,
            owner_role,
            grant: KeyGrant { key_id, scopes, scrap_ids, address: None },
        }
    }

    /// The member's role (for a key: its owner's).
    pub fn role(&self) -> Role {
        match self {
            Principal::Session(s) => s.role,
            Principal::Key { owner_role, .. } => *owner_role,
        }
    }

    pub fn org(&self) -> OrgId {
        match self {
            Principal::Session(s) => s.org,
            Principal::Key { org, .. } => *org,
        }
    }

    pub fn user(&self) -> UserId {
        match self {
            Principal::Session(s) => s.user,
            Principal::Key { owner, .. } => *owner,
        }
    }

    /// A platform admin, or a key whose owner is one (the cost contract).
    pub fn is_platform_admin(&self) -> bool {
        match self {
            Principal::Session(s) => s.is_platform_admin,
            Principal::Key { owner_is_platform_admin, .. } => *owner_is_platform_admin,
        }
    }

    /// The same caller, for a request from `address` (it grants nothing).
    pub fn from_address(self, address: IpAddr) -> Self {
        match self {
            Principal::Session(s) => Principal::Session(s.from_address(address)),
            Principal::Key { org, owner, owner_is_platform_admin, owner_role, mut grant } => {
                grant.address = Some(address);
                Principal::Key { org, owner, owner_is_platform_admin, owner_role, grant }
            }
        }
    }

    /// The client address of the request, if known.
    pub fn address(&self) -> Option<IpAddr> {
        match self {
            Principal::Session(s) => s.address,
            Principal::Key { grant, .. } => grant.address,
        }
    }

    /// `user:<id>` or `key:<id>`, for activity logs.
    pub fn actor(&self) -> String {
        match self {
            Principal::Session(s) => format!("user:{}", s.user),
            Principal::Key { grant, .. } => format!("key:{}", grant.key_id),
        }
    }

    /// Fails with 403 `FORBIDDEN` naming the role unless the member's role
    /// may use every one of `needed`, then with the missing scopes unless
    /// every one is granted.
    pub fn require(&self, needed: &[Scope]) -> Result<(), ServiceError> {
        role_allows(self.role(), needed)?;
        let Principal::Key { grant, .. } = self else { return Ok(()) };
        if grant.scopes.is_empty() {
            return Ok(());
        }
        let missing: Vec<Scope> = needed.iter().copied().filter(|s| !grant.scopes.contains(s)).collect();
        if missing.is_empty() { Ok(()) } else { Err(ServiceError::InsufficientScope(missing)) }
    }

    /// The key's scrap allow-list, `None` when organization-wide.
    pub fn scrap_allow_list(&self) -> Option<&[ScrapId]> {
        match self {
            Principal::Key { grant, .. } if !grant.scrap_ids.is_empty() => Some(&grant.scrap_ids),
            _ => None,
        }
    }

    pub fn may_touch_scrap(&self, scrap: ScrapId) -> bool {
        self.scrap_allow_list().is_none_or(|ids| ids.contains(&scrap))
    }

    /// Whether a history row of `scrap` is within reach: a row of no scrap
    /// (an AI operation) only without an allow-list.
    pub fn may_see_row_of(&self, scrap: Option<ScrapId>) -> bool {
        match scrap {
            Some(scrap) => self.may_touch_scrap(scrap),
            None => self.scrap_allow_list().is_none(),
        }
    }
}

impl From<Session> for Principal {
    fn from(s: Session) -> Self {
        Principal::Session(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn holder(role: Role) -> KeyHolder {
        KeyHolder { org: OrgId::new(), owner: UserId::new(), owner_is_platform_admin: false, owner_role: role }
    }

    fn key(scopes: Vec<Scope>, scraps: Vec<ScrapId>) -> Principal {
        Principal::key(holder(Role::Owner), KeyId::new(), scopes, scraps)
    }

    #[test]
    fn a_role_bounds_its_keys_and_sessions() {
        let viewers_key = Principal::key(holder(Role::Viewer), KeyId::new(), vec![], vec![]);
        assert!(viewers_key.require(&[Scope::ScrapsRead, Scope::HistoryRead]).is_ok());
        match viewers_key.require(&[Scope::ScrapsRun]) {
            Err(ServiceError::Forbidden(m)) => assert_eq!(m, "the viewer role may not run scraps"),
            other => panic!("unexpected {other:?}"),
        }
        let editors_key = Principal::key(holder(Role::Editor), KeyId::new(), vec![Scope::ScrapsRead], vec![]);
        assert!(matches!(editors_key.require(&[Scope::ScrapsRun]), Err(ServiceError::InsufficientScope(_))));
        let viewer = Session::new(OrgId::new(), UserId::new(), false, SessionId::new(), Role::Viewer);
        assert!(matches!(viewer.require(&[Scope::ScrapsWrite]), Err(ServiceError::Forbidden(_))));
        assert!(matches!(
            Principal::from(viewer.clone()).require(&[Scope::ScrapsRun]),
            Err(ServiceError::Forbidden(_))
        ));
        assert!(matches!(viewer.require_power(Power::ManageMembers), Err(ServiceError::Forbidden(_))));
        let admin = Session::new(OrgId::new(), UserId::new(), false, SessionId::new(), Role::Admin);
        assert!(admin.require_power(Power::ManageMembers).is_ok());
        match admin.require_power(Power::ManageOwners) {
            Err(ServiceError::Forbidden(m)) => assert_eq!(m, "the admin role may not manage owners"),
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn empty_scopes_grant_every_action() {
        assert!(key(vec![], vec![]).require(&Scope::ALL).is_ok());
    }

    #[test]
    fn missing_scopes_are_listed() {
        let p = key(vec![Scope::ScrapsRead], vec![]);
        assert!(p.require(&[Scope::ScrapsRead]).is_ok());
        match p.require(&[Scope::ScrapsRead, Scope::ScrapsRun, Scope::HistoryRead]) {
            Err(ServiceError::InsufficientScope(m)) => assert_eq!(m, vec![Scope::ScrapsRun, Scope::HistoryRead]),
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn allow_list_limits_scraps_and_sessions_see_all() {
        let a = ScrapId::new();
        let b = ScrapId::new();
        let p = key(vec![], vec![a]);
        assert!(p.may_touch_scrap(a));
        assert!(!p.may_touch_scrap(b));
        assert!(key(vec![], vec![]).may_touch_scrap(b));
        let s: Principal = Session::new(OrgId::new(), UserId::new(), false, SessionId::new(), Role::Owner).into();
        assert!(s.may_touch_scrap(b));
        assert!(s.require(&Scope::ALL).is_ok());
    }
}
