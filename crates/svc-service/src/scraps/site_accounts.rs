//! Logged-in scraping: a scrap's login on its target site (write-only: no
//! call hands back the password or the whole username) and the browser
//! session its successful runs leave. Writes take a web session; reads
//! need `svc:scraps:read`. Runs get both through `RunService::job`.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use svc_domain::activity::Activity;
use svc_domain::scope::Scope;
use svc_domain::site_account::{SavedSession, SessionState, SiteAccount, username_hint};
use svc_domain::{OrgId, ScrapId};
use svc_storage::{Store, StoreError};

use crate::scraps::authorize_scrap;
use crate::{Principal, Result, ServiceError, Session};

/// Usernames are 1 to this many characters.
pub const MAX_USERNAME_CHARS: usize = 200;
/// Passwords are 1 to this many characters.
pub const MAX_PASSWORD_CHARS: usize = 1000;

/// What may be shown of a scrap's login and session.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccountStatus {
    pub has_account: bool,
    /// `a***`; `None` without a login, or when the stored login cannot be
    /// opened with this server's master key (then it must be set again).
    pub username_hint: Option<String>,
    pub has_session: bool,
    /// When the saved session was saved (`None` without one, or when it
    /// cannot be opened).
    pub session_saved_at: Option<DateTime<Utc>>,
}

/// What a run of a scrap gets of its login.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct RunLogin {
    pub account: Option<SiteAccount>,
    pub session: Option<SessionState>,
}

/// The login and saved session a run of `scrap` starts with. `Err` (the
/// run's error message) when the login is stored but cannot be opened; a
/// session that cannot be opened is left out (the run logs in again).
pub(crate) async fn run_login(
    store: &dyn Store,
    org: OrgId,
    scrap: ScrapId,
) -> Result<std::result::Result<RunLogin, String>> {
    let account = match store.site_account(org, scrap).await {
        Ok(account) => account.map(|a| a.account),
        Err(StoreError::Sealing(why)) => {
            return Ok(Err(format!("the scrap's site login cannot be opened ({why}); set it again")));
        }
        Err(e) => return Err(e.into()),
    };
    let session = match &account {
        None => None,
        Some(_) => match store.site_session(org, scrap).await {
            Ok(session) => session.map(|s| s.state),
            Err(StoreError::Sealing(why)) => {
                tracing::warn!(%scrap, "the scrap's saved session cannot be opened; running without it: {why}");
                None
            }
            Err(e) => return Err(e.into()),
        },
    };
    Ok(Ok(RunLogin { account, session }))
}

fn check_account(username: &str, password: &str) -> Result<()> {
    let chars = username.chars().count();
    if username.trim().is_empty() {
        return Err(ServiceError::validation("username", "is required"));
    }
    if chars > MAX_USERNAME_CHARS {
        return Err(ServiceError::validation("username", format!("must be at most {MAX_USERNAME_CHARS} characters")));
    }
    if password.is_empty() {
        return Err(ServiceError::validation("password", "is required"));
    }
    if password.chars().count() > MAX_PASSWORD_CHARS {
        return Err(ServiceError::validation("password", format!("must be at most {MAX_PASSWORD_CHARS} characters")));
    }
    Ok(())
}

pub struct SiteAccountService {
    store: Arc<dyn Store>,
}

impl SiteAccountService {
    pub(crate) fn new(store: Arc<dyn Store>) -> Self {
        SiteAccountService { store }
    }

    async fn require_scrap(&self, org: OrgId, scrap: ScrapId) -> Result<()> {
        if self.store.existing_scrap_ids(org, &[scrap]).await?.is_empty() {
            return Err(ServiceError::NotFound("scrap"));
        }
        Ok(())
    }

    /// Sets (or replaces) the scrap's login. Username 1 to 200 characters
    /// (not blank), password 1 to 1,000, both taken as typed. A login for
    /// another username forgets the saved session (it belongs to the
    /// previous user); a new password keeps it.
    pub async fn set_account(
        &self,
        session: &Session,
        scrap: ScrapId,
        username: String,
        password: String,
    ) -> Result<AccountStatus> {
        session.require(&[Scope::ScrapsWrite])?;
        check_account(&username, &password)?;
        self.require_scrap(session.org(), scrap).await?;
        let forget_session = match self.store.site_account(session.org(), scrap).await {
            Ok(Some(stored)) => stored.account.username != username,
            Ok(None) => false,
            // Unreadable: whose session it is cannot be told.
            Err(StoreError::Sealing(_)) => true,
            Err(e) => return Err(e.into()),
        };
        let account = SiteAccount { username, password };
        let hint = account.username_hint();
        let log = Activity::new(
            session.org(),
            scrap,
            "account.set",
            format!("user:{}", session.user()),
            format!("Site login set for {hint}"),
        );
        if !self.store.set_site_account(session.org(), scrap, &account, Utc::now(), forget_session, &log).await? {
            return Err(ServiceError::NotFound("scrap"));
        }
        self.status(session.org(), scrap).await
    }

    /// Removes the scrap's login and its saved session. Removing a login
    /// that is not there does nothing.
    pub async fn delete_account(&self, session: &Session, scrap: ScrapId) -> Result<()> {
        session.require(&[Scope::ScrapsWrite])?;
        self.require_scrap(session.org(), scrap).await?;
        let log = Activity::new(
            session.org(),
            scrap,
            "account.removed",
            format!("user:{}", session.user()),
            "Site login removed (and its saved session)".into(),
        );
        self.store.delete_site_account(session.org(), scrap, &log).await?;
        Ok(())
    }

    /// Forgets the scrap's saved browser session: the next run starts
    /// logged out. Forgetting none does nothing.
    pub async fn forget_session(&self, session: &Session, scrap: ScrapId) -> Result<()> {
        session.require(&[Scope::ScrapsWrite])?;
        self.require_scrap(session.org(), scrap).await?;
        let log = Activity::new(
            session.org(),
            scrap,
            "session.forgotten",
            format!("user:{}", session.user()),
            "Saved browser session forgotten".into(),
        );
        self.store.delete_site_session(session.org(), scrap, &log).await?;
        Ok(())
    }

    /// Whether the scrap has a login (and its hint) and a saved session.
    pub async fn account_status(&self, principal: &Principal, scrap: ScrapId) -> Result<AccountStatus> {
        principal.require(&[Scope::ScrapsRead])?;
        authorize_scrap(&*self.store, principal, scrap).await?;
        self.require_scrap(principal.org(), scrap).await?;
        self.status(principal.org(), scrap).await
    }

    /// Whether the scrap has a saved browser session.
    pub async fn has_session(&self, principal: &Principal, scrap: ScrapId) -> Result<bool> {
        Ok(self.account_status(principal, scrap).await?.has_session)
    }

    async fn status(&self, org: OrgId, scrap: ScrapId) -> Result<AccountStatus> {
        let (has_account, username_hint) = match self.store.site_account(org, scrap).await {
            Ok(Some(stored)) => (true, Some(username_hint(&stored.account.username))),
            Ok(None) => (false, None),
            Err(StoreError::Sealing(_)) => (true, None),
            Err(e) => return Err(e.into()),
        };
        let (has_session, session_saved_at) = match self.store.site_session(org, scrap).await {
            Ok(Some(SavedSession { saved_at, .. })) => (true, Some(saved_at)),
            Ok(None) => (false, None),
            Err(StoreError::Sealing(_)) => (true, None),
            Err(e) => return Err(e.into()),
        };
        Ok(AccountStatus { has_account, username_hint, has_session, session_saved_at })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::TestServices;

    fn field_of<T: std::fmt::Debug>(result: Result<T>) -> String {
        match result {
            Err(ServiceError::Validation { field, .. }) => field,
            other => panic!("expected a validation error, got {other:?}"),
        }
    }

    #[tokio::test]
    async fn logins_are_validated_masked_and_scoped() {
        let t = TestServices::start().await;
        let ada = t.signup("ada@example.com").await;
        let eve = t.signup("eve@example.com").await;
        let scrap = t.scrap(&ada, "Members").await;
        let accounts = &t.services.site_accounts;
        let me = Principal::Session(ada.session.clone());

        let none =
            AccountStatus { has_account: false, username_hint: None, has_session: false, session_saved_at: None };
        assert_eq!(accounts.account_status(&me, scrap).await.unwrap(), none);
        for (username, password, field) in [
            ("", "pw", "username"),
            ("   ", "pw", "username"),
            (&"u".repeat(201), "pw", "username"),
            ("ada", "", "password"),
            ("ada", &"p".repeat(1001), "password"),
        ] {
            let refused = accounts.set_account(&ada.session, scrap, username.into(), password.into()).await;
            assert_eq!(field_of(refused), field, "{username:?} {password:?}");
        }
        let longest = accounts.set_account(&ada.session, scrap, "é".repeat(200), "p".repeat(1000)).await.unwrap();
        assert_eq!(longest.username_hint.as_deref(), Some("é***"));

        let status = accounts.set_account(&ada.session, scrap, "ada.l".into(), "s3cret!".into()).await.unwrap();
        assert_eq!(status, AccountStatus { has_account: true, username_hint: Some("a***".into()), ..none.clone() });

        // Another organization: 404 for every call, nothing changed.
        let stranger = Principal::Session(eve.session.clone());
        assert!(matches!(accounts.account_status(&stranger, scrap).await, Err(ServiceError::NotFound(_))));
        assert!(matches!(
            accounts.set_account(&eve.session, scrap, "eve".into(), "x".into()).await,
            Err(ServiceError::NotFound(_))
        ));
        assert!(matches!(accounts.delete_account(&eve.session, scrap).await, Err(ServiceError::NotFound(_))));
        assert!(matches!(accounts.forget_session(&eve.session, scrap).await, Err(ServiceError::NotFound(_))));
        assert!(matches!(accounts.has_session(&stranger, ScrapId::new()).await, Err(ServiceError::NotFound(_))));

        // A session saved by a run; a new password keeps it, another user forgets it.
        let saved = SavedSession { state: SessionState::new("{}"), saved_at: Utc::now(), history_id: None };
        t.store.save_site_session(ada.session.org(), scrap, &saved).await.unwrap();
        assert!(accounts.has_session(&me, scrap).await.unwrap());
        accounts.set_account(&ada.session, scrap, "ada.l".into(), "new one".into()).await.unwrap();
        assert!(accounts.has_session(&me, scrap).await.unwrap(), "a new password keeps the session");
        let status = accounts.set_account(&ada.session, scrap, "bob".into(), "pw".into()).await.unwrap();
        assert!(!status.has_session, "another username forgets it");
        assert_eq!(status.username_hint.as_deref(), Some("b***"));

        t.store.save_site_session(ada.session.org(), scrap, &saved).await.unwrap();
        accounts.forget_session(&ada.session, scrap).await.unwrap();
        accounts.forget_session(&ada.session, scrap).await.unwrap();
        assert!(!accounts.has_session(&me, scrap).await.unwrap());
        accounts.delete_account(&ada.session, scrap).await.unwrap();
        accounts.delete_account(&ada.session, scrap).await.unwrap();
        assert_eq!(accounts.account_status(&me, scrap).await.unwrap(), none);
        let log = t
            .services
            .scraps
            .activities(&me, scrap, crate::paging::PageRequest { page: 1, per_page: 50 })
            .await
            .unwrap();
        let messages: Vec<&str> = log.items.iter().map(|a| a.message.as_str()).collect();
        assert!(messages.contains(&"Site login set for b***"), "{messages:?}");
        assert!(messages.iter().all(|m| !m.contains("ada.l") && !m.contains("s3cret")), "{messages:?}");
    }
}
