//! The activity log of each scrap.

use async_trait::async_trait;
use const_format::concatcp;
use sqlx::{ColumnIndex, Decode, Encode, Executor, Type};
use svc_domain::activity::Activity;
use svc_domain::{OrgId, ScrapId};

use super::{Dialect, SqlStore, columns};
use crate::Result;
use crate::records::ActivityRecord;
use crate::traits::{ActivityStore, Page};

#[async_trait]
impl<DB: Dialect> ActivityStore for SqlStore<DB>
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
    async fn list_activities(&self, org: OrgId, scrap: ScrapId, offset: i64, limit: i64) -> Result<Page<Activity>> {
        let (total,): (i64,) =
            sqlx::query_as("SELECT COUNT(*) FROM activities WHERE organization_id = $1 AND scrap_id = $2")
                .bind(org.to_string())
                .bind(scrap.to_string())
                .fetch_one(&mut *self.writer().await?)
                .await?;
        let rows: Vec<ActivityRecord> = sqlx::query_as(concatcp!(
            "SELECT ",
            columns::ACTIVITY,
            " FROM activities WHERE organization_id = $1 AND scrap_id = $2 \
             ORDER BY created_at DESC, id DESC LIMIT $3 OFFSET $4"
        ))
        .bind(org.to_string())
        .bind(scrap.to_string())
        .bind(limit)
        .bind(offset)
        .fetch_all(&mut *self.reader().await?)
        .await?;
        let items = rows.into_iter().map(Activity::try_from).collect::<Result<_>>()?;
        Ok(Page { items, total })
    }
}
