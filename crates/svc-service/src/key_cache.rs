//! Verified API keys, by hash, so that a key-authenticated request costs no
//! database round-trip. Entries expire after a short time-to-live (so a
//! change made by another process, such as `svc admin grant-admin` or a
//! revocation on another server, is seen within it); a revocation through
//! this process removes its entry at once.

use std::collections::HashMap;
use std::sync::RwLock;
use std::time::{Duration, Instant};

use svc_domain::ObjectId;
use svc_domain::api_key::KeyOwner;

pub struct KeyCache {
    ttl: Duration,
    entries: RwLock<HashMap<String, (KeyOwner, Instant)>>,
}

impl KeyCache {
    pub fn new(ttl: Duration) -> Self {
        KeyCache { ttl, entries: RwLock::new(HashMap::new()) }
    }

    pub fn get(&self, hash: &str) -> Option<KeyOwner> {
        let entries = self.entries.read().expect("key cache lock");
        entries.get(hash).filter(|(_, at)| at.elapsed() < self.ttl).map(|(owner, _)| owner.clone())
    }

    pub fn put(&self, hash: String, owner: KeyOwner) {
        let mut entries = self.entries.write().expect("key cache lock");
        if entries.len() >= 100_000 {
            let ttl = self.ttl;
            entries.retain(|_, (_, at)| at.elapsed() < ttl);
        }
        entries.insert(hash, (owner, Instant::now()));
    }

    pub fn forget_key(&self, key_id: ObjectId) {
        self.entries.write().expect("key cache lock").retain(|_, (owner, _)| owner.key.id != key_id);
    }
}
