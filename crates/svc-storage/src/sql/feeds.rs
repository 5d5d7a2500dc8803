//! Scraps' feed tokens. The token is written sealed (`token_sealed`, opened
//! for the scrap page) beside its hex SHA-256 (`token_hash`, what a feed
//! reader's request is looked up by); and the successful runs a feed
//! compares.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use const_format::concatcp;
use sqlx::{ColumnIndex, Decode, Encode, Executor, Type};
use svc_domain::activity::Activity;
use svc_domain::history::RunSummary;
use svc_domain::{OrgId, ScrapId};

use super::{Dialect, RowsAffected, SqlStore, columns};
use crate::Result;
use crate::records::{RunSummaryRecord, id, millis, time};
use crate::traits::{FeedStore, StoredFeedToken};

#[async_trait]
impl<DB: Dialect> FeedStore for SqlStore<DB>
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
    async fn feed_token(&self, org: OrgId, scrap: ScrapId) -> Result<Option<StoredFeedToken>> {
        let row: Option<(String, i64)> = sqlx::query_as(
            "SELECT token_sealed, created_at FROM scrap_feeds WHERE organization_id = $1 AND scrap_id = $2",
        )
        .bind(org.to_string())
        .bind(scrap.to_string())
        .fetch_optional(&mut *self.writer().await?)
        .await?;
        let Some((sealed, created_at)) = row else { return Ok(None) };
        Ok(Some(StoredFeedToken { token: self.sealer.open(&sealed)?, created_at: time(created_at)? }))
    }

    async fn insert_feed_token(
        &self,
        org: OrgId,
        scrap: ScrapId,
        token: &str,
        token_hash: &str,
        at: DateTime<Utc>,
    ) -> Result<bool> {
        let sealed = self.sealer.seal(token);
        let mut tx = self.begin_write().await?;
        // Only for a scrap of `org`, and only when it has no token yet.
        let done = sqlx::query(
            "INSERT INTO scrap_feeds (scrap_id, organization_id, token_hash, token_sealed, created_at) \
             SELECT $2, $1, $3, $4, $5 WHERE EXISTS \
             (SELECT 1 FROM scraps WHERE organization_id = $1 AND id = $2) \
             ON CONFLICT (scrap_id) DO NOTHING",
        )
        .bind(org.to_string())
        .bind(scrap.to_string())
        .bind(token_hash)
        .bind(sealed)
        .bind(millis(at))
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(done.rows_affected() == 1)
    }

    async fn replace_feed_token(
        &self,
        org: OrgId,
        scrap: ScrapId,
        token: &str,
        token_hash: &str,
        at: DateTime<Utc>,
        activity: &Activity,
    ) -> Result<bool> {
        let sealed = self.sealer.seal(token);
        let mut tx = self.begin_write().await?;
        // Scrap ids are unique across organizations: the row replaced is
        // that scrap's, of `org`.
        let done = sqlx::query(
            "INSERT INTO scrap_feeds (scrap_id, organization_id, token_hash, token_sealed, created_at) \
             SELECT $2, $1, $3, $4, $5 WHERE EXISTS \
             (SELECT 1 FROM scraps WHERE organization_id = $1 AND id = $2) \
             ON CONFLICT (scrap_id) DO UPDATE SET token_hash = excluded.token_hash, \
             token_sealed = excluded.token_sealed, created_at = excluded.created_at",
        )
        .bind(org.to_string())
        .bind(scrap.to_string())
        .bind(token_hash)
        .bind(sealed)
        .bind(millis(at))
        .execute(&mut *tx)
        .await?;
        if done.rows_affected() != 1 {
            return Ok(false);
        }
        Self::insert_activity(&mut tx, activity).await?;
        tx.commit().await?;
        Ok(true)
    }

    async fn feed_by_token_hash(&self, token_hash: &str) -> Result<Option<(OrgId, ScrapId)>> {
        let row: Option<(String, String)> =
            sqlx::query_as("SELECT organization_id, scrap_id FROM scrap_feeds WHERE token_hash = $1")
                .bind(token_hash)
                .fetch_optional(&mut *self.writer().await?)
                .await?;
        row.map(|(org, scrap)| Ok((id(&org)?, id(&scrap)?))).transpose()
    }

    async fn recent_successes(&self, org: OrgId, scrap: ScrapId, limit: i64) -> Result<Vec<RunSummary>> {
        let rows: Vec<RunSummaryRecord> = sqlx::query_as(concatcp!(
            "SELECT ",
            columns::RUN_SUMMARY,
            " FROM history WHERE organization_id = $1 AND scrap_id = $2 AND status_detail = 'success' \
             AND run_type = 'scrap_run' ORDER BY created_at DESC, id DESC LIMIT $3"
        ))
        .bind(org.to_string())
        .bind(scrap.to_string())
        .bind(limit)
        .fetch_all(&mut *self.reader().await?)
        .await?;
        rows.into_iter().map(RunSummary::try_from).collect()
    }
}
