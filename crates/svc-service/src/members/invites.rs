//! Invitations: an admin invites an address with a role; the invitee gets a
//! single-use link that works for [`INVITE_LIFETIME`], by email when the
//! server sends email, and the inviter always sees it to pass it on.
//! Accepting needs an account with the invited address (an existing one, or
//! one signed up for the purpose, which `SVC_SIGNUP=invite` admits).

use chrono::Utc;
use svc_domain::account::Organization;
use svc_domain::audit::AuditAction;
use svc_domain::email::{Email, EmailKind};
use svc_domain::member::{INVITE_LIFETIME, Invite, Power, Role};
use svc_domain::{InviteId, OrgId};
use svc_storage::Joined;

use super::MemberService;
use crate::accounts::IssuedToken;
use crate::accounts::sessions::Client;
use crate::outbox::email_compose::one_line;
use crate::outbox::link_tokens::{new_token, token_hash};
use crate::paging::{PageRequest, Paged};
use crate::{Result, ServiceError, Session};

/// What an inviter asks for.
#[derive(Clone, Debug)]
pub struct NewInvite {
    pub email: String,
    pub role: Role,
}

/// A new invitation and its link (shown once: only its hash is kept).
#[derive(Clone, Debug)]
pub struct CreatedInvite {
    pub invite: Invite,
    pub link: String,
    /// Whether the link was queued by email too.
    pub emailed: bool,
}

/// The organization joined, with the role and a session there.
pub struct Accepted {
    pub organization: Organization,
    pub role: Role,
    pub token: IssuedToken,
}

impl MemberService {
    /// The accept page's address for `token`.
    pub fn invite_link(&self, token: &str) -> String {
        format!("{}/invites/accept?token={token}", self.settings.public_url.trim_end_matches('/'))
    }

    /// Invites `email` with `role`: admins invite members, owners also
    /// owners. An address that is already a member: 409 `ALREADY_MEMBER`.
    pub async fn invite(&self, session: &Session, input: NewInvite) -> Result<CreatedInvite> {
        session.require_power(Power::ManageMembers)?;
        if input.role == Role::Owner {
            session.require_power(Power::ManageOwners)?;
        }
        let email = input.email.trim().to_lowercase();
        if !svc_domain::email::is_address(&email) {
            return Err(ServiceError::validation("email", "must be an email address"));
        }
        if let Some((user, _)) = self.store.user_by_email(&email).await?
            && self.store.member(session.org(), user.id).await?.is_some()
        {
            return Err(ServiceError::Conflict {
                code: "ALREADY_MEMBER",
                message: format!("{email} is already a member of this organization"),
            });
        }
        let org = self.store.organization(session.org()).await?.ok_or(ServiceError::NotFound("organization"))?;
        let now = Utc::now();
        let invite = Invite {
            id: InviteId::new(),
            organization_id: session.org(),
            email,
            role: input.role,
            invited_by: session.user(),
            created_at: now,
            expires_at: now + INVITE_LIFETIME,
        };
        let token = new_token();
        self.store.insert_invite(&invite, &token_hash(&token)).await?;
        let detail = format!("{} as {}", invite.email, invite.role);
        self.audit
            .record(
                session,
                AuditAction::MemberInvited { invite: svc_domain::TypedId::object_id(invite.id) },
                Some(detail),
            )
            .await;
        let link = self.invite_link(&token);
        let emailed = self.settings.email_enabled;
        if emailed {
            let email = Email::plain(
                session.org(),
                EmailKind::Invite,
                &invite.email,
                one_line(&format!("You are invited to join {} on svc", org.name)),
                format!(
                    "You are invited to join the organization \"{}\" on svc as {} {}.\n\nAccept the \
                     invitation (the link works once, until {}):\n{link}\n\nIf you did not expect this \
                     email, ignore it.\n",
                    org.name,
                    if invite.role == Role::Admin || invite.role == Role::Editor { "an" } else { "a" },
                    invite.role,
                    invite.expires_at.format("%Y-%m-%d %H:%M UTC"),
                ),
                now,
            );
            self.store.queue_emails(&[email], now).await?;
            self.queued.notify_one();
        }
        Ok(CreatedInvite { invite, link, emailed })
    }

    /// The organization's pending invitations, newest first (admins and
    /// owners).
    pub async fn invites(&self, session: &Session, page: PageRequest) -> Result<Paged<Invite>> {
        session.require_power(Power::ManageMembers)?;
        let found = self.store.invites(session.org(), Utc::now(), page.offset(), page.per_page).await?;
        Ok(Paged { items: found.items, total: found.total, page })
    }

    /// Withdraws a pending invitation: its link stops working.
    pub async fn withdraw(&self, session: &Session, id: InviteId) -> Result<()> {
        session.require_power(Power::ManageMembers)?;
        if !self.store.delete_invite(session.org(), id).await? {
            return Err(ServiceError::NotFound("invitation"));
        }
        Ok(())
    }

    /// The invitation a link's token names, if it still works (the accept
    /// page shows whom it is for and where it leads).
    pub async fn invite_of_token(&self, token: &str) -> Result<(Invite, Organization)> {
        let invite = self
            .store
            .invite_by_token(&token_hash(token), Utc::now())
            .await?
            .ok_or(ServiceError::NotFound("invitation"))?;
        let org = self.store.organization(invite.organization_id).await?.ok_or(ServiceError::NotFound("invitation"))?;
        Ok((invite, org))
    }

    /// Accepts the invitation of `token` for the session's user, who must
    /// have the invited address; answers a session in the organization
    /// joined. A used, withdrawn, expired or unknown token: 404.
    pub async fn accept(&self, session: &Session, token: &str, client: &Client) -> Result<Accepted> {
        let (invite, organization) = self.invite_of_token(token).await?;
        let user = self.store.user(session.org(), session.user()).await?.ok_or(ServiceError::NotFound("user"))?;
        if user.email != invite.email {
            return Err(ServiceError::Forbidden(format!(
                "this invitation is for another address; log in as {} to accept it",
                invite.email
            )));
        }
        let now = Utc::now();
        match self.store.accept_invite(&invite, user.id, now).await? {
            Joined::Joined => {
                let detail = format!("as {}", invite.role);
                let action = AuditAction::MemberJoined { user: user.id };
                self.audit.record_in(invite.organization_id, session, action, Some(detail)).await;
            }
            Joined::AlreadyMember => {}
            Joined::InviteGone => return Err(ServiceError::NotFound("invitation")),
        }
        let role =
            self.store.member(invite.organization_id, user.id).await?.ok_or(ServiceError::NotFound("member"))?.role;
        let org: OrgId = invite.organization_id;
        self.store.touch_membership(org, user.id, now).await?;
        let (token, expires_at, _) = self.sessions.open(org, user.id, client).await?;
        Ok(Accepted { organization, role, token: IssuedToken { token, expires_at } })
    }
}
