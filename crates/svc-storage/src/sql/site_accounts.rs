//! Scraps' site logins and saved browser sessions. Every secret is sealed
//! with the store's sealer before it is written and opened when read:
//! `site_accounts.username_sealed`, `site_accounts.password_sealed` and
//! `site_sessions.session_sealed` never hold plaintext.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use sqlx::{ColumnIndex, Decode, Encode, Executor, Type};
use svc_domain::activity::Activity;
use svc_domain::site_account::{SavedSession, SessionState, SiteAccount, StoredAccount};
use svc_domain::{OrgId, ScrapId};

use super::{Dialect, RowsAffected, SqlStore};
use crate::Result;
use crate::records::{id, millis, time};
use crate::traits::SiteAccountStore;

#[async_trait]
impl<DB: Dialect> SiteAccountStore for SqlStore<DB>
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
    async fn set_site_account(
        &self,
        org: OrgId,
        scrap: ScrapId,
        account: &SiteAccount,
        at: DateTime<Utc>,
        forget_session: bool,
        activity: &Activity,
    ) -> Result<bool> {
        let (username, password) = (self.sealer.seal(&account.username), self.sealer.seal(&account.password));
        let mut tx = self.begin_write().await?;
        // Only for a scrap of `org` (scrap ids are unique across
        // organizations, so the row replaced is that scrap's too).
        let done = sqlx::query(
            "INSERT INTO site_accounts (organization_id, scrap_id, username_sealed, password_sealed, updated_at) \
             SELECT $1, $2, $3, $4, $5 WHERE EXISTS \
             (SELECT 1 FROM scraps WHERE organization_id = $1 AND id = $2) \
             ON CONFLICT (scrap_id) DO UPDATE SET username_sealed = excluded.username_sealed, \
             password_sealed = excluded.password_sealed, updated_at = excluded.updated_at",
        )
        .bind(org.to_string())
        .bind(scrap.to_string())
        .bind(username)
        .bind(password)
        .bind(millis(at))
        .execute(&mut *tx)
        .await?;
        if done.rows_affected() != 1 {
            return Ok(false);
        }
        if forget_session {
            sqlx::query("DELETE FROM site_sessions WHERE organization_id = $1 AND scrap_id = $2")
                .bind(org.to_string())
                .bind(scrap.to_string())
                .execute(&mut *tx)
                .await?;
        }
        Self::insert_activity(&mut tx, activity).await?;
        tx.commit().await?;
        Ok(true)
    }

    async fn delete_site_account(&self, org: OrgId, scrap: ScrapId, activity: &Activity) -> Result<bool> {
        let mut tx = self.begin_write().await?;
        let done = sqlx::query("DELETE FROM site_accounts WHERE organization_id = $1 AND scrap_id = $2")
            .bind(org.to_string())
            .bind(scrap.to_string())
            .execute(&mut *tx)
            .await?;
        if done.rows_affected() != 1 {
            return Ok(false);
        }
        sqlx::query("DELETE FROM site_sessions WHERE organization_id = $1 AND scrap_id = $2")
            .bind(org.to_string())
            .bind(scrap.to_string())
            .execute(&mut *tx)
            .await?;
        Self::insert_activity(&mut tx, activity).await?;
        tx.commit().await?;
        Ok(true)
    }

    async fn site_account(&self, org: OrgId, scrap: ScrapId) -> Result<Option<StoredAccount>> {
        let row: Option<(String, String, i64)> = sqlx::query_as(
            "SELECT username_sealed, password_sealed, updated_at FROM site_accounts \
             WHERE organization_id = $1 AND scrap_id = $2",
        )
        .bind(org.to_string())
        .bind(scrap.to_string())
        .fetch_optional(&mut *self.writer().await?)
        .await?;
        let Some((username, password, updated_at)) = row else { return Ok(None) };
        let account = SiteAccount { username: self.sealer.open(&username)?, password: self.sealer.open(&password)? };
        Ok(Some(StoredAccount { account, updated_at: time(updated_at)? }))
    }

    async fn site_session(&self, org: OrgId, scrap: ScrapId) -> Result<Option<SavedSession>> {
        let row: Option<(String, i64, Option<String>)> = sqlx::query_as(
            "SELECT session_sealed, saved_at, history_id FROM site_sessions \
             WHERE organization_id = $1 AND scrap_id = $2",
        )
        .bind(org.to_string())
        .bind(scrap.to_string())
        .fetch_optional(&mut *self.writer().await?)
        .await?;
        let Some((state, saved_at, history_id)) = row else { return Ok(None) };
        Ok(Some(SavedSession {
            state: SessionState::new(self.sealer.open(&state)?),
            saved_at: time(saved_at)?,
            history_id: history_id.as_deref().map(id).transpose()?,
        }))
    }

    async fn save_site_session(&self, org: OrgId, scrap: ScrapId, session: &SavedSession) -> Result<bool> {
        let sealed = self.sealer.seal(session.state.as_str());
        // Only beside the scrap's login (which exists only for a scrap of `org`).
        let mut tx = self.begin_write().await?;
        let done = sqlx::query(
            "INSERT INTO site_sessions (organization_id, scrap_id, session_sealed, saved_at, history_id) \
             SELECT $1, $2, $3, $4, $5 WHERE EXISTS \
             (SELECT 1 FROM site_accounts WHERE organization_id = $1 AND scrap_id = $2) \
             ON CONFLICT (scrap_id) DO UPDATE SET session_sealed = excluded.session_sealed, \
             saved_at = excluded.saved_at, history_id = excluded.history_id",
        )
        .bind(org.to_string())
        .bind(scrap.to_string())
        .bind(sealed)
        .bind(millis(session.saved_at))
        .bind(session.history_id.map(|h| h.to_string()))
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(done.rows_affected() == 1)
    }

    async fn delete_site_session(&self, org: OrgId, scrap: ScrapId, activity: &Activity) -> Result<bool> {
        let mut tx = self.begin_write().await?;
        let done = sqlx::query("DELETE FROM site_sessions WHERE organization_id = $1 AND scrap_id = $2")
            .bind(org.to_string())
            .bind(scrap.to_string())
            .execute(&mut *tx)
            .await?;
        if done.rows_affected() != 1 {
            return Ok(false);
        }
        Self::insert_activity(&mut tx, activity).await?;
        tx.commit().await?;
        Ok(true)
    }
}
