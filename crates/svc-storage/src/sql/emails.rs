//! The email outbox: queue, claim under a lease, record each attempt; and
//! who receives announcements.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use const_format::concatcp;
use sqlx::{AssertSqlSafe, ColumnIndex, Decode, Encode, Executor, QueryBuilder, Type};
use svc_domain::activity::Activity;
use svc_domain::email::{Email, EmailRecord};
use svc_domain::{ObjectId, OrgId, ScrapId, UserId};

use super::{Dialect, RowsAffected, SqlStore, columns};
use crate::Result;
use crate::email_records::EmailRow;
use crate::records::{id, millis};
use crate::traits::{EmailOutcome, EmailStore, Recipient};

/// Queued emails due at `$1` that no mailer holds, oldest first, at most `$2`;
/// [`Dialect::LOCK_DUE`] follows.
const DUE_EMAILS: &str = concatcp!(
    "SELECT ",
    columns::EMAIL,
    " FROM emails WHERE state = 'queued' AND next_attempt_at <= $1 \
     AND (lease_until IS NULL OR lease_until < $1) ORDER BY next_attempt_at, id LIMIT $2"
);

#[async_trait]
impl<DB: Dialect> EmailStore for SqlStore<DB>
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
    async fn queue_emails(&self, emails: &[Email], due: DateTime<Utc>) -> Result<()> {
        let mut tx = self.begin_write().await?;
        Self::insert_email_rows(&mut tx, emails, due).await?;
        tx.commit().await?;
        Ok(())
    }

    async fn claim_emails(
        &self,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
        limit: i64,
    ) -> Result<Vec<EmailRecord>> {
        let mut tx = self.begin_write().await?;
        let rows: Vec<EmailRow> = sqlx::query_as(AssertSqlSafe(format!("{DUE_EMAILS}{}", DB::LOCK_DUE)))
            .bind(millis(now))
            .bind(limit)
            .fetch_all(&mut *tx)
            .await?;
        if rows.is_empty() {
            return Ok(vec![]);
        }
        let records: Vec<EmailRecord> = rows.into_iter().map(EmailRecord::try_from).collect::<Result<_>>()?;
        let ids: Vec<ObjectId> = records.iter().map(|r| r.email.id).collect();
        let mut lease = QueryBuilder::<DB>::new("UPDATE emails SET lease_until = ");
        lease.push_bind(millis(lease_until)).push(" WHERE id IN ");
        Self::push_id_list(&mut lease, &ids);
        lease.build().execute(&mut *tx).await?;
        tx.commit().await?;
        Ok(records)
    }

    async fn record_email(
        &self,
        email: ObjectId,
        made: i64,
        outcome: &EmailOutcome,
        activity: Option<&Activity>,
    ) -> Result<bool> {
        let (state, next, error, sent) = match outcome {
            EmailOutcome::Sent { at } => ("sent", None, None, Some(millis(*at))),
            EmailOutcome::Retry { error, next } => ("queued", Some(millis(*next)), Some(error.as_str()), None),
            EmailOutcome::Failed { error } => ("failed", None, Some(error.as_str()), None),
        };
        let mut tx = self.begin_write().await?;
        let updated = sqlx::query(
            "UPDATE emails SET state = $3, attempts = attempts + 1, next_attempt_at = $4, lease_until = NULL, \
             last_error = COALESCE($5, last_error), sent_at = $6 \
             WHERE id = $1 AND attempts = $2 AND state = 'queued'",
        )
        .bind(email.to_string())
        .bind(made)
        .bind(state)
        .bind(next)
        .bind(error)
        .bind(sent)
        .execute(&mut *tx)
        .await?;
        if updated.rows_affected() != 1 {
            return Ok(false);
        }
        if let Some(activity) = activity {
            Self::insert_activity(&mut tx, activity).await?;
        }
        tx.commit().await?;
        Ok(true)
    }

    async fn scrap_emails(&self, org: OrgId, scrap: ScrapId, limit: i64) -> Result<Vec<EmailRecord>> {
        let rows: Vec<EmailRow> = sqlx::query_as(concatcp!(
            "SELECT ",
            columns::EMAIL,
            " FROM emails WHERE organization_id = $1 AND scrap_id = $2 ORDER BY created_at DESC, id DESC LIMIT $3"
        ))
        .bind(org.to_string())
        .bind(scrap.to_string())
        .bind(limit)
        .fetch_all(&mut *self.reader().await?)
        .await?;
        rows.into_iter().map(EmailRecord::try_from).collect()
    }

    async fn failed_emails(&self, org: OrgId, limit: i64) -> Result<Vec<EmailRecord>> {
        let rows: Vec<EmailRow> = sqlx::query_as(concatcp!(
            "SELECT ",
            columns::EMAIL,
            " FROM emails WHERE organization_id = $1 AND state = 'failed' ORDER BY created_at DESC, id DESC LIMIT $2"
        ))
        .bind(org.to_string())
        .bind(limit)
        .fetch_all(&mut *self.reader().await?)
        .await?;
        rows.into_iter().map(EmailRecord::try_from).collect()
    }

    async fn announcement_recipients(&self, after: Option<UserId>, limit: i64) -> Result<Vec<Recipient>> {
        let rows: Vec<(String, String, String)> = sqlx::query_as(
            "SELECT organization_id, id, email FROM users WHERE announcements AND id > $1 ORDER BY id LIMIT $2",
        )
        .bind(after.map(|a| a.to_string()).unwrap_or_default())
        .bind(limit)
        .fetch_all(&mut *self.reader().await?)
        .await?;
        rows.into_iter()
            .map(|(org, user, email)| Ok(Recipient { organization_id: id(&org)?, user_id: id(&user)?, email }))
            .collect()
    }

    async fn set_announcements(&self, org: OrgId, user: UserId, on: bool) -> Result<bool> {
        let mut tx = self.begin_write().await?;
        let updated = sqlx::query("UPDATE users SET announcements = $3 WHERE organization_id = $1 AND id = $2")
            .bind(org.to_string())
            .bind(user.to_string())
            .bind(on)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(updated.rows_affected() == 1)
    }
}
