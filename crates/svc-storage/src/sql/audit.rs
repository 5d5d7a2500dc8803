//! The audit log and the addresses each user has logged in from.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use sqlx::{ColumnIndex, Decode, Encode, Executor, Type};
use svc_domain::audit::{AuditAction, AuditActor, AuditEntry};
use svc_domain::{ObjectId, OrgId, UserId};

use super::{Dialect, RowsAffected, SqlStore};
use crate::records::{id, millis, time};
use crate::traits::{AddressSeen, AuditStore, Page};
use crate::{Result, StoreError};

const AUDIT_COLUMNS: &str =
    "id, organization_id, actor_kind, actor_id, actor_email, action, target_id, detail, address, created_at";

crate::from_row::from_row! {
struct AuditRecord {
    id: String,
    organization_id: String,
    actor_kind: String,
    actor_id: Option<String>,
    actor_email: Option<String>,
    action: String,
    target_id: String,
    detail: Option<String>,
    address: Option<String>,
    created_at: i64,
}
}

impl TryFrom<AuditRecord> for AuditEntry {
    type Error = StoreError;
    fn try_from(r: AuditRecord) -> Result<Self> {
        let actor_id = || r.actor_id.as_deref().ok_or_else(|| StoreError::Corrupt("audit actor without id".into()));
        let actor = match r.actor_kind.as_str() {
            "user" => AuditActor::User { id: id(actor_id()?)?, email: r.actor_email.clone().unwrap_or_default() },
            "key" => AuditActor::Key { id: id(actor_id()?)? },
            "operator" => AuditActor::Operator,
            other => return Err(StoreError::Corrupt(format!("audit actor kind `{other}`"))),
        };
        let target: ObjectId = id(&r.target_id)?;
        let action = AuditAction::from_parts(&r.action, target)
            .ok_or_else(|| StoreError::Corrupt(format!("audit action `{}`", r.action)))?;
        Ok(AuditEntry {
            id: id(&r.id)?,
            organization_id: id(&r.organization_id)?,
            actor,
            action,
            detail: r.detail,
            address: r.address,
            created_at: time(r.created_at)?,
        })
    }
}

#[async_trait]
impl<DB: Dialect> AuditStore for SqlStore<DB>
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
    async fn insert_audit(&self, e: &AuditEntry) -> Result<()> {
        let (actor_id, actor_email) = match &e.actor {
            AuditActor::User { id, email } => (Some(id.to_string()), Some(email.clone())),
            AuditActor::Key { id } => (Some(id.to_string()), None),
            AuditActor::Operator => (None, None),
        };
        let (target_kind, target) = e.action.target();
        sqlx::query(
            "INSERT INTO audit_entries (id, organization_id, actor_kind, actor_id, actor_email, action, \
             target_kind, target_id, detail, address, created_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
        )
        .bind(e.id.to_string())
        .bind(e.organization_id.to_string())
        .bind(e.actor.kind())
        .bind(actor_id)
        .bind(actor_email)
        .bind(e.action.name())
        .bind(target_kind)
        .bind(target.to_string())
        .bind(e.detail.clone())
        .bind(e.address.clone())
        .bind(millis(e.created_at))
        .execute(&mut *self.writer().await?)
        .await?;
        Ok(())
    }

    async fn list_audit(&self, org: OrgId, offset: i64, limit: i64) -> Result<Page<AuditEntry>> {
        let (total,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM audit_entries WHERE organization_id = $1")
            .bind(org.to_string())
            .fetch_one(&mut *self.writer().await?)
            .await?;
        let rows: Vec<AuditRecord> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT {AUDIT_COLUMNS} FROM audit_entries WHERE organization_id = $1 \
             ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3"
        )))
        .bind(org.to_string())
        .bind(limit)
        .bind(offset)
        .fetch_all(&mut *self.reader().await?)
        .await?;
        let items = rows.into_iter().map(AuditEntry::try_from).collect::<Result<_>>()?;
        Ok(Page { items, total })
    }

    async fn remember_address(
        &self,
        org: OrgId,
        user: UserId,
        address: &str,
        at: DateTime<Utc>,
    ) -> Result<AddressSeen> {
        let mut tx = self.begin_write().await?;
        let touched = sqlx::query(
            "UPDATE known_addresses SET last_seen_at = $4 \
             WHERE organization_id = $1 AND user_id = $2 AND address = $3",
        )
        .bind(org.to_string())
        .bind(user.to_string())
        .bind(address)
        .bind(millis(at))
        .execute(&mut *tx)
        .await?;
        if touched.rows_affected() > 0 {
            tx.commit().await?;
            return Ok(AddressSeen::Known);
        }
        let (others,): (i64,) =
            sqlx::query_as("SELECT COUNT(*) FROM known_addresses WHERE organization_id = $1 AND user_id = $2")
                .bind(org.to_string())
                .bind(user.to_string())
                .fetch_one(&mut *tx)
                .await?;
        // Two log-ins from one new address at once: the second finds the
        // first's row and counts as known.
        let inserted = sqlx::query(
            "INSERT INTO known_addresses (organization_id, user_id, address, first_seen_at, last_seen_at) \
             VALUES ($1, $2, $3, $4, $4) ON CONFLICT (organization_id, user_id, address) DO NOTHING",
        )
        .bind(org.to_string())
        .bind(user.to_string())
        .bind(address)
        .bind(millis(at))
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(match (inserted.rows_affected(), others) {
            (0, _) => AddressSeen::Known,
            (_, 0) => AddressSeen::First,
            _ => AddressSeen::New,
        })
    }
}
