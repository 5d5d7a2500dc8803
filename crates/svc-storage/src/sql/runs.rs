//! The run queue: enqueue, claim under a lease, finish, expire leases.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use const_format::concatcp;
use sqlx::{AssertSqlSafe, ColumnIndex, Decode, Encode, Executor, FromRow, QueryBuilder, Type};
use svc_domain::activity::Activity;
use svc_domain::history::HistoryRow;
use svc_domain::scrap::ParamSet;
use svc_domain::{HistoryId, OrgId, ScrapId};

use super::batch::Batch;
use super::shared::conflict_on_unique;
use super::{Dialect, RowsAffected, SqlStore, WriteTx, columns};
use crate::records::{
    ClaimRecord, HistoryRecord, LostClaimRecord, NextRunRecord, escape_like, id, millis, opt_millis, time, to_json,
};
use crate::traits::{
    ClaimedRun, EngineMemory, ExpiredLeases, FinishedRun, Nearby, NextRun, QueueState, QueuedRun, RunStore, TierMemory,
    TierNote,
};
use crate::usage_records::{costs_json, meter_json};
use crate::{Result, StoreError};

/// A queueing that failed on a unique key: the history row's id was taken.
fn history_row_conflict(e: StoreError) -> StoreError {
    match e {
        StoreError::Database(e) => conflict_on_unique(e, "history row"),
        other => other,
    }
}

/// Whether a row's `containers` (`,a,b,`) include the container `$3`,
/// escaped for `LIKE` (`escape_like`). The pattern is built in SQL,
/// not bound whole: SQLite compiles a statement with `column LIKE ?` for
/// the value bound when it was prepared and prepares it again at every
/// new binding, so each claim parsed and planned its statement afresh
/// (3 % of the CPU of a static run end to end, docs/benchmarks.md).
const IN_CONTAINER: &str = "containers LIKE ('%,' || $3 || ',%') ESCAPE '\\'";

/// Takes the oldest queued run in container `$3` ([`IN_CONTAINER`]), for
/// worker `$1` until `$2`; [`Dialect::LOCK_DUE`] ends the subquery, then
/// [`CLAIMED`] follows. One statement: on SQLite, under its single writer,
/// claims cannot collide.
const CLAIM_NEXT_RUN: &str = concatcp!(
    "UPDATE run_queue SET state = 'running', worker_id = $1, lease_until = $2, \
     attempts = attempts + 1 WHERE history_id = (SELECT history_id FROM run_queue \
     WHERE state = 'queued' AND ",
    IN_CONTAINER,
    " ORDER BY enqueued_at, history_id LIMIT 1"
);

/// The columns of a `ClaimRecord` from a `run_queue` row, the run's trigger
/// read from its history row and its scrap's URL and engine from the scrap
/// in the same statement.
const CLAIM_COLUMNS: &str = "history_id, organization_id, scrap_id, param, attempts, enqueued_at, \
                             (SELECT h.triggered_by FROM history h WHERE h.organization_id = run_queue.organization_id \
                             AND h.id = run_queue.history_id) AS triggered_by, \
                             (SELECT s.url FROM scraps s WHERE s.organization_id = run_queue.organization_id \
                             AND s.id = run_queue.scrap_id) AS url, \
                             (SELECT s.scrapper FROM scraps s WHERE s.organization_id = run_queue.organization_id \
                             AND s.id = run_queue.scrap_id) AS scrapper";

/// The end of [`CLAIM_NEXT_RUN`]: the columns of a `ClaimRecord`.
const CLAIMED: &str = concatcp!(") RETURNING ", CLAIM_COLUMNS);

/// After [`CLAIMED`]: whether another run for the container (`$3`) is still
/// queued. The claimed row is left out by its id, whichever state the
/// subquery sees it in.
const MORE_QUEUED: &str = concatcp!(
    ", EXISTS (SELECT 1 FROM run_queue q WHERE q.state = 'queued' AND q.",
    IN_CONTAINER,
    " AND q.history_id <> run_queue.history_id) AS more_queued"
);

#[async_trait]
impl<DB: Dialect> RunStore for SqlStore<DB>
where
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> &'q str: Encode<'q, DB> + ColumnIndex<DB::Row>,
    for<'q> Option<&'q str>: Encode<'q, DB>,
    for<'q> String: Encode<'q, DB> + Decode<'q, DB> + Type<DB>,
    for<'q> Option<String>: Encode<'q, DB>,
    for<'q> i64: Encode<'q, DB> + Decode<'q, DB> + Type<DB>,
    for<'q> Option<i64>: Encode<'q, DB>,
    for<'q> bool: Encode<'q, DB> + Decode<'q, DB> + Type<DB>,
    str: Type<DB>,
    usize: ColumnIndex<DB::Row>,
{
    async fn enqueue_run(
        &self,
        row: &HistoryRow,
        containers: &[String],
        param: Option<&ParamSet>,
        activity: &Activity,
    ) -> Result<()> {
        // One round trip on SQLite, `BEGIN` and `COMMIT` included (`batch.rs`).
        let queued = QueuedRun { row, containers, param, activity };
        Self::enqueue_batch(queued).commit(&self.writers).await.map_err(history_row_conflict)
    }

    async fn enqueue_claimed_run(
        &self,
        queued: QueuedRun<'_>,
        worker_id: &str,
        lease_until: DateTime<Utc>,
    ) -> Result<ClaimedRun> {
        let row = queued.row;
        // The enqueue's batch, then the claim of that entry (as a worker's
        // claim takes it), all in one round trip on SQLite.
        let mut batch = Self::enqueue_batch(queued);
        batch
            .statement()
            .push("UPDATE run_queue SET state = 'running', worker_id = ")
            .push_bind(worker_id.to_string())
            .push(", lease_until = ")
            .push_bind(millis(lease_until))
            .push(", attempts = attempts + 1 WHERE history_id = ")
            .push_bind(row.id.to_string())
            .push(concatcp!(" RETURNING ", CLAIM_COLUMNS));
        let rows = batch.commit_returning(&self.writers).await.map_err(history_row_conflict)?;
        match rows.as_deref() {
            Some([claimed]) => ClaimRecord::from_row(claimed)?.into_claim(worker_id),
            _ => Err(StoreError::Corrupt(format!("claiming run {} as it was queued answered no row", row.id))),
        }
    }

    async fn claim_next_run(
        &self,
        container: &str,
        worker_id: &str,
        lease_until: DateTime<Utc>,
    ) -> Result<Option<NextRun>> {
        let row: Option<NextRunRecord> =
            sqlx::query_as(AssertSqlSafe(format!("{CLAIM_NEXT_RUN}{}{CLAIMED}{MORE_QUEUED}", DB::LOCK_DUE)))
                .bind(worker_id)
                .bind(millis(lease_until))
                .bind(escape_like(container))
                .fetch_optional(&mut *self.writer().await?)
                .await?;
        row.map(|r| Ok(NextRun { claim: r.claim.into_claim(worker_id)?, more_queued: r.more_queued })).transpose()
    }

    async fn claim_run_near(
        &self,
        container: &str,
        worker_id: &str,
        lease_until: DateTime<Utc>,
        nearby: &[Nearby],
        window: std::time::Duration,
    ) -> Result<Option<ClaimedRun>> {
        if nearby.is_empty() {
            return Ok(None);
        }
        // $1 worker, $2 lease, $3 container ([`IN_CONTAINER`]), $4 window
        // (ms), then per nearby entry its organization and, when set, its
        // URL prefix escaped for `LIKE` (made a pattern in SQL, as `$3`).
        let mut fits = Vec::new();
        let mut n = 4;
        for near in nearby {
            n += 1;
            let mut clause = format!("(organization_id = ${n}");
            if near.url_prefix.is_some() {
                n += 1;
                clause.push_str(&format!(
                    " AND scrap_id IN (SELECT id FROM scraps WHERE organization_id = ${} AND url LIKE (${n} || '%') ESCAPE '\\')",
                    n - 1
                ));
            }
            clause.push(')');
            fits.push(clause);
        }
        let sql = format!(
            "UPDATE run_queue SET state = 'running', worker_id = $1, lease_until = $2, attempts = attempts + 1 \
             WHERE history_id = (SELECT history_id FROM run_queue \
             WHERE state = 'queued' AND {IN_CONTAINER} \
             AND enqueued_at <= (SELECT MIN(enqueued_at) FROM run_queue WHERE state = 'queued' \
             AND {IN_CONTAINER}) + $4 AND ({}) \
             ORDER BY enqueued_at, history_id LIMIT 1{}{CLAIMED}",
            fits.join(" OR "),
            DB::LOCK_DUE
        );
        let mut query = sqlx::query_as::<_, ClaimRecord>(AssertSqlSafe(sql))
            .bind(worker_id)
            .bind(millis(lease_until))
            .bind(escape_like(container))
            .bind(window.as_millis() as i64);
        for near in nearby {
            query = query.bind(near.organization.to_string());
            if let Some(prefix) = &near.url_prefix {
                query = query.bind(escape_like(prefix));
            }
        }
        let row: Option<ClaimRecord> = query.fetch_optional(&mut *self.writer().await?).await?;
        row.map(|r| r.into_claim(worker_id)).transpose()
    }

    async fn finish_run(&self, claim: &ClaimedRun, run: &FinishedRun<'_>) -> Result<Option<HistoryRow>> {
        let FinishedRun { row: h, units, activity, deliveries, emails, tier } = *run;
        // One round trip on SQLite, `BEGIN` and `COMMIT` included (`batch.rs`);
        // a claim that lost its lease changes no queue row, and its guard
        // stops the batch, which is rolled back. Emails (attachments of
        // megabytes) are written one by one in a transaction around the batch.
        let mut batch = if emails.is_empty() { Batch::transaction() } else { Batch::new() };
        batch
            .statement()
            .push("DELETE FROM run_queue WHERE history_id = ")
            .push_bind(claim.history_id.to_string())
            .push(" AND worker_id = ")
            .push_bind(&claim.worker_id)
            .push(" AND attempts = ")
            .push_bind(claim.attempts);
        batch.guard();
        batch
            .statement()
            .push("UPDATE history SET status_detail = ")
            .push_bind(h.status_detail.map(|d| d.as_str()))
            .push(", data = ")
            .push_bind(&h.data)
            .push(", length = ")
            .push_bind(h.length)
            .push(", time_ms = ")
            .push_bind(h.time_ms)
            .push(", proxy_tier = ")
            .push_bind(&h.proxy_tier)
            .push(", costs = ")
            .push_bind(h.costs.as_ref().map(costs_json))
            .push(", meter = ")
            .push_bind(h.meter.as_ref().map(meter_json))
            .push(", error_snapshot = ")
            .push_bind(h.error_snapshot.as_ref().map(to_json))
            .push(", retries = ")
            .push_bind(h.retries)
            .push(", error = ")
            .push_bind(&h.error)
            .push(", finished_at = ")
            .push_bind(opt_millis(h.finished_at))
            .push(", digest = ")
            .push_bind(&h.digest)
            .push(" WHERE organization_id = ")
            .push_bind(claim.organization_id.to_string())
            .push(" AND id = ")
            .push_bind(claim.history_id.to_string())
            .push(concatcp!(" RETURNING ", columns::HISTORY));
        batch
            .statement()
            .push("UPDATE organizations SET balance = balance - ")
            .push_bind(units)
            .push(" WHERE id = ")
            .push_bind(claim.organization_id.to_string());
        Self::push_activities(batch.statement(), &[activity]);
        if let Some(note) = tier {
            Self::push_tier_note(&mut batch, claim, note);
        }
        let due = h.finished_at.unwrap_or_else(Utc::now);
        if !deliveries.is_empty() {
            Self::push_delivery_rows(batch.statement(), deliveries, due);
        }
        let rows = if emails.is_empty() {
            batch.commit_returning(&self.writers).await?
        } else {
            let mut tx = self.begin_write().await?;
            let rows = batch.run(&mut tx).await?;
            if rows.is_some() {
                Self::insert_email_rows(&mut tx, emails, due).await?;
                tx.commit().await?;
            }
            rows
        };
        let Some(rows) = rows else {
            return Ok(None);
        };
        let [stored] = rows.as_slice() else {
            return Err(StoreError::Corrupt(format!(
                "finishing run {} returned {} rows",
                claim.history_id,
                rows.len()
            )));
        };
        Ok(Some(HistoryRow::try_from(HistoryRecord::from_row(stored)?)?))
    }

    async fn release_run(&self, claim: &ClaimedRun) -> Result<bool> {
        let released = sqlx::query(
            "UPDATE run_queue SET state = 'queued', worker_id = NULL, lease_until = NULL, attempts = attempts - 1 \
             WHERE history_id = $1 AND state = 'running' AND worker_id = $2 AND attempts = $3",
        )
        .bind(claim.history_id.to_string())
        .bind(&claim.worker_id)
        .bind(claim.attempts)
        .execute(&mut *self.writer().await?)
        .await?;
        Ok(released.rows_affected() == 1)
    }

    async fn expire_leases(&self, now: DateTime<Utc>, max_attempts: i64) -> Result<ExpiredLeases> {
        let mut tx = self.begin_write().await?;
        let requeued: Vec<(String, String)> = sqlx::query_as(
            "UPDATE run_queue SET state = 'queued', worker_id = NULL, lease_until = NULL \
             WHERE state = 'running' AND lease_until < $1 AND attempts < $2 RETURNING history_id, organization_id",
        )
        .bind(millis(now))
        .bind(max_attempts)
        .fetch_all(&mut *tx)
        .await?;
        let mut out = ExpiredLeases::default();
        for (history, org) in requeued {
            sqlx::query("UPDATE history SET retries = retries + 1 WHERE organization_id = $1 AND id = $2")
                .bind(&org)
                .bind(&history)
                .execute(&mut *tx)
                .await?;
            out.requeued.push(id(&history)?);
        }
        let lost: Vec<LostClaimRecord> = sqlx::query_as(concatcp!(
            "SELECT ",
            CLAIM_COLUMNS,
            ", worker_id FROM run_queue WHERE state = 'running' AND lease_until < $1 AND attempts >= $2"
        ))
        .bind(millis(now))
        .bind(max_attempts)
        .fetch_all(&mut *tx)
        .await?;
        for record in lost {
            out.lost.push(record.claim.into_claim(record.worker_id.as_deref().unwrap_or_default())?);
        }
        tx.commit().await?;
        Ok(out)
    }

    async fn queue_state(&self, org: OrgId, history_id: HistoryId) -> Result<Option<QueueState>> {
        let state: Option<(String,)> =
            sqlx::query_as("SELECT state FROM run_queue WHERE organization_id = $1 AND history_id = $2")
                .bind(org.to_string())
                .bind(history_id.to_string())
                .fetch_optional(&mut *self.writer().await?)
                .await?;
        Ok(state.map(|(s,)| if s == "running" { QueueState::Running } else { QueueState::Queued }))
    }

    async fn last_success(&self, org: OrgId, scrap: ScrapId) -> Result<Option<HistoryRow>> {
        let row: Option<HistoryRecord> = sqlx::query_as(concatcp!(
            "SELECT ",
            columns::HISTORY,
            " FROM history WHERE organization_id = $1 AND scrap_id = $2 AND status_detail = 'success' \
             ORDER BY created_at DESC, id DESC LIMIT 1"
        ))
        .bind(org.to_string())
        .bind(scrap.to_string())
        .fetch_optional(&mut *self.writer().await?)
        .await?;
        row.map(HistoryRow::try_from).transpose()
    }

    async fn log_activity(&self, activity: &Activity) -> Result<()> {
        let mut tx = self.begin_write().await?;
        Self::insert_activity(&mut tx, activity).await?;
        tx.commit().await?;
        Ok(())
    }

    async fn tier_memory(&self, org: OrgId, host: &str) -> Result<Option<TierMemory>> {
        let row: Option<(i64, i64)> =
            sqlx::query_as("SELECT tier, runs FROM tier_memory WHERE organization_id = $1 AND host = $2")
                .bind(org.to_string())
                .bind(host)
                .fetch_optional(&mut *self.writer().await?)
                .await?;
        Ok(row.map(|(tier, runs)| TierMemory { tier: tier.clamp(0, 4) as u8, runs }))
    }

    async fn engine_memory(&self, org: OrgId, scrap: ScrapId) -> Result<Option<EngineMemory>> {
        let row: Option<(String, String, i64)> = sqlx::query_as(
            "SELECT engine, fingerprint, checked_at FROM engine_memory WHERE organization_id = $1 AND scrap_id = $2",
        )
        .bind(org.to_string())
        .bind(scrap.to_string())
        .fetch_optional(&mut *self.writer().await?)
        .await?;
        row.map(|(engine, fingerprint, checked_at)| {
            Ok(EngineMemory { engine, fingerprint, checked_at: time(checked_at)? })
        })
        .transpose()
    }

    async fn set_engine_memory(&self, org: OrgId, scrap: ScrapId, memory: &EngineMemory) -> Result<bool> {
        let mut tx = self.begin_write().await?;
        let exists: Option<(String,)> = sqlx::query_as("SELECT id FROM scraps WHERE organization_id = $1 AND id = $2")
            .bind(org.to_string())
            .bind(scrap.to_string())
            .fetch_optional(&mut *tx)
            .await?;
        if exists.is_none() {
            return Ok(false);
        }
        Self::write_engine_memory(&mut tx, org, scrap, memory).await?;
        tx.commit().await?;
        Ok(true)
    }

    async fn claim_engine_check(
        &self,
        org: OrgId,
        scrap: ScrapId,
        fingerprint: &str,
        due: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<bool> {
        let taken = sqlx::query(
            "UPDATE engine_memory SET checked_at = $5 \
             WHERE organization_id = $1 AND scrap_id = $2 AND fingerprint = $3 AND checked_at <= $4",
        )
        .bind(org.to_string())
        .bind(scrap.to_string())
        .bind(fingerprint)
        .bind(millis(due))
        .bind(millis(now))
        .execute(&mut *self.writer().await?)
        .await?;
        Ok(taken.rows_affected() == 1)
    }
}

impl<DB: Dialect> SqlStore<DB>
where
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> &'q str: Encode<'q, DB> + ColumnIndex<DB::Row>,
    for<'q> Option<&'q str>: Encode<'q, DB>,
    for<'q> String: Encode<'q, DB> + Decode<'q, DB> + Type<DB>,
    for<'q> Option<String>: Encode<'q, DB>,
    for<'q> i64: Encode<'q, DB> + Decode<'q, DB> + Type<DB>,
    for<'q> Option<i64>: Encode<'q, DB>,
    for<'q> bool: Encode<'q, DB> + Decode<'q, DB> + Type<DB>,
    str: Type<DB>,
    usize: ColumnIndex<DB::Row>,
{
    /// What a run's queueing writes, as a transaction of its own: the
    /// pending history row, its queue entry and the activity.
    fn enqueue_batch(queued: QueuedRun<'_>) -> Batch<DB> {
        let QueuedRun { row, containers, param, activity } = queued;
        let mut batch = Batch::transaction();
        Self::push_queued_run(&mut batch, row, containers, param);
        Self::push_activities(batch.statement(), &[activity]);
        batch
    }

    /// The tier a finished run used (none, one, two or three statements):
    /// the scrap's `lastTierChangeAt` for any tier but `tier0`, and the
    /// host's remembered tier (one more run in a row on the same tier, or
    /// the new tier with one run).
    fn push_tier_note(batch: &mut Batch<DB>, claim: &ClaimedRun, note: &TierNote) {
        let org = claim.organization_id.to_string();
        if note.tier != 0 {
            batch
                .statement()
                .push("UPDATE scraps SET last_tier_change_at = ")
                .push_bind(millis(note.at))
                .push(" WHERE organization_id = ")
                .push_bind(org.clone())
                .push(" AND id = ")
                .push_bind(claim.scrap_id.to_string());
        }
        if let Some(host) = &note.remember {
            let (tier, at) = (i64::from(note.tier), millis(note.at));
            batch
                .statement()
                .push("INSERT INTO tier_memory (organization_id, host, tier, runs, updated_at) VALUES (")
                .push_bind(org)
                .push(", ")
                .push_bind(host.to_string())
                .push(", ")
                .push_bind(tier)
                .push(", 1, ")
                .push_bind(at)
                .push(
                    ") ON CONFLICT (organization_id, host) DO UPDATE SET \
                     runs = CASE WHEN tier_memory.tier = ",
                )
                .push_bind(tier)
                .push(" THEN tier_memory.runs + 1 ELSE 1 END, tier = ")
                .push_bind(tier)
                .push(", updated_at = ")
                .push_bind(at);
        }
        if let Some(memory) = &note.engine {
            Self::push_engine_memory(batch.statement(), claim.organization_id, claim.scrap_id, memory);
        }
    }

    /// Replaces the scrap's `engine_memory` row.
    async fn write_engine_memory(
        tx: &mut WriteTx<DB>,
        org: OrgId,
        scrap: ScrapId,
        memory: &EngineMemory,
    ) -> Result<()> {
        let mut qb = QueryBuilder::new("");
        Self::push_engine_memory(&mut qb, org, scrap, memory);
        qb.build().execute(&mut **tx).await?;
        Ok(())
    }

    /// [`Self::write_engine_memory`]'s statement, written into `qb`.
    fn push_engine_memory(qb: &mut QueryBuilder<DB>, org: OrgId, scrap: ScrapId, memory: &EngineMemory) {
        let (engine, fingerprint, at) =
            (memory.engine.as_str().to_string(), memory.fingerprint.clone(), millis(memory.checked_at));
        qb.push("INSERT INTO engine_memory (organization_id, scrap_id, engine, fingerprint, checked_at) VALUES (")
            .push_bind(org.to_string())
            .push(", ")
            .push_bind(scrap.to_string())
            .push(", ")
            .push_bind(engine.clone())
            .push(", ")
            .push_bind(fingerprint.clone())
            .push(", ")
            .push_bind(at)
            .push(") ON CONFLICT (organization_id, scrap_id) DO UPDATE SET engine = ")
            .push_bind(engine)
            .push(", fingerprint = ")
            .push_bind(fingerprint)
            .push(", checked_at = ")
            .push_bind(at);
    }
}
