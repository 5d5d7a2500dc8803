//! The chat channels an organization saved, their URLs sealed.

use async_trait::async_trait;
use sqlx::{ColumnIndex, Decode, Encode, Executor, Type};
use svc_domain::channel::SavedChannel;
use svc_domain::{ObjectId, OrgId};

use super::shared::conflict_on_unique;
use super::{Dialect, RowsAffected, SqlStore};
use crate::records::{id, millis, time};
use crate::traits::ChannelStore;
use crate::{Result, Sealer};

const COLUMNS: &str = "id, organization_id, name, url, created_at";

crate::from_row::from_row! {
struct ChannelRecord {
    id: String,
    organization_id: String,
    name: String,
    url: String,
    created_at: i64,
}
}

impl ChannelRecord {
    fn open(self, sealer: &Sealer) -> Result<SavedChannel> {
        Ok(SavedChannel {
            id: id(&self.id)?,
            organization_id: id(&self.organization_id)?,
            name: self.name,
            url: sealer.open_or_plain(&self.url)?,
            created_at: time(self.created_at)?,
        })
    }
}

#[async_trait]
impl<DB: Dialect> ChannelStore for SqlStore<DB>
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
    async fn insert_channel(&self, c: &SavedChannel) -> Result<()> {
        let mut tx = self.begin_write().await?;
        sqlx::query(const_format::concatcp!("INSERT INTO channels (", COLUMNS, ") VALUES ($1, $2, $3, $4, $5)"))
            .bind(c.id.to_string())
            .bind(c.organization_id.to_string())
            .bind(&c.name)
            .bind(self.sealer.seal(&c.url))
            .bind(millis(c.created_at))
            .execute(&mut *tx)
            .await
            .map_err(|e| conflict_on_unique(e, "channel"))?;
        tx.commit().await?;
        Ok(())
    }

    async fn list_channels(&self, org: OrgId) -> Result<Vec<SavedChannel>> {
        let rows: Vec<ChannelRecord> = sqlx::query_as(const_format::concatcp!(
            "SELECT ",
            COLUMNS,
            " FROM channels WHERE organization_id = $1 ORDER BY name"
        ))
        .bind(org.to_string())
        .fetch_all(&mut *self.reader().await?)
        .await?;
        rows.into_iter().map(|r| r.open(&self.sealer)).collect()
    }

    async fn channel_named(&self, org: OrgId, name: &str) -> Result<Option<SavedChannel>> {
        let row: Option<ChannelRecord> = sqlx::query_as(const_format::concatcp!(
            "SELECT ",
            COLUMNS,
            " FROM channels WHERE organization_id = $1 AND name = $2"
        ))
        .bind(org.to_string())
        .bind(name)
        .fetch_optional(&mut *self.writer().await?)
        .await?;
        row.map(|r| r.open(&self.sealer)).transpose()
    }

    async fn channel(&self, org: OrgId, id: ObjectId) -> Result<Option<SavedChannel>> {
        let row: Option<ChannelRecord> = sqlx::query_as(const_format::concatcp!(
            "SELECT ",
            COLUMNS,
            " FROM channels WHERE organization_id = $1 AND id = $2"
        ))
        .bind(org.to_string())
        .bind(id.to_string())
        .fetch_optional(&mut *self.writer().await?)
        .await?;
        row.map(|r| r.open(&self.sealer)).transpose()
    }

    async fn delete_channel(&self, org: OrgId, id: ObjectId) -> Result<bool> {
        let mut tx = self.begin_write().await?;
        let done = sqlx::query("DELETE FROM channels WHERE organization_id = $1 AND id = $2")
            .bind(org.to_string())
            .bind(id.to_string())
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(done.rows_affected() == 1)
    }
}
