use chrono::{DateTime, Utc};

use crate::scope::Scope;
use crate::{KeyId, OrgId, ScrapId, UserId};

/// A stored API key record. The plain key is never stored, only its hash.
#[derive(Clone, Debug, PartialEq)]
pub struct ApiKey {
    pub id: KeyId,
    pub organization_id: OrgId,
    pub user_id: UserId,
    pub name: String,
    /// The first characters of the plain key, for recognising it in lists.
    pub prefix: String,
    /// Empty means every action is granted.
    pub scopes: Vec<Scope>,
    /// Empty means organization-wide.
    pub scrap_ids: Vec<ScrapId>,
    /// `None` only for keys created before the expiry policy.
    pub expires_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    pub revoked_at: Option<DateTime<Utc>>,
}

/// What authenticating with a key yields: the key and facts about its owner.
#[derive(Clone, Debug, PartialEq)]
pub struct KeyOwner {
    pub key: ApiKey,
    pub owner_is_admin: bool,
    /// The owner's role in the key's organization: bounds what the key does.
    pub owner_role: crate::member::Role,
}
