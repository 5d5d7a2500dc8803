//! Scraps' banner images (`scrap_banners`): the bytes in the database, found
//! by the token at the end of the scrap's `banner` path.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use sqlx::{ColumnIndex, Decode, Encode, Executor, Type};
use svc_domain::activity::Activity;
use svc_domain::{OrgId, ScrapId};

use super::{Dialect, RowsAffected, SqlStore};
use crate::Result;
use crate::records::millis;
use crate::traits::{BannerImage, BannerStore, NewBanner};

#[async_trait]
impl<DB: Dialect> BannerStore for SqlStore<DB>
where
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> &'q str: Encode<'q, DB> + ColumnIndex<DB::Row>,
    for<'q> Option<&'q str>: Encode<'q, DB>,
    for<'q> String: Encode<'q, DB> + Decode<'q, DB> + Type<DB>,
    for<'q> Option<String>: Encode<'q, DB>,
    for<'q> i64: Encode<'q, DB> + Decode<'q, DB> + Type<DB>,
    for<'q> Option<i64>: Encode<'q, DB>,
    for<'q> bool: Encode<'q, DB> + Decode<'q, DB> + Type<DB>,
    for<'q> Vec<u8>: Encode<'q, DB> + Decode<'q, DB> + Type<DB>,
    str: Type<DB>,
    usize: ColumnIndex<DB::Row>,
{
    async fn set_banner(
        &self,
        org: OrgId,
        scrap: ScrapId,
        banner: &NewBanner<'_>,
        activity: &Activity,
    ) -> Result<bool> {
        let NewBanner { token, path, image, at } = *banner;
        let mut tx = self.begin_write().await?;
        let done = sqlx::query("UPDATE scraps SET banner = $3, updated_at = $4 WHERE organization_id = $1 AND id = $2")
            .bind(org.to_string())
            .bind(scrap.to_string())
            .bind(path.to_string())
            .bind(millis(at))
            .execute(&mut *tx)
            .await?;
        if done.rows_affected() != 1 {
            return Ok(false);
        }
        sqlx::query(
            "INSERT INTO scrap_banners (scrap_id, organization_id, token, content_type, image, created_at) \
             VALUES ($2, $1, $3, $4, $5, $6) \
             ON CONFLICT (scrap_id) DO UPDATE SET token = excluded.token, content_type = excluded.content_type, \
             image = excluded.image, created_at = excluded.created_at",
        )
        .bind(org.to_string())
        .bind(scrap.to_string())
        .bind(token.to_string())
        .bind(image.content_type.clone())
        .bind(image.bytes.clone())
        .bind(millis(at))
        .execute(&mut *tx)
        .await?;
        Self::insert_activity(&mut tx, activity).await?;
        tx.commit().await?;
        Ok(true)
    }

    async fn remove_banner(&self, org: OrgId, scrap: ScrapId, at: DateTime<Utc>, activity: &Activity) -> Result<bool> {
        let mut tx = self.begin_write().await?;
        let done = sqlx::query("UPDATE scraps SET banner = '', updated_at = $3 WHERE organization_id = $1 AND id = $2")
            .bind(org.to_string())
            .bind(scrap.to_string())
            .bind(millis(at))
            .execute(&mut *tx)
            .await?;
        if done.rows_affected() != 1 {
            return Ok(false);
        }
        sqlx::query("DELETE FROM scrap_banners WHERE organization_id = $1 AND scrap_id = $2")
            .bind(org.to_string())
            .bind(scrap.to_string())
            .execute(&mut *tx)
            .await?;
        Self::insert_activity(&mut tx, activity).await?;
        tx.commit().await?;
        Ok(true)
    }

    async fn banner_image(&self, token: &str, path: &str) -> Result<Option<BannerImage>> {
        let row: Option<(String, Vec<u8>)> = sqlx::query_as(
            "SELECT b.content_type, b.image FROM scrap_banners b JOIN scraps s \
             ON s.id = b.scrap_id AND s.organization_id = b.organization_id \
             WHERE b.token = $1 AND s.banner = $2",
        )
        .bind(token.to_string())
        .bind(path.to_string())
        .fetch_optional(&mut *self.writer().await?)
        .await?;
        Ok(row.map(|(content_type, bytes)| BannerImage { content_type, bytes }))
    }
}
