//! Scraps: web-session writes, key-or-session reads, and the activity log.

use std::sync::Arc;
use std::time::Duration;

use chrono::Utc;
use svc_domain::ObjectId;
use svc_domain::activity::Activity;
use svc_domain::scope::Scope;
use svc_domain::scrap::Scrap;
use svc_storage::{ScrapFilter, Store};
use tokio::sync::Notify;

use crate::paging::{PageRequest, Paged};
use crate::schedule::next_fire_of;
use crate::scrap_input::{ScrapChanges, changed_fields, validate};
use crate::{Principal, Result, ServiceError, Session};

pub const MAX_SEARCH: usize = 200;

pub struct ScrapService {
    store: Arc<dyn Store>,
    cron_min_interval: Duration,
    /// Wakes the scheduler when a schedule may have moved.
    schedule_changed: Arc<Notify>,
}

pub(crate) fn activity(org: ObjectId, scrap: ObjectId, kind: &str, actor: String, message: String) -> Activity {
    Activity {
        id: ObjectId::new(),
        organization_id: org,
        scrap_id: scrap,
        kind: kind.to_string(),
        actor,
        message,
        history_id: None,
        created_at: Utc::now(),
    }
}

/// The allow-list rule of single-scrap routes. A key whose allow-list
/// excludes `scrap` gets 403 if the scrap is its organization's, and 404
/// otherwise: another organization's objects never show, not even as 403.
pub(crate) async fn authorize_scrap(store: &dyn Store, principal: &Principal, scrap: ObjectId) -> Result<()> {
    if principal.may_touch_scrap(scrap) {
        return Ok(());
    }
    if store.existing_scrap_ids(principal.org(), &[scrap]).await?.is_empty() {
        return Err(ServiceError::NotFound("scrap"));
    }
    Err(ServiceError::ScrapNotInKeyScope)
}

/// Parses `scrapIds` of a key or webhook body: 24-hex ids, each a scrap of
/// `org` (else 422 naming `scrapIds`); duplicates dropped.
pub(crate) async fn scrap_ids_in_org(store: &dyn Store, org: ObjectId, raw: Vec<String>) -> Result<Vec<ObjectId>> {
    let mut ids = Vec::new();
    for s in &raw {
        let id = ObjectId::parse(s)
            .ok_or_else(|| ServiceError::validation("scrapIds", format!("`{s}` is not a 24-character hex id")))?;
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    let existing = store.existing_scrap_ids(org, &ids).await?;
    if let Some(missing) = ids.iter().find(|id| !existing.contains(id)) {
        return Err(ServiceError::validation("scrapIds", format!("no scrap `{missing}` in this organization")));
    }
    Ok(ids)
}

impl ScrapService {
    pub(crate) fn new(store: Arc<dyn Store>, cron_min_interval: Duration, schedule_changed: Arc<Notify>) -> Self {
        ScrapService { store, cron_min_interval, schedule_changed }
    }

    pub async fn create(&self, session: &Session, changes: ScrapChanges) -> Result<Scrap> {
        let org = self.store.organization(session.org()).await?.ok_or(ServiceError::NotFound("organization"))?;
        for (present, field) in
            [(changes.title.is_some(), "title"), (changes.url.is_some(), "url"), (changes.request.is_some(), "request")]
        {
            if !present {
                return Err(ServiceError::validation(field, "is required"));
            }
        }
        let now = Utc::now();
        let mut scrap =
            Scrap { containers: org.default_containers.clone(), ..Scrap::new(org.id, session.user(), "", "", "", now) };
        changes.apply_to(&mut scrap)?;
        validate(&scrap, self.cron_min_interval)?;
        scrap.next_fire_at = next_fire_of(scrap.cron.as_deref(), &scrap.cron_timezone, now);
        let log =
            activity(org.id, scrap.id, "scrap.created", format!("user:{}", session.user()), "Scrap created".into());
        self.store.insert_scrap(&scrap, &log).await?;
        if scrap.next_fire_at.is_some() {
            self.schedule_changed.notify_one();
        }
        Ok(scrap)
    }

    pub async fn update(&self, session: &Session, id: ObjectId, changes: ScrapChanges) -> Result<Scrap> {
        let before = self.store.scrap(session.org(), id).await?.ok_or(ServiceError::NotFound("scrap"))?;
        let mut scrap = before.clone();
        changes.apply_to(&mut scrap)?;
        validate(&scrap, self.cron_min_interval)?;
        let changed = changed_fields(&before, &scrap);
        if changed.is_empty() {
            return Ok(before);
        }
        scrap.updated_at = Utc::now();
        // Written by the store only if the schedule itself changed.
        scrap.next_fire_at = next_fire_of(scrap.cron.as_deref(), &scrap.cron_timezone, scrap.updated_at);
        let message = format!("Scrap updated: {}", changed.join(", "));
        let log = activity(session.org(), id, "scrap.updated", format!("user:{}", session.user()), message);
        if !self.store.update_scrap(session.org(), &scrap, &log).await? {
            return Err(ServiceError::NotFound("scrap"));
        }
        if scrap.cron != before.cron || scrap.cron_timezone != before.cron_timezone {
            self.schedule_changed.notify_one();
        }
        Ok(scrap)
    }

    pub async fn delete(&self, session: &Session, id: ObjectId) -> Result<()> {
        let log =
            activity(session.org(), id, "scrap.deleted", format!("user:{}", session.user()), "Scrap deleted".into());
        if !self.store.delete_scrap(session.org(), id, &log).await? {
            return Err(ServiceError::NotFound("scrap"));
        }
        Ok(())
    }

    /// Scraps of the caller's organization; a key with an allow-list sees
    /// only those scraps (a shorter list, never 403).
    pub async fn list(&self, principal: &Principal, search: Option<String>, page: PageRequest) -> Result<Paged<Scrap>> {
        principal.require(&[Scope::ScrapsRead])?;
        let search = search.map(|s| s.trim().to_string()).filter(|s| !s.is_empty());
        if search.as_ref().is_some_and(|s| s.chars().count() > MAX_SEARCH) {
            return Err(ServiceError::validation("search", format!("must be at most {MAX_SEARCH} characters")));
        }
        let filter = ScrapFilter {
            search,
            only: principal.scrap_allow_list().map(<[ObjectId]>::to_vec),
            failing: false,
            offset: page.offset(),
            limit: page.per_page,
        };
        let found = self.store.list_scraps(principal.org(), &filter).await?;
        Ok(Paged { items: found.items, total: found.total, page })
    }

    pub async fn get(&self, principal: &Principal, id: ObjectId) -> Result<Scrap> {
        principal.require(&[Scope::ScrapsRead])?;
        authorize_scrap(&*self.store, principal, id).await?;
        self.store.scrap(principal.org(), id).await?.ok_or(ServiceError::NotFound("scrap"))
    }

    /// The activity log of a scrap, newest first. It outlives the scrap, so
    /// a deleted scrap's log (ending in `scrap.deleted`) stays readable.
    pub async fn activities(&self, principal: &Principal, id: ObjectId, page: PageRequest) -> Result<Paged<Activity>> {
        principal.require(&[Scope::HistoryRead])?;
        authorize_scrap(&*self.store, principal, id).await?;
        let found = self.store.list_activities(principal.org(), id, page.offset(), page.per_page).await?;
        if found.total == 0 && self.store.existing_scrap_ids(principal.org(), &[id]).await?.is_empty() {
            return Err(ServiceError::NotFound("scrap"));
        }
        Ok(Paged { items: found.items, total: found.total, page })
    }
}
