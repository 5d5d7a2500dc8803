//! Members of an organization and their roles: the list, role changes,
//! removal (which ends the member's sessions there and revokes the API keys
//! they made there), invitations (`invites`), and moving between one's
//! organizations. An organization always keeps an owner.

mod invites;

use std::sync::Arc;

use chrono::Utc;
use svc_domain::audit::AuditAction;
use svc_domain::member::{Member, Membership, Power, Role};
use svc_domain::{OrgId, UserId};
use svc_storage::{MemberChange, Store};

use crate::accounts::IssuedToken;
use crate::accounts::audit::AuditLog;
use crate::accounts::key_cache::KeyCache;
use crate::accounts::sessions::{Client, SessionService};
use crate::paging::{PageRequest, Paged};
use crate::{Result, ServiceError, Session};

pub use invites::{Accepted, CreatedInvite, NewInvite};

/// How invitations reach the invitee.
#[derive(Clone, Debug)]
pub struct InviteSettings {
    /// `SVC_PUBLIC_URL`: the accept link starts with it.
    pub public_url: String,
    /// Whether email can be sent: without it, the inviter passes the link on.
    pub email_enabled: bool,
}

pub struct MemberService {
    store: Arc<dyn Store>,
    sessions: Arc<SessionService>,
    key_cache: Arc<KeyCache>,
    settings: InviteSettings,
    /// Wakes the mailer when an invitation is queued.
    queued: Arc<tokio::sync::Notify>,
    audit: AuditLog,
}

fn last_owner() -> ServiceError {
    ServiceError::Conflict {
        code: "LAST_OWNER",
        message: "an organization keeps at least one owner: make another member an owner first".into(),
    }
}

impl MemberService {
    pub(crate) fn new(
        store: Arc<dyn Store>,
        sessions: Arc<SessionService>,
        key_cache: Arc<KeyCache>,
        settings: InviteSettings,
        queued: Arc<tokio::sync::Notify>,
        audit: AuditLog,
    ) -> Self {
        MemberService { store, sessions, key_cache, settings, queued, audit }
    }

    /// One page of the organization's members, owners first. Every member
    /// may see who else is.
    pub async fn list(&self, session: &Session, page: PageRequest) -> Result<Paged<Member>> {
        let found = self.store.members(session.org(), page.offset(), page.per_page).await?;
        Ok(Paged { items: found.items, total: found.total, page })
    }

    /// The caller's organizations, the most recently used first (the
    /// switcher).
    pub async fn memberships(&self, session: &Session) -> Result<Vec<Membership>> {
        Ok(self.store.memberships(session.user()).await?)
    }

    /// The member `user`, when the caller may change them: admins manage
    /// members, only owners manage owners (or make one).
    async fn manageable(&self, session: &Session, user: UserId, new_role: Option<Role>) -> Result<Member> {
        let member = self.store.member(session.org(), user).await?.ok_or(ServiceError::NotFound("member"))?;
        if member.role == Role::Owner || new_role == Some(Role::Owner) {
            session.require_power(Power::ManageOwners)?;
        }
        Ok(member)
    }

    /// Changes a member's role. Admins change members but owners; owners
    /// anyone; the last owner keeps the role (409 `LAST_OWNER`).
    pub async fn set_role(&self, session: &Session, user: UserId, role: Role) -> Result<Member> {
        session.require_power(Power::ManageMembers)?;
        let member = self.manageable(session, user, Some(role)).await?;
        match self.store.set_role(session.org(), user, role).await? {
            MemberChange::Done { .. } => {}
            MemberChange::NotFound => return Err(ServiceError::NotFound("member")),
            MemberChange::LastOwner => return Err(last_owner()),
        }
        self.audit.record(session, AuditAction::RoleChanged { user }, Some(format!("{} to {role}", member.role))).await;
        self.key_cache.forget_owner(session.org(), user);
        Ok(Member { role, ..member })
    }

    /// Removes a member (or lets a member leave): their sessions in the
    /// organization end and the API keys they created there are revoked.
    /// The last owner stays (409 `LAST_OWNER`).
    pub async fn remove(&self, session: &Session, user: UserId) -> Result<()> {
        if user != session.user() {
            session.require_power(Power::ManageMembers)?;
            self.manageable(session, user, None).await?;
        }
        match self.store.remove_member(session.org(), user, Utc::now()).await? {
            MemberChange::Done { revoked_keys, .. } => {
                let detail = format!("{} API keys revoked", revoked_keys.len());
                self.audit.record(session, AuditAction::MemberRemoved { user }, Some(detail)).await;
                for key in revoked_keys {
                    self.key_cache.forget_key(key);
                }
                self.key_cache.forget_owner(session.org(), user);
                Ok(())
            }
            MemberChange::NotFound => Err(ServiceError::NotFound("member")),
            MemberChange::LastOwner => Err(last_owner()),
        }
    }

    /// Moves the caller into another of their organizations: a new session
    /// there (the current one stays), and the organization becomes the
    /// log-in default. Not a member: 404.
    pub async fn switch(&self, session: &Session, org: OrgId, client: &Client) -> Result<IssuedToken> {
        if !self.store.touch_membership(org, session.user(), Utc::now()).await? {
            return Err(ServiceError::NotFound("organization"));
        }
        let (token, expires_at, _) = self.sessions.open(org, session.user(), client).await?;
        Ok(IssuedToken { token, expires_at })
    }
}

#[cfg(test)]
mod tests;
