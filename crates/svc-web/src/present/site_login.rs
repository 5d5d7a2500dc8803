//! A scrap's site login and saved session as the editor's "Site login"
//! card words them: never more of the login than its hint (`a***`).

use chrono::{DateTime, Utc};
use svc_service::scraps::site_accounts::AccountStatus;

use crate::present::when::{Moment, moment};

/// The card's facts.
#[derive(Clone, Debug, PartialEq)]
pub struct SiteLoginView {
    pub has_account: bool,
    pub has_session: bool,
    /// "No login saved", "Login saved for a***", or why it cannot be read.
    pub login: String,
    /// Whether the stored login cannot be opened with this server's key.
    pub unreadable: bool,
    /// When the saved session was saved.
    pub session_saved: Option<Moment>,
    /// What the next run starts with (after "Saved <when> by a successful
    /// run: " when there is a session).
    pub session: String,
}

pub fn site_login(status: &AccountStatus, now: DateTime<Utc>) -> SiteLoginView {
    let unreadable = status.has_account && status.username_hint.is_none();
    let login = match (&status.username_hint, status.has_account) {
        (Some(hint), _) => format!("Login saved for {hint}"),
        (None, true) => "A login is saved, but this server's key cannot open it: set it again".into(),
        (None, false) => "No login saved".into(),
    };
    let session = match (status.has_session, status.has_account) {
        (true, _) => "the next run starts logged in.".into(),
        (false, true) => "None saved: the next run starts logged out, and the script logs in.".into(),
        (false, false) => "None: runs keep a session only when the scrap has a login.".into(),
    };
    SiteLoginView {
        has_account: status.has_account,
        has_session: status.has_session,
        login,
        unreadable,
        session_saved: status.session_saved_at.map(|at| moment(at, now)),
        session,
    }
}

/// The message after a change (`?login=` of the redirect).
pub fn flash(done: Option<&str>) -> Option<&'static str> {
    match done? {
        "saved" => Some("Login saved. The next run hands it to the script as SVC.account."),
        "removed" => Some("Login removed, with its saved session."),
        "forgotten" => Some("Saved session forgotten: the next run starts logged out."),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use chrono::Duration;

    use super::*;

    fn status(hint: Option<&str>, has_account: bool, saved: Option<DateTime<Utc>>) -> AccountStatus {
        AccountStatus {
            has_account,
            username_hint: hint.map(str::to_string),
            has_session: saved.is_some(),
            session_saved_at: saved,
        }
    }

    #[test]
    fn the_card_says_what_is_saved_and_no_more() {
        let now = Utc::now();
        let none = site_login(&status(None, false, None), now);
        assert_eq!((none.login.as_str(), none.unreadable, none.has_account), ("No login saved", false, false));
        assert!(none.session.starts_with("None: runs keep a session only"));

        let saved = site_login(&status(Some("a***"), true, Some(now - Duration::minutes(5))), now);
        assert_eq!(saved.login, "Login saved for a***");
        assert_eq!(saved.session_saved.as_ref().map(|m| m.relative.as_str()), Some("5 min ago"));
        assert!(saved.session.contains("starts logged in"));

        let logged_out = site_login(&status(Some("a***"), true, None), now);
        assert!(logged_out.session.contains("starts logged out"));

        let unreadable = site_login(&status(None, true, None), now);
        assert!(unreadable.unreadable && unreadable.login.contains("set it again"));
    }

    #[test]
    fn flashes_name_what_changed() {
        assert!(flash(Some("saved")).unwrap().contains("SVC.account"));
        assert!(flash(Some("removed")).is_some() && flash(Some("forgotten")).is_some());
        assert_eq!(flash(Some("other")), None);
        assert_eq!(flash(None), None);
    }
}
