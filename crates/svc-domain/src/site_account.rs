//! A scrap's login on its target site (logged-in scraping) and the browser
//! session a run saved with it. Both are secrets: stored sealed, never
//! shown whole, and `Debug` prints neither.

use std::fmt;

use chrono::{DateTime, Utc};

use crate::HistoryId;

/// The username and password a scrap's script reads as `SVC.account`.
/// `Debug` shows the username's hint (`a***`) and no password.
#[derive(Clone, PartialEq, Eq)]
pub struct SiteAccount {
    pub username: String,
    pub password: String,
}

impl SiteAccount {
    /// The username as it may be shown: its first character, then `***`.
    pub fn username_hint(&self) -> String {
        username_hint(&self.username)
    }
}

/// `alice` as `a***`: the first character, then `***` (nothing else of it,
/// not even its length).
pub fn username_hint(username: &str) -> String {
    match username.chars().next() {
        Some(first) => format!("{first}***"),
        None => "***".into(),
    }
}

impl fmt::Debug for SiteAccount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SiteAccount").field("username", &self.username_hint()).field("password", &"<redacted>").finish()
    }
}

/// A stored account and when it was last set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredAccount {
    pub account: SiteAccount,
    pub updated_at: DateTime<Utc>,
}

/// A browser session as JSON text: the cookies of a run's browser context
/// and the `localStorage` of the target's origin
/// (`{"v":1,"cookies":[...],"origin":..,"localStorage":[[k,v],...]}`).
/// It logs whoever holds it in: `Debug` shows only its length.
#[derive(Clone, PartialEq, Eq)]
pub struct SessionState(String);

impl SessionState {
    pub fn new(json: impl Into<String>) -> SessionState {
        SessionState(json.into())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn into_inner(self) -> String {
        self.0
    }
}

impl fmt::Debug for SessionState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SessionState(<{} bytes>)", self.0.len())
    }
}

/// The session a scrap's successful run left, restored into the next run's
/// fresh browser context.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SavedSession {
    pub state: SessionState,
    pub saved_at: DateTime<Utc>,
    /// The run that saved it.
    pub history_id: Option<HistoryId>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_shows_no_secret() {
        let account = SiteAccount { username: "alice@example.com".into(), password: "hunter2-secret".into() };
        let shown = format!("{account:?}");
        assert_eq!(shown, r#"SiteAccount { username: "a***", password: "<redacted>" }"#);
        let state = SessionState::new(r#"{"cookies":[{"name":"sid","value":"s3cr3t"}]}"#);
        assert_eq!(format!("{state:?}"), "SessionState(<45 bytes>)");
    }

    #[test]
    fn hints_keep_the_first_character_only() {
        assert_eq!(username_hint("alice"), "a***");
        assert_eq!(username_hint("é"), "é***");
        assert_eq!(username_hint(""), "***");
    }
}
