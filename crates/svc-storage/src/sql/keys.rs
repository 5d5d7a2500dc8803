//! API keys: only their hash is stored.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use const_format::concatcp;
use sqlx::{ColumnIndex, Decode, Encode, Executor, Type};
use svc_domain::activity::Activity;
use svc_domain::api_key::{ApiKey, KeyOwner};
use svc_domain::{KeyId, OrgId};

use super::shared::conflict_on_unique;
use super::{Dialect, RowsAffected, SqlStore, columns};
use crate::Result;
use crate::records::{KeyOwnerRecord, KeyRecord, ids_json, millis, opt_millis, scopes_json};
use crate::traits::{KeyStore, Page};

#[async_trait]
impl<DB: Dialect> KeyStore for SqlStore<DB>
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
    async fn insert_key(&self, key: &ApiKey, key_hash: &str, activities: &[Activity]) -> Result<()> {
        let mut tx = self.begin_write().await?;
        sqlx::query(
            "INSERT INTO api_keys (id, organization_id, user_id, name, prefix, key_hash, scopes, scrap_ids, \
             expires_at, created_at, revoked_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
        )
        .bind(key.id.to_string())
        .bind(key.organization_id.to_string())
        .bind(key.user_id.to_string())
        .bind(&key.name)
        .bind(&key.prefix)
        .bind(key_hash)
        .bind(scopes_json(&key.scopes))
        .bind(ids_json(&key.scrap_ids))
        .bind(opt_millis(key.expires_at))
        .bind(millis(key.created_at))
        .bind(opt_millis(key.revoked_at))
        .execute(&mut *tx)
        .await
        .map_err(|e| conflict_on_unique(e, "key"))?;
        for activity in activities {
            Self::insert_activity(&mut tx, activity).await?;
        }
        tx.commit().await?;
        Ok(())
    }

    async fn key_by_hash(&self, key_hash: &str) -> Result<Option<KeyOwner>> {
        let row: Option<KeyOwnerRecord> = sqlx::query_as(concatcp!(
            "SELECT ",
            columns::KEY,
            ", u.is_admin AS owner_is_admin, m.role AS owner_role FROM api_keys k JOIN users u ON u.id = k.user_id \
             JOIN memberships m ON m.organization_id = k.organization_id AND m.user_id = k.user_id \
             WHERE k.key_hash = $1"
        ))
        .bind(key_hash)
        .fetch_optional(&mut *self.reader().await?)
        .await?;
        row.map(|r| {
            Ok(KeyOwner {
                owner_role: crate::records::role(&r.owner_role)?,
                key: ApiKey::try_from(r.key)?,
                owner_is_admin: r.owner_is_admin,
            })
        })
        .transpose()
    }

    async fn list_keys(&self, org: OrgId, offset: i64, limit: i64) -> Result<Page<ApiKey>> {
        let (total,): (i64,) =
            sqlx::query_as("SELECT COUNT(*) FROM api_keys WHERE organization_id = $1 AND revoked_at IS NULL")
                .bind(org.to_string())
                .fetch_one(&mut *self.writer().await?)
                .await?;
        let rows: Vec<KeyRecord> = sqlx::query_as(concatcp!(
            "SELECT ",
            columns::KEY,
            " FROM api_keys k WHERE k.organization_id = $1 AND k.revoked_at IS NULL \
             ORDER BY k.created_at DESC, k.id DESC LIMIT $2 OFFSET $3"
        ))
        .bind(org.to_string())
        .bind(limit)
        .bind(offset)
        .fetch_all(&mut *self.reader().await?)
        .await?;
        let items = rows.into_iter().map(ApiKey::try_from).collect::<Result<_>>()?;
        Ok(Page { items, total })
    }

    async fn key(&self, org: OrgId, key: KeyId) -> Result<Option<ApiKey>> {
        let row: Option<KeyRecord> = sqlx::query_as(concatcp!(
            "SELECT ",
            columns::KEY,
            " FROM api_keys k WHERE k.organization_id = $1 AND k.id = $2 AND k.revoked_at IS NULL"
        ))
        .bind(org.to_string())
        .bind(key.to_string())
        .fetch_optional(&mut *self.writer().await?)
        .await?;
        row.map(ApiKey::try_from).transpose()
    }

    async fn revoke_key(&self, org: OrgId, key: KeyId, at: DateTime<Utc>, activities: &[Activity]) -> Result<bool> {
        let mut tx = self.begin_write().await?;
        let done = sqlx::query(
            "UPDATE api_keys SET revoked_at = $3 WHERE organization_id = $1 AND id = $2 AND revoked_at IS NULL",
        )
        .bind(org.to_string())
        .bind(key.to_string())
        .bind(millis(at))
        .execute(&mut *tx)
        .await?;
        if done.rows_affected() != 1 {
            return Ok(false);
        }
        for activity in activities {
            Self::insert_activity(&mut tx, activity).await?;
        }
        tx.commit().await?;
        Ok(true)
    }
}
