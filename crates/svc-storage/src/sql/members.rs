//! Members of organizations and invitations to join.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use const_format::concatcp;
use sqlx::{ColumnIndex, Decode, Encode, Executor, Type};
use svc_domain::member::{Invite, Member, Membership, Role};
use svc_domain::{InviteId, KeyId, OrgId, UserId};

use super::{Dialect, RowsAffected, SqlStore, WriteTx};
use crate::records::{id, millis, role, time};
use crate::traits::{Joined, MemberChange, MemberStore, Page};
use crate::{Result, StoreError};

const MEMBER: &str = "m.organization_id, m.user_id, u.email, u.name, m.role, m.joined_at";
const INVITE: &str = "id, organization_id, email, role, invited_by, created_at, expires_at";
/// Owners first, then by joining time.
const MEMBER_ORDER: &str = "CASE m.role WHEN 'owner' THEN 0 WHEN 'admin' THEN 1 WHEN 'editor' THEN 2 ELSE 3 END, \
                            m.joined_at, m.user_id";

crate::from_row::from_row! {
struct MemberRecord {
    organization_id: String,
    user_id: String,
    email: String,
    name: String,
    role: String,
    joined_at: i64,
}
}

impl TryFrom<MemberRecord> for Member {
    type Error = StoreError;
    fn try_from(r: MemberRecord) -> Result<Self> {
        Ok(Member {
            organization_id: id(&r.organization_id)?,
            user_id: id(&r.user_id)?,
            email: r.email,
            name: r.name,
            role: role(&r.role)?,
            joined_at: time(r.joined_at)?,
        })
    }
}

crate::from_row::from_row! {
struct InviteRecord {
    id: String,
    organization_id: String,
    email: String,
    role: String,
    invited_by: String,
    created_at: i64,
    expires_at: i64,
}
}

impl TryFrom<InviteRecord> for Invite {
    type Error = StoreError;
    fn try_from(r: InviteRecord) -> Result<Self> {
        Ok(Invite {
            id: id(&r.id)?,
            organization_id: id(&r.organization_id)?,
            email: r.email,
            role: role(&r.role)?,
            invited_by: id(&r.invited_by)?,
            created_at: time(r.created_at)?,
            expires_at: time(r.expires_at)?,
        })
    }
}

/// Takes the organization's row lock (PostgreSQL; a SQLite write transaction
/// holds the database already), so that two writes that each leave one
/// owner cannot both pass the last-owner check; answers the member's
/// current role.
async fn lock_member<DB: Dialect>(tx: &mut WriteTx<DB>, org: OrgId, user: UserId) -> Result<Option<Role>>
where
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> String: Encode<'q, DB> + Decode<'q, DB> + Type<DB>,
    for<'q> i64: Encode<'q, DB> + Decode<'q, DB> + Type<DB>,
    usize: ColumnIndex<DB::Row>,
{
    sqlx::query("UPDATE organizations SET name = name WHERE id = $1").bind(org.to_string()).execute(&mut **tx).await?;
    let row: Option<(String,)> =
        sqlx::query_as("SELECT role FROM memberships WHERE organization_id = $1 AND user_id = $2")
            .bind(org.to_string())
            .bind(user.to_string())
            .fetch_optional(&mut **tx)
            .await?;
    row.map(|(r,)| role(&r)).transpose()
}

/// Whether `user` is the organization's only owner.
async fn only_owner<DB: Dialect>(tx: &mut WriteTx<DB>, org: OrgId) -> Result<bool>
where
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> String: Encode<'q, DB> + Decode<'q, DB> + Type<DB>,
    for<'q> i64: Encode<'q, DB> + Decode<'q, DB> + Type<DB>,
    usize: ColumnIndex<DB::Row>,
{
    let (owners,): (i64,) =
        sqlx::query_as("SELECT COUNT(*) FROM memberships WHERE organization_id = $1 AND role = 'owner'")
            .bind(org.to_string())
            .fetch_one(&mut **tx)
            .await?;
    Ok(owners <= 1)
}

#[async_trait]
impl<DB: Dialect> MemberStore for SqlStore<DB>
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
    async fn members(&self, org: OrgId, offset: i64, limit: i64) -> Result<Page<Member>> {
        let (total,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM memberships WHERE organization_id = $1")
            .bind(org.to_string())
            .fetch_one(&mut *self.writer().await?)
            .await?;
        let rows: Vec<MemberRecord> = sqlx::query_as(concatcp!(
            "SELECT ",
            MEMBER,
            " FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.organization_id = $1 ORDER BY ",
            MEMBER_ORDER,
            " LIMIT $2 OFFSET $3"
        ))
        .bind(org.to_string())
        .bind(limit)
        .bind(offset)
        .fetch_all(&mut *self.reader().await?)
        .await?;
        Ok(Page { items: rows.into_iter().map(Member::try_from).collect::<Result<_>>()?, total })
    }

    async fn member(&self, org: OrgId, user: UserId) -> Result<Option<Member>> {
        let row: Option<MemberRecord> = sqlx::query_as(concatcp!(
            "SELECT ",
            MEMBER,
            " FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.organization_id = $1 AND m.user_id = $2"
        ))
        .bind(org.to_string())
        .bind(user.to_string())
        .fetch_optional(&mut *self.writer().await?)
        .await?;
        row.map(Member::try_from).transpose()
    }

    async fn memberships(&self, user: UserId) -> Result<Vec<Membership>> {
        let rows: Vec<(String, String, String, i64)> = sqlx::query_as(
            "SELECT m.organization_id, o.name, m.role, m.joined_at FROM memberships m \
             JOIN organizations o ON o.id = m.organization_id WHERE m.user_id = $1 \
             ORDER BY m.last_used_at DESC, m.organization_id",
        )
        .bind(user.to_string())
        .fetch_all(&mut *self.reader().await?)
        .await?;
        rows.into_iter()
            .map(|(org, name, r, joined)| {
                Ok(Membership {
                    organization_id: id(&org)?,
                    organization_name: name,
                    role: role(&r)?,
                    joined_at: time(joined)?,
                })
            })
            .collect()
    }

    async fn touch_membership(&self, org: OrgId, user: UserId, at: DateTime<Utc>) -> Result<bool> {
        let done = sqlx::query(
            "UPDATE memberships SET last_used_at = CASE WHEN last_used_at < $3 THEN $3 ELSE last_used_at END \
             WHERE organization_id = $1 AND user_id = $2",
        )
        .bind(org.to_string())
        .bind(user.to_string())
        .bind(millis(at))
        .execute(&mut *self.writer().await?)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    async fn set_role(&self, org: OrgId, user: UserId, new: Role) -> Result<MemberChange> {
        let mut tx = self.begin_write().await?;
        let Some(current) = lock_member(&mut tx, org, user).await? else { return Ok(MemberChange::NotFound) };
        if current == Role::Owner && new != Role::Owner && only_owner(&mut tx, org).await? {
            return Ok(MemberChange::LastOwner);
        }
        sqlx::query("UPDATE memberships SET role = $3 WHERE organization_id = $1 AND user_id = $2")
            .bind(org.to_string())
            .bind(user.to_string())
            .bind(new.as_str())
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(MemberChange::Done { revoked_keys: vec![], ended_sessions: 0 })
    }

    async fn remove_member(&self, org: OrgId, user: UserId, at: DateTime<Utc>) -> Result<MemberChange> {
        let mut tx = self.begin_write().await?;
        let Some(current) = lock_member(&mut tx, org, user).await? else { return Ok(MemberChange::NotFound) };
        if current == Role::Owner && only_owner(&mut tx, org).await? {
            return Ok(MemberChange::LastOwner);
        }
        sqlx::query("DELETE FROM memberships WHERE organization_id = $1 AND user_id = $2")
            .bind(org.to_string())
            .bind(user.to_string())
            .execute(&mut *tx)
            .await?;
        let ended_sessions = super::sessions::end_sessions_in(&mut tx, org, user, None, at).await?;
        let revoked: Vec<(String,)> = sqlx::query_as(
            "UPDATE api_keys SET revoked_at = $3 WHERE organization_id = $1 AND user_id = $2 \
             AND revoked_at IS NULL RETURNING id",
        )
        .bind(org.to_string())
        .bind(user.to_string())
        .bind(millis(at))
        .fetch_all(&mut *tx)
        .await?;
        tx.commit().await?;
        let revoked_keys = revoked.iter().map(|(k,)| id::<KeyId>(k)).collect::<Result<_>>()?;
        Ok(MemberChange::Done { revoked_keys, ended_sessions })
    }

    async fn insert_invite(&self, invite: &Invite, token_hash: &str) -> Result<()> {
        sqlx::query(concatcp!(
            "INSERT INTO invites (",
            INVITE,
            ", token_hash) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"
        ))
        .bind(invite.id.to_string())
        .bind(invite.organization_id.to_string())
        .bind(&invite.email)
        .bind(invite.role.as_str())
        .bind(invite.invited_by.to_string())
        .bind(millis(invite.created_at))
        .bind(millis(invite.expires_at))
        .bind(token_hash)
        .execute(&mut *self.writer().await?)
        .await?;
        Ok(())
    }

    async fn invites(&self, org: OrgId, now: DateTime<Utc>, offset: i64, limit: i64) -> Result<Page<Invite>> {
        let (total,): (i64,) =
            sqlx::query_as("SELECT COUNT(*) FROM invites WHERE organization_id = $1 AND expires_at > $2")
                .bind(org.to_string())
                .bind(millis(now))
                .fetch_one(&mut *self.writer().await?)
                .await?;
        let rows: Vec<InviteRecord> = sqlx::query_as(concatcp!(
            "SELECT ",
            INVITE,
            " FROM invites WHERE organization_id = $1 AND expires_at > $2 \
             ORDER BY created_at DESC, id DESC LIMIT $3 OFFSET $4"
        ))
        .bind(org.to_string())
        .bind(millis(now))
        .bind(limit)
        .bind(offset)
        .fetch_all(&mut *self.reader().await?)
        .await?;
        Ok(Page { items: rows.into_iter().map(Invite::try_from).collect::<Result<_>>()?, total })
    }

    async fn delete_invite(&self, org: OrgId, invite: InviteId) -> Result<bool> {
        let done = sqlx::query("DELETE FROM invites WHERE organization_id = $1 AND id = $2")
            .bind(org.to_string())
            .bind(invite.to_string())
            .execute(&mut *self.writer().await?)
            .await?;
        Ok(done.rows_affected() == 1)
    }

    async fn invite_by_token(&self, token_hash: &str, now: DateTime<Utc>) -> Result<Option<Invite>> {
        let row: Option<InviteRecord> =
            sqlx::query_as(concatcp!("SELECT ", INVITE, " FROM invites WHERE token_hash = $1 AND expires_at > $2"))
                .bind(token_hash)
                .bind(millis(now))
                .fetch_optional(&mut *self.writer().await?)
                .await?;
        row.map(Invite::try_from).transpose()
    }

    async fn invited(&self, email: &str, now: DateTime<Utc>) -> Result<bool> {
        let row: Option<(String,)> =
            sqlx::query_as("SELECT id FROM invites WHERE email = $1 AND expires_at > $2 LIMIT 1")
                .bind(email)
                .bind(millis(now))
                .fetch_optional(&mut *self.writer().await?)
                .await?;
        Ok(row.is_some())
    }

    async fn accept_invite(&self, invite: &Invite, user: UserId, at: DateTime<Utc>) -> Result<Joined> {
        let mut tx = self.begin_write().await?;
        let used = sqlx::query("DELETE FROM invites WHERE organization_id = $1 AND id = $2")
            .bind(invite.organization_id.to_string())
            .bind(invite.id.to_string())
            .execute(&mut *tx)
            .await?;
        if used.rows_affected() != 1 {
            return Ok(Joined::InviteGone);
        }
        let joined = sqlx::query(
            "INSERT INTO memberships (organization_id, user_id, role, joined_at, last_used_at) \
             VALUES ($1, $2, $3, $4, $4) ON CONFLICT (organization_id, user_id) DO NOTHING",
        )
        .bind(invite.organization_id.to_string())
        .bind(user.to_string())
        .bind(invite.role.as_str())
        .bind(millis(at))
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(if joined.rows_affected() == 1 { Joined::Joined } else { Joined::AlreadyMember })
    }
}
