//! Web sessions: a row per log-in, which a JWT names (`sid`).

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use const_format::concatcp;
use sqlx::{ColumnIndex, Decode, Encode, Executor, Type};
use svc_domain::account::User;
use svc_domain::login_session::LoginSession;
use svc_domain::member::Role;
use svc_domain::{OrgId, SessionId, UserId};

use super::{Dialect, RowsAffected, SqlStore, WriteTx, columns};
use crate::Result;
use crate::records::{UserRecord, id, millis, role, time};
use crate::traits::SessionStore;

const SESSION: &str = "id, organization_id, user_id, device, address, created_at, last_seen_at, expires_at";

crate::from_row::from_row! {
struct SessionRecord {
    id: String,
    organization_id: String,
    user_id: String,
    device: String,
    address: String,
    created_at: i64,
    last_seen_at: i64,
    expires_at: i64,
}
}

impl TryFrom<SessionRecord> for LoginSession {
    type Error = crate::StoreError;
    fn try_from(r: SessionRecord) -> Result<Self> {
        Ok(LoginSession {
            id: id(&r.id)?,
            organization_id: id(&r.organization_id)?,
            user_id: id(&r.user_id)?,
            device: r.device,
            address: r.address,
            created_at: time(r.created_at)?,
            last_seen_at: time(r.last_seen_at)?,
            expires_at: time(r.expires_at)?,
        })
    }
}

crate::from_row::from_row! {
struct LiveRecord {
    #[flatten]
    user: UserRecord,
    role: String,
    last_seen_at: i64,
}
}

/// Ends every live session of the user but `keep`, in `tx`.
pub(super) async fn end_sessions_in<DB: Dialect>(
    tx: &mut WriteTx<DB>,
    org: OrgId,
    user: UserId,
    keep: Option<SessionId>,
    at: DateTime<Utc>,
) -> Result<u64>
where
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> String: Encode<'q, DB> + Type<DB>,
    for<'q> i64: Encode<'q, DB> + Type<DB>,
{
    // A kept id of "" matches no row: every session ends.
    let done = sqlx::query(
        "UPDATE sessions SET revoked_at = $3 WHERE organization_id = $1 AND user_id = $2 AND id <> $4 \
         AND revoked_at IS NULL AND expires_at > $3",
    )
    .bind(org.to_string())
    .bind(user.to_string())
    .bind(millis(at))
    .bind(keep.map(|k| k.to_string()).unwrap_or_default())
    .execute(&mut **tx)
    .await?;
    Ok(done.rows_affected())
}

#[async_trait]
impl<DB: Dialect> SessionStore for SqlStore<DB>
where
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> &'q str: Encode<'q, DB> + ColumnIndex<DB::Row>,
    for<'q> String: Encode<'q, DB> + Decode<'q, DB> + Type<DB>,
    for<'q> i64: Encode<'q, DB> + Decode<'q, DB> + Type<DB>,
    for<'q> bool: Encode<'q, DB> + Decode<'q, DB> + Type<DB>,
    str: Type<DB>,
    usize: ColumnIndex<DB::Row>,
{
    async fn insert_session(&self, s: &LoginSession) -> Result<()> {
        sqlx::query(concatcp!("INSERT INTO sessions (", SESSION, ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"))
            .bind(s.id.to_string())
            .bind(s.organization_id.to_string())
            .bind(s.user_id.to_string())
            .bind(&s.device)
            .bind(&s.address)
            .bind(millis(s.created_at))
            .bind(millis(s.last_seen_at))
            .bind(millis(s.expires_at))
            .execute(&mut *self.writer().await?)
            .await?;
        Ok(())
    }

    async fn live_session(
        &self,
        org: OrgId,
        user: UserId,
        session: SessionId,
        now: DateTime<Utc>,
    ) -> Result<Option<(User, Role, DateTime<Utc>)>> {
        let row: Option<LiveRecord> = sqlx::query_as(concatcp!(
            "SELECT ",
            columns::USER_M,
            ", m.role, s.last_seen_at FROM sessions s JOIN memberships m ON m.organization_id = \
             s.organization_id AND m.user_id = s.user_id JOIN users u ON u.id = s.user_id \
             WHERE s.id = $1 AND s.organization_id = $2 AND s.user_id = $3 \
             AND s.revoked_at IS NULL AND s.expires_at > $4"
        ))
        .bind(session.to_string())
        .bind(org.to_string())
        .bind(user.to_string())
        .bind(millis(now))
        .fetch_optional(&mut *self.reader().await?)
        .await?;
        row.map(|r| Ok((User::try_from(r.user)?, role(&r.role)?, time(r.last_seen_at)?))).transpose()
    }

    async fn touch_session(&self, org: OrgId, user: UserId, session: SessionId, now: DateTime<Utc>) -> Result<bool> {
        let done = sqlx::query(
            "UPDATE sessions SET last_seen_at = $4 WHERE id = $1 AND organization_id = $2 AND user_id = $3 \
             AND last_seen_at < $4",
        )
        .bind(session.to_string())
        .bind(org.to_string())
        .bind(user.to_string())
        .bind(millis(now))
        .execute(&mut *self.writer().await?)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    async fn live_sessions(&self, org: OrgId, user: UserId, now: DateTime<Utc>) -> Result<Vec<LoginSession>> {
        let rows: Vec<SessionRecord> = sqlx::query_as(concatcp!(
            "SELECT ",
            SESSION,
            " FROM sessions WHERE organization_id = $1 AND user_id = $2 AND revoked_at IS NULL \
             AND expires_at > $3 ORDER BY last_seen_at DESC, id DESC"
        ))
        .bind(org.to_string())
        .bind(user.to_string())
        .bind(millis(now))
        .fetch_all(&mut *self.reader().await?)
        .await?;
        rows.into_iter().map(LoginSession::try_from).collect()
    }

    async fn end_session(&self, org: OrgId, user: UserId, session: SessionId, at: DateTime<Utc>) -> Result<bool> {
        let done = sqlx::query(
            "UPDATE sessions SET revoked_at = $4 WHERE id = $1 AND organization_id = $2 AND user_id = $3 \
             AND revoked_at IS NULL AND expires_at > $4",
        )
        .bind(session.to_string())
        .bind(org.to_string())
        .bind(user.to_string())
        .bind(millis(at))
        .execute(&mut *self.writer().await?)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    async fn end_sessions(&self, org: OrgId, user: UserId, keep: Option<SessionId>, at: DateTime<Utc>) -> Result<u64> {
        let mut tx = self.begin_write().await?;
        let ended = end_sessions_in(&mut tx, org, user, keep, at).await?;
        tx.commit().await?;
        Ok(ended)
    }

    async fn prune_sessions(&self, before: DateTime<Utc>) -> Result<u64> {
        let done = sqlx::query("DELETE FROM sessions WHERE expires_at < $1")
            .bind(millis(before))
            .execute(&mut *self.writer().await?)
            .await?;
        Ok(done.rows_affected())
    }
}
