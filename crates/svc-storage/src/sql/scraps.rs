//! Scraps (saved extractions), with their search text and schedule.

use async_trait::async_trait;
use const_format::concatcp;
use sqlx::{ColumnIndex, Decode, Encode, Executor, QueryBuilder, Type};
use svc_domain::activity::Activity;
use svc_domain::scrap::Scrap;
use svc_domain::{OrgId, ScrapId};

use super::shared::conflict_on_unique;
use super::{Dialect, RowsAffected, SqlStore, columns};
use crate::Result;
use crate::records::{RunScrapRecord, ScrapRecord, id, millis, opt_millis, search_text};
use crate::traits::{Page, RunScrap, ScrapFilter, ScrapStore};

/// What a run needs to know besides its scrap, as columns of the scrap's
/// read (`RunScrap`): each an indexed lookup in the same statement.
const RUN_SCRAP_EXTRAS: &str = ", EXISTS (SELECT 1 FROM site_accounts a \
     WHERE a.organization_id = scraps.organization_id AND a.scrap_id = scraps.id) AS has_login, \
     EXISTS (SELECT 1 FROM script_versions v WHERE v.organization_id = scraps.organization_id \
     AND v.scrap_id = scraps.id AND v.source = 'ai_fix' AND v.approved_at IS NULL \
     AND v.number = (SELECT MAX(w.number) FROM script_versions w \
     WHERE w.organization_id = scraps.organization_id AND w.scrap_id = scraps.id)) AS awaits_approval, \
     EXISTS (SELECT 1 FROM webhooks k WHERE k.organization_id = scraps.organization_id AND k.active) \
     AS has_webhooks, \
     (SELECT h.length FROM history h WHERE h.organization_id = scraps.organization_id \
     AND h.scrap_id = scraps.id AND h.status_detail = 'success' \
     ORDER BY h.created_at DESC, h.id DESC LIMIT 1) AS last_success_length, \
     (SELECT o.balance FROM organizations o WHERE o.id = scraps.organization_id) AS org_balance, \
     (SELECT o.plan FROM organizations o WHERE o.id = scraps.organization_id) AS org_plan";

#[async_trait]
impl<DB: Dialect> ScrapStore for SqlStore<DB>
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
    async fn insert_scrap(&self, s: &Scrap, activity: &Activity) -> Result<()> {
        let mut tx = self.begin_write().await?;
        let insert = sqlx::query(concatcp!(
            "INSERT INTO scraps (",
            columns::SCRAP,
            ", search_text, next_fire_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, \
             $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27)"
        ));
        let insert = insert.bind(s.id.to_string()).bind(s.organization_id.to_string()).bind(s.user_id.to_string());
        Self::bind_scrap_fields(insert, s)
            .bind(millis(s.created_at))
            .bind(millis(s.updated_at))
            .bind(search_text(s))
            .bind(opt_millis(s.next_fire_at))
            .execute(&mut *tx)
            .await
            .map_err(|e| conflict_on_unique(e, "scrap"))?;
        Self::version_if_changed(&mut tx, s.organization_id, s.id, &s.request, s.created_at).await?;
        Self::insert_activity(&mut tx, activity).await?;
        tx.commit().await?;
        Ok(())
    }

    async fn update_scrap(&self, org: OrgId, s: &Scrap, activity: &Activity) -> Result<bool> {
        let mut tx = self.begin_write().await?;
        let update = sqlx::query(
            "UPDATE scraps SET title = $3, description = $4, url = $5, request = $6, scrapper = $7, \
             containers = $8, params = $9, cron = $10, cron_timezone = $11, alert = $12, auto_fix = $13, \
             proxy_tier = $14, last_tier_change_at = $15, email_notif = $16, email_notif_recipient = $17, \
             email_notif_format = $18, digest_enabled = $19, digest_prompt = $20, digest_recipient = $21, \
             banner = $22, updated_at = $23, search_text = $24, \
             next_fire_at = CASE WHEN cron IS NOT DISTINCT FROM $10 AND cron_timezone = $11 \
             AND next_fire_at IS NOT NULL THEN next_fire_at ELSE $25 END \
             WHERE organization_id = $1 AND id = $2",
        );
        let done = Self::bind_scrap_fields(update.bind(org.to_string()).bind(s.id.to_string()), s)
            .bind(millis(s.updated_at))
            .bind(search_text(s))
            .bind(opt_millis(s.next_fire_at))
            .execute(&mut *tx)
            .await?;
        if done.rows_affected() != 1 {
            return Ok(false);
        }
        Self::version_if_changed(&mut tx, org, s.id, &s.request, s.updated_at).await?;
        Self::insert_activity(&mut tx, activity).await?;
        tx.commit().await?;
        Ok(true)
    }

    async fn delete_scrap(&self, org: OrgId, scrap: ScrapId, activity: &Activity) -> Result<bool> {
        let mut tx = self.begin_write().await?;
        let done = sqlx::query("DELETE FROM scraps WHERE organization_id = $1 AND id = $2")
            .bind(org.to_string())
            .bind(scrap.to_string())
            .execute(&mut *tx)
            .await?;
        if done.rows_affected() != 1 {
            return Ok(false);
        }
        for table in [
            "DELETE FROM history WHERE organization_id = $1 AND scrap_id = $2",
            "DELETE FROM run_queue WHERE organization_id = $1 AND scrap_id = $2",
            "DELETE FROM script_versions WHERE organization_id = $1 AND scrap_id = $2",
            "DELETE FROM fix_proposals WHERE organization_id = $1 AND scrap_id = $2",
            "DELETE FROM run_pages WHERE organization_id = $1 AND scrap_id = $2",
            "DELETE FROM site_accounts WHERE organization_id = $1 AND scrap_id = $2",
            "DELETE FROM site_sessions WHERE organization_id = $1 AND scrap_id = $2",
            "DELETE FROM engine_memory WHERE organization_id = $1 AND scrap_id = $2",
            "DELETE FROM scrap_feeds WHERE organization_id = $1 AND scrap_id = $2",
            "DELETE FROM scrap_banners WHERE organization_id = $1 AND scrap_id = $2",
        ] {
            sqlx::query(table).bind(org.to_string()).bind(scrap.to_string()).execute(&mut *tx).await?;
        }
        Self::insert_activity(&mut tx, activity).await?;
        tx.commit().await?;
        Ok(true)
    }

    async fn scrap(&self, org: OrgId, scrap: ScrapId) -> Result<Option<Scrap>> {
        let row: Option<ScrapRecord> = sqlx::query_as(concatcp!(
            "SELECT ",
            columns::SCRAP_READ,
            " FROM scraps WHERE organization_id = $1 AND id = $2"
        ))
        .bind(org.to_string())
        .bind(scrap.to_string())
        .fetch_optional(&mut *self.reader().await?)
        .await?;
        row.map(Scrap::try_from).transpose()
    }

    async fn run_scrap(&self, org: OrgId, scrap: ScrapId) -> Result<Option<RunScrap>> {
        let row: Option<RunScrapRecord> = sqlx::query_as(concatcp!(
            "SELECT ",
            columns::SCRAP_READ,
            RUN_SCRAP_EXTRAS,
            " FROM scraps WHERE organization_id = $1 AND id = $2"
        ))
        .bind(org.to_string())
        .bind(scrap.to_string())
        .fetch_optional(&mut *self.reader().await?)
        .await?;
        row.map(RunScrap::try_from).transpose()
    }

    async fn list_scraps(&self, org: OrgId, filter: &ScrapFilter) -> Result<Page<Scrap>> {
        if filter.only.as_ref().is_some_and(Vec::is_empty) {
            return Ok(Page { items: vec![], total: 0 });
        }
        let mut count = QueryBuilder::<DB>::new("SELECT COUNT(*)");
        Self::push_scrap_filter(&mut count, org, filter);
        let (total,): (i64,) = count.build_query_as().fetch_one(&mut *self.writer().await?).await?;

        let mut select = QueryBuilder::<DB>::new(concatcp!("SELECT ", columns::SCRAP_READ));
        Self::push_scrap_filter(&mut select, org, filter);
        select.push(" ORDER BY created_at DESC, id DESC LIMIT ").push_bind(filter.limit);
        select.push(" OFFSET ").push_bind(filter.offset);
        let rows: Vec<ScrapRecord> = select.build_query_as().fetch_all(&mut *self.reader().await?).await?;
        let items = rows.into_iter().map(Scrap::try_from).collect::<Result<_>>()?;
        Ok(Page { items, total })
    }

    async fn existing_scrap_ids(&self, org: OrgId, ids: &[ScrapId]) -> Result<Vec<ScrapId>> {
        if ids.is_empty() {
            return Ok(vec![]);
        }
        let mut qb = QueryBuilder::<DB>::new("SELECT id FROM scraps WHERE organization_id = ");
        qb.push_bind(org.to_string()).push(" AND id IN ");
        Self::push_id_list(&mut qb, ids);
        let rows: Vec<(String,)> = qb.build_query_as().fetch_all(&mut *self.reader().await?).await?;
        rows.iter().map(|(s,)| id(s)).collect()
    }
}
