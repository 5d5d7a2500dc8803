//! Scraps: web-session writes, key-or-session reads, and the activity log.

use std::sync::Arc;
use std::time::Duration;

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use svc_domain::activity::Activity;
use svc_domain::email::EmailRecord;
use svc_domain::history::RunSummary;
use svc_domain::scope::Scope;
use svc_domain::scrap::Scrap;
use svc_domain::script_version::ScriptVersion;
use svc_domain::{HistoryId, ObjectId, ScrapId};
use svc_storage::{ScrapFilter, Store};
use tokio::sync::Notify;

use crate::accounts::audit::{AuditAction, AuditLog};
use crate::outbox::recipients::{RecipientService, scrap_addresses};
use crate::paging::{PageRequest, Paged};
use crate::schedule::cron::{next_fire, next_fire_of};
use crate::scraps::input::{ScrapChanges, changed_fields, check_schedule, validate};
use crate::scraps::proxy_tiers::{TierSettings, parse_tier};
use crate::{Principal, Result, ServiceError, Session};

pub const MAX_SEARCH: usize = 200;
/// The most fire times [`ScrapService::preview_schedule`] returns.
pub const MAX_PREVIEW: usize = 100;

/// A scrap as the web app's list shows it: with its most recent run.
#[derive(Clone, Debug, PartialEq)]
pub struct ScrapOverview {
    pub scrap: Scrap,
    /// `None` when it never ran (or its run was deleted meanwhile).
    pub last_run: Option<RunSummary>,
}

/// A list's `search`: trimmed, blank as none, at most [`MAX_SEARCH`] characters.
fn search_text(search: Option<String>) -> Result<Option<String>> {
    let search = search.map(|s| s.trim().to_string()).filter(|s| !s.is_empty());
    if search.as_ref().is_some_and(|s| s.chars().count() > MAX_SEARCH) {
        return Err(ServiceError::validation("search", format!("must be at most {MAX_SEARCH} characters")));
    }
    Ok(search)
}

pub struct ScrapService {
    store: Arc<dyn Store>,
    cron_min_interval: Duration,
    /// Wakes the scheduler when a schedule may have moved.
    schedule_changed: Arc<Notify>,
    /// Which proxy tiers this server has: a scrap may only be fixed to one of them.
    tiers: TierSettings,
    audit: AuditLog,
    /// Asks the addresses a scrap newly names to confirm (issue 37).
    recipients: RecipientService,
}

/// The allow-list rule of single-scrap routes. A key whose allow-list
/// excludes `scrap` gets 403 if the scrap is its organization's, and 404
/// otherwise: another organization's objects never show, not even as 403.
pub(crate) async fn authorize_scrap(store: &dyn Store, principal: &Principal, scrap: ScrapId) -> Result<()> {
    if principal.may_touch_scrap(scrap) {
        return Ok(());
    }
    if store.existing_scrap_ids(principal.org(), &[scrap]).await?.is_empty() {
        return Err(ServiceError::NotFound("scrap"));
    }
    Err(ServiceError::ScrapNotInKeyScope)
}

impl ScrapService {
    pub(crate) fn new(
        store: Arc<dyn Store>,
        cron_min_interval: Duration,
        schedule_changed: Arc<Notify>,
        tiers: TierSettings,
        audit: AuditLog,
        recipients: RecipientService,
    ) -> Self {
        ScrapService { store, cron_min_interval, schedule_changed, tiers, audit, recipients }
    }

    /// Which proxy tiers this server has (`tier0` always).
    pub fn tiers(&self) -> &TierSettings {
        &self.tiers
    }

    /// A fixed `proxyTier` must be one the operator configured.
    fn check_tier(&self, scrap: &Scrap) -> Result<()> {
        let Some(name) = &scrap.proxy_tier else { return Ok(()) };
        match parse_tier(name) {
            Some(tier) if self.tiers.is_configured(tier) => Ok(()),
            _ => Err(ServiceError::validation(
                "proxyTier",
                format!("{name} is not configured on this server (SVC_PROXY_TIER{})", &name[4..]),
            )),
        }
    }

    /// Every `channel:NAME` among the recipients names a channel the
    /// organization saved.
    async fn check_saved_channels(&self, scrap: &Scrap) -> Result<()> {
        let fields = [
            ("alert", &scrap.alert),
            ("emailNotifRecipient", &scrap.email_notif_recipient),
            ("digestRecipient", &scrap.digest_recipient),
        ];
        for (field, value) in fields {
            if let Some(Ok(svc_domain::channel::Recipient::Saved(name))) =
                value.as_deref().map(svc_domain::channel::recipient)
                && self.store.channel_named(scrap.organization_id, &name).await?.is_none()
            {
                return Err(ServiceError::validation(
                    field,
                    format!("no channel named `{name}`: save it in Settings > Channels first"),
                ));
            }
        }
        Ok(())
    }

    pub async fn create(&self, session: &Session, changes: ScrapChanges) -> Result<Scrap> {
        session.require(&[Scope::ScrapsWrite])?;
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
        let tier_set = changes.proxy_tier.is_some();
        changes.apply_to(&mut scrap)?;
        validate(&scrap, self.cron_min_interval)?;
        self.check_saved_channels(&scrap).await?;
        if tier_set {
            self.check_tier(&scrap)?;
        }
        scrap.next_fire_at = next_fire_of(scrap.cron.as_deref(), &scrap.cron_timezone, now);
        let log = Activity::new(
            org.id,
            scrap.id,
            "scrap.created",
            format!("user:{}", session.user()),
            "Scrap created".into(),
        );
        // The addresses are asked for before the scrap is written: if that
        // fails, the caller's error means "not saved" and a retry cannot
        // make a second scrap (a second ask mails nobody twice).
        self.recipients.ask_for(org.id, &scrap_addresses(&scrap)).await?;
        self.store.insert_scrap(&scrap, &log).await?;
        if scrap.next_fire_at.is_some() {
            self.schedule_changed.notify_one();
        }
        Ok(scrap)
    }

    pub async fn update(&self, session: &Session, id: ScrapId, changes: ScrapChanges) -> Result<Scrap> {
        session.require(&[Scope::ScrapsWrite])?;
        let before = self.store.scrap(session.org(), id).await?.ok_or(ServiceError::NotFound("scrap"))?;
        let mut scrap = before.clone();
        let tier_set = changes.proxy_tier.is_some();
        changes.apply_to(&mut scrap)?;
        validate(&scrap, self.cron_min_interval)?;
        self.check_saved_channels(&scrap).await?;
        if tier_set {
            self.check_tier(&scrap)?;
        }
        let changed = changed_fields(&before, &scrap);
        if changed.is_empty() {
            return Ok(before);
        }
        scrap.updated_at = Utc::now();
        // Written by the store only if the schedule itself changed.
        scrap.next_fire_at = next_fire_of(scrap.cron.as_deref(), &scrap.cron_timezone, scrap.updated_at);
        let message = format!("Scrap updated: {}", changed.join(", "));
        let log = Activity::new(session.org(), id, "scrap.updated", format!("user:{}", session.user()), message);
        // Asked before the write, as on creation.
        let named_before = scrap_addresses(&before);
        let new: Vec<String> = scrap_addresses(&scrap).into_iter().filter(|a| !named_before.contains(a)).collect();
        self.recipients.ask_for(session.org(), &new).await?;
        if !self.store.update_scrap(session.org(), &scrap, &log).await? {
            return Err(ServiceError::NotFound("scrap"));
        }
        if scrap.cron != before.cron || scrap.cron_timezone != before.cron_timezone {
            self.schedule_changed.notify_one();
        }
        Ok(scrap)
    }

    pub async fn delete(&self, session: &Session, id: ScrapId) -> Result<()> {
        session.require(&[Scope::ScrapsWrite])?;
        let log = Activity::new(
            session.org(),
            id,
            "scrap.deleted",
            format!("user:{}", session.user()),
            "Scrap deleted".into(),
        );
        let title = self.store.scrap(session.org(), id).await?.map(|s| s.title);
        if !self.store.delete_scrap(session.org(), id, &log).await? {
            return Err(ServiceError::NotFound("scrap"));
        }
        let detail = title.map(|t| format!("\"{t}\""));
        self.audit.record(session, AuditAction::ScrapDeleted { scrap: id }, detail).await;
        Ok(())
    }

    /// The newest `limit` emails sent (or being sent) for a scrap of the
    /// caller's organization: result emails and alerts, with their state.
    pub async fn emails(&self, session: &Session, id: ScrapId, limit: i64) -> Result<Vec<EmailRecord>> {
        if self.store.existing_scrap_ids(session.org(), &[id]).await?.is_empty() {
            return Err(ServiceError::NotFound("scrap"));
        }
        Ok(self.store.scrap_emails(session.org(), id, limit.clamp(1, 100)).await?)
    }

    /// Scraps of the caller's organization; a key with an allow-list sees
    /// only those scraps (a shorter list, never 403).
    pub async fn list(&self, principal: &Principal, search: Option<String>, page: PageRequest) -> Result<Paged<Scrap>> {
        principal.require(&[Scope::ScrapsRead])?;
        let filter = ScrapFilter {
            search: search_text(search)?,
            only: principal.scrap_allow_list().map(<[ScrapId]>::to_vec),
            failing: false,
            offset: page.offset(),
            limit: page.per_page,
        };
        let found = self.store.list_scraps(principal.org(), &filter).await?;
        Ok(Paged { items: found.items, total: found.total, page })
    }

    /// The web app's list: the organization's scraps (the same search as
    /// [`Self::list`]; only those whose most recent run failed when
    /// `failing`), each with a summary of its most recent run. Two
    /// queries: the page, then the runs of the whole page.
    pub async fn overview(
        &self,
        session: &Session,
        search: Option<String>,
        failing: bool,
        page: PageRequest,
    ) -> Result<Paged<ScrapOverview>> {
        let filter = ScrapFilter {
            search: search_text(search)?,
            only: None,
            failing,
            offset: page.offset(),
            limit: page.per_page,
        };
        let found = self.store.list_scraps(session.org(), &filter).await?;
        let last_ids: Vec<HistoryId> = found.items.iter().filter_map(|s| s.history.first().copied()).collect();
        let mut runs: HashMap<HistoryId, RunSummary> =
            self.store.run_summaries(session.org(), &last_ids).await?.into_iter().map(|r| (r.id, r)).collect();
        let items = found
            .items
            .into_iter()
            .map(|scrap| {
                let last_run = scrap.history.first().and_then(|id| runs.remove(id));
                ScrapOverview { scrap, last_run }
            })
            .collect();
        Ok(Paged { items, total: found.total, page })
    }

    /// The next `count` (at most [`MAX_PREVIEW`]) fire times after now of a
    /// schedule, checked as a create or an update checks it (errors on
    /// `cron` or `cronTimezone`); none for a blank `cron` (no schedule).
    pub fn preview_schedule(&self, cron: &str, timezone: &str, count: usize) -> Result<Vec<DateTime<Utc>>> {
        let cron = Some(cron.trim()).filter(|c| !c.is_empty());
        let Some((cron, tz)) = check_schedule(cron, timezone.trim(), self.cron_min_interval)? else {
            return Ok(vec![]);
        };
        let mut times = Vec::new();
        let mut at = Utc::now();
        while times.len() < count.min(MAX_PREVIEW) {
            let Some(next) = next_fire(&cron, tz, at) else { break };
            times.push(next);
            at = next;
        }
        Ok(times)
    }

    pub async fn get(&self, principal: &Principal, id: ScrapId) -> Result<Scrap> {
        principal.require(&[Scope::ScrapsRead])?;
        authorize_scrap(&*self.store, principal, id).await?;
        self.store.scrap(principal.org(), id).await?.ok_or(ServiceError::NotFound("scrap"))
    }

    /// The activity log of a scrap, newest first. It outlives the scrap, so
    /// a deleted scrap's log (ending in `scrap.deleted`) stays readable.
    pub async fn activities(&self, principal: &Principal, id: ScrapId, page: PageRequest) -> Result<Paged<Activity>> {
        principal.require(&[Scope::HistoryRead])?;
        authorize_scrap(&*self.store, principal, id).await?;
        let found = self.store.list_activities(principal.org(), id, page.offset(), page.per_page).await?;
        if found.total == 0 && self.store.existing_scrap_ids(principal.org(), &[id]).await?.is_empty() {
            return Err(ServiceError::NotFound("scrap"));
        }
        Ok(Paged { items: found.items, total: found.total, page })
    }

    /// The versions of a scrap's script, newest first (the first is the
    /// current script).
    pub async fn versions(
        &self,
        principal: &Principal,
        id: ScrapId,
        page: PageRequest,
    ) -> Result<Paged<ScriptVersion>> {
        principal.require(&[Scope::ScrapsRead])?;
        authorize_scrap(&*self.store, principal, id).await?;
        if self.store.existing_scrap_ids(principal.org(), &[id]).await?.is_empty() {
            return Err(ServiceError::NotFound("scrap"));
        }
        let found = self.store.script_versions(principal.org(), id, page.offset(), page.per_page).await?;
        Ok(Paged { items: found.items, total: found.total, page })
    }

    /// One version of a scrap's script.
    pub async fn version(&self, principal: &Principal, id: ScrapId, version: ObjectId) -> Result<ScriptVersion> {
        principal.require(&[Scope::ScrapsRead])?;
        authorize_scrap(&*self.store, principal, id).await?;
        self.store.script_version(principal.org(), id, version).await?.ok_or(ServiceError::NotFound("version"))
    }

    /// Makes an older version the scrap's script again (a new `rollback`
    /// version; nothing is lost). Restoring the current script is refused.
    /// A scrap write, so web sessions only (interface.md: scrap writes are
    /// never made with an API key).
    pub async fn restore_version(&self, session: &Session, id: ScrapId, version: ObjectId) -> Result<ScriptVersion> {
        session.require(&[Scope::ScrapsWrite])?;
        let scrap = self.store.scrap(session.org(), id).await?.ok_or(ServiceError::NotFound("scrap"))?;
        let old =
            self.store.script_version(session.org(), id, version).await?.ok_or(ServiceError::NotFound("version"))?;
        if old.request == scrap.request {
            return Err(ServiceError::Conflict {
                code: "ALREADY_CURRENT",
                message: format!("version {} is the scrap's current script", old.number),
            });
        }
        let log = Activity::new(
            session.org(),
            id,
            "script.restored",
            Principal::Session(session.clone()).actor(),
            format!("Script restored to version {}", old.number),
        );
        let restored = self
            .store
            .restore_version(session.org(), id, version, Utc::now(), &log)
            .await?
            .ok_or(ServiceError::NotFound("version"))?;
        let detail = format!("\"{}\": version {} restored as version {}", scrap.title, old.number, restored.number);
        self.audit.record(session, AuditAction::VersionRestored { version: restored.id }, Some(detail)).await;
        Ok(restored)
    }
}

#[cfg(test)]
mod tests {
    use svc_domain::history::StatusDetail;

    use super::*;
    use crate::testing::TestServices;

    fn titles(page: &Paged<ScrapOverview>) -> Vec<&str> {
        page.items.iter().map(|o| o.scrap.title.as_str()).collect()
    }

    #[tokio::test]
    async fn overview_lists_scraps_with_their_last_run() {
        let t = TestServices::start().await;
        let ada = t.signup("ada@example.com").await;
        let bob = t.signup("bob@example.com").await;
        let never = t.scrap(&ada, "never run").await;
        let fine = t.scrap(&ada, "fine").await;
        let broken = t.scrap(&ada, "broken").await;
        let running = t.scrap(&ada, "running").await;
        let theirs = t.scrap(&bob, "theirs broken").await;
        t.run(&ada, fine, Some(StatusDetail::Error), 0).await;
        let fine_last = t.run(&ada, fine, Some(StatusDetail::Success), 1).await;
        t.run(&ada, broken, Some(StatusDetail::Success), 0).await;
        let broken_last = t.run(&ada, broken, Some(StatusDetail::Empty), 1).await;
        t.run(&ada, running, Some(StatusDetail::Regression), 0).await;
        let running_last = t.run(&ada, running, None, 1).await;
        t.run(&bob, theirs, Some(StatusDetail::Error), 0).await;

        let page = t.services.scraps.overview(&ada.session, None, false, PageRequest::default()).await.unwrap();
        assert_eq!(titles(&page), ["running", "broken", "fine", "never run"]);
        assert_eq!(page.total, 4);
        let last: Vec<Option<HistoryId>> = page.items.iter().map(|o| o.last_run.as_ref().map(|r| r.id)).collect();
        assert_eq!(last, [Some(running_last.id), Some(broken_last.id), Some(fine_last.id), None]);
        let summary = page.items[1].last_run.clone().unwrap();
        assert_eq!(
            summary,
            RunSummary {
                id: broken_last.id,
                scrap_id: broken,
                status_detail: Some(StatusDetail::Empty),
                length: 1,
                time_ms: Some(100),
                triggered_by: broken_last.triggered_by,
                created_at: broken_last.created_at,
                finished_at: broken_last.finished_at,
            }
        );
        assert_eq!(page.items[3].scrap.id, never);
        assert_eq!(page.items[0].last_run.as_ref().unwrap().status_detail, None, "pending");

        let failing = t.services.scraps.overview(&ada.session, None, true, PageRequest::default()).await.unwrap();
        assert_eq!((titles(&failing), failing.total), (vec!["broken"], 1));
        assert_eq!(failing.items[0].last_run.as_ref().map(|r| r.id), Some(broken_last.id));

        // Search as in `list`: trimmed, case-insensitive, bounded.
        let found =
            t.services.scraps.overview(&ada.session, Some("  FINE ".into()), false, PageRequest::default()).await;
        assert_eq!(titles(&found.unwrap()), ["fine"]);
        let paged =
            t.services.scraps.overview(&ada.session, Some(" ".into()), false, PageRequest { page: 2, per_page: 3 });
        let paged = paged.await.unwrap();
        assert_eq!((titles(&paged), paged.total), (vec!["never run"], 4));
        let long = "x".repeat(MAX_SEARCH + 1);
        match t.services.scraps.overview(&ada.session, Some(long), false, PageRequest::default()).await {
            Err(ServiceError::Validation { field, .. }) => assert_eq!(field, "search"),
            other => panic!("expected a validation error, got {other:?}"),
        }

        let theirs_page = t.services.scraps.overview(&bob.session, None, true, PageRequest::default()).await.unwrap();
        assert_eq!(titles(&theirs_page), ["theirs broken"]);
    }

    fn field_of<T: std::fmt::Debug>(result: Result<T>) -> (String, String) {
        match result {
            Err(ServiceError::Validation { field, message }) => (field, message),
            other => panic!("expected a validation error, got {other:?}"),
        }
    }

    #[tokio::test]
    async fn schedule_previews_follow_the_rules_of_a_saved_schedule() {
        let t = TestServices::start().await;
        let ada = t.signup("ada@example.com").await;
        let scraps = &t.services.scraps;

        let before = Utc::now();
        let times = scraps.preview_schedule("0 * * * *", "Europe/Paris", 3).unwrap();
        assert_eq!(times.len(), 3);
        assert!(times[0] > before && times[0] <= before + chrono::Duration::hours(1), "{times:?}");
        assert_eq!(times[1] - times[0], chrono::Duration::hours(1));
        assert_eq!(times[2] - times[1], chrono::Duration::hours(1));
        assert!(times.iter().all(|t| t.timestamp() % 3600 == 0), "on the hour: {times:?}");
        // The time zone matters: 09:00 in New York is 13:00 or 14:00 UTC.
        let nine = scraps.preview_schedule(" 0 9 * * * ", " America/New_York ", 2).unwrap();
        assert!(nine.iter().all(|t| [13, 14].contains(&t.format("%H").to_string().parse::<u32>().unwrap())));
        assert!(scraps.preview_schedule("@daily", "UTC", 0).unwrap().is_empty());
        assert_eq!(scraps.preview_schedule("* * * * *", "UTC", 10_000).unwrap().len(), MAX_PREVIEW);
        assert!(scraps.preview_schedule("  ", "UTC", 5).unwrap().is_empty(), "no schedule, no firing");

        // The same errors as saving the schedule.
        for (cron, tz) in
            [("* * * * * *", "UTC"), ("61 * * * *", "UTC"), ("0 0 30 2 *", "UTC"), ("@daily", "Mars/Base")]
        {
            let preview = field_of(scraps.preview_schedule(cron, tz, 5));
            let changes = ScrapChanges {
                title: Some("s".into()),
                url: Some("https://example.com/".into()),
                request: Some("returnData([])".into()),
                cron: Some(Some(cron.into())),
                cron_timezone: Some(tz.into()),
                ..ScrapChanges::default()
            };
            let saved = field_of(scraps.create(&ada.session, changes).await);
            assert_eq!(preview, saved, "{cron} in {tz}");
        }
        assert_eq!(field_of(scraps.preview_schedule("* * * * * *", "UTC", 5)).0, "cron");
        assert_eq!(
            field_of(scraps.preview_schedule("* * * * * *", "UTC", 5)).1,
            "fires more often than once every 60 seconds"
        );
        assert_eq!(field_of(scraps.preview_schedule("@daily", "Nowhere", 5)).0, "cronTimezone");
        assert_eq!(field_of(scraps.preview_schedule("", "Nowhere", 5)).0, "cronTimezone", "checked as on save");
    }
}
