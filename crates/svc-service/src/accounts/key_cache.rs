//! Verified API keys, by hash, so that a key-authenticated request costs no
//! database round-trip. Entries expire after a short time-to-live (so a
//! change made by another process, such as `svc admin grant-admin` or a
//! revocation on another server, is seen within it); a revocation through
//! this process removes its entry at once.

use std::collections::HashMap;
use std::sync::RwLock;
use std::time::{Duration, Instant};

use svc_domain::KeyId;
use svc_domain::api_key::KeyOwner;

pub struct KeyCache {
    ttl: Duration,
    entries: RwLock<Entries>,
}

#[derive(Default)]
struct Entries {
    by_hash: HashMap<String, (KeyOwner, Instant)>,
    /// Bumped by every revocation, so that a lookup that read the database
    /// before a revocation committed does not cache what it read.
    generation: u64,
}

impl KeyCache {
    pub fn new(ttl: Duration) -> Self {
        KeyCache { ttl, entries: RwLock::new(Entries::default()) }
    }

    pub fn get(&self, hash: &str) -> Option<KeyOwner> {
        let entries = self.entries.read().expect("key cache lock");
        entries.by_hash.get(hash).filter(|(_, at)| at.elapsed() < self.ttl).map(|(owner, _)| owner.clone())
    }

    /// Take this before reading a key from the database; pass it to `put`.
    pub fn generation(&self) -> u64 {
        self.entries.read().expect("key cache lock").generation
    }

    /// Caches `owner` unless a key was revoked since `generation` was taken.
    pub fn put(&self, hash: String, owner: KeyOwner, generation: u64) {
        let mut entries = self.entries.write().expect("key cache lock");
        if entries.generation != generation {
            return;
        }
        if entries.by_hash.len() >= 100_000 {
            let ttl = self.ttl;
            entries.by_hash.retain(|_, (_, at)| at.elapsed() < ttl);
        }
        entries.by_hash.insert(hash, (owner, Instant::now()));
    }

    /// Call after a change of the member's role (or their removal) in
    /// `org` has committed: their keys there are read afresh.
    pub fn forget_owner(&self, org: svc_domain::OrgId, user: svc_domain::UserId) {
        let mut entries = self.entries.write().expect("key cache lock");
        entries.generation += 1;
        entries.by_hash.retain(|_, (owner, _)| !(owner.key.organization_id == org && owner.key.user_id == user));
    }

    /// Call after a revocation has committed.
    pub fn forget_key(&self, key_id: KeyId) {
        let mut entries = self.entries.write().expect("key cache lock");
        entries.generation += 1;
        entries.by_hash.retain(|_, (owner, _)| owner.key.id != key_id);
    }
}

#[cfg(test)]
mod tests {
    use chrono::Utc;
    use svc_domain::api_key::ApiKey;
    use svc_domain::{OrgId, UserId};

    use super::*;

    fn owner() -> KeyOwner {
        let now = Utc::now();
        let key = ApiKey {
            id: KeyId::new(),
            organization_id: OrgId::new(),
            user_id: UserId::new(),
            name: "k".into(),
            prefix: "svc_abcdefgh".into(),
            scopes: vec![],
            scrap_ids: vec![],
            expires_at: None,
            created_at: now,
            revoked_at: None,
        };
        KeyOwner { key, owner_is_admin: false, owner_role: svc_domain::member::Role::Owner }
    }

    #[test]
    fn a_lookup_that_raced_a_revocation_is_not_cached() {
        let cache = KeyCache::new(Duration::from_secs(60));
        let o = owner();
        let before = cache.generation();
        cache.forget_key(o.key.id);
        cache.put("h".into(), o.clone(), before);
        assert!(cache.get("h").is_none());
        cache.put("h".into(), o.clone(), cache.generation());
        assert_eq!(cache.get("h"), Some(o.clone()));
        cache.forget_key(o.key.id);
        assert!(cache.get("h").is_none());
    }

    #[test]
    fn entries_expire() {
        let cache = KeyCache::new(Duration::ZERO);
        cache.put("h".into(), owner(), cache.generation());
        assert!(cache.get("h").is_none());
    }
}
