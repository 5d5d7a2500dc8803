//! Signup, login and the current account.

use std::fmt;
use std::sync::{Arc, OnceLock};

use chrono::{DateTime, Utc};
use svc_domain::account::{Organization, User};
use svc_domain::plan::Plan;
use svc_domain::{OrgId, UserId};
use svc_storage::{NewAccount, Store, StoreError};
use tokio::sync::Semaphore;

use super::password;
use crate::accounts::audit::{AuditAction, AuditLog};
use crate::accounts::client_address::limit_key;
use crate::accounts::rate_limits::{LOGIN_FAILED_FOR, LOGIN_PER_EMAIL, LOGIN_PER_IP, RateLimits, SIGNUP_PER_IP};
use crate::accounts::sessions::{Client, SessionService};
use crate::{Result, ServiceError, Session};

const MIN_PASSWORD: usize = 8;
/// Bounds the hashing work one request can cause.
const MAX_PASSWORD: usize = 1024;

/// A new account: its user, and an organization named after them
/// (`Debug` leaves the password out).
pub struct Signup {
    pub email: String,
    pub password: String,
    /// Default: the local part of the email.
    pub name: Option<String>,
}

/// `Debug` leaves the password out.
pub struct Login {
    pub email: String,
    pub password: String,
    /// Which of the user's organizations to log into; default: the one
    /// used last.
    pub organization: Option<OrgId>,
}

/// `SVC_SIGNUP`: who may create an account.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SignupMode {
    /// Anyone.
    Open,
    /// Only an address with a pending invitation.
    Invite,
    /// No one (the operator creates accounts).
    Closed,
}

impl std::str::FromStr for SignupMode {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        match s.trim() {
            "open" => Ok(SignupMode::Open),
            "invite" => Ok(SignupMode::Invite),
            "closed" => Ok(SignupMode::Closed),
            _ => Err("expected open, invite or closed".into()),
        }
    }
}

impl fmt::Debug for Signup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Signup").field("email", &self.email).field("name", &self.name).finish_non_exhaustive()
    }
}

impl fmt::Debug for Login {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Login")
            .field("email", &self.email)
            .field("organization", &self.organization)
            .finish_non_exhaustive()
    }
}

pub struct IssuedToken {
    pub token: String,
    pub expires_at: DateTime<Utc>,
}

pub struct SignedUp {
    pub token: IssuedToken,
    pub user: User,
    pub organization: Organization,
}

pub struct AccountService {
    store: Arc<dyn Store>,
    sessions: Arc<SessionService>,
    free_grant: i64,
    limits: Arc<RateLimits>,
    /// `SVC_SIGNUP`: who may create an account.
    signup: SignupMode,
    audit: AuditLog,
    /// Bounds the argon2 work in flight (each hash takes ~19 MiB and a core
    /// for tens of milliseconds): a flood of logins queues here instead of
    /// exhausting memory.
    hashing: Semaphore,
}

/// Password hashes computed at once; more wait their turn.
pub const HASHING_AT_ONCE: usize = 2;

/// The password rule of a new password (`password`): 8 to 1,024 characters.
fn check_new_password(password: &str) -> Result<()> {
    let chars = password.chars().count();
    if chars < MIN_PASSWORD {
        return Err(ServiceError::validation("password", format!("must be at least {MIN_PASSWORD} characters")));
    }
    if chars > MAX_PASSWORD {
        return Err(ServiceError::validation("password", format!("must be at most {MAX_PASSWORD} characters")));
    }
    Ok(())
}

/// An email as stored (trimmed, lowercased), checked (`email`).
fn normalized_email(email: &str) -> Result<String> {
    let email = email.trim().to_lowercase();
    if !svc_domain::email::is_address(&email) {
        return Err(ServiceError::validation("email", "must be an email address"));
    }
    Ok(email)
}

/// The store's conflict on `users.email` as the caller sees it.
fn email_taken(e: StoreError) -> ServiceError {
    match e {
        StoreError::Conflict(_) => {
            ServiceError::Conflict { code: "EMAIL_TAKEN", message: "an account with this email already exists".into() }
        }
        e => e.into(),
    }
}

async fn blocking<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> Result<T> {
    tokio::task::spawn_blocking(f).await.map_err(|e| ServiceError::Internal(e.to_string()))
}

/// A hash to verify against when the email is unknown, so that both cases
/// take the same time.
fn decoy_hash() -> &'static str {
    static H: OnceLock<String> = OnceLock::new();
    H.get_or_init(|| password::hash("decoy password for unknown emails"))
}

impl AccountService {
    pub(crate) fn new(
        store: Arc<dyn Store>,
        sessions: Arc<SessionService>,
        free_grant: i64,
        limits: Arc<RateLimits>,
        signup: SignupMode,
        audit: AuditLog,
    ) -> Self {
        AccountService { store, sessions, free_grant, limits, signup, audit, hashing: Semaphore::new(HASHING_AT_ONCE) }
    }

    /// Who may sign up on this server (`SVC_SIGNUP`).
    pub fn signup_mode(&self) -> SignupMode {
        self.signup
    }

    /// Runs password hashing or verification, [`HASHING_AT_ONCE`] at a time.
    async fn hash_work<T: Send + 'static>(&self, f: impl FnOnce() -> T + Send + 'static) -> Result<T> {
        let _turn = self.hashing.acquire().await.map_err(|e| ServiceError::Internal(e.to_string()))?;
        blocking(f).await
    }

    /// Opens a session on `client` and answers its token; a log-in from a
    /// network the user had not logged in from goes to the audit log.
    async fn issue(&self, user: UserId, org: OrgId, client: &Client) -> Result<IssuedToken> {
        let (token, expires_at, session) = self.sessions.open(org, user, client).await?;
        self.audit.note_login(org, user, session, client.address, &limit_key(client.address)).await;
        Ok(IssuedToken { token, expires_at })
    }

    /// Creates an account, for a client at `from` (limited per IP).
    pub async fn signup(&self, input: Signup, client: impl Into<Client>) -> Result<SignedUp> {
        let client = client.into();
        let from = client.address;
        if self.signup == SignupMode::Closed {
            return Err(ServiceError::Forbidden("sign-up is closed on this server".into()));
        }
        self.limits.take(&format!("signup:ip:{}", limit_key(from)), SIGNUP_PER_IP).await?;
        let email = normalized_email(&input.email)?;
        if self.signup == SignupMode::Invite && !self.store.invited(&email, Utc::now()).await? {
            return Err(ServiceError::Forbidden(
                "sign-up on this server is by invitation: this address has no pending invitation".into(),
            ));
        }
        check_new_password(&input.password)?;
        let name = match input.name.map(|n| n.trim().to_string()).filter(|n| !n.is_empty()) {
            Some(n) if n.chars().count() > 200 => {
                return Err(ServiceError::validation("name", "at most 200 characters"));
            }
            Some(n) => n,
            None => email.split('@').next().unwrap_or_default().to_string(),
        };
        let now = Utc::now();
        let organization = Organization {
            id: OrgId::new(),
            name: name.clone(),
            plan: Plan::Free,
            balance: self.free_grant,
            default_containers: vec!["default".to_string()],
            created_at: now,
        };
        let user =
            User { id: UserId::new(), organization_id: organization.id, email, name, is_admin: false, created_at: now };
        let plain = input.password;
        let password_hash = self.hash_work(move || password::hash(&plain)).await?;
        let account = NewAccount { organization, user, password_hash };
        self.store.create_account(&account).await.map_err(email_taken)?;
        let token = self.issue(account.user.id, account.organization.id, &client).await?;
        Ok(SignedUp { token, user: account.user, organization: account.organization })
    }

    /// Checks credentials, for a client at `from`: limited per address (an
    /// IPv6 client's /64) and per email before any hashing, so a flood costs
    /// no argon2 work. Past the per-email limit (the email is being guessed
    /// at), an address that has not failed on this email for
    /// `LOGIN_FAILED_FOR` still gets one try, so that the owner is not locked
    /// out; a wrong password marks the address as failed. Guesses per email
    /// and 15 minutes: 20, plus one per address (or /64) never refused on it,
    /// each address within its own per-address limit.
    pub async fn login(&self, input: Login, client: impl Into<Client>) -> Result<IssuedToken> {
        let client = client.into();
        let email = input.email.trim().to_lowercase();
        let network = limit_key(client.address);
        self.limits.take(&format!("login:ip:{network}"), LOGIN_PER_IP).await?;
        let failed = format!("login:email-failed:{email}:{network}");
        let guessed_at = match self.limits.take(&format!("login:email:{email}"), LOGIN_PER_EMAIL).await {
            Ok(()) => false,
            Err(ServiceError::RateLimited(refusal)) => {
                // Taken before hashing: concurrent tries from one address get one.
                if !self.limits.mark_if_unset(&failed, LOGIN_FAILED_FOR).await? {
                    return Err(ServiceError::RateLimited(refusal));
                }
                true
            }
            Err(e) => return Err(e),
        };
        let found = self.store.user_by_email(&email).await?;
        let stored = found.as_ref().map(|(_, h)| h.clone()).unwrap_or_else(|| decoy_hash().to_string());
        let plain = input.password;
        let ok =
            plain.chars().count() <= MAX_PASSWORD && self.hash_work(move || password::verify(&plain, &stored)).await?;
        match found {
            Some((user, _)) if ok => {
                if guessed_at {
                    self.limits.unmark(&failed).await?;
                }
                let org = self.organization_to_enter(user.id, input.organization).await?;
                self.issue(user.id, org, &client).await
            }
            _ => {
                if !guessed_at {
                    self.limits.mark(&failed, LOGIN_FAILED_FOR).await?;
                }
                Err(ServiceError::Unauthorized("invalid email or password".into()))
            }
        }
    }

    /// The organization a log-in enters: the one asked for, which must be
    /// one of the user's (else 403), or the one used last.
    async fn organization_to_enter(&self, user: UserId, asked: Option<OrgId>) -> Result<OrgId> {
        let memberships = self.store.memberships(user).await?;
        let org = match asked {
            Some(org) if memberships.iter().any(|m| m.organization_id == org) => org,
            Some(_) => {
                return Err(ServiceError::Forbidden("you are not a member of that organization".into()));
            }
            None => match memberships.first() {
                Some(m) => m.organization_id,
                None => {
                    return Err(ServiceError::Forbidden(
                        "this account is no longer a member of any organization".into(),
                    ));
                }
            },
        };
        self.store.touch_membership(org, user, Utc::now()).await?;
        Ok(org)
    }

    /// Checks the session user's current password (`currentPassword`).
    async fn verify_current_password(&self, session: &Session, current: &str) -> Result<()> {
        let stored =
            self.store.password_hash(session.org(), session.user()).await?.ok_or(ServiceError::NotFound("user"))?;
        let plain = current.to_string();
        let ok =
            plain.chars().count() <= MAX_PASSWORD && self.hash_work(move || password::verify(&plain, &stored)).await?;
        if !ok {
            return Err(ServiceError::validation("currentPassword", "is not the account's password"));
        }
        Ok(())
    }

    /// Replaces the session user's password, given the current one, and
    /// ends every other session of the user (the caller's stays open).
    pub async fn change_password(&self, session: &Session, current: &str, new: &str) -> Result<()> {
        check_new_password(new)?;
        self.verify_current_password(session, current).await?;
        let plain = new.to_string();
        let hash = self.hash_work(move || password::hash(&plain)).await?;
        if !self.store.set_password_hash(session.org(), session.user(), &hash, Some(session.id()), Utc::now()).await? {
            return Err(ServiceError::NotFound("user"));
        }
        self.audit.record(session, AuditAction::PasswordChanged { user: session.user() }, None).await;
        Ok(())
    }

    /// Changes the session user's email (the login), given the password:
    /// the rules of signup, `EMAIL_TAKEN` when another account has it.
    pub async fn change_email(&self, session: &Session, email: &str, current_password: &str) -> Result<()> {
        let email = normalized_email(email)?;
        self.verify_current_password(session, current_password).await?;
        let before = self.store.user(session.org(), session.user()).await?.map(|u| u.email).unwrap_or_default();
        if !self.store.set_email(session.org(), session.user(), &email).await.map_err(email_taken)? {
            return Err(ServiceError::NotFound("user"));
        }
        let detail = format!("from {before} to {email}");
        self.audit.record(session, AuditAction::EmailChanged { user: session.user() }, Some(detail)).await;
        Ok(())
    }

    pub async fn me(&self, session: &Session) -> Result<(User, Organization)> {
        let user = self.store.user(session.org(), session.user()).await?.ok_or(ServiceError::NotFound("user"))?;
        let org = self.store.organization(session.org()).await?.ok_or(ServiceError::NotFound("organization"))?;
        Ok((user, org))
    }
}

#[cfg(test)]
mod tests {
    /// The client of these calls.
    const LOCAL: std::net::IpAddr = std::net::IpAddr::V4(std::net::Ipv4Addr::LOCALHOST);
    use super::*;
    use crate::testing::TestServices;

    fn login(email: &str, password: &str) -> Login {
        Login { email: email.into(), password: password.into(), organization: None }
    }

    fn field_of<T>(result: Result<T>) -> String {
        match result {
            Err(ServiceError::Validation { field, .. }) => field,
            Err(e) => panic!("expected a validation error, got {e:?}"),
            Ok(_) => panic!("expected a validation error, got success"),
        }
    }

    #[tokio::test]
    async fn a_password_changes_given_the_current_one() {
        let t = TestServices::start().await;
        let ada = t.signup("ada@example.com").await;
        let bob = t.signup("bob@example.com").await;
        let accounts = &t.services.accounts;

        let wrong = accounts.change_password(&ada.session, "not-my-password", "new-password-1").await;
        assert_eq!(field_of(wrong), "currentPassword");
        let long = "x".repeat(MAX_PASSWORD + 1);
        assert_eq!(field_of(accounts.change_password(&ada.session, &long, "new-password-1").await), "currentPassword");
        assert_eq!(field_of(accounts.change_password(&ada.session, "password-123", "short").await), "password");
        assert_eq!(field_of(accounts.change_password(&ada.session, "password-123", &long).await), "password");
        let elsewhere =
            accounts.login(login("ada@example.com", "password-123"), LOCAL).await.expect("nothing changed yet");
        t.services.auth.session(&elsewhere.token).await.expect("a second session");

        accounts.change_password(&ada.session, "password-123", "new-password-1").await.unwrap();
        assert!(accounts.login(login("ada@example.com", "new-password-1"), LOCAL).await.is_ok());
        assert!(matches!(
            accounts.login(login("ada@example.com", "password-123"), LOCAL).await,
            Err(ServiceError::Unauthorized(_))
        ));
        assert_eq!(t.services.auth.session(&ada.token).await.unwrap(), ada.session, "the changing session stays");
        assert!(
            matches!(t.services.auth.session(&elsewhere.token).await, Err(ServiceError::Unauthorized(_))),
            "the other session ended"
        );
        assert!(accounts.login(login("bob@example.com", "password-123"), LOCAL).await.is_ok(), "bob's is untouched");
        t.services.auth.session(&bob.token).await.expect("bob's session too");
        assert_eq!(
            field_of(accounts.change_password(&bob.session, "new-password-1", "another-one-2").await),
            "currentPassword"
        );
    }

    #[tokio::test]
    async fn an_email_changes_given_the_password_under_the_signup_rules() {
        let t = TestServices::start().await;
        let ada = t.signup("ada@example.com").await;
        t.signup("bob@example.com").await;
        let accounts = &t.services.accounts;

        assert_eq!(field_of(accounts.change_email(&ada.session, "not an email", "password-123").await), "email");
        assert_eq!(
            field_of(accounts.change_email(&ada.session, "ada@new.example.com", "wrong").await),
            "currentPassword"
        );
        match accounts.change_email(&ada.session, " BOB@example.com ", "password-123").await {
            Err(ServiceError::Conflict { code, .. }) => assert_eq!(code, "EMAIL_TAKEN"),
            other => panic!("expected EMAIL_TAKEN, got {other:?}"),
        }
        assert_eq!(accounts.me(&ada.session).await.unwrap().0.email, "ada@example.com");

        accounts.change_email(&ada.session, "  Ada@New.Example.com ", "password-123").await.unwrap();
        assert_eq!(
            accounts.me(&ada.session).await.unwrap().0.email,
            "ada@new.example.com",
            "stored as signup stores it"
        );
        assert!(accounts.login(login("ada@new.example.com", "password-123"), LOCAL).await.is_ok());
        assert!(accounts.login(login("ada@example.com", "password-123"), LOCAL).await.is_err());
        assert_eq!(t.services.auth.session(&ada.token).await.unwrap(), ada.session, "issued sessions stay valid");
        // Its own email again is no conflict; the old one is free for a signup.
        accounts.change_email(&ada.session, "ada@new.example.com", "password-123").await.unwrap();
        t.signup("ada@example.com").await;
    }

    #[tokio::test]
    async fn password_hashing_runs_two_at_a_time() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let t = crate::testing::TestServices::start().await;
        let accounts = Arc::new(t.services);
        let running = Arc::new(AtomicUsize::new(0));
        let most = Arc::new(AtomicUsize::new(0));
        let mut tasks = Vec::new();
        for _ in 0..6 {
            let (services, running, most) = (accounts.clone(), running.clone(), most.clone());
            tasks.push(tokio::spawn(async move {
                services
                    .accounts
                    .hash_work(move || {
                        let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                        most.fetch_max(now, Ordering::SeqCst);
                        std::thread::sleep(std::time::Duration::from_millis(30));
                        running.fetch_sub(1, Ordering::SeqCst);
                    })
                    .await
                    .unwrap()
            }));
        }
        for task in tasks {
            task.await.unwrap();
        }
        assert_eq!(most.load(Ordering::SeqCst), HASHING_AT_ONCE, "never more than two at once");
    }
}
