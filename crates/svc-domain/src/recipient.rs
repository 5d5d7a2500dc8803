//! Addresses a scrap may send result emails, digests and alerts to besides
//! the organization's members' own (issue 37): each confirms first, by a
//! link mailed to it, so that svc cannot be used to mail strangers.

use chrono::{DateTime, Duration, Utc};

use crate::OrgId;

/// At most one confirmation mail per address and organization in this time.
pub const CONFIRMATION_RESEND_AFTER: Duration = Duration::hours(1);

/// Where an address is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecipientState {
    /// Named by a scrap, not yet confirmed: nothing is sent to it.
    Pending,
    /// Followed the link and confirmed: it receives what scraps send it.
    Confirmed,
}

impl RecipientState {
    pub fn as_str(self) -> &'static str {
        match self {
            RecipientState::Pending => "pending",
            RecipientState::Confirmed => "confirmed",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        [Self::Pending, Self::Confirmed].into_iter().find(|k| k.as_str() == s)
    }
}

/// An address outside the organization's members that a scrap names.
#[derive(Clone, Debug, PartialEq)]
pub struct RecipientAddress {
    pub organization_id: OrgId,
    /// Trimmed and lowercased.
    pub email: String,
    pub state: RecipientState,
    pub created_at: DateTime<Utc>,
    /// When the last confirmation mail was queued (none while email is off).
    pub sent_at: Option<DateTime<Utc>>,
    pub confirmed_at: Option<DateTime<Utc>>,
}

impl RecipientAddress {
    /// When another confirmation mail may go (`None`: now).
    pub fn resend_at(&self) -> Option<DateTime<Utc>> {
        self.sent_at.map(|at| at + CONFIRMATION_RESEND_AFTER)
    }
}

/// The address as recipients are kept: trimmed, lowercased.
pub fn normalized(email: &str) -> String {
    email.trim().to_lowercase()
}
