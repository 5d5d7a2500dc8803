//! Tasks: queued, claimed under a lease by a task runner, finished once
//! (with what their end writes: a history row, a repaired script).

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use const_format::concatcp;
use sqlx::{AssertSqlSafe, ColumnIndex, Decode, Encode, Executor, QueryBuilder, Type};
use svc_domain::script_version::ScriptVersion;
use svc_domain::task::{Task, TaskKind, TaskState};
use svc_domain::{ObjectId, OrgId};

use super::{Dialect, RowsAffected, SqlStore, columns};
use crate::Result;
use crate::records::{millis, opt_millis, to_json};
use crate::task_records::TaskRow;
use crate::traits::{TaskEnd, TaskFinish, TaskStore};
use crate::usage_records::{costs_json, meter_json};

/// Tasks a runner may take at `$1`: queued, or running under a lease that
/// ended; oldest first, at most `$2`. [`Dialect::LOCK_DUE`] follows.
const CLAIMABLE: &str = concatcp!(
    "SELECT ",
    columns::TASK,
    " FROM tasks WHERE state = 'queued' OR (state = 'running' AND lease_until < $1) \
     ORDER BY created_at, id LIMIT $2"
);

#[async_trait]
impl<DB: Dialect> TaskStore for SqlStore<DB>
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
    async fn insert_task(&self, t: &Task) -> Result<()> {
        let mut tx = self.begin_write().await?;
        sqlx::query(concatcp!(
            "INSERT INTO tasks (",
            columns::TASK,
            ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)"
        ))
        .bind(t.id.to_string())
        .bind(t.organization_id.to_string())
        .bind(t.user_id.map(|u| u.to_string()))
        .bind(t.kind.as_str())
        .bind(t.state.as_str())
        .bind(to_json(&t.input))
        .bind(t.result.as_ref().map(to_json))
        .bind(&t.error)
        .bind(t.scrap_id.map(|s| s.to_string()))
        .bind(t.history_id.map(|h| h.to_string()))
        .bind(t.attempts)
        .bind(opt_millis(t.lease_until))
        .bind(millis(t.created_at))
        .bind(opt_millis(t.finished_at))
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }

    async fn task(&self, org: OrgId, id: ObjectId) -> Result<Option<Task>> {
        let row: Option<TaskRow> =
            sqlx::query_as(concatcp!("SELECT ", columns::TASK, " FROM tasks WHERE organization_id = $1 AND id = $2"))
                .bind(org.to_string())
                .bind(id.to_string())
                .fetch_optional(&mut *self.writer().await?)
                .await?;
        row.map(Task::try_from).transpose()
    }

    async fn claim_tasks(
        &self,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
        max_attempts: i64,
        limit: i64,
        lost_error: &str,
    ) -> Result<Vec<Task>> {
        let mut tx = self.begin_write().await?;
        sqlx::query(
            "UPDATE tasks SET state = 'failed', error = $3, finished_at = $1, lease_until = NULL \
             WHERE state = 'running' AND lease_until < $1 AND attempts >= $2",
        )
        .bind(millis(now))
        .bind(max_attempts)
        .bind(lost_error)
        .execute(&mut *tx)
        .await?;
        let rows: Vec<TaskRow> = sqlx::query_as(AssertSqlSafe(format!("{CLAIMABLE}{}", DB::LOCK_DUE)))
            .bind(millis(now))
            .bind(limit)
            .fetch_all(&mut *tx)
            .await?;
        if rows.is_empty() {
            tx.commit().await?;
            return Ok(vec![]);
        }
        let mut tasks: Vec<Task> = rows.into_iter().map(Task::try_from).collect::<Result<_>>()?;
        let ids: Vec<ObjectId> = tasks.iter().map(|t| t.id).collect();
        let mut claim = QueryBuilder::<DB>::new("UPDATE tasks SET state = 'running', attempts = attempts + 1, ");
        claim.push("lease_until = ").push_bind(millis(lease_until)).push(" WHERE id IN ");
        Self::push_id_list(&mut claim, &ids);
        claim.build().execute(&mut *tx).await?;
        tx.commit().await?;
        for task in &mut tasks {
            task.state = TaskState::Running;
            task.attempts += 1;
            task.lease_until = Some(lease_until);
        }
        Ok(tasks)
    }

    async fn finish_task(&self, task: &Task, end: &TaskEnd<'_>) -> Result<TaskFinish> {
        let now = Utc::now();
        let mut tx = self.begin_write().await?;
        let ended = sqlx::query(
            "UPDATE tasks SET state = $3, result = $4, error = $5, finished_at = $6, lease_until = NULL, \
             history_id = COALESCE($7, history_id) WHERE id = $1 AND attempts = $2 AND state = 'running'",
        )
        .bind(task.id.to_string())
        .bind(task.attempts)
        .bind(end.state.as_str())
        .bind(end.result.as_ref().map(to_json))
        .bind(&end.error)
        .bind(millis(now))
        .bind(end.row.map(|r| r.id.to_string()))
        .execute(&mut *tx)
        .await?;
        if ended.rows_affected() != 1 {
            return Ok(TaskFinish::ClaimLost);
        }
        let org = task.organization_id.to_string();
        let mut version = None;
        if let Some(fix) = &end.fix {
            let swapped = sqlx::query(
                "UPDATE scraps SET request = $4, updated_at = $5 \
                 WHERE organization_id = $1 AND id = $2 AND request = $3",
            )
            .bind(&org)
            .bind(fix.scrap_id.to_string())
            .bind(fix.replaced)
            .bind(&fix.version.request)
            .bind(millis(now))
            .execute(&mut *tx)
            .await?;
            if swapped.rows_affected() != 1 {
                return Ok(TaskFinish::ScriptChanged);
            }
            // The version belongs to the task's organization and the fixed scrap, whatever it says.
            let owned =
                ScriptVersion { organization_id: task.organization_id, scrap_id: fix.scrap_id, ..fix.version.clone() };
            let stored = Self::append_version(&mut tx, &owned).await?;
            let h = fix.row;
            sqlx::query(
                "UPDATE history SET status_detail = $3, data = $4, length = $5, costs = $6, meter = $7, \
                 error_snapshot = $8, error = $9, digest = $10, fix_version_id = $11, fixed_at = $12 \
                 WHERE organization_id = $1 AND id = $2",
            )
            .bind(&org)
            .bind(h.id.to_string())
            .bind(h.status_detail.map(|d| d.as_str()))
            .bind(&h.data)
            .bind(h.length)
            .bind(h.costs.as_ref().map(costs_json))
            .bind(h.meter.as_ref().map(meter_json))
            .bind(h.error_snapshot.as_ref().map(to_json))
            .bind(&h.error)
            .bind(&h.digest)
            .bind(stored.id.to_string())
            .bind(opt_millis(h.fixed_at))
            .execute(&mut *tx)
            .await?;
            Self::insert_delivery_rows(&mut tx, fix.deliveries, now).await?;
            version = Some(stored);
        }
        if let Some(proposal) = end.proposal {
            Self::insert_proposal(&mut tx, task.organization_id, proposal).await?;
        }
        if let Some(row) = end.row {
            Self::insert_history_row(&mut tx, row).await?;
        }
        if end.units != 0 {
            sqlx::query("UPDATE organizations SET balance = balance - $2 WHERE id = $1")
                .bind(&org)
                .bind(end.units)
                .execute(&mut *tx)
                .await?;
        }
        Self::insert_activities(&mut tx, &end.activities.iter().collect::<Vec<_>>()).await?;
        tx.commit().await?;
        Ok(TaskFinish::Done { version })
    }

    async fn count_tasks(&self, org: OrgId, kind: TaskKind, since: DateTime<Utc>) -> Result<i64> {
        let (count,): (i64,) =
            sqlx::query_as("SELECT COUNT(*) FROM tasks WHERE organization_id = $1 AND kind = $2 AND created_at >= $3")
                .bind(org.to_string())
                .bind(kind.as_str())
                .bind(millis(since))
                .fetch_one(&mut *self.writer().await?)
                .await?;
        Ok(count)
    }
}
