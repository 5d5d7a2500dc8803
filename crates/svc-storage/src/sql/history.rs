//! The history of runs, one row per run.

use async_trait::async_trait;
use const_format::concatcp;
use sqlx::{ColumnIndex, Decode, Encode, Executor, QueryBuilder, Type};
use svc_domain::history::{HistoryRow, RunSummary, StatusDetail};
use svc_domain::{HistoryId, OrgId, ScrapId};

use super::{Dialect, SqlStore, columns};
use crate::{Result, StoreError};

/// Rows of one scrap (`$1` organization, `$2` scrap) created before the run
/// created at `$3` with id `$4`, in (created_at, id) order.
const BEFORE: &str = "organization_id = $1 AND scrap_id = $2 AND (created_at < $3 OR (created_at = $3 AND id < $4))";
/// The finished rows of one scrap (`$1` organization, `$2` scrap) but run `$3`.
const FINISHED_OTHERS: &str = "organization_id = $1 AND scrap_id = $2 AND id <> $3 AND status_detail IS NOT NULL";
/// The same rows after it.
const AFTER: &str = "organization_id = $1 AND scrap_id = $2 AND (created_at > $3 OR (created_at = $3 AND id > $4))";
use crate::records::{HistoryRecord, RunSummaryRecord, id, millis};
use crate::traits::{HistoryFilter, HistoryStore, Page, RunNeighbours, RunStreak};

#[async_trait]
impl<DB: Dialect> HistoryStore for SqlStore<DB>
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
    async fn insert_history(&self, h: &HistoryRow) -> Result<()> {
        let mut tx = self.begin_write().await?;
        Self::insert_history_row(&mut tx, h).await?;
        tx.commit().await?;
        Ok(())
    }

    async fn history_row(&self, org: OrgId, row: HistoryId) -> Result<Option<HistoryRow>> {
        let row: Option<HistoryRecord> = sqlx::query_as(concatcp!(
            "SELECT ",
            columns::HISTORY,
            " FROM history WHERE organization_id = $1 AND id = $2"
        ))
        .bind(org.to_string())
        .bind(row.to_string())
        .fetch_optional(&mut *self.reader().await?)
        .await?;
        row.map(HistoryRow::try_from).transpose()
    }

    async fn finished_among(&self, runs: &[(OrgId, HistoryId)]) -> Result<Vec<HistoryId>> {
        let mut finished = Vec::new();
        // At most 200 bound values per statement.
        for chunk in runs.chunks(100) {
            let mut qb = QueryBuilder::<DB>::new("SELECT id FROM history WHERE status_detail IS NOT NULL AND (");
            let mut either = qb.separated(" OR ");
            for (org, run) in chunk {
                either.push("(organization_id = ").push_bind_unseparated(org.to_string());
                either.push_unseparated(" AND id = ").push_bind_unseparated(run.to_string()).push_unseparated(")");
            }
            qb.push(")");
            let ids: Vec<String> = qb.build_query_scalar().fetch_all(&mut *self.reader().await?).await?;
            for run in ids {
                finished.push(id(&run)?);
            }
        }
        Ok(finished)
    }

    async fn list_history(&self, org: OrgId, filter: &HistoryFilter) -> Result<Page<HistoryRow>> {
        if filter.only_scraps.as_ref().is_some_and(Vec::is_empty) {
            return Ok(Page { items: vec![], total: 0 });
        }
        let mut count = QueryBuilder::<DB>::new("SELECT COUNT(*)");
        Self::push_history_filter(&mut count, org, filter);
        let (total,): (i64,) = count.build_query_as().fetch_one(&mut *self.writer().await?).await?;

        let mut select = QueryBuilder::<DB>::new(concatcp!("SELECT ", columns::HISTORY));
        Self::push_history_filter(&mut select, org, filter);
        select.push(" ORDER BY created_at DESC, id DESC LIMIT ").push_bind(filter.limit);
        select.push(" OFFSET ").push_bind(filter.offset);
        let rows: Vec<HistoryRecord> = select.build_query_as().fetch_all(&mut *self.reader().await?).await?;
        let items = rows.into_iter().map(HistoryRow::try_from).collect::<Result<_>>()?;
        Ok(Page { items, total })
    }

    async fn run_summaries(&self, org: OrgId, ids: &[HistoryId]) -> Result<Vec<RunSummary>> {
        if ids.is_empty() {
            return Ok(vec![]);
        }
        let mut qb = QueryBuilder::<DB>::new(concatcp!(
            "SELECT ",
            columns::RUN_SUMMARY,
            " FROM history WHERE organization_id = "
        ));
        // Scrap runs only: an AI operation row has no scrap for its summary.
        qb.push_bind(org.to_string()).push(" AND scrap_id IS NOT NULL AND id IN ");
        Self::push_id_list(&mut qb, ids);
        let rows: Vec<RunSummaryRecord> = qb.build_query_as().fetch_all(&mut *self.reader().await?).await?;
        rows.into_iter().map(RunSummary::try_from).collect()
    }

    async fn run_streak(&self, org: OrgId, scrap: ScrapId, current: HistoryId) -> Result<RunStreak> {
        let (last, failures, successes): (Option<String>, i64, i64) = sqlx::query_as(concatcp!(
            "SELECT (SELECT status_detail FROM history WHERE ",
            FINISHED_OTHERS,
            " ORDER BY created_at DESC, id DESC LIMIT 1), \
             (SELECT COUNT(*) FROM history WHERE ",
            FINISHED_OTHERS,
            " AND status_detail <> 'success' AND (created_at > COALESCE((SELECT MAX(created_at) FROM history WHERE ",
            FINISHED_OTHERS,
            " AND status_detail = 'success'), -1) OR (created_at = (SELECT MAX(created_at) FROM history WHERE ",
            FINISHED_OTHERS,
            " AND status_detail = 'success') AND id > (SELECT id FROM history WHERE ",
            FINISHED_OTHERS,
            " AND status_detail = 'success' ORDER BY created_at DESC, id DESC LIMIT 1)))), \
             (SELECT COUNT(*) FROM history WHERE ",
            FINISHED_OTHERS,
            " AND status_detail = 'success')"
        ))
        .bind(org.to_string())
        .bind(scrap.to_string())
        .bind(current.to_string())
        .fetch_one(&mut *self.writer().await?)
        .await?;
        let last = match last {
            Some(s) => Some(StatusDetail::parse(&s).ok_or_else(|| StoreError::Corrupt(format!("status `{s}`")))?),
            None => None,
        };
        Ok(RunStreak { last, failures_since_success: failures, ever_succeeded: successes > 0 })
    }

    async fn run_neighbours(&self, org: OrgId, row: &HistoryRow) -> Result<RunNeighbours> {
        let Some(scrap) = row.scrap_id else { return Ok(RunNeighbours::default()) };
        let (previous, next): (Option<String>, Option<String>) = sqlx::query_as(concatcp!(
            "SELECT (SELECT id FROM history WHERE ",
            BEFORE,
            " ORDER BY created_at DESC, id DESC LIMIT 1), (SELECT id FROM history WHERE ",
            AFTER,
            " ORDER BY created_at, id LIMIT 1)"
        ))
        .bind(org.to_string())
        .bind(scrap.to_string())
        .bind(millis(row.created_at))
        .bind(row.id.to_string())
        .fetch_one(&mut *self.writer().await?)
        .await?;
        let success: Option<HistoryRecord> = sqlx::query_as(concatcp!(
            "SELECT ",
            columns::HISTORY,
            " FROM history WHERE ",
            BEFORE,
            " AND status_detail = 'success' ORDER BY created_at DESC, id DESC LIMIT 1"
        ))
        .bind(org.to_string())
        .bind(scrap.to_string())
        .bind(millis(row.created_at))
        .bind(row.id.to_string())
        .fetch_optional(&mut *self.writer().await?)
        .await?;
        Ok(RunNeighbours {
            previous: previous.as_deref().map(id).transpose()?,
            next: next.as_deref().map(id).transpose()?,
            previous_success: success.map(HistoryRow::try_from).transpose()?,
        })
    }
}
