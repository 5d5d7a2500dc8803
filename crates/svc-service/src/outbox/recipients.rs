//! Confirmed recipients (issue 37): result emails, digests and alerts go
//! only to the organization's members' own addresses or to addresses that
//! confirmed through a link mailed to them. A scrap that names a new address
//! records it pending and mails it the link (at most once an hour); the
//! link's page asks for a button press (a mail scanner that follows links
//! confirms nothing); the senders skip pending addresses and say so in the
//! run's activity. Confirmations belong to one organization.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use svc_domain::OrgId;
use svc_domain::account::Organization;
use svc_domain::channel;
use svc_domain::email::{Email, EmailKind};
use svc_domain::recipient::{CONFIRMATION_RESEND_AFTER, RecipientAddress, RecipientState, normalized};
use svc_domain::scope::Scope;
use svc_domain::scrap::Scrap;
use svc_storage::{Asked, ConfirmationLink, Store};

use crate::outbox::email_compose::one_line;
use crate::outbox::link_tokens::{new_token, token_hash};
use crate::paging::{PageRequest, Paged};
use crate::{Result, ServiceError, Session};

/// How confirmation mails go out.
#[derive(Clone, Debug)]
pub struct RecipientSettings {
    /// `SVC_PUBLIC_URL`: the confirmation link starts with it.
    pub public_url: String,
    /// Whether email can be sent. Without it nothing is emailed at all, so
    /// addresses wait, pending, with no link (docs/decisions.md).
    pub email_enabled: bool,
}

/// Recipients of an organization and their confirmation.
#[derive(Clone)]
pub struct RecipientService {
    store: Arc<dyn Store>,
    settings: RecipientSettings,
    /// Wakes the mailer when a confirmation mail is queued.
    queued: Arc<tokio::sync::Notify>,
}

/// What a scrap's recipient field may send to now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reach {
    /// A member's address, a confirmed one, or a chat channel.
    Allowed,
    /// An address that has not confirmed: nothing goes to it.
    Unconfirmed,
}

/// The email addresses among a scrap's recipient fields (channels are not
/// addresses), normalized, without repeats.
pub fn scrap_addresses(scrap: &Scrap) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for value in [&scrap.alert, &scrap.email_notif_recipient, &scrap.digest_recipient].into_iter().flatten() {
        let email = normalized(value);
        if !channel::is_channel(&email) && svc_domain::email::is_address(&email) && !out.contains(&email) {
            out.push(email);
        }
    }
    out
}

fn time_of(at: DateTime<Utc>) -> String {
    at.format("%Y-%m-%d %H:%M UTC").to_string()
}

impl RecipientService {
    pub(crate) fn new(store: Arc<dyn Store>, settings: RecipientSettings, queued: Arc<tokio::sync::Notify>) -> Self {
        RecipientService { store, settings, queued }
    }

    /// The confirmation page's address for `token`.
    pub fn confirm_link(&self, token: &str) -> String {
        format!("{}/recipients/confirm?token={token}", self.settings.public_url.trim_end_matches('/'))
    }

    /// Whether `org` may send to `to` now (channels: always; they are not
    /// the business of this rule).
    pub async fn reach(&self, org: OrgId, to: &str) -> Result<Reach> {
        reach(&*self.store, org, to).await
    }

    /// The organization's recipients outside its members, pending and
    /// confirmed (every member may read them: the scrap editor shows them).
    pub async fn list(&self, session: &Session, page: PageRequest) -> Result<Paged<RecipientAddress>> {
        session.require(&[Scope::ScrapsRead])?;
        // Bounded by the organization's scraps (three fields each): read whole.
        let all = self.store.recipients(session.org()).await?;
        let total = i64::try_from(all.len()).unwrap_or(i64::MAX);
        let skip = usize::try_from(page.offset()).unwrap_or(usize::MAX);
        let take = usize::try_from(page.per_page).unwrap_or(0);
        Ok(Paged { items: all.into_iter().skip(skip).take(take).collect(), total, page })
    }

    /// Every recipient of the organization (the scrap editor's notices).
    pub async fn all(&self, session: &Session) -> Result<Vec<RecipientAddress>> {
        session.require(&[Scope::ScrapsRead])?;
        Ok(self.store.recipients(session.org()).await?)
    }

    /// Records the addresses `scrap` names that are neither members' nor
    /// confirmed, and mails each the confirmation link (unless one went in
    /// the last hour). Called when a scrap is created, and with the
    /// addresses an update newly names.
    pub(crate) async fn ask_for(&self, org: OrgId, addresses: &[String]) -> Result<()> {
        for email in addresses {
            if self.store.may_receive(org, email).await? {
                continue;
            }
            self.ask(org, email).await?;
        }
        Ok(())
    }

    /// Records `email` pending and, when a mail may go, stores the new
    /// link's secret and queues its mail together.
    async fn ask(&self, org: OrgId, email: &str) -> Result<Asked> {
        let now = Utc::now();
        let resend_before = now - CONFIRMATION_RESEND_AFTER;
        if !self.settings.email_enabled {
            return Ok(self.store.ask_recipient(org, email, None, now, resend_before).await?);
        }
        let organization = self.store.organization(org).await?.ok_or(ServiceError::NotFound("organization"))?;
        let token = new_token();
        let mail = self.confirmation_email(&organization, email, &token, now);
        let link = ConfirmationLink { token_hash: &token_hash(&token), mail: &mail };
        let asked = self.store.ask_recipient(org, email, Some(&link), now, resend_before).await?;
        if asked == Asked::Send {
            self.queued.notify_one();
        }
        Ok(asked)
    }

    fn confirmation_email(&self, org: &Organization, to: &str, token: &str, now: DateTime<Utc>) -> Email {
        let name = one_line(&org.name);
        let link = self.confirm_link(token);
        Email::plain(
            org.id,
            EmailKind::Confirmation,
            to,
            format!("Confirm that {name} on svc may email you"),
            format!(
                "A member of the organization \"{name}\" on svc asked for scrap results, digests or alerts to be \
                 sent to {to}.\n\nNothing is sent to this address until you confirm. To receive them, open this \
                 link and press Confirm:\n{link}\n\nIf you did not expect this email, ignore it: nothing more \
                 will come unless you confirm.\n"
            ),
            now,
        )
    }

    /// "Send again": mails `email` a new confirmation link. Editors and
    /// above (those who set recipients). A member's own or confirmed
    /// address: 409 `ALREADY_CONFIRMED`; a mail sent less than an hour
    /// ago: 409 `CONFIRMATION_RECENTLY_SENT`; email off: 409 `EMAIL_OFF`.
    pub async fn send_again(&self, session: &Session, email: &str) -> Result<RecipientAddress> {
        session.require(&[Scope::ScrapsWrite])?;
        let email = normalized(email);
        if channel::is_channel(&email) || !svc_domain::email::is_address(&email) {
            return Err(ServiceError::validation("email", "must be an email address"));
        }
        if !self.settings.email_enabled {
            return Err(ServiceError::Conflict {
                code: "EMAIL_OFF",
                message: "this server sends no email (SVC_SMTP_URL is not set), so no confirmation can be mailed"
                    .into(),
            });
        }
        if self.store.may_receive(session.org(), &email).await? {
            return Err(already_confirmed(&email));
        }
        match self.ask(session.org(), &email).await? {
            Asked::Send => {}
            Asked::Confirmed => return Err(already_confirmed(&email)),
            Asked::Wait(r) => {
                let again = r.resend_at().map(time_of).unwrap_or_default();
                return Err(ServiceError::Conflict {
                    code: "CONFIRMATION_RECENTLY_SENT",
                    message: format!(
                        "a confirmation mail went to {email} less than an hour ago; another may go after {again}"
                    ),
                });
            }
        }
        let found = self.store.recipients(session.org()).await?.into_iter().find(|r| r.email == email);
        found.ok_or(ServiceError::NotFound("recipient"))
    }

    /// The address a confirmation link names and its organization (the
    /// page asks before confirming). An unknown or replaced link: 404.
    pub async fn of_token(&self, token: &str) -> Result<(RecipientAddress, Organization)> {
        let found = self
            .store
            .recipient_by_token(&token_hash(token))
            .await?
            .ok_or(ServiceError::NotFound("confirmation link"))?;
        let org =
            self.store.organization(found.organization_id).await?.ok_or(ServiceError::NotFound("confirmation link"))?;
        Ok((found, org))
    }

    /// Confirms the address of the link, for its organization only.
    pub async fn confirm(&self, token: &str) -> Result<(RecipientAddress, Organization)> {
        let confirmed = self
            .store
            .confirm_recipient(&token_hash(token), Utc::now())
            .await?
            .ok_or(ServiceError::NotFound("confirmation link"))?;
        debug_assert_eq!(confirmed.state, RecipientState::Confirmed);
        let org = self
            .store
            .organization(confirmed.organization_id)
            .await?
            .ok_or(ServiceError::NotFound("confirmation link"))?;
        Ok((confirmed, org))
    }
}

fn already_confirmed(email: &str) -> ServiceError {
    ServiceError::Conflict {
        code: "ALREADY_CONFIRMED",
        message: format!("{email} receives already (a member's address, or confirmed)"),
    }
}

/// Whether `org` may send to `to` now: a chat channel, a member's own
/// address, or a confirmed recipient of `org`.
pub(crate) async fn reach(store: &dyn Store, org: OrgId, to: &str) -> Result<Reach> {
    if channel::is_channel(to) || store.may_receive(org, &normalized(to)).await? {
        Ok(Reach::Allowed)
    } else {
        Ok(Reach::Unconfirmed)
    }
}
