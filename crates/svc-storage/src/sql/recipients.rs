//! Addresses outside an organization's members that its scraps send to,
//! pending until they confirm.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use const_format::concatcp;
use sqlx::{ColumnIndex, Decode, Encode, Executor, Type};
use svc_domain::OrgId;
use svc_domain::recipient::{RecipientAddress, RecipientState};

use super::{Dialect, RowsAffected, SqlStore};
use crate::records::{id, millis, opt_time, time};
use crate::traits::{Asked, ConfirmationLink, RecipientStore};
use crate::{Result, StoreError};

const RECIPIENT: &str = "organization_id, email, state, created_at, sent_at, confirmed_at";

crate::from_row::from_row! {
struct RecipientRecord {
    organization_id: String,
    email: String,
    state: String,
    created_at: i64,
    sent_at: Option<i64>,
    confirmed_at: Option<i64>,
}
}

impl TryFrom<RecipientRecord> for RecipientAddress {
    type Error = StoreError;
    fn try_from(r: RecipientRecord) -> Result<Self> {
        Ok(RecipientAddress {
            organization_id: id(&r.organization_id)?,
            state: RecipientState::parse(&r.state)
                .ok_or_else(|| StoreError::Corrupt(format!("recipient state `{}`", r.state)))?,
            email: r.email,
            created_at: time(r.created_at)?,
            sent_at: opt_time(r.sent_at)?,
            confirmed_at: opt_time(r.confirmed_at)?,
        })
    }
}

#[async_trait]
impl<DB: Dialect> RecipientStore for SqlStore<DB>
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
    async fn recipients(&self, org: OrgId) -> Result<Vec<RecipientAddress>> {
        let rows: Vec<RecipientRecord> = sqlx::query_as(concatcp!(
            "SELECT ",
            RECIPIENT,
            " FROM recipients WHERE organization_id = $1 ORDER BY email"
        ))
        .bind(org.to_string())
        .fetch_all(&mut *self.reader().await?)
        .await?;
        rows.into_iter().map(RecipientAddress::try_from).collect()
    }

    async fn ask_recipient(
        &self,
        org: OrgId,
        email: &str,
        link: Option<&ConfirmationLink<'_>>,
        now: DateTime<Utc>,
        resend_before: DateTime<Utc>,
    ) -> Result<Asked> {
        // The conditional update lets one of two concurrent askers win the
        // sending; its mail is queued in the same transaction, so a secret
        // stored as sent always has its mail.
        let mut tx = self.begin_write().await?;
        sqlx::query(
            "INSERT INTO recipients (organization_id, email, state, created_at) VALUES ($1, $2, 'pending', $3) \
             ON CONFLICT (organization_id, email) DO NOTHING",
        )
        .bind(org.to_string())
        .bind(email)
        .bind(millis(now))
        .execute(&mut *tx)
        .await?;
        if let Some(link) = link {
            let taken = sqlx::query(
                "UPDATE recipients SET token_hash = $3, sent_at = $4 WHERE organization_id = $1 AND email = $2 \
                 AND state = 'pending' AND (sent_at IS NULL OR sent_at <= $5)",
            )
            .bind(org.to_string())
            .bind(email)
            .bind(link.token_hash)
            .bind(millis(now))
            .bind(millis(resend_before))
            .execute(&mut *tx)
            .await?;
            if taken.rows_affected() == 1 {
                Self::insert_email_rows(&mut tx, std::slice::from_ref(link.mail), now).await?;
                tx.commit().await?;
                return Ok(Asked::Send);
            }
        }
        let row: RecipientRecord = sqlx::query_as(concatcp!(
            "SELECT ",
            RECIPIENT,
            " FROM recipients WHERE organization_id = $1 AND email = $2"
        ))
        .bind(org.to_string())
        .bind(email)
        .fetch_one(&mut *tx)
        .await?;
        tx.commit().await?;
        let found = RecipientAddress::try_from(row)?;
        Ok(match found.state {
            RecipientState::Confirmed => Asked::Confirmed,
            RecipientState::Pending => Asked::Wait(found),
        })
    }

    async fn recipient_by_token(&self, token_hash: &str) -> Result<Option<RecipientAddress>> {
        let row: Option<RecipientRecord> =
            sqlx::query_as(concatcp!("SELECT ", RECIPIENT, " FROM recipients WHERE token_hash = $1"))
                .bind(token_hash)
                .fetch_optional(&mut *self.writer().await?)
                .await?;
        row.map(RecipientAddress::try_from).transpose()
    }

    async fn confirm_recipient(&self, token_hash: &str, now: DateTime<Utc>) -> Result<Option<RecipientAddress>> {
        sqlx::query(
            "UPDATE recipients SET state = 'confirmed', confirmed_at = $2 WHERE token_hash = $1 AND state = 'pending'",
        )
        .bind(token_hash)
        .bind(millis(now))
        .execute(&mut *self.writer().await?)
        .await?;
        self.recipient_by_token(token_hash).await
    }

    async fn may_receive(&self, org: OrgId, email: &str) -> Result<bool> {
        let row: Option<(String,)> = sqlx::query_as(
            "SELECT email FROM recipients WHERE organization_id = $1 AND email = $2 AND state = 'confirmed' \
             UNION ALL SELECT u.email FROM memberships m JOIN users u ON u.id = m.user_id \
             WHERE m.organization_id = $1 AND u.email = $2 LIMIT 1",
        )
        .bind(org.to_string())
        .bind(email)
        .fetch_optional(&mut *self.writer().await?)
        .await?;
        Ok(row.is_some())
    }
}
