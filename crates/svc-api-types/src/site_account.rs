//! A scrap's site login (logged-in scraping): written whole, read back
//! masked. No answer carries the password or the whole username.

use std::fmt;

use serde::{Deserialize, Serialize};
use svc_domain::site_account::username_hint;
use utoipa::ToSchema;

/// The body of `PUT /api/scraps/:id/account`. Both fields are required
/// (the service says so, naming the field); unknown fields are refused.
/// `Debug` shows the username's hint and no password.
#[derive(Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(description = "The body of `PUT /api/scraps/{id}/account`: both fields are required.")]
pub struct SiteAccountBody {
    #[serde(default)]
    #[schema(required = true, nullable = false, min_length = 1, max_length = 200, pattern = r"\S")]
    pub username: Option<String>,
    #[serde(default)]
    #[schema(required = true, nullable = false, min_length = 1, max_length = 1000)]
    pub password: Option<String>,
}

impl fmt::Debug for SiteAccountBody {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SiteAccountBody")
            .field("username", &self.username.as_deref().map(username_hint))
            .finish_non_exhaustive()
    }
}

/// What `GET` and `PUT /api/scraps/{id}/account` answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SiteAccountView {
    pub has_account: bool,
    /// The username's first character and `***` (`a***`); `null` without a
    /// login, or when the stored one cannot be read with the server's key.
    pub username: Option<String>,
    /// Whether a run saved a browser session (cookies) for the next run.
    pub has_session: bool,
    /// ISO 8601, when it was saved.
    pub session_saved_at: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_hides_the_login() {
        let body = SiteAccountBody { username: Some("alice".into()), password: Some("hunter2".into()) };
        let shown = format!("{body:?}");
        assert!(!shown.contains("alice") && !shown.contains("hunter2") && shown.contains("a***"), "{shown}");
    }
}
