//! Release announcements: a platform admin's message to every user, queued
//! in the email outbox with a one-click unsubscribe link each; and the
//! unsubscribe itself.

use std::sync::Arc;

use chrono::Utc;
use svc_domain::email::{Email, EmailKind};
use svc_domain::scope::Scope;
use svc_domain::{ObjectId, OrgId, UserId};
use svc_storage::Store;
use tokio::sync::Notify;

use crate::accounts::jwt::JwtKeys;
use crate::outbox::email_compose::one_line;
use crate::{Principal, Result, ServiceError};

pub const MAX_SUBJECT_CHARS: usize = 200;
pub const MAX_TEXT_BYTES: usize = 100 * 1024;
/// Recipients read per query.
const RECIPIENT_PAGE: i64 = 1000;

/// What an announcement says (`Debug` shows it all: nothing secret).
#[derive(Clone, Debug)]
pub struct Announcement {
    pub subject: String,
    /// Markdown or plain text, sent as the text body.
    pub text: String,
}

/// A queued announcement.
#[derive(Clone, Debug, PartialEq)]
pub struct Announced {
    pub id: ObjectId,
    pub recipients: usize,
}

pub struct AnnouncementService {
    store: Arc<dyn Store>,
    jwt: Arc<JwtKeys>,
    email_enabled: bool,
    public_url: String,
    /// Wakes the mailer.
    queued: Arc<Notify>,
}

impl AnnouncementService {
    pub(crate) fn new(
        store: Arc<dyn Store>,
        jwt: Arc<JwtKeys>,
        email_enabled: bool,
        public_url: String,
        queued: Arc<Notify>,
    ) -> Self {
        AnnouncementService { store, jwt, email_enabled, public_url, queued }
    }

    /// The one-click unsubscribe address of a user.
    pub fn unsubscribe_url(&self, org: OrgId, user: UserId) -> String {
        format!("{}/unsubscribe?token={}", self.public_url, self.jwt.unsubscribe_token(org, user))
    }

    /// Queues `announcement` to every user who receives announcements. A
    /// key needs scope `svc:mail:announce` (else 403 `INSUFFICIENT_SCOPE`)
    /// and an owner who is a platform admin; a web session, a platform
    /// admin (else 403 `FORBIDDEN`).
    pub async fn announce(&self, principal: &Principal, announcement: Announcement) -> Result<Announced> {
        principal.require(&[Scope::MailAnnounce])?;
        if !principal.is_platform_admin() {
            return Err(ServiceError::Forbidden("release announcements are for platform admins".into()));
        }
        let subject = one_line(&announcement.subject);
        let chars = subject.chars().count();
        if chars == 0 || chars > MAX_SUBJECT_CHARS {
            return Err(ServiceError::validation("subject", format!("must be 1 to {MAX_SUBJECT_CHARS} characters")));
        }
        if announcement.text.trim().is_empty() || announcement.text.len() > MAX_TEXT_BYTES {
            return Err(ServiceError::validation("text", format!("must be 1 byte to {} KB", MAX_TEXT_BYTES / 1024)));
        }
        if !self.email_enabled {
            return Err(ServiceError::Unavailable(
                "email is off on this server: the operator sets SVC_SMTP_URL to send announcements".into(),
            ));
        }
        let id = ObjectId::new();
        let now = Utc::now();
        let mut emails = Vec::new();
        let mut after = None;
        loop {
            let page = self.store.announcement_recipients(after, RECIPIENT_PAGE).await?;
            let Some(last) = page.last() else { break };
            after = Some(last.user_id);
            for r in page {
                let unsubscribe = self.unsubscribe_url(r.organization_id, r.user_id);
                emails.push(Email {
                    id: ObjectId::new(),
                    organization_id: r.organization_id,
                    kind: EmailKind::Announcement,
                    to: r.email,
                    subject: subject.clone(),
                    text: format!(
                        "{}\n\n--\nYou get this because you have an svc account. Stop these emails: {unsubscribe}\n",
                        announcement.text.trim_end()
                    ),
                    html: None,
                    attachment: None,
                    unsubscribe_url: Some(unsubscribe),
                    scrap_id: None,
                    history_id: None,
                    created_at: now,
                });
            }
        }
        self.store.queue_emails(&emails, now).await?;
        self.queued.notify_one();
        Ok(Announced { id, recipients: emails.len() })
    }

    /// Stops announcements for the user a token names; false for a token
    /// that is not one of ours (or a user that is gone).
    pub async fn unsubscribe(&self, token: &str) -> Result<bool> {
        let Some((org, user)) = self.jwt.unsubscribe_subject(token) else { return Ok(false) };
        Ok(self.store.set_announcements(org, user, false).await?)
    }

    /// Whether `token` is an unsubscribe token of ours.
    pub fn token_is_valid(&self, token: &str) -> bool {
        self.jwt.unsubscribe_subject(token).is_some()
    }

    /// Whether email can be sent from this server.
    pub fn email_enabled(&self) -> bool {
        self.email_enabled
    }
}
