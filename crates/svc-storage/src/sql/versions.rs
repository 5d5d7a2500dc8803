//! The versions of scraps' scripts. The newest version of a scrap is always
//! its current script: every write of a scrap's `request` adds one, in the
//! same transaction.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use const_format::concatcp;
use sqlx::{ColumnIndex, Decode, Encode, Executor, Type};
use svc_domain::activity::Activity;
use svc_domain::script_version::{ScriptVersion, VersionSource};
use svc_domain::{ObjectId, OrgId, ScrapId};

use super::{Dialect, RowsAffected, SqlStore, WriteTx, columns};
use crate::Result;
use crate::records::millis;
use crate::task_records::VersionRow;
use crate::traits::{Decided, Page, VersionStore};

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
    /// Appends `version` to its scrap's versions with the next number (the
    /// caller has written the scrap row in this transaction, which holds it
    /// against concurrent writers) and returns it as stored.
    pub(super) async fn append_version(tx: &mut WriteTx<DB>, version: &ScriptVersion) -> Result<ScriptVersion> {
        let (number,): (i64,) = sqlx::query_as(
            "SELECT COALESCE(MAX(number), 0) + 1 FROM script_versions WHERE organization_id = $1 AND scrap_id = $2",
        )
        .bind(version.organization_id.to_string())
        .bind(version.scrap_id.to_string())
        .fetch_one(&mut **tx)
        .await?;
        sqlx::query(concatcp!(
            "INSERT INTO script_versions (",
            columns::VERSION,
            ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)"
        ))
        .bind(version.id.to_string())
        .bind(version.organization_id.to_string())
        .bind(version.scrap_id.to_string())
        .bind(number)
        .bind(&version.request)
        .bind(version.source.as_str())
        .bind(version.history_id.map(|h| h.to_string()))
        .bind(version.restored_from.map(|h| h.to_string()))
        .bind(millis(version.created_at))
        .bind(version.approved_at.map(millis))
        .bind(version.approved_by.map(|u| u.to_string()))
        .execute(&mut **tx)
        .await?;
        Ok(ScriptVersion { number, ..version.clone() })
    }

    /// After a write of a scrap's `request` by its owner: a new `user`
    /// version when the script differs from the newest version.
    pub(super) async fn version_if_changed(
        tx: &mut WriteTx<DB>,
        org: OrgId,
        scrap: ScrapId,
        request: &str,
        at: DateTime<Utc>,
    ) -> Result<()> {
        let newest: Option<(String,)> = sqlx::query_as(
            "SELECT request FROM script_versions WHERE organization_id = $1 AND scrap_id = $2 \
             ORDER BY number DESC LIMIT 1",
        )
        .bind(org.to_string())
        .bind(scrap.to_string())
        .fetch_optional(&mut **tx)
        .await?;
        if newest.is_some_and(|(newest,)| newest == request) {
            return Ok(());
        }
        let version = ScriptVersion {
            id: ObjectId::new(),
            organization_id: org,
            scrap_id: scrap,
            number: 0,
            request: request.to_string(),
            source: VersionSource::User,
            history_id: None,
            restored_from: None,
            created_at: at,
            approved_at: Some(at),
            approved_by: None,
        };
        Self::append_version(tx, &version).await?;
        Ok(())
    }
}

#[async_trait]
impl<DB: Dialect> VersionStore for SqlStore<DB>
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
    async fn script_versions(
        &self,
        org: OrgId,
        scrap: ScrapId,
        offset: i64,
        limit: i64,
    ) -> Result<Page<ScriptVersion>> {
        let (total,): (i64,) =
            sqlx::query_as("SELECT COUNT(*) FROM script_versions WHERE organization_id = $1 AND scrap_id = $2")
                .bind(org.to_string())
                .bind(scrap.to_string())
                .fetch_one(&mut *self.writer().await?)
                .await?;
        let rows: Vec<VersionRow> = sqlx::query_as(concatcp!(
            "SELECT ",
            columns::VERSION,
            " FROM script_versions WHERE organization_id = $1 AND scrap_id = $2 ORDER BY number DESC LIMIT $3 OFFSET $4"
        ))
        .bind(org.to_string())
        .bind(scrap.to_string())
        .bind(limit)
        .bind(offset)
        .fetch_all(&mut *self.reader().await?)
        .await?;
        let items = rows.into_iter().map(ScriptVersion::try_from).collect::<Result<_>>()?;
        Ok(Page { items, total })
    }

    async fn script_version(&self, org: OrgId, scrap: ScrapId, id: ObjectId) -> Result<Option<ScriptVersion>> {
        let row: Option<VersionRow> = sqlx::query_as(concatcp!(
            "SELECT ",
            columns::VERSION,
            " FROM script_versions WHERE organization_id = $1 AND scrap_id = $2 AND id = $3"
        ))
        .bind(org.to_string())
        .bind(scrap.to_string())
        .bind(id.to_string())
        .fetch_optional(&mut *self.writer().await?)
        .await?;
        row.map(ScriptVersion::try_from).transpose()
    }

    async fn restore_version(
        &self,
        org: OrgId,
        scrap: ScrapId,
        id: ObjectId,
        at: DateTime<Utc>,
        activity: &Activity,
    ) -> Result<Option<ScriptVersion>> {
        let mut tx = self.begin_write().await?;
        let old: Option<VersionRow> = sqlx::query_as(concatcp!(
            "SELECT ",
            columns::VERSION,
            " FROM script_versions WHERE organization_id = $1 AND scrap_id = $2 AND id = $3"
        ))
        .bind(org.to_string())
        .bind(scrap.to_string())
        .bind(id.to_string())
        .fetch_optional(&mut *tx)
        .await?;
        let Some(old) = old.map(ScriptVersion::try_from).transpose()? else { return Ok(None) };
        let updated =
            sqlx::query("UPDATE scraps SET request = $3, updated_at = $4 WHERE organization_id = $1 AND id = $2")
                .bind(org.to_string())
                .bind(scrap.to_string())
                .bind(&old.request)
                .bind(millis(at))
                .execute(&mut *tx)
                .await?;
        if updated.rows_affected() != 1 {
            return Ok(None);
        }
        let version = ScriptVersion {
            id: ObjectId::new(),
            organization_id: org,
            scrap_id: scrap,
            number: 0,
            request: old.request.clone(),
            source: VersionSource::Rollback,
            history_id: None,
            restored_from: Some(old.id),
            created_at: at,
            // A person chose it, whoever wrote it first.
            approved_at: Some(at),
            approved_by: None,
        };
        let stored = Self::append_version(&mut tx, &version).await?;
        Self::insert_activity(&mut tx, activity).await?;
        tx.commit().await?;
        Ok(Some(stored))
    }

    async fn current_version(&self, org: OrgId, scrap: ScrapId) -> Result<Option<ScriptVersion>> {
        let row: Option<VersionRow> = sqlx::query_as(concatcp!(
            "SELECT ",
            columns::VERSION,
            " FROM script_versions WHERE organization_id = $1 AND scrap_id = $2 ORDER BY number DESC LIMIT 1"
        ))
        .bind(org.to_string())
        .bind(scrap.to_string())
        .fetch_optional(&mut *self.writer().await?)
        .await?;
        row.map(ScriptVersion::try_from).transpose()
    }

    async fn approve_version(
        &self,
        org: OrgId,
        scrap: ScrapId,
        id: ObjectId,
        decided: &Decided<'_>,
    ) -> Result<Option<ScriptVersion>> {
        let mut tx = self.begin_write().await?;
        let approved = sqlx::query(
            "UPDATE script_versions SET approved_at = $4, approved_by = $5 \
             WHERE organization_id = $1 AND scrap_id = $2 AND id = $3 AND source = 'ai_fix' AND approved_at IS NULL",
        )
        .bind(org.to_string())
        .bind(scrap.to_string())
        .bind(id.to_string())
        .bind(millis(decided.at))
        .bind(decided.by.to_string())
        .execute(&mut *tx)
        .await?;
        if approved.rows_affected() != 1 {
            return Ok(None);
        }
        let row: VersionRow = sqlx::query_as(concatcp!(
            "SELECT ",
            columns::VERSION,
            " FROM script_versions WHERE organization_id = $1 AND scrap_id = $2 AND id = $3"
        ))
        .bind(org.to_string())
        .bind(scrap.to_string())
        .bind(id.to_string())
        .fetch_one(&mut *tx)
        .await?;
        Self::insert_activity(&mut tx, decided.activity).await?;
        tx.commit().await?;
        Ok(Some(ScriptVersion::try_from(row)?))
    }
}
