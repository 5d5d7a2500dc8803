//! Row types as both engines return them, and their conversion to domain
//! types. Timestamps are unix milliseconds, JSON values are text.

use chrono::{DateTime, TimeZone, Utc};
use serde_json::Value;
use svc_domain::account::{Organization, User};
use svc_domain::activity::Activity;
use svc_domain::api_key::ApiKey;
use svc_domain::history::{HistoryRow, RunSummary, RunType, StatusDetail, TriggeredBy};
use svc_domain::scope::Scope;
use svc_domain::scrap::{EmailFormat, Scrap};
use svc_domain::{HistoryId, TypedId};

use crate::StoreError;
use crate::usage_records::{read_costs, read_meter};

pub(crate) fn millis(t: DateTime<Utc>) -> i64 {
    t.timestamp_millis()
}

pub(crate) fn opt_millis(t: Option<DateTime<Utc>>) -> Option<i64> {
    t.map(millis)
}

pub(crate) fn time(ms: i64) -> Result<DateTime<Utc>, StoreError> {
    Utc.timestamp_millis_opt(ms).single().ok_or_else(|| StoreError::Corrupt(format!("timestamp {ms}")))
}

pub(crate) fn opt_time(ms: Option<i64>) -> Result<Option<DateTime<Utc>>, StoreError> {
    ms.map(time).transpose()
}

/// A stored id, of whichever id type the column holds.
/// A stored role.
pub(crate) fn role(s: &str) -> Result<svc_domain::member::Role, StoreError> {
    s.parse().map_err(|()| StoreError::Corrupt(format!("unknown role {s:?}")))
}

pub(crate) fn id<T: TypedId>(s: &str) -> Result<T, StoreError> {
    T::parse_id(s).ok_or_else(|| StoreError::Corrupt(format!("id `{s}`")))
}

pub(crate) fn json<T: serde::de::DeserializeOwned>(s: &str) -> Result<T, StoreError> {
    serde_json::from_str(s).map_err(|e| StoreError::Corrupt(format!("json `{s}`: {e}")))
}

fn opt_json(s: Option<String>) -> Result<Option<Value>, StoreError> {
    s.as_deref().map(json).transpose()
}

pub(crate) fn to_json<T: serde::Serialize + ?Sized>(v: &T) -> String {
    serde_json::to_string(v).expect("plain data serializes")
}

pub(crate) fn ids_json<T: std::fmt::Display>(ids: &[T]) -> String {
    to_json(&ids.iter().map(ToString::to_string).collect::<Vec<_>>())
}

pub(crate) fn parse_ids<T: TypedId>(s: &str) -> Result<Vec<T>, StoreError> {
    json::<Vec<String>>(s)?.iter().map(|s| id(s)).collect()
}

crate::from_row::from_row! {
pub(crate) struct OrganizationRecord {
    id: String,
    name: String,
    plan: String,
    balance: i64,
    default_containers: String,
    created_at: i64,
}
}

impl TryFrom<OrganizationRecord> for Organization {
    type Error = StoreError;
    fn try_from(r: OrganizationRecord) -> Result<Self, StoreError> {
        Ok(Organization {
            id: id(&r.id)?,
            name: r.name,
            plan: r.plan.parse().map_err(StoreError::Corrupt)?,
            balance: r.balance,
            default_containers: json(&r.default_containers)?,
            created_at: time(r.created_at)?,
        })
    }
}

crate::from_row::from_row! {
pub(crate) struct UserRecord {
    id: String,
    organization_id: String,
    email: String,
    name: String,
    is_admin: bool,
    created_at: i64,
}
}

impl TryFrom<UserRecord> for User {
    type Error = StoreError;
    fn try_from(r: UserRecord) -> Result<Self, StoreError> {
        Ok(User {
            id: id(&r.id)?,
            organization_id: id(&r.organization_id)?,
            email: r.email,
            name: r.name,
            is_admin: r.is_admin,
            created_at: time(r.created_at)?,
        })
    }
}

crate::from_row::from_row! {
pub(crate) struct ScrapRecord {
    id: String,
    organization_id: String,
    user_id: String,
    title: String,
    description: String,
    url: String,
    request: String,
    scrapper: String,
    containers: String,
    params: String,
    cron: Option<String>,
    cron_timezone: String,
    alert: Option<String>,
    auto_fix: bool,
    proxy_tier: Option<String>,
    last_tier_change_at: Option<i64>,
    email_notif: bool,
    email_notif_recipient: Option<String>,
    email_notif_format: String,
    digest_enabled: bool,
    digest_prompt: Option<String>,
    digest_recipient: Option<String>,
    banner: String,
    created_at: i64,
    updated_at: i64,
    history_ids: String,
    next_fire_at: Option<i64>,
}
}

crate::from_row::from_row! {
/// A scrap's read with what its run needs besides (`sql::scraps`).
pub(crate) struct RunScrapRecord {
    #[flatten]
    scrap: ScrapRecord,
    has_login: bool,
    awaits_approval: bool,
    has_webhooks: bool,
    last_success_length: Option<i64>,
    org_balance: i64,
    org_plan: String,
}
}

impl TryFrom<RunScrapRecord> for crate::RunScrap {
    type Error = StoreError;
    fn try_from(r: RunScrapRecord) -> Result<Self, StoreError> {
        Ok(crate::RunScrap {
            scrap: Scrap::try_from(r.scrap)?,
            has_login: r.has_login,
            awaits_approval: r.awaits_approval,
            has_webhooks: r.has_webhooks,
            last_success_length: r.last_success_length,
            balance: r.org_balance,
            plan: r.org_plan.parse().map_err(StoreError::Corrupt)?,
        })
    }
}

impl TryFrom<ScrapRecord> for Scrap {
    type Error = StoreError;
    fn try_from(r: ScrapRecord) -> Result<Self, StoreError> {
        let history = r.history_ids.split(',').filter(|s| !s.is_empty()).map(id).collect::<Result<_, _>>()?;
        r.into_scrap(history)
    }
}

impl ScrapRecord {
    fn into_scrap(self, history: Vec<HistoryId>) -> Result<Scrap, StoreError> {
        Ok(Scrap {
            id: id(&self.id)?,
            organization_id: id(&self.organization_id)?,
            user_id: id(&self.user_id)?,
            title: self.title,
            description: self.description,
            url: self.url,
            request: self.request,
            scrapper: self.scrapper,
            containers: json(&self.containers)?,
            params: json(&self.params)?,
            history,
            cron: self.cron,
            cron_timezone: self.cron_timezone,
            alert: self.alert,
            auto_fix: self.auto_fix,
            proxy_tier: self.proxy_tier,
            last_tier_change_at: opt_time(self.last_tier_change_at)?,
            email_notif: self.email_notif,
            email_notif_recipient: self.email_notif_recipient,
            email_notif_format: EmailFormat::parse(&self.email_notif_format)
                .ok_or_else(|| StoreError::Corrupt(format!("email format `{}`", self.email_notif_format)))?,
            digest_enabled: self.digest_enabled,
            digest_prompt: self.digest_prompt,
            digest_recipient: self.digest_recipient,
            banner: self.banner,
            created_at: time(self.created_at)?,
            updated_at: time(self.updated_at)?,
            next_fire_at: opt_time(self.next_fire_at)?,
        })
    }
}

crate::from_row::from_row! {
pub(crate) struct HistoryRecord {
    id: String,
    organization_id: String,
    scrap_id: Option<String>,
    status_detail: Option<String>,
    data: String,
    length: i64,
    time_ms: Option<i64>,
    digest: Option<String>,
    triggered_by: String,
    run_type: String,
    proxy_tier: String,
    costs: Option<String>,
    meter: Option<String>,
    fix_version_id: Option<String>,
    fixed_at: Option<i64>,
    error_snapshot: Option<String>,
    retries: i64,
    error: Option<String>,
    created_at: i64,
    finished_at: Option<i64>,
}
}

impl TryFrom<HistoryRecord> for HistoryRow {
    type Error = StoreError;
    fn try_from(r: HistoryRecord) -> Result<Self, StoreError> {
        let corrupt = |what: &str, v: &str| StoreError::Corrupt(format!("{what} `{v}`"));
        Ok(HistoryRow {
            id: id(&r.id)?,
            scrap_id: r.scrap_id.as_deref().map(id).transpose()?,
            organization_id: id(&r.organization_id)?,
            status_detail: status_detail(r.status_detail.as_deref())?,
            data: r.data,
            length: r.length,
            time_ms: r.time_ms,
            digest: r.digest,
            triggered_by: triggered_by(&r.triggered_by)?,
            run_type: RunType::parse(&r.run_type).ok_or_else(|| corrupt("run type", &r.run_type))?,
            proxy_tier: r.proxy_tier,
            costs: read_costs(r.costs)?,
            meter: read_meter(r.meter)?,
            fix_version_id: r.fix_version_id,
            fixed_at: opt_time(r.fixed_at)?,
            error_snapshot: opt_json(r.error_snapshot)?,
            retries: r.retries,
            error: r.error,
            created_at: time(r.created_at)?,
            finished_at: opt_time(r.finished_at)?,
        })
    }
}

fn status_detail(s: Option<&str>) -> Result<Option<StatusDetail>, StoreError> {
    s.map(|s| StatusDetail::parse(s).ok_or_else(|| StoreError::Corrupt(format!("status detail `{s}`")))).transpose()
}

fn triggered_by(s: &str) -> Result<TriggeredBy, StoreError> {
    TriggeredBy::parse(s).ok_or_else(|| StoreError::Corrupt(format!("trigger `{s}`")))
}

crate::from_row::from_row! {
pub(crate) struct RunSummaryRecord {
    id: String,
    scrap_id: String,
    status_detail: Option<String>,
    length: i64,
    time_ms: Option<i64>,
    triggered_by: String,
    created_at: i64,
    finished_at: Option<i64>,
}
}

impl TryFrom<RunSummaryRecord> for RunSummary {
    type Error = StoreError;
    fn try_from(r: RunSummaryRecord) -> Result<Self, StoreError> {
        Ok(RunSummary {
            id: id(&r.id)?,
            scrap_id: id(&r.scrap_id)?,
            status_detail: status_detail(r.status_detail.as_deref())?,
            length: r.length,
            time_ms: r.time_ms,
            triggered_by: triggered_by(&r.triggered_by)?,
            created_at: time(r.created_at)?,
            finished_at: opt_time(r.finished_at)?,
        })
    }
}

crate::from_row::from_row! {
pub(crate) struct KeyRecord {
    id: String,
    organization_id: String,
    user_id: String,
    name: String,
    prefix: String,
    scopes: String,
    scrap_ids: String,
    expires_at: Option<i64>,
    created_at: i64,
    revoked_at: Option<i64>,
}
}

impl TryFrom<KeyRecord> for ApiKey {
    type Error = StoreError;
    fn try_from(r: KeyRecord) -> Result<Self, StoreError> {
        let scopes = json::<Vec<String>>(&r.scopes)?
            .iter()
            .map(|s| s.parse::<Scope>().map_err(|()| StoreError::Corrupt(format!("scope `{s}`"))))
            .collect::<Result<_, _>>()?;
        Ok(ApiKey {
            id: id(&r.id)?,
            organization_id: id(&r.organization_id)?,
            user_id: id(&r.user_id)?,
            name: r.name,
            prefix: r.prefix,
            scopes,
            scrap_ids: parse_ids(&r.scrap_ids)?,
            expires_at: opt_time(r.expires_at)?,
            created_at: time(r.created_at)?,
            revoked_at: opt_time(r.revoked_at)?,
        })
    }
}

crate::from_row::from_row! {
pub(crate) struct KeyOwnerRecord {
    #[flatten]
    pub(crate) key: KeyRecord,
    pub(crate) owner_is_admin: bool,
    pub(crate) owner_role: String,
}
}

crate::from_row::from_row! {
pub(crate) struct ActivityRecord {
    id: String,
    organization_id: String,
    scrap_id: String,
    kind: String,
    actor: String,
    message: String,
    history_id: Option<String>,
    created_at: i64,
}
}

impl TryFrom<ActivityRecord> for Activity {
    type Error = StoreError;
    fn try_from(r: ActivityRecord) -> Result<Self, StoreError> {
        Ok(Activity {
            id: id(&r.id)?,
            organization_id: id(&r.organization_id)?,
            scrap_id: id(&r.scrap_id)?,
            kind: r.kind,
            actor: r.actor,
            message: r.message,
            history_id: r.history_id.as_deref().map(id).transpose()?,
            created_at: time(r.created_at)?,
        })
    }
}

pub(crate) fn scopes_json(scopes: &[Scope]) -> String {
    to_json(&scopes.iter().map(|s| s.as_str()).collect::<Vec<_>>())
}

/// What `search` matches: title, description and url, lowercased with
/// Unicode rules (SQLite's own LOWER only folds ASCII).
pub(crate) fn search_text(s: &Scrap) -> String {
    format!("{}\n{}\n{}", s.title, s.description, s.url).to_lowercase()
}

/// Escapes `%`, `_` and `\` for a `LIKE ... ESCAPE '\'` pattern.
pub(crate) fn escape_like(text: &str) -> String {
    let mut p = String::with_capacity(text.len() + 2);
    for c in text.chars() {
        if matches!(c, '%' | '_' | '\\') {
            p.push('\\');
        }
        p.push(c);
    }
    p
}

/// A lowercased substring pattern for `search`.
pub(crate) fn like_pattern(search: &str) -> String {
    format!("%{}%", escape_like(&search.to_lowercase()))
}

crate::from_row::from_row! {
pub(crate) struct UserWithHashRecord {
    #[flatten]
    pub(crate) user: UserRecord,
    pub(crate) password_hash: String,
}
}

crate::from_row::from_row! {
pub(crate) struct ClaimRecord {
    pub(crate) history_id: String,
    pub(crate) organization_id: String,
    pub(crate) scrap_id: String,
    pub(crate) param: Option<String>,
    pub(crate) attempts: i64,
    pub(crate) enqueued_at: i64,
    /// From the run's history row (a subquery: NULL when it is gone).
    pub(crate) triggered_by: Option<String>,
    /// The scrap's URL (a subquery: NULL when the scrap is gone).
    pub(crate) url: Option<String>,
    /// The scrap's engine (a subquery, as `url`).
    pub(crate) scrapper: Option<String>,
}
}

impl ClaimRecord {
    pub(crate) fn into_claim(self, worker_id: &str) -> Result<crate::ClaimedRun, StoreError> {
        Ok(crate::ClaimedRun {
            history_id: id(&self.history_id)?,
            organization_id: id(&self.organization_id)?,
            scrap_id: id(&self.scrap_id)?,
            param: self.param.as_deref().map(json).transpose()?,
            attempts: self.attempts,
            worker_id: worker_id.to_string(),
            triggered_by: self.triggered_by.as_deref().map(triggered_by).transpose()?,
            enqueued_at: time(self.enqueued_at)?,
            url: self.url,
            scrapper: self.scrapper,
        })
    }
}

crate::from_row::from_row! {
/// A claim and whether another run is queued after it (`claim_next_run`).
pub(crate) struct NextRunRecord {
    #[flatten]
    pub(crate) claim: ClaimRecord,
    pub(crate) more_queued: bool,
}
}

crate::from_row::from_row! {
/// An expired claim, with the worker that held it (`expire_leases`).
pub(crate) struct LostClaimRecord {
    #[flatten]
    pub(crate) claim: ClaimRecord,
    pub(crate) worker_id: Option<String>,
}
}
