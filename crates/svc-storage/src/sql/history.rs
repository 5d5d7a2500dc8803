//! The history of runs, one row per run.

use async_trait::async_trait;
use const_format::concatcp;
use sqlx::{ColumnIndex, Decode, Encode, Executor, QueryBuilder, Type};
use svc_domain::ObjectId;
use svc_domain::history::HistoryRow;

use super::{Dialect, SqlStore, columns};
use crate::Result;
use crate::records::HistoryRecord;
use crate::traits::{HistoryFilter, HistoryStore, Page};

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

    async fn history_row(&self, org: ObjectId, row: ObjectId) -> Result<Option<HistoryRow>> {
        let row: Option<HistoryRecord> = sqlx::query_as(concatcp!(
            "SELECT ",
            columns::HISTORY,
            " FROM history WHERE organization_id = $1 AND id = $2"
        ))
        .bind(org.to_string())
        .bind(row.to_string())
        .fetch_optional(&self.pool)
        .await?;
        row.map(HistoryRow::try_from).transpose()
    }

    async fn list_history(&self, org: ObjectId, filter: &HistoryFilter) -> Result<Page<HistoryRow>> {
        if filter.only_scraps.as_ref().is_some_and(Vec::is_empty) {
            return Ok(Page { items: vec![], total: 0 });
        }
        let mut count = QueryBuilder::<DB>::new("SELECT COUNT(*)");
        Self::push_history_filter(&mut count, org, filter);
        let (total,): (i64,) = count.build_query_as().fetch_one(&self.pool).await?;

        let mut select = QueryBuilder::<DB>::new(concatcp!("SELECT ", columns::HISTORY));
        Self::push_history_filter(&mut select, org, filter);
        select.push(" ORDER BY created_at DESC, id DESC LIMIT ").push_bind(filter.limit);
        select.push(" OFFSET ").push_bind(filter.offset);
        let rows: Vec<HistoryRecord> = select.build_query_as().fetch_all(&self.pool).await?;
        let items = rows.into_iter().map(HistoryRow::try_from).collect::<Result<_>>()?;
        Ok(Page { items, total })
    }
}
