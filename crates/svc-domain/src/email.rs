//! Outgoing email: what svc sends (result emails, alerts, announcements)
//! and where each one is in the outbox.

use chrono::{DateTime, Utc};

use crate::{HistoryId, ObjectId, OrgId, ScrapId};

/// Why an email is sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EmailKind {
    /// The data of a cron run (`emailNotif`).
    Result,
    /// A scrap started failing (`alert`).
    Alert,
    /// A failing scrap succeeded again (`alert`).
    Recovered,
    /// The AI digest of a run (`digestRecipient`).
    Digest,
    /// A release announcement to every user.
    Announcement,
    /// AI Fix has a repair of a scrap with a site login, which waits for
    /// its owner's approval.
    FixProposed,
    /// An invitation to join an organization.
    Invite,
    /// Asks an address a scrap names to confirm before anything else is sent to it.
    Confirmation,
}

impl EmailKind {
    pub fn as_str(self) -> &'static str {
        match self {
            EmailKind::Result => "result",
            EmailKind::Alert => "alert",
            EmailKind::Recovered => "recovered",
            EmailKind::Digest => "digest",
            EmailKind::Announcement => "announcement",
            EmailKind::FixProposed => "fix_proposed",
            EmailKind::Invite => "invite",
            EmailKind::Confirmation => "confirmation",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        [
            Self::Result,
            Self::Alert,
            Self::Recovered,
            Self::Digest,
            Self::Announcement,
            Self::FixProposed,
            Self::Invite,
            Self::Confirmation,
        ]
        .into_iter()
        .find(|k| k.as_str() == s)
    }
}

/// A file attached to an email.
#[derive(Clone, Debug, PartialEq)]
pub struct Attachment {
    pub filename: String,
    pub content_type: String,
    pub content: Vec<u8>,
}

/// One email as it is queued: the whole message, ready to send.
#[derive(Clone, Debug, PartialEq)]
pub struct Email {
    pub id: ObjectId,
    /// The organization it is sent for (an announcement: the recipient's).
    pub organization_id: OrgId,
    pub kind: EmailKind,
    pub to: String,
    /// One line: CR and LF are never in it (the composer replaces them).
    pub subject: String,
    pub text: String,
    pub html: Option<String>,
    pub attachment: Option<Attachment>,
    /// The one-click unsubscribe address (RFC 8058), for announcements.
    pub unsubscribe_url: Option<String>,
    pub scrap_id: Option<ScrapId>,
    pub history_id: Option<HistoryId>,
    pub created_at: DateTime<Utc>,
}

impl Email {
    /// A text mail of `kind` to `to` for `organization_id`, with a new id
    /// and nothing else: no HTML, attachment, unsubscribe link, scrap or
    /// run (set those with struct update syntax).
    pub fn plain(
        organization_id: OrgId,
        kind: EmailKind,
        to: &str,
        subject: String,
        text: String,
        created_at: DateTime<Utc>,
    ) -> Email {
        Email {
            id: ObjectId::new(),
            organization_id,
            kind,
            to: to.to_string(),
            subject,
            text,
            html: None,
            attachment: None,
            unsubscribe_url: None,
            scrap_id: None,
            history_id: None,
            created_at,
        }
    }
}

/// Where an email is in the outbox.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EmailState {
    /// Waiting for its (next) attempt.
    Queued,
    Sent,
    /// Refused for good (5xx) or out of attempts.
    Failed,
}

impl EmailState {
    pub fn as_str(self) -> &'static str {
        match self {
            EmailState::Queued => "queued",
            EmailState::Sent => "sent",
            EmailState::Failed => "failed",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        [Self::Queued, Self::Sent, Self::Failed].into_iter().find(|k| k.as_str() == s)
    }
}

/// An email with its delivery state.
#[derive(Clone, Debug, PartialEq)]
pub struct EmailRecord {
    pub email: Email,
    pub state: EmailState,
    /// Attempts made (or, for a claimed email, the one under way included).
    pub attempts: i64,
    pub next_attempt_at: Option<DateTime<Utc>>,
    /// The receiving server's answer to the last failed attempt.
    pub last_error: Option<String>,
    pub sent_at: Option<DateTime<Utc>>,
}

/// Whether `s` looks like an email address: one `@` with text on both
/// sides, no white space, at most 254 characters. Delivery decides the rest.
pub fn is_address(s: &str) -> bool {
    s.len() <= 254
        && !s.chars().any(char::is_whitespace)
        && s.split_once('@')
            .is_some_and(|(local, domain)| !local.is_empty() && !domain.is_empty() && !domain.contains('@'))
}

#[cfg(test)]
mod address_tests {
    #[test]
    fn addresses() {
        assert!(super::is_address("a@b.c"));
        assert!(!super::is_address("a b@c"));
        assert!(!super::is_address("@c"));
        assert!(!super::is_address("a@"));
        assert!(!super::is_address("a@b@c"));
        assert!(!super::is_address("abc"));
    }
}
