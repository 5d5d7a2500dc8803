//! Turning a bearer credential into a [`Principal`] or a [`Session`].

use std::sync::Arc;

use chrono::Utc;
use svc_domain::api_key::KeyOwner;
use svc_storage::Store;

use crate::accounts::jwt::JwtKeys;
use crate::accounts::key_cache::KeyCache;
use crate::accounts::key_material;
use crate::accounts::principal::KeyHolder;
use crate::{Principal, Result, ServiceError, Session};

/// How stale a session's "last seen" may get: a request writes it only when
/// it is older than this, so that most requests only read.
pub const SEEN_EVERY: chrono::Duration = chrono::Duration::minutes(5);

pub struct AuthService {
    store: Arc<dyn Store>,
    jwt: Arc<JwtKeys>,
    key_cache: Arc<KeyCache>,
}

fn unauthorized(message: &str) -> ServiceError {
    ServiceError::Unauthorized(message.to_string())
}

impl AuthService {
    pub(crate) fn new(store: Arc<dyn Store>, jwt: Arc<JwtKeys>, key_cache: Arc<KeyCache>) -> Self {
        AuthService { store, jwt, key_cache }
    }

    /// Whether a bearer value is an API key (else it is taken as a JWT).
    pub fn is_api_key(bearer: &str) -> bool {
        bearer.starts_with(key_material::PREFIX)
    }

    /// The CSRF token of a web session's forms: bound to the session token
    /// and keyed with the JWT secret.
    pub fn csrf_token(&self, session_token: &str) -> String {
        self.jwt.csrf_token(session_token)
    }

    /// Whether `presented` is the CSRF token of `session_token` (constant-time).
    pub fn csrf_valid(&self, session_token: &str, presented: &str) -> bool {
        self.jwt.csrf_valid(session_token, presented)
    }

    /// A caller of a KEY route: an API key or a web session.
    pub async fn principal(&self, bearer: &str) -> Result<Principal> {
        if Self::is_api_key(bearer) {
            let owner = self.verify_key(bearer).await?;
            let key = owner.key;
            let holder = KeyHolder {
                org: key.organization_id,
                owner: key.user_id,
                owner_is_platform_admin: owner.owner_is_admin,
                owner_role: owner.owner_role,
            };
            Ok(Principal::key(holder, key.id, key.scopes, key.scrap_ids))
        } else {
            Ok(Principal::Session(self.session(bearer).await?))
        }
    }

    /// A web session only; an API key is refused.
    pub async fn session(&self, bearer: &str) -> Result<Session> {
        if Self::is_api_key(bearer) {
            return Err(ServiceError::SessionRequired(
                "this operation needs a web session (JWT); API keys cannot perform it".into(),
            ));
        }
        let subject = self.jwt.verify(bearer).ok_or_else(|| unauthorized("invalid or expired session token"))?;
        let now = Utc::now();
        // One indexed read decides: a session ended on any server is refused
        // by every server from the next request on.
        let (user, role, last_seen) = self
            .store
            .live_session(subject.org, subject.user, subject.session, now)
            .await?
            .ok_or_else(|| unauthorized("the session has ended; log in again"))?;
        if now - last_seen >= SEEN_EVERY {
            self.store.touch_session(subject.org, subject.user, subject.session, now).await?;
        }
        Ok(Session::new(subject.org, user.id, user.is_admin, subject.session, role))
    }

    async fn verify_key(&self, plain: &str) -> Result<KeyOwner> {
        if !key_material::is_well_formed(plain) {
            return Err(unauthorized("malformed API key"));
        }
        let hash = key_material::hash(plain);
        let owner = match self.key_cache.get(&hash) {
            Some(owner) => owner,
            None => {
                let generation = self.key_cache.generation();
                let owner = self.store.key_by_hash(&hash).await?.ok_or_else(|| unauthorized("invalid API key"))?;
                if owner.key.revoked_at.is_some() {
                    return Err(unauthorized("the API key has been revoked"));
                }
                self.key_cache.put(hash, owner.clone(), generation);
                owner
            }
        };
        if owner.key.expires_at.is_some_and(|at| at <= Utc::now()) {
            return Err(unauthorized("the API key has expired"));
        }
        Ok(owner)
    }
}
