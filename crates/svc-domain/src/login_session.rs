//! A web session: one log-in of a user on one device, which the user (or a
//! password change) can end before it expires.

use chrono::{DateTime, Utc};

use crate::{OrgId, SessionId, UserId};

/// The longest `device` kept, in characters.
pub const DEVICE_MAX: usize = 300;

#[derive(Clone, Debug, PartialEq)]
pub struct LoginSession {
    pub id: SessionId,
    pub organization_id: OrgId,
    pub user_id: UserId,
    /// What the client said it is at log-in (its `User-Agent`, at most
    /// [`DEVICE_MAX`] characters); empty when it said nothing.
    pub device: String,
    /// The client's address at log-in.
    pub address: String,
    pub created_at: DateTime<Utc>,
    /// When a request last used it (updated at most every few minutes).
    pub last_seen_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
}

/// `device` cut to [`DEVICE_MAX`] characters, control characters dropped.
pub fn device_of(user_agent: &str) -> String {
    user_agent.chars().filter(|c| !c.is_control()).take(DEVICE_MAX).collect::<String>().trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_are_cut_and_cleaned() {
        assert_eq!(device_of(" Mozilla/5.0\n(X11) "), "Mozilla/5.0(X11)");
        assert_eq!(device_of(&"a".repeat(400)).len(), DEVICE_MAX);
        assert_eq!(device_of(&"é".repeat(400)).chars().count(), DEVICE_MAX);
    }
}
