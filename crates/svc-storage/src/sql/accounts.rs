//! Organizations, their users, and instance settings.

use async_trait::async_trait;
use const_format::concatcp;
use sqlx::{ColumnIndex, Decode, Encode, Executor, Type};
use svc_domain::ObjectId;
use svc_domain::account::{Organization, User};
use svc_domain::plan::Plan;

use super::shared::conflict_on_unique;
use super::{Dialect, RowsAffected, SqlStore, columns};
use crate::Result;
use crate::records::{OrganizationRecord, UserRecord, UserWithHashRecord, millis, to_json};
use crate::traits::{AccountStore, NewAccount};

#[async_trait]
impl<DB: Dialect> AccountStore for SqlStore<DB>
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
    async fn create_account(&self, account: &NewAccount) -> Result<()> {
        let org = &account.organization;
        let user = &account.user;
        let mut tx = self.begin_write().await?;
        sqlx::query(concatcp!(
            "INSERT INTO organizations (",
            columns::ORGANIZATION,
            ") VALUES ($1, $2, $3, $4, $5, $6)"
        ))
        .bind(org.id.to_string())
        .bind(&org.name)
        .bind(org.plan.as_str())
        .bind(org.balance)
        .bind(to_json(&org.default_containers))
        .bind(millis(org.created_at))
        .execute(&mut *tx)
        .await?;
        sqlx::query(concatcp!(
            "INSERT INTO users (",
            columns::USER,
            ", password_hash) VALUES ($1, $2, $3, $4, $5, $6, $7)"
        ))
        .bind(user.id.to_string())
        .bind(org.id.to_string())
        .bind(&user.email)
        .bind(&user.name)
        .bind(user.is_admin)
        .bind(millis(user.created_at))
        .bind(&account.password_hash)
        .execute(&mut *tx)
        .await
        .map_err(|e| conflict_on_unique(e, "email"))?;
        tx.commit().await?;
        Ok(())
    }

    async fn user_by_email(&self, email: &str) -> Result<Option<(User, String)>> {
        let row: Option<UserWithHashRecord> =
            sqlx::query_as(concatcp!("SELECT ", columns::USER, ", password_hash FROM users WHERE email = $1"))
                .bind(email)
                .fetch_optional(&self.pool)
                .await?;
        row.map(|r| Ok((User::try_from(r.user)?, r.password_hash))).transpose()
    }

    async fn user(&self, org: ObjectId, user: ObjectId) -> Result<Option<User>> {
        let row: Option<UserRecord> =
            sqlx::query_as(concatcp!("SELECT ", columns::USER, " FROM users WHERE organization_id = $1 AND id = $2"))
                .bind(org.to_string())
                .bind(user.to_string())
                .fetch_optional(&self.pool)
                .await?;
        row.map(User::try_from).transpose()
    }

    async fn password_hash(&self, org: ObjectId, user: ObjectId) -> Result<Option<String>> {
        let row: Option<(String,)> =
            sqlx::query_as("SELECT password_hash FROM users WHERE organization_id = $1 AND id = $2")
                .bind(org.to_string())
                .bind(user.to_string())
                .fetch_optional(&self.pool)
                .await?;
        Ok(row.map(|(hash,)| hash))
    }

    async fn set_password_hash(&self, org: ObjectId, user: ObjectId, hash: &str) -> Result<bool> {
        let done = sqlx::query("UPDATE users SET password_hash = $3 WHERE organization_id = $1 AND id = $2")
            .bind(org.to_string())
            .bind(user.to_string())
            .bind(hash)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() == 1)
    }

    async fn set_email(&self, org: ObjectId, user: ObjectId, email: &str) -> Result<bool> {
        let done = sqlx::query("UPDATE users SET email = $3 WHERE organization_id = $1 AND id = $2")
            .bind(org.to_string())
            .bind(user.to_string())
            .bind(email)
            .execute(&self.pool)
            .await
            .map_err(|e| conflict_on_unique(e, "email"))?;
        Ok(done.rows_affected() == 1)
    }

    async fn organization(&self, org: ObjectId) -> Result<Option<Organization>> {
        let row: Option<OrganizationRecord> =
            sqlx::query_as(concatcp!("SELECT ", columns::ORGANIZATION, " FROM organizations WHERE id = $1"))
                .bind(org.to_string())
                .fetch_optional(&self.pool)
                .await?;
        row.map(Organization::try_from).transpose()
    }

    async fn set_plan(&self, org: ObjectId, plan: Plan) -> Result<bool> {
        let done = sqlx::query("UPDATE organizations SET plan = $2 WHERE id = $1")
            .bind(org.to_string())
            .bind(plan.as_str())
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() == 1)
    }

    async fn set_admin(&self, org: ObjectId, user: ObjectId, is_admin: bool) -> Result<bool> {
        let done = sqlx::query("UPDATE users SET is_admin = $3 WHERE organization_id = $1 AND id = $2")
            .bind(org.to_string())
            .bind(user.to_string())
            .bind(is_admin)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() == 1)
    }

    async fn add_balance(&self, org: ObjectId, units: i64) -> Result<Option<i64>> {
        let row: Option<(i64,)> =
            sqlx::query_as("UPDATE organizations SET balance = balance + $2 WHERE id = $1 RETURNING balance")
                .bind(org.to_string())
                .bind(units)
                .fetch_optional(&self.pool)
                .await?;
        Ok(row.map(|(b,)| b))
    }

    async fn setting_or_init(&self, key: &str, value: &str) -> Result<String> {
        sqlx::query("INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING")
            .bind(key)
            .bind(value)
            .execute(&self.pool)
            .await?;
        let (stored,): (String,) =
            sqlx::query_as("SELECT value FROM settings WHERE key = $1").bind(key).fetch_one(&self.pool).await?;
        Ok(stored)
    }
}
