//! Who is calling. Values of these types are only made by `AuthService`
//! after a credential was verified, so holding one is proof of
//! authentication; the checks on them (`require`, `may_touch_scrap`) are the
//! authorization.

use std::net::IpAddr;

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
    /// The client address of the request, when the adapter knows it (what
    /// the audit log records).
    address: Option<IpAddr>,
}

impl Session {
    pub(crate) fn new(org: OrgId, user: UserId, is_platform_admin: bool, id: SessionId) -> Self {
        Session { org, user, is_platform_admin, id, address: None }
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
    Key { org: OrgId, owner: UserId, owner_is_platform_admin: bool, grant: KeyGrant },
}

impl Principal {
    pub(crate) fn key(
        org: OrgId,
        owner: UserId,
        owner_is_platform_admin: bool,
        key_id: KeyId,
        scopes: Vec<Scope>,
        scrap_ids: Vec<ScrapId>,
    ) -> Self {
        Principal::Key {
            org,
            owner,
            owner_is_platform_admin,
            grant: KeyGrant { key_id, scopes, scrap_ids, address: None },
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
            Principal::Key { org, owner, owner_is_platform_admin, mut grant } => {
                grant.address = Some(address);
                Principal::Key { org, owner, owner_is_platform_admin, grant }
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

    /// Fails with the missing scopes unless every one of `needed` is granted.
    pub fn require(&self, needed: &[Scope]) -> Result<(), ServiceError> {
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

    fn key(scopes: Vec<Scope>, scraps: Vec<ScrapId>) -> Principal {
        Principal::key(OrgId::new(), UserId::new(), false, KeyId::new(), scopes, scraps)
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
        let s: Principal = Session::new(OrgId::new(), UserId::new(), false, SessionId::new()).into();
        assert!(s.may_touch_scrap(b));
        assert!(s.require(&Scope::ALL).is_ok());
    }
}
