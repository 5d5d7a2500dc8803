//! The pages of a crawl's run. They are written once the run is recorded
//! (replacing any a claim that was lost wrote for the same run), at most
//! [`PAGES_PER_STATEMENT`] to an `INSERT`, and read in the run's order.

use async_trait::async_trait;
use const_format::concatcp;
use sqlx::{ColumnIndex, Decode, Encode, Executor, QueryBuilder, Type};
use svc_domain::run_page::{PageStatus, RunPage};
use svc_domain::{HistoryId, OrgId};

use super::{Dialect, SqlStore};
use crate::records::id;
use crate::traits::{Page, RunPageStore};
use crate::{Result, StoreError};

const COLUMNS: &str =
    "organization_id, scrap_id, history_id, position, url, label, depth, status, items, duration_ms, error";
/// Rows per `INSERT` (11 binds each stays under SQLite's 32,766).
const PAGES_PER_STATEMENT: usize = 500;

crate::from_row::from_row! {
struct PageRow {
    organization_id: String,
    scrap_id: String,
    history_id: String,
    position: i64,
    url: String,
    label: Option<String>,
    depth: i64,
    status: String,
    items: i64,
    duration_ms: i64,
    error: Option<String>,
}
}

impl TryFrom<PageRow> for RunPage {
    type Error = StoreError;
    fn try_from(r: PageRow) -> Result<Self, StoreError> {
        Ok(RunPage {
            organization_id: id(&r.organization_id)?,
            scrap_id: id(&r.scrap_id)?,
            history_id: id(&r.history_id)?,
            position: r.position,
            url: r.url,
            label: r.label,
            depth: r.depth,
            status: PageStatus::parse(&r.status)
                .ok_or_else(|| StoreError::Corrupt(format!("page status `{}`", r.status)))?,
            items: r.items,
            duration_ms: r.duration_ms,
            error: r.error,
        })
    }
}

#[async_trait]
impl<DB: Dialect> RunPageStore for SqlStore<DB>
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
    async fn replace_run_pages(&self, org: OrgId, run: HistoryId, pages: &[RunPage]) -> Result<()> {
        let mut tx = self.begin_write().await?;
        sqlx::query("DELETE FROM run_pages WHERE organization_id = $1 AND history_id = $2")
            .bind(org.to_string())
            .bind(run.to_string())
            .execute(&mut *tx)
            .await?;
        for chunk in pages.chunks(PAGES_PER_STATEMENT) {
            let mut qb = QueryBuilder::<DB>::new(concatcp!("INSERT INTO run_pages (", COLUMNS, ") "));
            qb.push_values(chunk, |mut b, p| {
                // The run's organization and id, whatever the page says.
                b.push_bind(org.to_string())
                    .push_bind(p.scrap_id.to_string())
                    .push_bind(run.to_string())
                    .push_bind(p.position)
                    .push_bind(p.url.clone())
                    .push_bind(p.label.clone())
                    .push_bind(p.depth)
                    .push_bind(p.status.as_str())
                    .push_bind(p.items)
                    .push_bind(p.duration_ms)
                    .push_bind(p.error.clone());
            });
            qb.build().execute(&mut *tx).await?;
        }
        tx.commit().await?;
        Ok(())
    }

    async fn run_pages(&self, org: OrgId, run: HistoryId, offset: i64, limit: i64) -> Result<Page<RunPage>> {
        let (total,): (i64,) =
            sqlx::query_as("SELECT COUNT(*) FROM run_pages WHERE organization_id = $1 AND history_id = $2")
                .bind(org.to_string())
                .bind(run.to_string())
                .fetch_one(&mut *self.writer().await?)
                .await?;
        let rows: Vec<PageRow> = sqlx::query_as(concatcp!(
            "SELECT ",
            COLUMNS,
            " FROM run_pages WHERE organization_id = $1 AND history_id = $2 ORDER BY position LIMIT $3 OFFSET $4"
        ))
        .bind(org.to_string())
        .bind(run.to_string())
        .bind(limit)
        .bind(offset)
        .fetch_all(&mut *self.reader().await?)
        .await?;
        let items = rows.into_iter().map(RunPage::try_from).collect::<Result<_>>()?;
        Ok(Page { items, total })
    }
}
