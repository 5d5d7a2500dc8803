//! API keys: created, listed and revoked from a web session.

use std::sync::Arc;

use chrono::{DateTime, Months, Utc};
use svc_domain::KeyId;
use svc_domain::activity::Activity;
use svc_domain::api_key::ApiKey;
use svc_domain::scope::Scope;
use svc_storage::{Store, StoreError};

use crate::accounts::allow_list::scrap_ids_in_org;
use crate::accounts::audit::{AuditAction, AuditLog};
use crate::accounts::key_cache::KeyCache;
use crate::accounts::key_material;
use crate::paging::{PageRequest, Paged};
use crate::{Result, ServiceError, Session};

const DEFAULT_LIFETIME: Months = Months::new(12);
const MAX_LIFETIME: Months = Months::new(24);

/// A key to create. No `scopes`: every scope; no `scrap_ids`: every scrap
/// of the organization.
#[derive(Debug, Default)]
pub struct NewKey {
    pub name: String,
    /// ISO 8601; `None`: one year.
    pub expires_at: Option<String>,
    pub scopes: Vec<String>,
    pub scrap_ids: Vec<String>,
}

pub struct CreatedKey {
    pub key: ApiKey,
    /// Shown once, never stored.
    pub plain_key: String,
}

pub struct KeyService {
    store: Arc<dyn Store>,
    cache: Arc<KeyCache>,
    audit: AuditLog,
}

/// The expiry of a key created at `now`: default one year, at most two, in the future.
pub fn expiry(requested: Option<&str>, now: DateTime<Utc>) -> Result<DateTime<Utc>> {
    let max = now.checked_add_months(MAX_LIFETIME).expect("in range");
    let Some(text) = requested else {
        return Ok(now.checked_add_months(DEFAULT_LIFETIME).expect("in range"));
    };
    let at = DateTime::parse_from_rfc3339(text.trim())
        .map_err(|_| {
            ServiceError::validation("expiresAt", "must be an ISO 8601 timestamp such as 2027-01-31T00:00:00Z")
        })?
        .with_timezone(&Utc);
    if at <= now {
        return Err(ServiceError::validation("expiresAt", "must be in the future"));
    }
    if at > max {
        return Err(ServiceError::validation("expiresAt", "must be at most 2 years after creation"));
    }
    Ok(at)
}

fn parse_scopes(raw: Vec<String>) -> Result<Vec<Scope>> {
    let mut scopes = Vec::new();
    for s in raw {
        let scope =
            s.parse::<Scope>().map_err(|()| ServiceError::validation("scopes", format!("unknown scope `{s}`")))?;
        if !scopes.contains(&scope) {
            scopes.push(scope);
        }
    }
    Ok(scopes)
}

impl KeyService {
    pub(crate) fn new(store: Arc<dyn Store>, cache: Arc<KeyCache>, audit: AuditLog) -> Self {
        KeyService { store, cache, audit }
    }

    pub async fn create(&self, session: &Session, input: NewKey) -> Result<CreatedKey> {
        let name = input.name.trim().to_string();
        if name.is_empty() {
            return Err(ServiceError::validation("name", "is required"));
        }
        if name.chars().count() > 100 {
            return Err(ServiceError::validation("name", "must be at most 100 characters"));
        }
        let now = Utc::now();
        let expires_at = expiry(input.expires_at.as_deref(), now)?;
        let scopes = parse_scopes(input.scopes)?;
        let scrap_ids = scrap_ids_in_org(&*self.store, session.org(), input.scrap_ids).await?;
        let plain_key = key_material::generate();
        let key = ApiKey {
            id: KeyId::new(),
            organization_id: session.org(),
            user_id: session.user(),
            name,
            prefix: key_material::shown_prefix(&plain_key),
            scopes,
            scrap_ids,
            expires_at: Some(expires_at),
            created_at: now,
            revoked_at: None,
        };
        let actor = format!("user:{}", session.user());
        let activities: Vec<_> = key
            .scrap_ids
            .iter()
            .map(|&scrap| {
                let message = format!("API key \"{}\" ({}) created with access to this scrap", key.name, key.prefix);
                Activity::new(session.org(), scrap, "key.created", actor.clone(), message)
            })
            .collect();
        match self.store.insert_key(&key, &key_material::hash(&plain_key), &activities).await {
            Ok(()) => {
                let detail = format!("\"{}\" ({})", key.name, key.prefix);
                self.audit.record(session, AuditAction::KeyCreated { key: key.id }, Some(detail)).await;
                Ok(CreatedKey { key, plain_key })
            }
            Err(StoreError::Conflict(_)) => Err(ServiceError::Internal("API key collision; retry".into())),
            Err(e) => Err(e.into()),
        }
    }

    pub async fn list(&self, session: &Session, page: PageRequest) -> Result<Paged<ApiKey>> {
        let found = self.store.list_keys(session.org(), page.offset(), page.per_page).await?;
        Ok(Paged { items: found.items, total: found.total, page })
    }

    /// Revokes at once: the key stops working for the next request.
    pub async fn revoke(&self, session: &Session, id: KeyId) -> Result<()> {
        let key = self.store.key(session.org(), id).await?.ok_or(ServiceError::NotFound("API key"))?;
        if key.user_id != session.user() {
            session.require_power(svc_domain::member::Power::ManageOthersKeys)?;
        }
        let actor = format!("user:{}", session.user());
        let activities: Vec<_> = key
            .scrap_ids
            .iter()
            .map(|&scrap| {
                let message = format!("API key \"{}\" ({}) with access to this scrap revoked", key.name, key.prefix);
                Activity::new(session.org(), scrap, "key.revoked", actor.clone(), message)
            })
            .collect();
        let revoked = self.store.revoke_key(session.org(), id, Utc::now(), &activities).await?;
        self.cache.forget_key(id);
        if !revoked {
            return Err(ServiceError::NotFound("API key"));
        }
        let detail = format!("\"{}\" ({})", key.name, key.prefix);
        self.audit.record(session, AuditAction::KeyRevoked { key: id }, Some(detail)).await;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Duration;

    #[test]
    fn expiry_rules() {
        let now = Utc::now();
        assert_eq!(expiry(None, now).unwrap(), now.checked_add_months(Months::new(12)).unwrap());
        let in_a_month = (now + Duration::days(30)).to_rfc3339();
        assert!(expiry(Some(&in_a_month), now).is_ok());
        assert!(expiry(Some(&(now - Duration::seconds(1)).to_rfc3339()), now).is_err());
        assert!(expiry(Some(&(now + Duration::days(732)).to_rfc3339()), now).is_err());
        assert!(expiry(Some("tomorrow"), now).is_err());
    }
}
