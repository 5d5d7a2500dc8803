use async_trait::async_trait;
use chrono::{DateTime, Utc};
use svc_domain::account::{Organization, User};
use svc_domain::activity::Activity;
use svc_domain::api_key::{ApiKey, KeyOwner};
use svc_domain::audit::AuditEntry;
use svc_domain::channel::SavedChannel;
use svc_domain::email::{Email, EmailRecord};
use svc_domain::history::{HistoryRow, RunSummary, StatusDetail, TriggeredBy};
use svc_domain::login_session::LoginSession;
use svc_domain::member::{Invite, Member, Membership, Role};
use svc_domain::plan::{Plan, WeeklyUnits};
use svc_domain::recipient::RecipientAddress;
use svc_domain::run_page::RunPage;
use svc_domain::scrap::{ParamSet, Scrap};
use svc_domain::script_version::{FixProposal, ProposalState, ScriptVersion};
use svc_domain::site_account::{SavedSession, SiteAccount, StoredAccount};
use svc_domain::task::{Task, TaskKind, TaskState};
use svc_domain::webhook::{Delivery, DeliveryAttempt, Webhook};
use svc_domain::{HistoryId, InviteId, KeyId, ObjectId, OrgId, ScrapId, SessionId, UserId, WebhookId};

use crate::Result;

/// One page of a list and the total count of matching rows.
#[derive(Clone, Debug, PartialEq)]
pub struct Page<T> {
    pub items: Vec<T>,
    pub total: i64,
}

/// A new user with its own organization.
#[derive(Clone, Debug)]
pub struct NewAccount {
    pub organization: Organization,
    pub user: User,
    pub password_hash: String,
}

#[derive(Clone, Debug, Default)]
pub struct ScrapFilter {
    /// Case-insensitive substring of title, description or url.
    pub search: Option<String>,
    /// When set, only these scraps (an API key's allow-list).
    pub only: Option<Vec<ScrapId>>,
    /// Only scraps whose most recent run ended `error`, `empty` or
    /// `regression` (a pending most recent run is not failing).
    pub failing: bool,
    pub offset: i64,
    pub limit: i64,
}

#[derive(Clone, Debug, Default)]
pub struct HistoryFilter {
    pub scrap: Option<ScrapId>,
    /// When set, only rows of these scraps (an API key's allow-list).
    pub only_scraps: Option<Vec<ScrapId>>,
    pub offset: i64,
    pub limit: i64,
}

#[async_trait]
pub trait AccountStore: Send + Sync {
    /// Fails with `Conflict("email")` when the email is taken.
    async fn create_account(&self, account: &NewAccount) -> Result<()>;
    /// Pre-authentication lookup for login: the user and its password hash.
    async fn user_by_email(&self, email: &str) -> Result<Option<(User, String)>>;
    async fn user(&self, org: OrgId, user: UserId) -> Result<Option<User>>;
    /// The user's password hash.
    async fn password_hash(&self, org: OrgId, user: UserId) -> Result<Option<String>>;
    /// Sets the password hash and, in the same transaction, ends every
    /// live session of the user (in every organization) but `keep` (at `at`). False when the user
    /// is not in `org`.
    async fn set_password_hash(
        &self,
        org: OrgId,
        user: UserId,
        hash: &str,
        keep: Option<SessionId>,
        at: DateTime<Utc>,
    ) -> Result<bool>;
    /// False when the user is not in `org`; fails with `Conflict("email")`
    /// when another user has the email.
    async fn set_email(&self, org: OrgId, user: UserId, email: &str) -> Result<bool>;
    async fn organization(&self, org: OrgId) -> Result<Option<Organization>>;
    /// Sets the plan. The change counts as renewed for the week it is made
    /// in (the organization's `plan_renewed_at` moves to now), so a change
    /// to a renewed plan tops nothing up before the next week's renewal.
    async fn set_plan(&self, org: OrgId, plan: Plan) -> Result<bool>;
    /// The weekly renewal of the week starting at `week_start`: takes up to
    /// `limit` organizations whose plan has a weekly amount in `units` and
    /// that were neither renewed nor had their plan set since `week_start`
    /// (rows another scheduler is handling are skipped, not waited for),
    /// and for each, in one transaction: records the renewal as a unique
    /// (organization, week) and sets the balance to `max(balance, weekly
    /// amount of its plan)`. A week already recorded is not renewed again
    /// (`AlreadyRenewed`). When no organization is due, this is one indexed
    /// read and no transaction. Cross-organization by design (the scheduler).
    async fn renew_plans(&self, week_start: DateTime<Utc>, units: &WeeklyUnits, limit: i64)
    -> Result<Vec<PlanRenewal>>;
    async fn set_admin(&self, org: OrgId, user: UserId, is_admin: bool) -> Result<bool>;
    /// Adds (or with a negative figure removes) units; returns the new balance.
    async fn add_balance(&self, org: OrgId, units: i64) -> Result<Option<i64>>;
    /// Returns the stored value of `key`, storing `value` first if there is none.
    async fn setting_or_init(&self, key: &str, value: &str) -> Result<String>;
}

/// What `AccountStore::renew_plans` did with one due organization.
#[derive(Clone, Debug, PartialEq)]
pub struct PlanRenewal {
    pub organization_id: OrgId,
    /// The plan at renewal time, which decided the amount.
    pub plan: Plan,
    pub week_start: DateTime<Utc>,
    /// The plan's weekly amount.
    pub units: i64,
    pub balance_before: i64,
    /// `max(balance_before, units)` when renewed; `balance_before` otherwise.
    pub balance_after: i64,
    pub outcome: RenewalOutcome,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RenewalOutcome {
    /// Topped up (or left as it was, when already above the weekly amount).
    Renewed,
    /// Another scheduler recorded this (organization, week) first: nothing changed.
    AlreadyRenewed,
}

/// Web sessions (`LoginSession`). A session is live while it is neither
/// ended nor expired.
#[async_trait]
pub trait SessionStore: Send + Sync {
    async fn insert_session(&self, session: &LoginSession) -> Result<()>;
    /// The user of a session live at `now`, their role in the session's
    /// organization, and when it was last seen: one
    /// indexed read, made on every request a session authenticates.
    async fn live_session(
        &self,
        org: OrgId,
        user: UserId,
        id: SessionId,
        now: DateTime<Utc>,
    ) -> Result<Option<(User, Role, DateTime<Utc>)>>;
    /// Sets the session's `last_seen_at` to `now` unless it is already as
    /// late; false when the session is not the user's.
    async fn touch_session(&self, org: OrgId, user: UserId, id: SessionId, now: DateTime<Utc>) -> Result<bool>;
    /// The user's sessions live at `now`, most recently seen first.
    async fn live_sessions(&self, org: OrgId, user: UserId, now: DateTime<Utc>) -> Result<Vec<LoginSession>>;
    /// Ends one live session of the user; false when there is none such.
    async fn end_session(&self, org: OrgId, user: UserId, id: SessionId, at: DateTime<Utc>) -> Result<bool>;
    /// Ends every live session of the user but `keep`; how many ended.
    async fn end_sessions(&self, org: OrgId, user: UserId, keep: Option<SessionId>, at: DateTime<Utc>) -> Result<u64>;
    /// Deletes the sessions that expired before `before` (housekeeping;
    /// cross-organization by design). Returns how many went.
    async fn prune_sessions(&self, before: DateTime<Utc>) -> Result<u64>;
}

#[async_trait]
pub trait ScrapStore: Send + Sync {
    async fn insert_scrap(&self, scrap: &Scrap, activity: &Activity) -> Result<()>;
    /// Writes every stored field of `scrap`; false when it does not exist in `org`.
    /// `next_fire_at` is written only when `cron` or `cron_timezone` changed
    /// (or none was stored), so an edit never moves a pending tick.
    async fn update_scrap(&self, org: OrgId, scrap: &Scrap, activity: &Activity) -> Result<bool>;
    /// Deletes the scrap, its history rows, queued runs, script versions,
    /// site login and saved session, keeping its activity log.
    async fn delete_scrap(&self, org: OrgId, id: ScrapId, activity: &Activity) -> Result<bool>;
    async fn scrap(&self, org: OrgId, id: ScrapId) -> Result<Option<Scrap>>;
    /// The scrap and what its run needs to know besides, in one read.
    async fn run_scrap(&self, org: OrgId, id: ScrapId) -> Result<Option<RunScrap>>;
    /// Newest first.
    async fn list_scraps(&self, org: OrgId, filter: &ScrapFilter) -> Result<Page<Scrap>>;
    /// Which of `ids` are scraps of `org`.
    async fn existing_scrap_ids(&self, org: OrgId, ids: &[ScrapId]) -> Result<Vec<ScrapId>>;
}

#[async_trait]
pub trait KeyStore: Send + Sync {
    /// Fails with `Conflict("key")` on a hash collision.
    async fn insert_key(&self, key: &ApiKey, key_hash: &str, activities: &[Activity]) -> Result<()>;
    /// Pre-authentication lookup of a key by the hash of its plain text.
    async fn key_by_hash(&self, key_hash: &str) -> Result<Option<KeyOwner>>;
    /// Keys not revoked, newest first.
    async fn list_keys(&self, org: OrgId, offset: i64, limit: i64) -> Result<Page<ApiKey>>;
    /// An unrevoked key of `org`.
    async fn key(&self, org: OrgId, id: KeyId) -> Result<Option<ApiKey>>;
    /// Marks the key revoked and writes `activities` in the same transaction;
    /// false (and nothing written) when no unrevoked key `id` exists in `org`.
    async fn revoke_key(&self, org: OrgId, id: KeyId, at: DateTime<Utc>, activities: &[Activity]) -> Result<bool>;
}

#[async_trait]
pub trait HistoryStore: Send + Sync {
    async fn insert_history(&self, row: &HistoryRow) -> Result<()>;
    async fn history_row(&self, org: OrgId, id: HistoryId) -> Result<Option<HistoryRow>>;
    /// Which of `runs` (each with its organization) have finished, in no
    /// particular order: one read for every caller waiting on a run.
    async fn finished_among(&self, runs: &[(OrgId, HistoryId)]) -> Result<Vec<HistoryId>>;
    /// Newest first.
    async fn list_history(&self, org: OrgId, filter: &HistoryFilter) -> Result<Page<HistoryRow>>;
    /// The scrap runs of `org` among `ids`, without their data, in no
    /// particular order (ids of other organizations, of no row or of an AI
    /// operation row are left out).
    async fn run_summaries(&self, org: OrgId, ids: &[HistoryId]) -> Result<Vec<RunSummary>>;
    /// How the finished runs of `scrap` other than `current` went: the
    /// newest one's outcome, how many failed since the newest success, and
    /// whether any succeeded (for alerts). "Newest" and "since" are in
    /// (created_at, id) order, so runs created in the same millisecond
    /// count in the order they were made.
    async fn run_streak(&self, org: OrgId, scrap: ScrapId, current: HistoryId) -> Result<RunStreak>;
    /// The runs of `row`'s scrap around it (ordered by creation, then id),
    /// and the newest successful one created before it.
    async fn run_neighbours(&self, org: OrgId, row: &HistoryRow) -> Result<RunNeighbours>;
}

/// What `HistoryStore::run_neighbours` finds around a run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunNeighbours {
    /// The scrap's run created just before.
    pub previous: Option<HistoryId>,
    /// The scrap's run created just after.
    pub next: Option<HistoryId>,
    /// The scrap's newest `success` run created before (with its data).
    pub previous_success: Option<HistoryRow>,
}

#[async_trait]
pub trait ActivityStore: Send + Sync {
    /// Newest first.
    async fn list_activities(&self, org: OrgId, scrap: ScrapId, offset: i64, limit: i64) -> Result<Page<Activity>>;
}

/// The recent outcomes of a scrap's runs (see `HistoryStore::run_streak`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RunStreak {
    /// How the newest finished run ended.
    pub last: Option<StatusDetail>,
    /// Finished runs that did not succeed since the newest success (all of
    /// them when none succeeded).
    pub failures_since_success: i64,
    /// Whether any finished run succeeded.
    pub ever_succeeded: bool,
}

/// How an attempt to send an email ended, as the outbox records it.
#[derive(Clone, Debug, PartialEq)]
pub enum EmailOutcome {
    Sent {
        at: DateTime<Utc>,
    },
    /// A transient failure: tried again at `next`.
    Retry {
        error: String,
        next: DateTime<Utc>,
    },
    /// Refused for good, or out of attempts.
    Failed {
        error: String,
    },
}

/// A recipient of release announcements.
#[derive(Clone, Debug, PartialEq)]
pub struct Recipient {
    pub organization_id: OrgId,
    pub user_id: UserId,
    pub email: String,
}

#[async_trait]
pub trait EmailStore: Send + Sync {
    /// Queues `emails`, due at `due`, in one transaction.
    async fn queue_emails(&self, emails: &[Email], due: DateTime<Utc>) -> Result<()>;
    /// Takes up to `limit` queued emails due at `now` that no one holds,
    /// held until `lease_until`. Cross-organization by design (the mailer).
    async fn claim_emails(
        &self,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
        limit: i64,
    ) -> Result<Vec<EmailRecord>>;
    /// Records attempt number `made + 1` of a claimed email (and `activity`,
    /// when given, in the same transaction); false when someone else
    /// recorded that attempt first.
    async fn record_email(
        &self,
        id: ObjectId,
        made: i64,
        outcome: &EmailOutcome,
        activity: Option<&Activity>,
    ) -> Result<bool>;
    /// The emails sent for a scrap of `org`, newest first.
    async fn scrap_emails(&self, org: OrgId, scrap: ScrapId, limit: i64) -> Result<Vec<EmailRecord>>;
    /// The outbox rows of `org` (emails and chat messages) that failed for
    /// good, newest first.
    async fn failed_emails(&self, org: OrgId, limit: i64) -> Result<Vec<EmailRecord>>;
    /// Every user who receives announcements, in id order after `after`.
    /// Cross-organization by design (a platform announcement).
    async fn announcement_recipients(&self, after: Option<UserId>, limit: i64) -> Result<Vec<Recipient>>;
    /// Turns announcements off (or on) for a user of `org`; false when there is no such user.
    async fn set_announcements(&self, org: OrgId, user: UserId, on: bool) -> Result<bool>;
}

/// A run a worker has claimed. The claim is valid while its lease lasts and
/// nobody else has re-claimed the run (`attempts` tells the claims apart).
#[derive(Clone, Debug, PartialEq)]
pub struct ClaimedRun {
    pub history_id: HistoryId,
    pub organization_id: OrgId,
    pub scrap_id: ScrapId,
    pub param: Option<ParamSet>,
    pub attempts: i64,
    pub worker_id: String,
    /// Who triggered the run, from its history row in the same statement
    /// (`None` when that row is gone): with `enqueued_at` (the row's
    /// `created_at`), all a worker needs of the pending row.
    pub triggered_by: Option<TriggeredBy>,
    pub enqueued_at: DateTime<Utc>,
    /// The scrap's URL when the run was claimed (`None` when the scrap is
    /// gone): what a worker tells the engine of a claim (`Engine::claimed`).
    pub url: Option<String>,
    /// The scrap's engine when the run was claimed (`None` when the scrap
    /// is gone): which engine a worker tells of the claim.
    pub scrapper: Option<String>,
}

/// What [`RunStore::claim_next_run`] took, and whether another run for the
/// same container was still queued after it (a hint: a worker told none
/// was waits for the next enqueue instead of claiming again).
#[derive(Clone, Debug, PartialEq)]
pub struct NextRun {
    pub claim: ClaimedRun,
    pub more_queued: bool,
}

/// A scrap as a worker runs it, read in one statement: the scrap, and
/// whether its run has to read more (a site login, webhooks to deliver to)
/// or is confined (its latest script is an AI Fix awaiting approval).
#[derive(Clone, Debug, PartialEq)]
pub struct RunScrap {
    pub scrap: Scrap,
    /// A site login is stored for the scrap.
    pub has_login: bool,
    /// The scrap's latest script version is AI Fix's, not approved yet.
    pub awaits_approval: bool,
    /// The organization has an active webhook.
    pub has_webhooks: bool,
    /// The number of items of the scrap's newest successful run.
    pub last_success_length: Option<i64>,
    /// The organization's balance and plan, for a trigger's checks.
    pub balance: i64,
    pub plan: Plan,
}

/// What a worker has warm for an organization (a browser page that shows an
/// origin, an engine process): [`RunStore::claim_run_near`] prefers queued
/// runs it fits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Nearby {
    pub organization: OrgId,
    /// The start of the scrap's URL (an origin and `/`), or any URL.
    pub url_prefix: Option<String>,
}

/// A pending run's place in the queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueState {
    /// Waiting for a worker.
    Queued,
    /// Claimed by a worker, in its browser.
    Running,
}

/// What `expire_leases` did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ExpiredLeases {
    /// Put back in the queue, `retries` incremented.
    pub requeued: Vec<HistoryId>,
    /// Tried `max_attempts` times: the expired claims, to be finished as `error`.
    pub lost: Vec<ClaimedRun>,
}

/// A run to queue: its pending history row, the containers whose workers
/// may claim it, its parameter set and the activity that records it.
#[derive(Clone, Copy)]
pub struct QueuedRun<'a> {
    pub row: &'a HistoryRow,
    pub containers: &'a [String],
    pub param: Option<&'a ParamSet>,
    pub activity: &'a Activity,
}

#[async_trait]
pub trait RunStore: Send + Sync {
    /// Writes the pending history row, its queue entry (claimable by workers
    /// serving any of `containers`) and `activity` in one transaction.
    async fn enqueue_run(
        &self,
        row: &HistoryRow,
        containers: &[String],
        param: Option<&ParamSet>,
        activity: &Activity,
    ) -> Result<()>;
    /// [`RunStore::enqueue_run`], the run claimed at once by `worker_id`
    /// until `lease_until`, in the same transaction: for a worker of the
    /// trigger's process with a slot free and nothing queued for it.
    async fn enqueue_claimed_run(
        &self,
        queued: QueuedRun<'_>,
        worker_id: &str,
        lease_until: DateTime<Utc>,
    ) -> Result<ClaimedRun>;
    /// Takes the oldest queued run for `container`, leased until `lease_until`.
    async fn claim_run(
        &self,
        container: &str,
        worker_id: &str,
        lease_until: DateTime<Utc>,
    ) -> Result<Option<ClaimedRun>> {
        Ok(self.claim_next_run(container, worker_id, lease_until).await?.map(|next| next.claim))
    }
    /// [`Self::claim_run`], in the same statement telling whether another
    /// run for `container` is still queued.
    async fn claim_next_run(
        &self,
        container: &str,
        worker_id: &str,
        lease_until: DateTime<Utc>,
    ) -> Result<Option<NextRun>>;
    /// Takes the oldest queued run for `container` that fits one of
    /// `nearby` (the organization, and the scrap's URL starts with the
    /// prefix when one is given), among the runs queued at most `window`
    /// after the oldest queued run; `None` when none fits, even if other
    /// runs are queued (the caller then takes the oldest with
    /// [`Self::claim_run`]). So a run waits behind others that fit a warm
    /// page only when they were queued within `window` after it.
    async fn claim_run_near(
        &self,
        container: &str,
        worker_id: &str,
        lease_until: DateTime<Utc>,
        nearby: &[Nearby],
        window: std::time::Duration,
    ) -> Result<Option<ClaimedRun>>;
    /// Writes what [`FinishedRun`] holds in one transaction: the run's row
    /// as stored; `None` (and nothing written) when the claim was lost.
    async fn finish_run(&self, claim: &ClaimedRun, run: &FinishedRun<'_>) -> Result<Option<HistoryRow>>;
    /// Gives a claimed run back to the queue at once, as if this claim had
    /// not been made (its attempt is not counted): for a worker that stops
    /// before the run ends, or could not record it. False when the claim
    /// was lost meanwhile (the run finished, or its lease expired).
    async fn release_run(&self, claim: &ClaimedRun) -> Result<bool>;
    /// The tier that last worked for `host` in `org`, with its run count.
    async fn tier_memory(&self, org: OrgId, host: &str) -> Result<Option<TierMemory>>;
    /// The engine an `auto` scrap of `org` runs on, as last decided.
    async fn engine_memory(&self, org: OrgId, scrap: ScrapId) -> Result<Option<EngineMemory>>;
    /// Replaces what `engine_memory` holds for the scrap; false (nothing
    /// written) when the scrap is not one of `org`'s.
    async fn set_engine_memory(&self, org: OrgId, scrap: ScrapId, memory: &EngineMemory) -> Result<bool>;
    /// Takes the due comparison of an `auto` scrap's engines for one run:
    /// moves `checked_at` to `now` when the memory is still for
    /// `fingerprint` and was last checked at or before `due`. False when
    /// another run took it first (or there is no such memory): of runs
    /// that are due at once, one compares.
    async fn claim_engine_check(
        &self,
        org: OrgId,
        scrap: ScrapId,
        fingerprint: &str,
        due: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<bool>;
    /// Runs whose lease ended before `now`: queued again while they have
    /// been tried fewer than `max_attempts` times; the others are returned
    /// as `lost` claims for the caller to finish (with `finish_run`).
    async fn expire_leases(&self, now: DateTime<Utc>, max_attempts: i64) -> Result<ExpiredLeases>;
    /// Where a pending run of `org` is in the queue: `None` once it has
    /// left the queue (finished) or if it is not one of `org`'s runs.
    async fn queue_state(&self, org: OrgId, history_id: HistoryId) -> Result<Option<QueueState>>;
    /// The newest successful run of a scrap.
    async fn last_success(&self, org: OrgId, scrap: ScrapId) -> Result<Option<HistoryRow>>;
    /// Appends to a scrap's activity log.
    async fn log_activity(&self, activity: &Activity) -> Result<()>;
}

/// The proxy tier a finished run used, as `finish_run` records it.
#[derive(Clone, Debug, PartialEq)]
pub struct TierNote {
    /// 0 for `tier0` (direct): the scrap's `lastTierChangeAt` is stamped
    /// with `at` for any other.
    pub tier: u8,
    /// Remember `tier` for this host (an auto-tier run that was not blocked).
    pub remember: Option<String>,
    pub at: DateTime<Utc>,
    /// What an `auto` scrap's comparison of engines decided, written to
    /// `engine_memory` in the run's transaction (runs that do not compare
    /// write nothing there).
    pub engine: Option<EngineMemory>,
}

/// What `tier_memory` holds for a host.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TierMemory {
    pub tier: u8,
    /// Runs in a row that ended on `tier`.
    pub runs: i64,
}

/// Which engine an `auto` scrap runs on (`engine_memory`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineMemory {
    /// `static` or `puppeteer`.
    pub engine: String,
    /// What the decision was made for (a hash of the scrap's URL and
    /// script): a decision for another script or page does not hold.
    pub fingerprint: String,
    /// When the engines were last compared for it.
    pub checked_at: DateTime<Utc>,
}

/// A scrap whose schedule is due, as the scheduler sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct DueScrap {
    pub scrap: Scrap,
    /// The stored `next_fire_at` (at or before the scheduler's `now`).
    pub due_at: DateTime<Utc>,
    /// Whether a run of the scrap (of any trigger) is queued or running.
    pub run_in_flight: bool,
    /// The organization's compute balance.
    pub balance: i64,
}

/// What to do with one due scrap: decided by the service (`TickPlanner`),
/// written atomically by the store.
#[derive(Clone, Debug, PartialEq)]
pub struct TickPlan {
    /// The scrap's next `next_fire_at` (`None` stops its schedule).
    pub next_fire_at: Option<DateTime<Utc>>,
    /// The tick to record, if any.
    pub tick: Option<PlannedTick>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct PlannedTick {
    pub scheduled_at: DateTime<Utc>,
    pub action: TickAction,
}

/// What the service decided for a tick; the store records it as decided.
#[derive(Clone, Debug, PartialEq)]
pub enum TickAction {
    /// Enqueue `row`.
    Run { row: Box<HistoryRow>, param: Option<ParamSet> },
    /// Run nothing: the previous run of the scrap is still queued or running.
    SkipOverlap,
    /// Run nothing: the organization has no balance left.
    SkipBalance,
    /// Run nothing: the tick was missed (outside the catch-up grace period).
    Missed,
}

impl TickAction {
    /// The outcome recorded when this scheduler is the one to fire the tick.
    pub fn outcome(&self) -> TickOutcome {
        match self {
            TickAction::Run { .. } => TickOutcome::Enqueued,
            TickAction::SkipOverlap => TickOutcome::SkippedOverlap,
            TickAction::SkipBalance => TickOutcome::SkippedBalance,
            TickAction::Missed => TickOutcome::Missed,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TickOutcome {
    Enqueued,
    SkippedOverlap,
    SkippedBalance,
    Missed,
    /// Another scheduler recorded this (scrap, instant) first.
    AlreadyFired,
}

impl TickOutcome {
    pub fn as_str(self) -> &'static str {
        match self {
            TickOutcome::Enqueued => "enqueued",
            TickOutcome::SkippedOverlap => "skipped_overlap",
            TickOutcome::SkippedBalance => "skipped_balance",
            TickOutcome::Missed => "missed",
            TickOutcome::AlreadyFired => "already_fired",
        }
    }
}

/// What the store did with one due scrap.
#[derive(Clone, Debug, PartialEq)]
pub struct FiredTick {
    pub organization_id: OrgId,
    pub scrap_id: ScrapId,
    pub scheduled_at: DateTime<Utc>,
    pub outcome: TickOutcome,
    /// The enqueued run's history row.
    pub history_id: Option<HistoryId>,
}

/// The scheduler's rules, called by the store inside its transaction.
pub trait TickPlanner: Send + Sync {
    fn plan(&self, due: &DueScrap) -> TickPlan;
    /// The activity entry for a tick's outcome (`None`: log nothing).
    fn activity(
        &self,
        scrap: &Scrap,
        tick: &PlannedTick,
        outcome: TickOutcome,
        history: Option<HistoryId>,
    ) -> Option<Activity>;
}

#[async_trait]
pub trait ScheduleStore: Send + Sync {
    /// The smallest `next_fire_at` of all scraps.
    async fn next_due_at(&self) -> Result<Option<DateTime<Utc>>>;
    /// Takes up to `limit` scraps due at or before `now` (rows another
    /// scheduler is handling are skipped, not waited for), and for each, in
    /// one transaction: records the planned tick as a unique (scrap,
    /// instant), enqueues its run or records why not, logs the activity and
    /// moves `next_fire_at`. A tick already recorded is not run again.
    async fn fire_due(&self, now: DateTime<Utc>, limit: i64, planner: &dyn TickPlanner) -> Result<Vec<FiredTick>>;
    /// Forgets tick records written before `before`.
    async fn prune_ticks(&self, before: DateTime<Utc>) -> Result<u64>;
}

/// The chat channels an organization saved. The URL is sealed at rest.
#[async_trait]
pub trait ChannelStore: Send + Sync {
    /// `Conflict("channel")` when the organization has one of that name.
    async fn insert_channel(&self, channel: &SavedChannel) -> Result<()>;
    /// The organization's channels, by name.
    async fn list_channels(&self, org: OrgId) -> Result<Vec<SavedChannel>>;
    async fn channel_named(&self, org: OrgId, name: &str) -> Result<Option<SavedChannel>>;
    async fn channel(&self, org: OrgId, id: ObjectId) -> Result<Option<SavedChannel>>;
    /// False when `org` has no such channel.
    async fn delete_channel(&self, org: OrgId, id: ObjectId) -> Result<bool>;
}

#[async_trait]
pub trait WebhookStore: Send + Sync {
    async fn insert_webhook(&self, webhook: &Webhook) -> Result<()>;
    /// Writes url, events, scrap_ids, active; false when not in `org`.
    async fn update_webhook(&self, org: OrgId, webhook: &Webhook) -> Result<bool>;
    /// Deletes the webhook with its pending deliveries and its log.
    async fn delete_webhook(&self, org: OrgId, id: WebhookId) -> Result<bool>;
    async fn webhook(&self, org: OrgId, id: WebhookId) -> Result<Option<Webhook>>;
    /// Newest first.
    async fn list_webhooks(&self, org: OrgId, offset: i64, limit: i64) -> Result<Page<Webhook>>;
    /// The organization's active webhooks (candidates for an event).
    async fn active_webhooks(&self, org: OrgId) -> Result<Vec<Webhook>>;
    /// A webhook's attempts, newest first.
    async fn list_attempts(
        &self,
        org: OrgId,
        webhook: WebhookId,
        offset: i64,
        limit: i64,
    ) -> Result<Page<DeliveryAttempt>>;
    async fn attempt(&self, org: OrgId, webhook: WebhookId, id: ObjectId) -> Result<Option<DeliveryAttempt>>;
    async fn delivery(&self, org: OrgId, id: ObjectId) -> Result<Option<Delivery>>;
    /// Queues deliveries, due at `due`.
    async fn insert_deliveries(&self, deliveries: &[Delivery], due: DateTime<Utc>) -> Result<()>;
    /// Takes up to `limit` deliveries due at `now` that no dispatcher holds,
    /// holding them until `lease_until`; each with its webhook (`None` if
    /// deleted meanwhile).
    async fn claim_deliveries(
        &self,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
        limit: i64,
    ) -> Result<Vec<(Delivery, Option<Webhook>)>>;
    /// Records an attempt of a claimed delivery (`delivery.attempts` as
    /// claimed): the previous attempt's pending retry becomes `failed`, and
    /// the delivery is due again at `next_attempt_at` or ends. False (and
    /// nothing written) when the claim was lost.
    async fn record_attempt(
        &self,
        delivery: &Delivery,
        attempt: &DeliveryAttempt,
        next_attempt_at: Option<DateTime<Utc>>,
    ) -> Result<bool>;
    /// Ends a claimed delivery whose webhook is inactive or gone: its
    /// pending retry becomes `skipped` (or, before any attempt, `skipped` is
    /// recorded as its first attempt).
    async fn skip_delivery(&self, delivery: &Delivery, skipped: &DeliveryAttempt) -> Result<bool>;
}

/// What the background work has waiting, read at a metrics scrape: counted
/// over the whole database (every organization, every process).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Backlog {
    /// Runs waiting for a worker.
    pub runs_queued: i64,
    /// Runs claimed by a worker (leased).
    pub runs_running: i64,
    /// When the oldest run still waiting for a worker was queued.
    pub oldest_queued_at: Option<DateTime<Utc>>,
    /// Webhook deliveries not finished yet (first attempt due, or a retry).
    pub webhooks_pending: i64,
    /// Of those, the ones that failed at least once (waiting for a retry).
    pub webhooks_retrying: i64,
    /// Emails queued and not sent yet.
    pub emails_queued: i64,
    /// Of those, the ones that failed at least once (waiting for a retry).
    pub emails_retrying: i64,
}

/// The database connection pool, as it is now.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PoolUse {
    /// Connections open (idle or in use).
    pub open: u32,
    /// Open connections not lent out.
    pub idle: u32,
    /// The most the pool opens.
    pub max: u32,
}

/// What operators watch (`GET /metrics`): cross-organization by design,
/// and never given an id a caller chose.
#[async_trait]
pub trait OpsStore: Send + Sync {
    /// The run queue, the webhook outbox and the email outbox, counted.
    async fn backlog(&self) -> Result<Backlog>;
    /// The connection pool's use (no database round-trip).
    fn pool_use(&self) -> PoolUse;
}

/// Rate-limit buckets, shared by every process on the database. A take
/// holds its bucket from the read to the write (a row lock on PostgreSQL,
/// the write transaction on SQLite): concurrent requests for one bucket,
/// from any process, are decided one after the other, each on the state
/// the previous one stored. Before that, `decide` is asked about the state
/// read without the lock, and a refusal there stands: the rules must only
/// ever refuse more as a bucket fills (an allowed request makes it fuller),
/// so that a flood of refused requests costs one read each. `decide` may
/// thus be called twice; the last call is what happened.
#[async_trait]
pub trait RateStore: Send + Sync {
    /// One request to a GCRA bucket: `decide` gets the bucket's `tat` (0
    /// for a bucket never used) and returns the `tat` to store if the
    /// request is allowed, `None` if it is refused (nothing is stored).
    /// Returns whether it was allowed.
    async fn take_rate_tat(&self, bucket: &str, decide: &mut (dyn FnMut(i64) -> Option<i64> + Send)) -> Result<bool>;
    /// One request to a sliding-log bucket: the same, with the bucket's
    /// request times as JSON text (`[]` for a bucket never used).
    async fn take_rate_log(
        &self,
        bucket: &str,
        decide: &mut (dyn for<'s> FnMut(&'s str) -> Option<String> + Send),
    ) -> Result<bool>;
    /// Removes the GCRA buckets whose `tat` is at or before `now_ms` (unix
    /// ms): such a bucket decides like one never used, so nothing is lost,
    /// and buckets keyed by client address or email do not pile up.
    /// Returns how many were removed.
    async fn prune_rate_tats(&self, now_ms: i64) -> Result<u64>;
}

/// How a claimed task ends, and what is written with it in one transaction.
#[derive(Clone, Debug)]
pub struct TaskEnd<'a> {
    /// `Succeeded` or `Failed`.
    pub state: TaskState,
    pub result: Option<serde_json::Value>,
    pub error: Option<String>,
    /// A history row to insert (the wizard's and generation's own row).
    pub row: Option<&'a HistoryRow>,
    /// Compute units deducted from the organization's balance.
    pub units: i64,
    pub activities: &'a [Activity],
    /// AI Fix: a repaired script to make current.
    pub fix: Option<AppliedFix<'a>>,
    /// AI Fix on a scrap with a site login: a repair to propose to its
    /// owner (older pending proposals of the scrap become `superseded`).
    pub proposal: Option<&'a FixProposal>,
}

/// A repaired script made current: written only while the scrap's script
/// is still the one that failed.
#[derive(Clone, Debug)]
pub struct AppliedFix<'a> {
    pub scrap_id: ScrapId,
    /// The script that failed; the scrap's current script must still be it.
    pub replaced: &'a str,
    /// The new version (its `number` is assigned by the store).
    pub version: &'a ScriptVersion,
    /// The failed row, amended with the repaired run's result.
    pub row: &'a HistoryRow,
    /// Webhook deliveries of the amended row.
    pub deliveries: &'a [Delivery],
}

/// What `TaskStore::finish_task` did.
#[derive(Clone, Debug, PartialEq)]
pub enum TaskFinish {
    /// Written; with the stored version when a fix was applied.
    Done { version: Option<ScriptVersion> },
    /// Someone else holds or finished the task: nothing written.
    ClaimLost,
    /// The fix's scrap is gone or its script changed meanwhile: nothing written.
    ScriptChanged,
}

#[async_trait]
pub trait TaskStore: Send + Sync {
    async fn insert_task(&self, task: &Task) -> Result<()>;
    async fn task(&self, org: OrgId, id: ObjectId) -> Result<Option<Task>>;
    /// Claims up to `limit` tasks, oldest first, held until `lease_until`:
    /// queued ones, and running ones whose lease ended before `now` that
    /// were claimed fewer than `max_attempts` times. Running tasks out of
    /// attempts are failed with `lost_error` first. Cross-organization by
    /// design (the task runner).
    async fn claim_tasks(
        &self,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
        max_attempts: i64,
        limit: i64,
        lost_error: &str,
    ) -> Result<Vec<Task>>;
    /// Ends a task claimed as `task` (its `attempts`), with what `end`
    /// writes, in one transaction.
    async fn finish_task(&self, task: &Task, end: &TaskEnd<'_>) -> Result<TaskFinish>;
    /// How many tasks of `kind` `org` has created since `since` (daily limits).
    async fn count_tasks(&self, org: OrgId, kind: TaskKind, since: DateTime<Utc>) -> Result<i64>;
}

#[async_trait]
pub trait VersionStore: Send + Sync {
    /// A scrap's script versions, newest first. (A scrap's versions are
    /// written by `insert_scrap`, by `update_scrap` when the script changed,
    /// by AI Fix and by `restore_version`: the newest is always the current
    /// script.)
    async fn script_versions(&self, org: OrgId, scrap: ScrapId, offset: i64, limit: i64)
    -> Result<Page<ScriptVersion>>;
    async fn script_version(&self, org: OrgId, scrap: ScrapId, id: ObjectId) -> Result<Option<ScriptVersion>>;
    /// Makes version `id` the scrap's script again, as a new `rollback`
    /// version, with `activity`; `None` when the scrap or version does not exist.
    async fn restore_version(
        &self,
        org: OrgId,
        scrap: ScrapId,
        id: ObjectId,
        at: DateTime<Utc>,
        activity: &Activity,
    ) -> Result<Option<ScriptVersion>>;
    /// The scrap's newest version (its current script); `None` for an
    /// unknown scrap.
    async fn current_version(&self, org: OrgId, scrap: ScrapId) -> Result<Option<ScriptVersion>>;
    /// Approves an `ai_fix` version that waits, by `by`, with `activity`;
    /// returns it as stored. `None` when there is no such version or it
    /// does not wait (a person's version, or approved already).
    async fn approve_version(
        &self,
        org: OrgId,
        scrap: ScrapId,
        id: ObjectId,
        decided: &Decided<'_>,
    ) -> Result<Option<ScriptVersion>>;
}

/// Who decided, when, and what the activity log says of it.
#[derive(Clone, Copy, Debug)]
pub struct Decided<'a> {
    pub by: UserId,
    pub at: DateTime<Utc>,
    pub activity: &'a Activity,
}

/// What deciding a proposal did.
#[derive(Clone, Debug, PartialEq)]
pub enum ProposalDecision {
    /// Approved (with the version it made current) or dismissed (`None`).
    Done { version: Option<ScriptVersion> },
    /// It was decided before: nothing written.
    AlreadyDecided(ProposalState),
    /// Approval only: the scrap's script is no longer the one the proposal
    /// repairs. Nothing written.
    ScriptChanged,
}

/// The pages of crawls' runs (`svc_domain::run_page`).
#[async_trait]
pub trait RunPageStore: Send + Sync {
    /// Sets the pages of run `run` of `org` (any written before for it are
    /// replaced), in one transaction.
    async fn replace_run_pages(&self, org: OrgId, run: HistoryId, pages: &[RunPage]) -> Result<()>;
    /// One page of a run's pages, in the run's order.
    async fn run_pages(&self, org: OrgId, run: HistoryId, offset: i64, limit: i64) -> Result<Page<RunPage>>;
}

/// AI Fix's proposed repairs of scraps with a site login.
#[async_trait]
pub trait FixProposalStore: Send + Sync {
    /// A scrap's proposals, newest first: the pending ones, or all.
    async fn fix_proposals(
        &self,
        org: OrgId,
        scrap: ScrapId,
        only_pending: bool,
        limit: i64,
    ) -> Result<Vec<FixProposal>>;
    async fn fix_proposal(&self, org: OrgId, scrap: ScrapId, id: ObjectId) -> Result<Option<FixProposal>>;
    /// In one transaction, while the proposal is pending and the scrap's
    /// script is still its `base_request`: makes its script the scrap's, as
    /// a new `ai_fix` version approved by `decided.by`, and marks it
    /// approved. `None` when there is no such proposal.
    async fn approve_proposal(
        &self,
        org: OrgId,
        scrap: ScrapId,
        id: ObjectId,
        decided: &Decided<'_>,
    ) -> Result<Option<ProposalDecision>>;
    /// Marks a pending proposal dismissed. `None` when there is no such proposal.
    async fn dismiss_proposal(
        &self,
        org: OrgId,
        scrap: ScrapId,
        id: ObjectId,
        decided: &Decided<'_>,
    ) -> Result<Option<ProposalDecision>>;
}

/// Secrets at rest: the key check, sealed settings, the start-up pass over
/// plaintext from before sealing, and the master key rotation. The sealed
/// columns are listed once, in `sql/sealed_columns.rs`.
#[async_trait]
pub trait SecretStore: Send + Sync {
    /// The key check as stored (`None` before the first start with sealing):
    /// a fixed text sealed with the key the database's secrets are sealed
    /// with. Not secret; see `key_check`.
    async fn key_check(&self) -> Result<Option<String>>;
    /// Stores the key check sealed with this store's key unless one is
    /// stored, then makes sure the stored one opens with this store's keys;
    /// else fails with `StoreError::Sealing` naming both key ids (another
    /// process with another key wrote it first).
    async fn init_key_check(&self) -> Result<()>;
    /// Like `AccountStore::setting_or_init` for a secret: `value` is stored
    /// sealed (the plaintext never reaches the database); returns the stored
    /// value opened. A plaintext value from before sealing is returned as it is.
    async fn secret_setting_or_init(&self, key: &str, value: &str) -> Result<String>;
    /// In one transaction, seals every value of the sealed columns and
    /// settings that is still plaintext (stored before sealing existed), and
    /// re-seals with the current key those sealed with a previous key this
    /// store opens (`SVC_SECRET_KEY_PREVIOUS`). Idempotent: a second call
    /// changes nothing. A value that does not open is left as it is and
    /// reported. On SQLite the space the old values held is zeroed and the
    /// write-ahead log truncated, so they do not linger in the files.
    async fn seal_plaintext_secrets(&self) -> Result<SealReport>;
    /// In one transaction, re-seals every sealed value (the sealed columns,
    /// the JWT secret and the key check) with `new_key`, opening with this
    /// store's keys; plaintext left from before sealing is sealed too. Fails,
    /// changing nothing, if any value does not open. This store keeps sealing
    /// with its old key afterwards: open a new one with `new_key`.
    async fn rotate_master_key(&self, new_key: &crate::MasterKey) -> Result<RotationReport>;
}

/// What `SecretStore::seal_plaintext_secrets` did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SealReport {
    /// Plaintext values now sealed.
    pub sealed: u64,
    /// Values sealed with a previous key, now sealed with the current one.
    pub resealed: u64,
    /// Values that do not open with this store's keys (left as they are):
    /// `table.column of id: reason`.
    pub unreadable: Vec<String>,
}

/// What `SecretStore::rotate_master_key` did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RotationReport {
    /// The key id values were sealed with (the store's current key).
    pub from_key: String,
    /// The new key's id.
    pub to_key: String,
    /// Values re-sealed, the key check included.
    pub resealed: u64,
}

/// Scraps' site logins and saved browser sessions (logged-in scraping),
/// one of each per scrap. Every value is sealed at rest (`sealing.rs`):
/// `site_accounts.username_sealed`, `site_accounts.password_sealed`,
/// `site_sessions.session_sealed`. Reads fail with `StoreError::Sealing`
/// when a value cannot be opened with the store's keys.
#[async_trait]
pub trait SiteAccountStore: Send + Sync {
    /// Sets (or replaces) the login of scrap `scrap` of `org` and writes
    /// `activity`, with `forget_session` also deleting its saved session,
    /// in one transaction; false (nothing written) when `org` has no such scrap.
    async fn set_site_account(
        &self,
        org: OrgId,
        scrap: ScrapId,
        account: &SiteAccount,
        at: DateTime<Utc>,
        forget_session: bool,
        activity: &Activity,
    ) -> Result<bool>;
    /// Deletes the login and the saved session, writing `activity`; false
    /// (nothing written) when the scrap has no login.
    async fn delete_site_account(&self, org: OrgId, scrap: ScrapId, activity: &Activity) -> Result<bool>;
    async fn site_account(&self, org: OrgId, scrap: ScrapId) -> Result<Option<StoredAccount>>;
    async fn site_session(&self, org: OrgId, scrap: ScrapId) -> Result<Option<SavedSession>>;
    /// Saves (replacing) the scrap's session; false (nothing written) when
    /// `org` has no such scrap or the scrap has no login (a session is only
    /// kept beside the login it was made with).
    async fn save_site_session(&self, org: OrgId, scrap: ScrapId, session: &SavedSession) -> Result<bool>;
    /// Deletes the saved session, writing `activity`; false (nothing
    /// written) when there was none.
    async fn delete_site_session(&self, org: OrgId, scrap: ScrapId, activity: &Activity) -> Result<bool>;
}

/// A scrap's feed token as the store opened it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredFeedToken {
    pub token: String,
    pub created_at: DateTime<Utc>,
}

/// Scraps' feed tokens (the Atom and RSS feeds of what changed between
/// successful runs), one per scrap: sealed at rest
/// (`scrap_feeds.token_sealed`) and found by their hash
/// (`scrap_feeds.token_hash`, hex SHA-256).
#[async_trait]
pub trait FeedStore: Send + Sync {
    /// The token of scrap `scrap` of `org`. Fails with `StoreError::Sealing`
    /// when it cannot be opened with the store's keys.
    async fn feed_token(&self, org: OrgId, scrap: ScrapId) -> Result<Option<StoredFeedToken>>;
    /// Gives the scrap `token` (whose hash is `token_hash`) unless it has a
    /// token already; false when it had one or `org` has no such scrap.
    async fn insert_feed_token(
        &self,
        org: OrgId,
        scrap: ScrapId,
        token: &str,
        token_hash: &str,
        at: DateTime<Utc>,
    ) -> Result<bool>;
    /// Replaces the scrap's token (the old one stops working) and writes
    /// `activity`, in one transaction; false (nothing written) when `org`
    /// has no such scrap.
    async fn replace_feed_token(
        &self,
        org: OrgId,
        scrap: ScrapId,
        token: &str,
        token_hash: &str,
        at: DateTime<Utc>,
        activity: &Activity,
    ) -> Result<bool>;
    /// Whose feed the token of hash `token_hash` opens: a lookup before
    /// authentication (the token is the credential), across organizations.
    async fn feed_by_token_hash(&self, token_hash: &str) -> Result<Option<(OrgId, ScrapId)>>;
    /// The `success` runs of scrap `scrap` of `org`, newest first (by
    /// creation, then id), at most `limit`, without their data.
    async fn recent_successes(&self, org: OrgId, scrap: ScrapId, limit: i64) -> Result<Vec<RunSummary>>;
}

/// A banner image as stored: svc's re-encoding of what was uploaded or
/// captured, and its media type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BannerImage {
    /// `image/png`, `image/jpeg` or `image/webp`.
    pub content_type: String,
    pub bytes: Vec<u8>,
}

/// A banner being set: its image, the token that finds it and the path
/// the scrap's `banner` will hold, and when.
#[derive(Clone, Copy, Debug)]
pub struct NewBanner<'a> {
    pub token: &'a str,
    pub path: &'a str,
    pub image: &'a BannerImage,
    pub at: DateTime<Utc>,
}

/// Scraps' banner images (`scrap_banners`), in the database so that every
/// node serves them. Each is found by its token, the last segment of the
/// path the scrap's `banner` holds.
#[async_trait]
pub trait BannerStore: Send + Sync {
    /// Makes `banner.image` the banner of scrap `scrap` of `org` under
    /// `banner.token` (replacing its previous image), sets the scrap's
    /// `banner` to `banner.path` and `updated_at` to `banner.at`, and writes
    /// `activity`, in one transaction; false (nothing written) when `org`
    /// has no such scrap.
    async fn set_banner(&self, org: OrgId, scrap: ScrapId, banner: &NewBanner<'_>, activity: &Activity)
    -> Result<bool>;
    /// Deletes the scrap's banner image, empties its `banner` and writes
    /// `activity`, in one transaction; false when `org` has no such scrap.
    async fn remove_banner(&self, org: OrgId, scrap: ScrapId, at: DateTime<Utc>, activity: &Activity) -> Result<bool>;
    /// The image under `token`, while `path` is its scrap's `banner`: a
    /// lookup before authentication (the token is the credential), across
    /// organizations.
    async fn banner_image(&self, token: &str, path: &str) -> Result<Option<BannerImage>>;
}

/// What `MemberStore::set_role` and `MemberStore::remove_member` did.
#[derive(Clone, Debug, PartialEq)]
pub enum MemberChange {
    /// Done; on a removal, the API keys it revoked.
    Done { revoked_keys: Vec<KeyId>, ended_sessions: u64 },
    /// No such member in the organization.
    NotFound,
    /// Refused: it would leave the organization without an owner.
    LastOwner,
}

/// What `MemberStore::accept_invite` did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Joined {
    /// A new member with the invite's role.
    Joined,
    /// Already a member: the role is unchanged, the invite used up.
    AlreadyMember,
    /// The invite was used or withdrawn meanwhile.
    InviteGone,
}

/// Members of organizations (`memberships`) and invitations (`invites`).
/// An organization always keeps an owner: the writes that could take its
/// last one away refuse to, under a lock on the organization's row.
#[async_trait]
pub trait MemberStore: Send + Sync {
    /// The organization's members, owners first, then by joining time.
    async fn members(&self, org: OrgId, offset: i64, limit: i64) -> Result<Page<Member>>;
    async fn member(&self, org: OrgId, user: UserId) -> Result<Option<Member>>;
    /// The user's organizations, the most recently used first.
    async fn memberships(&self, user: UserId) -> Result<Vec<Membership>>;
    /// Marks the membership used now (log-in's default); false when the user
    /// is not a member.
    async fn touch_membership(&self, org: OrgId, user: UserId, at: DateTime<Utc>) -> Result<bool>;
    async fn set_role(&self, org: OrgId, user: UserId, role: Role) -> Result<MemberChange>;
    /// Removes the member, ends their sessions in the organization and
    /// revokes the API keys they created there, in one transaction.
    async fn remove_member(&self, org: OrgId, user: UserId, at: DateTime<Utc>) -> Result<MemberChange>;
    async fn insert_invite(&self, invite: &Invite, token_hash: &str) -> Result<()>;
    /// Pending (unexpired) invites, newest first.
    async fn invites(&self, org: OrgId, now: DateTime<Utc>, offset: i64, limit: i64) -> Result<Page<Invite>>;
    async fn delete_invite(&self, org: OrgId, id: InviteId) -> Result<bool>;
    /// The unexpired invite whose link secret hashes to `token_hash`.
    async fn invite_by_token(&self, token_hash: &str, now: DateTime<Utc>) -> Result<Option<Invite>>;
    /// Whether an unexpired invite names `email` (sign-up by invitation).
    async fn invited(&self, email: &str, now: DateTime<Utc>) -> Result<bool>;
    /// Uses up `invite` and makes `user` a member with its role.
    async fn accept_invite(&self, invite: &Invite, user: UserId, at: DateTime<Utc>) -> Result<Joined>;
}

/// Whether a user had logged in from an address before (`AuditStore::remember_address`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AddressSeen {
    /// The user's first address on record (a sign-up, or the first log-in
    /// after the upgrade): nothing to report.
    First,
    /// Seen before.
    Known,
    /// Not seen before, while others were.
    New,
}

/// The audit log (issue 37, part 2) and the addresses users log in from.
#[async_trait]
pub trait AuditStore: Send + Sync {
    async fn insert_audit(&self, entry: &AuditEntry) -> Result<()>;
    /// Newest first.
    async fn list_audit(&self, org: OrgId, offset: i64, limit: i64) -> Result<Page<AuditEntry>>;
    /// Notes that `user` logged in to `org` from `address` at `at` and says
    /// whether it was new for the user in that organization.
    async fn remember_address(&self, org: OrgId, user: UserId, address: &str, at: DateTime<Utc>)
    -> Result<AddressSeen>;
}

/// Housekeeping (issue 37, part 5): each `prune_*` deletes at most `limit`
/// rows older than `before` that nothing still needs, and returns how many
/// went. Cross-organization by design (the scheduler), except the history.
#[async_trait]
pub trait RetentionStore: Send + Sync {
    /// Audit entries, and remembered log-in addresses last used before `before`.
    async fn prune_audit(&self, before: DateTime<Utc>, limit: i64) -> Result<u64>;
    async fn prune_activities(&self, before: DateTime<Utc>, limit: i64) -> Result<u64>;
    /// Emails sent or failed (never a queued one).
    async fn prune_emails(&self, before: DateTime<Utc>, limit: i64) -> Result<u64>;
    /// Webhook deliveries no longer pending, with their attempts.
    async fn prune_deliveries(&self, before: DateTime<Utc>, limit: i64) -> Result<u64>;
    /// AI tasks that ended (never a queued or running one, nor the task of
    /// a pending fix proposal).
    async fn prune_tasks(&self, before: DateTime<Utc>, limit: i64) -> Result<u64>;
    /// Sliding-log rate buckets last written before `before`.
    async fn prune_rate_logs(&self, before: DateTime<Utc>, limit: i64) -> Result<u64>;
    /// Plan renewal records of weeks starting before `before`.
    async fn prune_renewals(&self, before: DateTime<Utc>, limit: i64) -> Result<u64>;
    /// The organizations with a history age limit (days), in id order after `after`.
    async fn history_limits(&self, after: Option<OrgId>, limit: i64) -> Result<Vec<(OrgId, i64)>>;
    /// `org`'s history rows created before `before`, finished, and not the
    /// newest successful run of their scrap (change detection and feeds
    /// compare with it); their crawl pages go with them.
    async fn prune_history(&self, org: OrgId, before: DateTime<Utc>, limit: i64) -> Result<u64>;
    /// `org`'s history age limit in days (`None`: kept).
    async fn history_retention(&self, org: OrgId) -> Result<Option<i64>>;
    /// False when `org` does not exist.
    async fn set_history_retention(&self, org: OrgId, days: Option<i64>) -> Result<bool>;
}

/// Everything svc stores.
#[async_trait]
pub trait Store:
    AccountStore
    + MemberStore
    + SessionStore
    + ScrapStore
    + KeyStore
    + HistoryStore
    + ActivityStore
    + RunStore
    + ScheduleStore
    + WebhookStore
    + ChannelStore
    + RateStore
    + EmailStore
    + TaskStore
    + VersionStore
    + FixProposalStore
    + RunPageStore
    + SecretStore
    + SiteAccountStore
    + FeedStore
    + BannerStore
    + OpsStore
    + AuditStore
    + RetentionStore
    + RecipientStore
{
    /// `sqlite` or `postgres`.
    fn backend(&self) -> &'static str;
    /// One round trip (`SELECT 1`): whether the database answers now.
    async fn ping(&self) -> crate::Result<()>;
    async fn close(&self);
}

/// A finished run as [`RunStore::finish_run`] writes it: the `row`,
/// `units` deducted from the organization's balance, `activity`, the run's
/// webhook `deliveries` and its `emails` (result and alert mails), both due
/// at once, and the proxy `tier` it used.
#[derive(Clone, Copy, Debug)]
pub struct FinishedRun<'a> {
    pub row: &'a HistoryRow,
    pub units: i64,
    pub activity: &'a Activity,
    pub deliveries: &'a [Delivery],
    pub emails: &'a [Email],
    pub tier: Option<&'a TierNote>,
}

impl<'a> FinishedRun<'a> {
    /// `row`, charged `units`, logged as `activity`, with nothing to
    /// deliver and no tier.
    pub fn new(row: &'a HistoryRow, units: i64, activity: &'a Activity) -> Self {
        FinishedRun { row, units, activity, deliveries: &[], emails: &[], tier: None }
    }
}

/// What [`RecipientStore::ask_recipient`] found.
#[derive(Clone, Debug, PartialEq)]
pub enum Asked {
    /// The address had confirmed already: nothing to send.
    Confirmed,
    /// Pending, with the new link secret stored: the confirmation mail goes now.
    Send,
    /// Pending, recorded without a link (email is off, or a mail went less
    /// than the resend interval ago): nothing to send now.
    Wait(RecipientAddress),
}

/// A confirmation link being mailed: the SHA-256 hex hash of its secret,
/// and the mail that carries it (queued only if the address takes it).
#[derive(Clone, Copy, Debug)]
pub struct ConfirmationLink<'a> {
    pub token_hash: &'a str,
    pub mail: &'a Email,
}

/// Addresses outside an organization's members that its scraps send to
/// (`recipients`), each pending until it confirms. Scoped by organization,
/// except the link's lookup, whose secret is the credential.
#[async_trait]
pub trait RecipientStore: Send + Sync {
    /// The organization's recipients, in address order.
    async fn recipients(&self, org: OrgId) -> Result<Vec<RecipientAddress>>;
    /// Records `email` (pending) unless it is there. With a `link`, a
    /// pending address whose last mail went at or before `resend_before`
    /// (or never) takes the link's secret and `now` as its sending time, and
    /// the link's mail is queued, in one transaction: [`Asked::Send`].
    async fn ask_recipient(
        &self,
        org: OrgId,
        email: &str,
        link: Option<&ConfirmationLink<'_>>,
        now: DateTime<Utc>,
        resend_before: DateTime<Utc>,
    ) -> Result<Asked>;
    /// The address whose current link secret hashes to `token_hash`.
    async fn recipient_by_token(&self, token_hash: &str) -> Result<Option<RecipientAddress>>;
    /// Confirms the address of the link (again: unchanged); `None` for an
    /// unknown or replaced link.
    async fn confirm_recipient(&self, token_hash: &str, now: DateTime<Utc>) -> Result<Option<RecipientAddress>>;
    /// Whether `org` may send to `email`: a member's own address, or a
    /// confirmed recipient of `org`.
    async fn may_receive(&self, org: OrgId, email: &str) -> Result<bool>;
}
