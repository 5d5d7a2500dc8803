//! Housekeeping deletes (`RetentionStore`): each statement takes at most
//! `limit` rows, the oldest first, so that one pass never holds a table for
//! long; the scheduler repeats it while batches come back full.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use sqlx::{AssertSqlSafe, ColumnIndex, Decode, Encode, Executor, Type};
use svc_domain::OrgId;

use super::{Dialect, RowsAffected, SqlStore};
use crate::Result;
use crate::records::{id, millis};
use crate::traits::RetentionStore;

/// The history rows `prune_history` may take: created before `$2`, judged
/// (a pending run is never taken), neither queued nor the subject of a
/// pending fix proposal, and not the newest `success` run of their scrap.
const OLD_HISTORY: &str = "SELECT h.id FROM history h WHERE h.organization_id = $1 AND h.created_at < $2 \
     AND h.status_detail IS NOT NULL \
     AND NOT EXISTS (SELECT 1 FROM run_queue q WHERE q.history_id = h.id) \
     AND NOT EXISTS (SELECT 1 FROM fix_proposals p WHERE p.history_id = h.id AND p.state = 'pending') \
     AND NOT (h.status_detail = 'success' AND h.scrap_id IS NOT NULL AND NOT EXISTS ( \
         SELECT 1 FROM history n WHERE n.organization_id = h.organization_id AND n.scrap_id = h.scrap_id \
         AND n.status_detail = 'success' \
         AND (n.created_at > h.created_at OR (n.created_at = h.created_at AND n.id > h.id)))) \
     ORDER BY h.created_at, h.id LIMIT $3";

/// Webhook deliveries no longer pending, created before `$1`.
const OLD_DELIVERIES: &str = "SELECT id FROM webhook_deliveries WHERE state <> 'pending' AND created_at < $1 \
     ORDER BY created_at, id LIMIT $2";

#[async_trait]
impl<DB: Dialect> RetentionStore for SqlStore<DB>
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
    async fn prune_audit(&self, before: DateTime<Utc>, limit: i64) -> Result<u64> {
        let entries = self
            .delete_batch(
                "DELETE FROM audit_entries WHERE id IN \
                 (SELECT id FROM audit_entries WHERE created_at < $1 ORDER BY created_at, id LIMIT $2)",
                before,
                limit,
            )
            .await?;
        // Forgotten addresses count as new again at the next log-in from them.
        self.delete_batch(
            "DELETE FROM known_addresses WHERE (organization_id, user_id, address) IN (SELECT organization_id, \
             user_id, address FROM known_addresses WHERE last_seen_at < $1 ORDER BY last_seen_at LIMIT $2)",
            before,
            limit,
        )
        .await?;
        Ok(entries)
    }

    async fn prune_activities(&self, before: DateTime<Utc>, limit: i64) -> Result<u64> {
        self.delete_batch(
            "DELETE FROM activities WHERE id IN \
             (SELECT id FROM activities WHERE created_at < $1 ORDER BY created_at, id LIMIT $2)",
            before,
            limit,
        )
        .await
    }

    async fn prune_emails(&self, before: DateTime<Utc>, limit: i64) -> Result<u64> {
        self.delete_batch(
            "DELETE FROM emails WHERE id IN (SELECT id FROM emails WHERE state IN ('sent', 'failed') \
             AND created_at < $1 ORDER BY created_at, id LIMIT $2)",
            before,
            limit,
        )
        .await
    }

    async fn prune_deliveries(&self, before: DateTime<Utc>, limit: i64) -> Result<u64> {
        let mut tx = self.begin_write().await?;
        sqlx::query(AssertSqlSafe(format!("DELETE FROM webhook_attempts WHERE delivery_id IN ({OLD_DELIVERIES})")))
            .bind(millis(before))
            .bind(limit)
            .execute(&mut *tx)
            .await?;
        let done = sqlx::query(AssertSqlSafe(format!("DELETE FROM webhook_deliveries WHERE id IN ({OLD_DELIVERIES})")))
            .bind(millis(before))
            .bind(limit)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(done.rows_affected())
    }

    async fn prune_tasks(&self, before: DateTime<Utc>, limit: i64) -> Result<u64> {
        self.delete_batch(
            "DELETE FROM tasks WHERE id IN (SELECT t.id FROM tasks t WHERE t.state IN ('succeeded', 'failed') \
             AND t.created_at < $1 AND NOT EXISTS \
             (SELECT 1 FROM fix_proposals p WHERE p.task_id = t.id AND p.state = 'pending') \
             ORDER BY t.created_at, t.id LIMIT $2)",
            before,
            limit,
        )
        .await
    }

    async fn prune_rate_logs(&self, before: DateTime<Utc>, limit: i64) -> Result<u64> {
        self.delete_batch(
            "DELETE FROM rate_logs WHERE bucket IN \
             (SELECT bucket FROM rate_logs WHERE used_at < $1 ORDER BY used_at LIMIT $2)",
            before,
            limit,
        )
        .await
    }

    async fn prune_renewals(&self, before: DateTime<Utc>, limit: i64) -> Result<u64> {
        self.delete_batch(
            "DELETE FROM plan_renewals WHERE (organization_id, week_start) IN (SELECT organization_id, week_start \
             FROM plan_renewals WHERE week_start < $1 ORDER BY week_start LIMIT $2)",
            before,
            limit,
        )
        .await
    }

    async fn history_limits(&self, after: Option<OrgId>, limit: i64) -> Result<Vec<(OrgId, i64)>> {
        let rows: Vec<(String, i64)> = sqlx::query_as(
            "SELECT id, history_retention_days FROM organizations \
             WHERE history_retention_days IS NOT NULL AND id > $1 ORDER BY id LIMIT $2",
        )
        .bind(after.map(|o| o.to_string()).unwrap_or_default())
        .bind(limit)
        .fetch_all(&mut *self.reader().await?)
        .await?;
        rows.into_iter().map(|(org, days)| Ok((id(&org)?, days))).collect()
    }

    async fn prune_history(&self, org: OrgId, before: DateTime<Utc>, limit: i64) -> Result<u64> {
        let mut tx = self.begin_write().await?;
        sqlx::query(AssertSqlSafe(format!("DELETE FROM run_pages WHERE history_id IN ({OLD_HISTORY})")))
            .bind(org.to_string())
            .bind(millis(before))
            .bind(limit)
            .execute(&mut *tx)
            .await?;
        let done = sqlx::query(AssertSqlSafe(format!("DELETE FROM history WHERE id IN ({OLD_HISTORY})")))
            .bind(org.to_string())
            .bind(millis(before))
            .bind(limit)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(done.rows_affected())
    }

    async fn history_retention(&self, org: OrgId) -> Result<Option<i64>> {
        let row: Option<(Option<i64>,)> =
            sqlx::query_as("SELECT history_retention_days FROM organizations WHERE id = $1")
                .bind(org.to_string())
                .fetch_optional(&mut *self.writer().await?)
                .await?;
        Ok(row.and_then(|(days,)| days))
    }

    async fn set_history_retention(&self, org: OrgId, days: Option<i64>) -> Result<bool> {
        let done = sqlx::query("UPDATE organizations SET history_retention_days = $2 WHERE id = $1")
            .bind(org.to_string())
            .bind(days)
            .execute(&mut *self.writer().await?)
            .await?;
        Ok(done.rows_affected() > 0)
    }
}

impl<DB: Dialect> SqlStore<DB>
where
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> i64: Encode<'q, DB> + Type<DB>,
{
    /// Runs a `DELETE` whose `$1` is a time and `$2` the batch's size.
    async fn delete_batch(&self, sql: &'static str, before: DateTime<Utc>, limit: i64) -> Result<u64> {
        let done = sqlx::query(sql).bind(millis(before)).bind(limit).execute(&mut *self.writer().await?).await?;
        Ok(done.rows_affected())
    }
}
