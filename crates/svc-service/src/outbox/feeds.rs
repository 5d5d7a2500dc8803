//! A scrap's feed: what changed between its successful runs, for feed
//! readers (the adapters write it as Atom and RSS 2.0). A feed reader
//! cannot send a header, so the feed's address carries a token: 32 random
//! alphanumeric characters after `feed_` (~190 bits), one per scrap, made
//! when its address is first asked for and replaced by a rotation (the old
//! address stops working at once). The store keeps the token sealed, to
//! show the address again, and its SHA-256, to find the scrap of a
//! reader's request; a wrong or rotated token, or a token for another
//! scrap, is not found.
//!
//! Each entry is one successful run compared with the successful run before
//! it (`data_export::diff`, the run page's comparison): items added, removed
//! and changed. A run that changed nothing has no entry; the scrap's first
//! successful run has one, every item added. The newest [`RUNS_COMPARED`]
//! successful runs are compared, one pair in memory at a time.

use std::sync::Arc;

use chrono::{DateTime, SubsecRound, Utc};
use rand::Rng;
use rand::distr::Alphanumeric;
use serde_json::Value;
use sha2::{Digest, Sha256};
use svc_domain::activity::Activity;
use svc_domain::history::HistoryRow;
use svc_domain::scrap::Scrap;
use svc_domain::{HistoryId, OrgId, ScrapId};
use svc_storage::{Store, StoreError, StoredFeedToken};

use crate::outbox::data_export::diff::{self, DataDiff};
use crate::outbox::data_export::json_text;
use crate::{Result, ServiceError, Session};
use svc_domain::scope::Scope;

/// What a feed token starts with.
pub const TOKEN_PREFIX: &str = "feed_";
/// Its random characters.
pub const TOKEN_RANDOM_LEN: usize = 32;
/// How many of a scrap's newest successful runs the feed compares.
pub const RUNS_COMPARED: i64 = 21;
/// The items (or changed items) an entry lists of each kind.
pub const ITEMS_LISTED: usize = 20;
/// The characters an item's text is cut to.
pub const ITEM_CHARS: usize = 300;
/// The largest data (either run's, in bytes) compared.
pub const MAX_COMPARED: usize = 4 << 20;

/// Where a scrap's feed is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FeedAddress {
    pub token: String,
    /// `{public_url}/scraps/{id}/feed.atom?token=...`
    pub atom_url: String,
    /// `{public_url}/scraps/{id}/feed.rss?token=...`
    pub rss_url: String,
    /// When the token was made (or last rotated).
    pub since: DateTime<Utc>,
}

/// Some items of one kind, and how many there are in all.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ItemList {
    pub total: usize,
    /// At most [`ITEMS_LISTED`], each as compact JSON (a string as it is),
    /// cut to [`ITEM_CHARS`] characters.
    pub shown: Vec<String>,
}

/// A field of a changed item: its value before and after (`None`: absent).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldChange {
    pub field: String,
    pub before: Option<String>,
    pub after: Option<String>,
}

/// An item present in both runs (same key value) with other values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChangedItem {
    /// The value of the key the items were matched on.
    pub key_value: String,
    pub fields: Vec<FieldChange>,
}

/// What one successful run changed.
#[derive(Clone, Debug, PartialEq)]
pub struct FeedEntry {
    pub run_id: HistoryId,
    /// The run page.
    pub run_url: String,
    /// When the run finished.
    pub at: DateTime<Utc>,
    pub items: i64,
    /// The successful run compared with; `None`: the scrap's first.
    pub previous_run_id: Option<HistoryId>,
    pub previous_run_url: Option<String>,
    /// The key items were matched on (`None`: whole items compared).
    pub key: Option<String>,
    pub added: ItemList,
    pub removed: ItemList,
    /// At most [`ITEMS_LISTED`].
    pub changed: Vec<ChangedItem>,
    pub changed_total: usize,
    /// The data was too large (or not JSON) to compare.
    pub not_compared: bool,
}

impl FeedEntry {
    /// A one-line summary: `3 added, 1 removed, 2 changed`.
    pub fn summary(&self) -> String {
        if self.not_compared {
            return format!("{} items (too large to compare)", self.items);
        }
        if self.previous_run_id.is_none() {
            return format!("First successful run: {} {}", self.items, if self.items == 1 { "item" } else { "items" });
        }
        let mut parts = Vec::new();
        for (n, word) in [(self.added.total, "added"), (self.removed.total, "removed"), (self.changed_total, "changed")]
        {
            if n > 0 {
                parts.push(format!("{n} {word}"));
            }
        }
        parts.join(", ")
    }
}

/// A scrap's feed.
#[derive(Clone, Debug, PartialEq)]
pub struct Feed {
    pub scrap_id: ScrapId,
    pub title: String,
    /// The scrap's target URL.
    pub target_url: String,
    /// The scrap page.
    pub scrap_url: String,
    pub address: FeedAddress,
    /// The newest entry's time, else the token's.
    pub updated: DateTime<Utc>,
    /// Newest first.
    pub entries: Vec<FeedEntry>,
}

fn new_token() -> String {
    let mut token = String::with_capacity(TOKEN_PREFIX.len() + TOKEN_RANDOM_LEN);
    token.push_str(TOKEN_PREFIX);
    token.extend(rand::rng().sample_iter(&Alphanumeric).take(TOKEN_RANDOM_LEN).map(char::from));
    token
}

/// Whether `s` has a token's shape (checked before any lookup).
pub fn is_well_formed(s: &str) -> bool {
    s.len() == TOKEN_PREFIX.len() + TOKEN_RANDOM_LEN
        && s.starts_with(TOKEN_PREFIX)
        && s[TOKEN_PREFIX.len()..].bytes().all(|b| b.is_ascii_alphanumeric())
}

/// Hex SHA-256 of a token: what the store finds it by.
fn token_hash(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

/// `value` as an entry shows it: a string as it is, else compact JSON; cut.
fn shown(value: &Value) -> String {
    let text = match value {
        Value::String(s) => s.clone(),
        other => json_text::compact(&other.to_string()),
    };
    if text.chars().count() <= ITEM_CHARS {
        return text;
    }
    let mut cut: String = text.chars().take(ITEM_CHARS - 1).collect();
    cut.push('…');
    cut
}

fn values(json: &str) -> Option<Vec<Value>> {
    match serde_json::from_str::<Value>(json).ok()? {
        Value::Array(items) => Some(items),
        one => Some(vec![one]),
    }
}

fn listed(items: &[Value], indices: &[usize]) -> ItemList {
    ItemList { total: indices.len(), shown: indices.iter().take(ITEMS_LISTED).map(|i| shown(&items[*i])).collect() }
}

pub struct FeedService {
    store: Arc<dyn Store>,
    public_url: String,
}

impl FeedService {
    pub(crate) fn new(store: Arc<dyn Store>, public_url: String) -> Self {
        FeedService { store, public_url }
    }

    fn address(&self, scrap: ScrapId, token: String, since: DateTime<Utc>) -> FeedAddress {
        let base = format!("{}/scraps/{scrap}", self.public_url);
        FeedAddress {
            atom_url: format!("{base}/feed.atom?token={token}"),
            rss_url: format!("{base}/feed.rss?token={token}"),
            token,
            since,
        }
    }

    /// The scrap's feed address, made on first request. For the web app's
    /// scrap page: a web session of the scrap's organization.
    pub async fn address_of(&self, session: &Session, scrap: ScrapId) -> Result<FeedAddress> {
        let org = session.org();
        match self.store.feed_token(org, scrap).await {
            Ok(Some(stored)) => return Ok(self.address(scrap, stored.token, stored.created_at)),
            Ok(None) => {}
            // Sealed under a key this server no longer has: a new address.
            Err(StoreError::Sealing(_)) => return self.replace_token(session, scrap).await,
            Err(e) => return Err(e.into()),
        }
        let token = new_token();
        // At the store's precision, so that the address reads back the same.
        let now = Utc::now().trunc_subsecs(3);
        if self.store.insert_feed_token(org, scrap, &token, &token_hash(&token), now).await? {
            return Ok(self.address(scrap, token, now));
        }
        // Another request made it first, or there is no such scrap.
        match self.store.feed_token(org, scrap).await? {
            Some(stored) => Ok(self.address(scrap, stored.token, stored.created_at)),
            None => Err(ServiceError::NotFound("scrap")),
        }
    }

    /// Replaces the scrap's feed token: the previous address stops working.
    /// A change to the scrap: a role that may edit scraps (not a viewer).
    pub async fn rotate(&self, session: &Session, scrap: ScrapId) -> Result<FeedAddress> {
        session.require(&[Scope::ScrapsWrite])?;
        self.replace_token(session, scrap).await
    }

    async fn replace_token(&self, session: &Session, scrap: ScrapId) -> Result<FeedAddress> {
        let token = new_token();
        // At the store's precision, so that the address reads back the same.
        let now = Utc::now().trunc_subsecs(3);
        let log = Activity::new(
            session.org(),
            scrap,
            "feed.rotated",
            format!("user:{}", session.user()),
            "Feed address replaced (the previous one stopped working)".into(),
        );
        if !self.store.replace_feed_token(session.org(), scrap, &token, &token_hash(&token), now, &log).await? {
            return Err(ServiceError::NotFound("scrap"));
        }
        Ok(self.address(scrap, token, now))
    }

    /// The scrap and token that `token` opens, if it is the token of
    /// scrap `scrap`: else `NotFound`.
    async fn open(&self, scrap: ScrapId, token: &str) -> Result<(OrgId, Scrap, StoredFeedToken)> {
        let not_found = || ServiceError::NotFound("feed");
        if !is_well_formed(token) {
            return Err(not_found());
        }
        let Some((org, owner)) = self.store.feed_by_token_hash(&token_hash(token)).await? else {
            return Err(not_found());
        };
        if owner != scrap {
            return Err(not_found());
        }
        let found = self.store.scrap(org, scrap).await?.ok_or_else(not_found)?;
        let stored = self.store.feed_token(org, scrap).await?.ok_or_else(not_found)?;
        Ok((org, found, stored))
    }

    /// What the feed of scrap `scrap` is made of, as a short text that
    /// changes whenever the feed may (a newer successful run, the scrap's
    /// title, a new token): for a reader's conditional request, answered
    /// without comparing any data. Under the checks of [`Self::feed`].
    pub async fn version(&self, scrap: ScrapId, token: &str) -> Result<String> {
        let (org, found, stored) = self.open(scrap, token).await?;
        let newest = self.store.recent_successes(org, scrap, 1).await?;
        let newest = newest.first().map(|r| r.id.to_string()).unwrap_or_default();
        let made = format!(
            "{newest}|{}|{}|{}",
            found.updated_at.timestamp_millis(),
            stored.created_at.timestamp_millis(),
            found.title
        );
        Ok(hex::encode(&Sha256::digest(made.as_bytes())[..12]))
    }

    /// The feed of scrap `scrap` for a reader holding `token` (the token is
    /// the credential). A malformed, unknown or rotated token, or one of
    /// another scrap, is `NotFound`.
    pub async fn feed(&self, scrap: ScrapId, token: &str) -> Result<Feed> {
        let (org, found, stored) = self.open(scrap, token).await?;
        let runs = self.store.recent_successes(org, scrap, RUNS_COMPARED).await?;
        let first_is_oldest = (runs.len() as i64) < RUNS_COMPARED;
        let mut entries = Vec::new();
        // Newest first; each compared with the next (older) one, one pair
        // in memory at a time, compared off the async workers.
        let mut current: Option<HistoryRow> = None;
        for (i, summary) in runs.iter().enumerate() {
            let Some(row) = self.store.history_row(org, summary.id).await? else { continue };
            let oldest = i + 1 == runs.len() && first_is_oldest;
            let newer = current.take();
            let urls = self.public_url.clone();
            let (made, row) = tokio::task::spawn_blocking(move || {
                let mut made = Vec::new();
                if let Some(newer) = &newer {
                    made.extend(entry(&urls, scrap, newer, Some(&row)));
                }
                if oldest {
                    made.extend(entry(&urls, scrap, &row, None));
                }
                (made, row)
            })
            .await
            .map_err(|e| ServiceError::Internal(format!("the feed of scrap {scrap}: {e}")))?;
            entries.extend(made);
            if !oldest {
                current = Some(row);
            }
        }
        let updated = entries.first().map(|e| e.at).unwrap_or(stored.created_at);
        Ok(Feed {
            scrap_id: scrap,
            title: found.title,
            target_url: found.url,
            scrap_url: format!("{}/scraps/{scrap}", self.public_url),
            address: self.address(scrap, stored.token, stored.created_at),
            updated,
            entries,
        })
    }
}

fn run_url(public_url: &str, scrap: ScrapId, run: HistoryId) -> String {
    format!("{public_url}/scraps/{scrap}/history/{run}")
}

/// What `run` changed since `previous` (`None`: the scrap's first
/// successful run); `None` when it changed nothing.
fn entry(public_url: &str, scrap: ScrapId, run: &HistoryRow, previous: Option<&HistoryRow>) -> Option<FeedEntry> {
    let mut entry = FeedEntry {
        run_id: run.id,
        run_url: run_url(public_url, scrap, run.id),
        at: run.finished_at.unwrap_or(run.created_at),
        items: run.length,
        previous_run_id: previous.map(|p| p.id),
        previous_run_url: previous.map(|p| run_url(public_url, scrap, p.id)),
        key: None,
        added: ItemList::default(),
        removed: ItemList::default(),
        changed: Vec::new(),
        changed_total: 0,
        not_compared: false,
    };
    let too_large = run.data.len().max(previous.map_or(0, |p| p.data.len())) > MAX_COMPARED;
    let sides = if too_large {
        None
    } else {
        let before = match previous {
            Some(p) => values(&p.data),
            None => Some(Vec::new()),
        };
        before.zip(values(&run.data))
    };
    let Some((before, after)) = sides else {
        entry.not_compared = true;
        return Some(entry);
    };
    let found = diff::diff(&before, &after);
    if found.is_same() {
        return None;
    }
    let DataDiff { key, added, removed, changed, .. } = found;
    entry.key = key;
    entry.added = listed(&after, &added);
    entry.removed = listed(&before, &removed);
    entry.changed_total = changed.len();
    entry.changed = changed
        .into_iter()
        .take(ITEMS_LISTED)
        .map(|c| ChangedItem {
            key_value: shown(&c.key_value),
            fields: c
                .fields
                .into_iter()
                .map(|f| FieldChange {
                    field: f.field,
                    before: f.before.as_ref().map(shown),
                    after: f.after.as_ref().map(shown),
                })
                .collect(),
        })
        .collect();
    Some(entry)
}

#[cfg(test)]
mod tests {
    use svc_domain::history::{StatusDetail, TriggeredBy};

    use super::*;
    use crate::testing::{TestServices, TestUser};

    /// Stores a successful run of `scrap` with `data`, `secs` from now.
    async fn run_with(t: &TestServices, user: &TestUser, scrap: ScrapId, data: &str, secs: i64) -> HistoryId {
        let at = Utc::now() + chrono::Duration::seconds(secs);
        let mut row = HistoryRow::pending(scrap, user.session.org(), TriggeredBy::Api, "tier0", at);
        row.status_detail = Some(StatusDetail::Success);
        row.data = data.into();
        row.length = values(data).unwrap().len() as i64;
        row.time_ms = Some(100);
        row.finished_at = Some(at);
        t.store.insert_history(&row).await.unwrap();
        row.id
    }

    #[test]
    fn tokens_have_their_shape() {
        let t = new_token();
        assert!(is_well_formed(&t) && t.starts_with("feed_") && t.len() == 37);
        assert_ne!(new_token(), t);
        assert!(!is_well_formed("feed_short"));
        assert!(!is_well_formed(&format!("svc_{}", &t[4..])));
        assert_eq!(token_hash(&t).len(), 64);
    }

    #[tokio::test]
    async fn entries_say_what_changed_between_successful_runs() {
        let t = TestServices::start().await;
        let ada = t.signup("ada@example.com").await;
        let eve = t.signup("eve@example.com").await;
        let s = t.scrap(&ada, "Prices").await;
        let feeds = &t.services.feeds;
        let address = feeds.address_of(&ada.session, s).await.unwrap();
        assert_eq!(feeds.address_of(&ada.session, s).await.unwrap(), address, "made once");
        assert!(address.atom_url.ends_with(&format!("/scraps/{s}/feed.atom?token={}", address.token)));
        // Another organization's scrap: not found, no token made.
        assert!(matches!(feeds.address_of(&eve.session, s).await, Err(ServiceError::NotFound(_))));
        assert!(matches!(feeds.rotate(&eve.session, s).await, Err(ServiceError::NotFound(_))));

        // The runs, oldest first (a failed one between them is left out).
        let first = run_with(&t, &ada, s, r#"[{"id":1,"p":1},{"id":2,"p":2}]"#, -30).await;
        let same = run_with(&t, &ada, s, r#"[{"id":2,"p":2},{"id":1,"p":1}]"#, -20).await;
        t.run(&ada, s, Some(StatusDetail::Error), -15).await;
        let third = run_with(&t, &ada, s, r#"[{"id":1,"p":5},{"id":3,"p":3}]"#, -10).await;
        let feed = feeds.feed(s, &address.token).await.unwrap();
        let ids: Vec<HistoryId> = feed.entries.iter().map(|e| e.run_id).collect();
        assert_eq!(ids, [third, first], "the run that changed nothing has no entry");
        assert!(!ids.contains(&same));
        let oldest = &feed.entries[1];
        assert_eq!((oldest.previous_run_id, oldest.added.total), (None, 2));
        assert_eq!(oldest.summary(), "First successful run: 2 items");
        assert_eq!(feed.entries[0].previous_run_id, Some(same));
        assert_eq!(feed.updated, feed.entries[0].at);
        let newest = &feed.entries[0];
        assert_eq!(newest.run_id, third);
        assert_eq!(newest.key.as_deref(), Some("id"));
        assert_eq!((newest.added.total, newest.removed.total, newest.changed_total), (1, 1, 1));
        assert_eq!(newest.added.shown, [r#"{"id":3,"p":3}"#]);
        assert_eq!(
            newest.changed[0].fields[0],
            FieldChange { field: "p".into(), before: Some("1".into()), after: Some("5".into()) }
        );
        assert_eq!(newest.summary(), "1 added, 1 removed, 1 changed");

        // The version changes with a newer successful run, not with a failure.
        let version = feeds.version(s, &address.token).await.unwrap();
        t.run(&ada, s, Some(StatusDetail::Error), -5).await;
        assert_eq!(feeds.version(s, &address.token).await.unwrap(), version);
        let fourth = run_with(&t, &ada, s, r#"[{"id":1,"p":5}]"#, -1).await;
        assert_ne!(feeds.version(s, &address.token).await.unwrap(), version);
        assert_eq!(feeds.feed(s, &address.token).await.unwrap().entries[0].run_id, fourth);
        let feed = feeds.feed(s, &address.token).await.unwrap();

        // Wrong, malformed, another scrap's, rotated: not found.
        let other = t.scrap(&ada, "Other").await;
        assert!(matches!(feeds.feed(other, &address.token).await, Err(ServiceError::NotFound(_))));
        assert!(matches!(feeds.feed(s, &new_token()).await, Err(ServiceError::NotFound(_))));
        assert!(matches!(feeds.feed(s, "feed_x").await, Err(ServiceError::NotFound(_))));
        let rotated = feeds.rotate(&ada.session, s).await.unwrap();
        assert_ne!(rotated.token, address.token);
        assert!(matches!(feeds.feed(s, &address.token).await, Err(ServiceError::NotFound(_))));
        assert!(matches!(feeds.version(s, &address.token).await, Err(ServiceError::NotFound(_))));
        assert_eq!(feeds.feed(s, &rotated.token).await.unwrap().entries.len(), feed.entries.len());
    }
}
