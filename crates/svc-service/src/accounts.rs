//! Signup, login and the current account.

use std::fmt;
use std::sync::{Arc, OnceLock};

use chrono::{DateTime, Utc};
use svc_domain::ObjectId;
use svc_domain::account::{Organization, User};
use svc_domain::plan::Plan;
use svc_storage::{NewAccount, Store, StoreError};

use crate::jwt::JwtKeys;
use crate::{Result, ServiceError, Session, password};

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
}

impl fmt::Debug for Signup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Signup").field("email", &self.email).field("name", &self.name).finish_non_exhaustive()
    }
}

impl fmt::Debug for Login {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Login").field("email", &self.email).finish_non_exhaustive()
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
    jwt: Arc<JwtKeys>,
    free_grant: i64,
}

/// A light email check: one `@`, something on both sides, no spaces.
pub(crate) fn is_email(s: &str) -> bool {
    s.len() <= 254
        && !s.chars().any(char::is_whitespace)
        && s.split_once('@')
            .is_some_and(|(local, domain)| !local.is_empty() && !domain.is_empty() && !domain.contains('@'))
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
    pub(crate) fn new(store: Arc<dyn Store>, jwt: Arc<JwtKeys>, free_grant: i64) -> Self {
        AccountService { store, jwt, free_grant }
    }

    fn issue(&self, user: ObjectId, org: ObjectId) -> IssuedToken {
        let (token, expires_at) = self.jwt.sign(user, org, Utc::now());
        IssuedToken { token, expires_at }
    }

    pub async fn signup(&self, input: Signup) -> Result<SignedUp> {
        let email = input.email.trim().to_lowercase();
        if !is_email(&email) {
            return Err(ServiceError::validation("email", "must be an email address"));
        }
        let chars = input.password.chars().count();
        if chars < MIN_PASSWORD {
            return Err(ServiceError::validation("password", format!("must be at least {MIN_PASSWORD} characters")));
        }
        if chars > MAX_PASSWORD {
            return Err(ServiceError::validation("password", format!("must be at most {MAX_PASSWORD} characters")));
        }
        let name = match input.name.map(|n| n.trim().to_string()).filter(|n| !n.is_empty()) {
            Some(n) if n.chars().count() > 200 => {
                return Err(ServiceError::validation("name", "at most 200 characters"));
            }
            Some(n) => n,
            None => email.split('@').next().unwrap_or_default().to_string(),
        };
        let now = Utc::now();
        let organization = Organization {
            id: ObjectId::new(),
            name: name.clone(),
            plan: Plan::Free,
            balance: self.free_grant,
            default_containers: vec!["default".to_string()],
            created_at: now,
        };
        let user = User {
            id: ObjectId::new(),
            organization_id: organization.id,
            email,
            name,
            is_admin: false,
            created_at: now,
        };
        let plain = input.password;
        let password_hash = blocking(move || password::hash(&plain)).await?;
        let account = NewAccount { organization, user, password_hash };
        match self.store.create_account(&account).await {
            Ok(()) => {}
            Err(StoreError::Conflict(_)) => {
                return Err(ServiceError::Conflict {
                    code: "EMAIL_TAKEN",
                    message: "an account with this email already exists".into(),
                });
            }
            Err(e) => return Err(e.into()),
        }
        let token = self.issue(account.user.id, account.organization.id);
        Ok(SignedUp { token, user: account.user, organization: account.organization })
    }

    pub async fn login(&self, input: Login) -> Result<IssuedToken> {
        let email = input.email.trim().to_lowercase();
        let found = self.store.user_by_email(&email).await?;
        let stored = found.as_ref().map(|(_, h)| h.clone()).unwrap_or_else(|| decoy_hash().to_string());
        let plain = input.password;
        let ok = plain.chars().count() <= MAX_PASSWORD && blocking(move || password::verify(&plain, &stored)).await?;
        match found {
            Some((user, _)) if ok => Ok(self.issue(user.id, user.organization_id)),
            _ => Err(ServiceError::Unauthorized("invalid email or password".into())),
        }
    }

    pub async fn me(&self, session: &Session) -> Result<(User, Organization)> {
        let user = self.store.user(session.org(), session.user()).await?.ok_or(ServiceError::NotFound("user"))?;
        let org = self.store.organization(session.org()).await?.ok_or(ServiceError::NotFound("organization"))?;
        Ok((user, org))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn email_check() {
        assert!(super::is_email("a@b.c"));
        assert!(!super::is_email("a b@c"));
        assert!(!super::is_email("@c"));
        assert!(!super::is_email("a@"));
        assert!(!super::is_email("a@b@c"));
        assert!(!super::is_email("abc"));
    }
}
