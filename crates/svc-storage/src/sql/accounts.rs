//! Organizations, their users, the weekly plan renewal, and instance settings.

use std::collections::HashSet;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use const_format::concatcp;
use sqlx::{ColumnIndex, Decode, Encode, Executor, QueryBuilder, Type};
use svc_domain::account::{Organization, User};
use svc_domain::plan::{Plan, WeeklyUnits};
use svc_domain::{OrgId, SessionId, UserId};

use super::shared::conflict_on_unique;
use super::{Dialect, RowsAffected, SqlStore, columns};
use crate::records::{OrganizationRecord, UserRecord, UserWithHashRecord, id, millis, to_json};
use crate::traits::{AccountStore, NewAccount, PlanRenewal, RenewalOutcome};
use crate::{Result, StoreError};

/// Appends the condition "of a renewed plan, not renewed since `week`" (the
/// index `organizations_by_renewal` serves it).
fn push_due<DB: Dialect>(qb: &mut QueryBuilder<DB>, week: i64, units: &WeeklyUnits)
where
    for<'q> String: Encode<'q, DB> + Type<DB>,
    for<'q> i64: Encode<'q, DB> + Type<DB>,
{
    qb.push(" FROM organizations WHERE plan IN (");
    let mut plans = qb.separated(", ");
    for plan in units.renewed_plans() {
        plans.push_bind(plan.as_str().to_string());
    }
    qb.push(") AND plan_renewed_at < ").push_bind(week);
}

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
        // The plan is set at creation: it is renewed from the next week on.
        sqlx::query(concatcp!(
            "INSERT INTO organizations (",
            columns::ORGANIZATION,
            ", plan_renewed_at) VALUES ($1, $2, $3, $4, $5, $6, $6)"
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
        sqlx::query(
            "INSERT INTO memberships (organization_id, user_id, role, joined_at, last_used_at) \
             VALUES ($1, $2, 'owner', $3, $3)",
        )
        .bind(org.id.to_string())
        .bind(user.id.to_string())
        .bind(millis(user.created_at))
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }

    async fn user_by_email(&self, email: &str) -> Result<Option<(User, String)>> {
        let row: Option<UserWithHashRecord> =
            sqlx::query_as(concatcp!("SELECT ", columns::USER, ", password_hash FROM users WHERE email = $1"))
                .bind(email)
                .fetch_optional(&mut *self.writer().await?)
                .await?;
        row.map(|r| Ok((User::try_from(r.user)?, r.password_hash))).transpose()
    }

    async fn user(&self, org: OrgId, user: UserId) -> Result<Option<User>> {
        let row: Option<UserRecord> = sqlx::query_as(concatcp!(
            "SELECT ",
            columns::USER_M,
            " FROM users u JOIN memberships m ON m.user_id = u.id WHERE m.organization_id = $1 AND u.id = $2"
        ))
        .bind(org.to_string())
        .bind(user.to_string())
        .fetch_optional(&mut *self.reader().await?)
        .await?;
        row.map(User::try_from).transpose()
    }

    async fn password_hash(&self, org: OrgId, user: UserId) -> Result<Option<String>> {
        let row: Option<(String,)> =
            sqlx::query_as("SELECT password_hash FROM users WHERE id IN (SELECT user_id FROM memberships WHERE organization_id = $1) AND id = $2")
                .bind(org.to_string())
                .bind(user.to_string())
                .fetch_optional(&mut *self.writer().await?)
                .await?;
        Ok(row.map(|(hash,)| hash))
    }

    async fn set_password_hash(
        &self,
        org: OrgId,
        user: UserId,
        hash: &str,
        keep: Option<SessionId>,
        at: DateTime<Utc>,
    ) -> Result<bool> {
        let mut tx = self.begin_write().await?;
        let done = sqlx::query("UPDATE users SET password_hash = $3 WHERE id IN (SELECT user_id FROM memberships WHERE organization_id = $1) AND id = $2")
            .bind(org.to_string())
            .bind(user.to_string())
            .bind(hash)
            .execute(&mut *tx)
            .await?;
        if done.rows_affected() != 1 {
            return Ok(false);
        }
        // A password is the user's in every organization: their sessions in
        // each end.
        sqlx::query(
            "UPDATE sessions SET revoked_at = $2 WHERE user_id = $1 AND id <> $3 AND revoked_at IS NULL \
             AND expires_at > $2",
        )
        .bind(user.to_string())
        .bind(millis(at))
        .bind(keep.map(|k| k.to_string()).unwrap_or_default())
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(true)
    }

    async fn set_email(&self, org: OrgId, user: UserId, email: &str) -> Result<bool> {
        let done = sqlx::query("UPDATE users SET email = $3 WHERE id IN (SELECT user_id FROM memberships WHERE organization_id = $1) AND id = $2")
            .bind(org.to_string())
            .bind(user.to_string())
            .bind(email)
            .execute(&mut *self.writer().await?)
            .await
            .map_err(|e| conflict_on_unique(e, "email"))?;
        Ok(done.rows_affected() == 1)
    }

    async fn organization(&self, org: OrgId) -> Result<Option<Organization>> {
        let row: Option<OrganizationRecord> =
            sqlx::query_as(concatcp!("SELECT ", columns::ORGANIZATION, " FROM organizations WHERE id = $1"))
                .bind(org.to_string())
                .fetch_optional(&mut *self.writer().await?)
                .await?;
        row.map(Organization::try_from).transpose()
    }

    async fn set_plan(&self, org: OrgId, plan: Plan) -> Result<bool> {
        let done = sqlx::query(
            "UPDATE organizations SET plan = $2, plan_renewed_at = CASE WHEN plan_renewed_at < $3 THEN $3 \
             ELSE plan_renewed_at END WHERE id = $1",
        )
        .bind(org.to_string())
        .bind(plan.as_str())
        .bind(millis(Utc::now()))
        .execute(&mut *self.writer().await?)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    async fn renew_plans(
        &self,
        week_start: DateTime<Utc>,
        units: &WeeklyUnits,
        limit: i64,
    ) -> Result<Vec<PlanRenewal>> {
        let week = millis(week_start);
        if units.renewed_plans().next().is_none() {
            return Ok(vec![]);
        }
        // Nothing due (every pass but the first of a week): one indexed read.
        let mut probe = QueryBuilder::<DB>::new("SELECT id");
        push_due(&mut probe, week, units);
        probe.push(" LIMIT 1");
        if probe.build_query_scalar::<String>().fetch_optional(&mut *self.writer().await?).await?.is_none() {
            return Ok(vec![]);
        }

        let mut tx = self.begin_write().await?;
        let mut due = QueryBuilder::<DB>::new("SELECT id, plan, balance");
        push_due(&mut due, week, units);
        due.push(" LIMIT ").push_bind(limit).push(DB::LOCK_DUE);
        let rows: Vec<(String, String, i64)> = due.build_query_as().fetch_all(&mut *tx).await?;
        if rows.is_empty() {
            return Ok(vec![]);
        }
        let mut taken = Vec::with_capacity(rows.len());
        for (org, plan, balance) in rows {
            let plan: Plan = plan.parse().map_err(StoreError::Corrupt)?;
            let Some(amount) = units.of(plan) else { continue };
            taken.push(PlanRenewal {
                organization_id: id(&org)?,
                plan,
                week_start,
                units: amount,
                balance_before: balance,
                balance_after: balance.max(amount),
                outcome: RenewalOutcome::Renewed,
            });
        }

        if taken.is_empty() {
            return Ok(vec![]);
        }

        // The unique (organization, week) decides which scheduler renews.
        let renewed_at = millis(Utc::now());
        let mut record = QueryBuilder::<DB>::new(
            "INSERT INTO plan_renewals (organization_id, week_start, plan, units, balance_before, balance_after, \
             renewed_at) ",
        );
        record.push_values(&taken, |mut b, r| {
            b.push_bind(r.organization_id.to_string())
                .push_bind(week)
                .push_bind(r.plan.as_str())
                .push_bind(r.units)
                .push_bind(r.balance_before)
                .push_bind(r.balance_after)
                .push_bind(renewed_at);
        });
        record.push(" ON CONFLICT DO NOTHING RETURNING organization_id");
        let recorded: HashSet<String> =
            record.build_query_scalar::<String>().fetch_all(&mut *tx).await?.into_iter().collect();
        for r in &mut taken {
            if !recorded.contains(&r.organization_id.to_string()) {
                r.outcome = RenewalOutcome::AlreadyRenewed;
                r.balance_after = r.balance_before;
            }
        }

        // The rows are locked (or, on SQLite, the database is): the balance
        // read above is the balance. Every taken organization stops being
        // due this week, renewed here or not.
        let mut update = QueryBuilder::<DB>::new("WITH v (id, balance) AS (");
        update.push_values(&taken, |mut b, r| {
            let balance = (r.outcome == RenewalOutcome::Renewed).then_some(r.balance_after);
            b.push_bind(r.organization_id.to_string()).push_bind(balance);
        });
        update
            .push(
                ") UPDATE organizations SET balance = COALESCE(v.balance, organizations.balance), plan_renewed_at = \
                 CASE WHEN organizations.plan_renewed_at < ",
            )
            .push_bind(week)
            .push(" THEN ")
            .push_bind(week)
            .push(" ELSE organizations.plan_renewed_at END FROM v WHERE organizations.id = v.id");
        update.build().execute(&mut *tx).await?;
        tx.commit().await?;
        Ok(taken)
    }

    async fn set_admin(&self, org: OrgId, user: UserId, is_admin: bool) -> Result<bool> {
        let done = sqlx::query("UPDATE users SET is_admin = $3 WHERE id IN (SELECT user_id FROM memberships WHERE organization_id = $1) AND id = $2")
            .bind(org.to_string())
            .bind(user.to_string())
            .bind(is_admin)
            .execute(&mut *self.writer().await?)
            .await?;
        Ok(done.rows_affected() == 1)
    }

    async fn add_balance(&self, org: OrgId, units: i64) -> Result<Option<i64>> {
        let row: Option<(i64,)> =
            sqlx::query_as("UPDATE organizations SET balance = balance + $2 WHERE id = $1 RETURNING balance")
                .bind(org.to_string())
                .bind(units)
                .fetch_optional(&mut *self.writer().await?)
                .await?;
        Ok(row.map(|(b,)| b))
    }

    async fn setting_or_init(&self, key: &str, value: &str) -> Result<String> {
        sqlx::query("INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING")
            .bind(key)
            .bind(value)
            .execute(&mut *self.writer().await?)
            .await?;
        let (stored,): (String,) = sqlx::query_as("SELECT value FROM settings WHERE key = $1")
            .bind(key)
            .fetch_one(&mut *self.writer().await?)
            .await?;
        Ok(stored)
    }
}
