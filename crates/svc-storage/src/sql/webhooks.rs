//! Webhooks, their outbox of deliveries and the log of delivery attempts.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use const_format::concatcp;
use sqlx::{AssertSqlSafe, ColumnIndex, Decode, Encode, Executor, QueryBuilder, Type};
use svc_domain::webhook::{Delivery, DeliveryAttempt, Webhook};
use svc_domain::{ObjectId, OrgId, WebhookId};

use super::shared::conflict_on_unique;
use super::{Dialect, RowsAffected, SqlStore, columns};
use crate::Result;
use crate::records::{ids_json, millis};
use crate::traits::{Page, WebhookStore};
use crate::webhook_records::{AttemptRecord, DeliveryRecord, WebhookRecord, events_json};

/// The deliveries due, oldest first; [`Dialect::LOCK_DUE`] follows.
const DUE_DELIVERIES: &str = concatcp!(
    "SELECT ",
    columns::DELIVERY,
    " FROM webhook_deliveries WHERE state = 'pending' AND next_attempt_at <= $1 \
     AND (lease_until IS NULL OR lease_until < $1) ORDER BY next_attempt_at, id LIMIT $2"
);

#[async_trait]
impl<DB: Dialect> WebhookStore for SqlStore<DB>
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
    async fn insert_webhook(&self, w: &Webhook) -> Result<()> {
        let mut tx = self.begin_write().await?;
        sqlx::query(concatcp!(
            "INSERT INTO webhooks (",
            columns::WEBHOOK,
            ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)"
        ))
        .bind(w.id.to_string())
        .bind(w.organization_id.to_string())
        .bind(&w.url)
        .bind(events_json(&w.events))
        .bind(ids_json(&w.scrap_ids))
        .bind(w.active)
        .bind(self.sealer.seal(&w.secret))
        .bind(millis(w.created_at))
        .bind(millis(w.updated_at))
        .execute(&mut *tx)
        .await
        .map_err(|e| conflict_on_unique(e, "webhook"))?;
        tx.commit().await?;
        Ok(())
    }

    async fn update_webhook(&self, org: OrgId, w: &Webhook) -> Result<bool> {
        let mut tx = self.begin_write().await?;
        let done = sqlx::query(
            "UPDATE webhooks SET url = $3, events = $4, scrap_ids = $5, active = $6, updated_at = $7 \
             WHERE organization_id = $1 AND id = $2",
        )
        .bind(org.to_string())
        .bind(w.id.to_string())
        .bind(&w.url)
        .bind(events_json(&w.events))
        .bind(ids_json(&w.scrap_ids))
        .bind(w.active)
        .bind(millis(w.updated_at))
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(done.rows_affected() == 1)
    }

    async fn delete_webhook(&self, org: OrgId, id: WebhookId) -> Result<bool> {
        let mut tx = self.begin_write().await?;
        let done = sqlx::query("DELETE FROM webhooks WHERE organization_id = $1 AND id = $2")
            .bind(org.to_string())
            .bind(id.to_string())
            .execute(&mut *tx)
            .await?;
        if done.rows_affected() != 1 {
            return Ok(false);
        }
        for table in ["webhook_deliveries", "webhook_attempts"] {
            sqlx::query(AssertSqlSafe(format!("DELETE FROM {table} WHERE organization_id = $1 AND webhook_id = $2")))
                .bind(org.to_string())
                .bind(id.to_string())
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(true)
    }

    async fn webhook(&self, org: OrgId, id: WebhookId) -> Result<Option<Webhook>> {
        let row: Option<WebhookRecord> = sqlx::query_as(concatcp!(
            "SELECT ",
            columns::WEBHOOK,
            " FROM webhooks WHERE organization_id = $1 AND id = $2"
        ))
        .bind(org.to_string())
        .bind(id.to_string())
        .fetch_optional(&mut *self.writer().await?)
        .await?;
        row.map(|r| r.open(&self.sealer)).transpose()
    }

    async fn list_webhooks(&self, org: OrgId, offset: i64, limit: i64) -> Result<Page<Webhook>> {
        let (total,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM webhooks WHERE organization_id = $1")
            .bind(org.to_string())
            .fetch_one(&mut *self.writer().await?)
            .await?;
        let rows: Vec<WebhookRecord> = sqlx::query_as(concatcp!(
            "SELECT ",
            columns::WEBHOOK,
            " FROM webhooks WHERE organization_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3"
        ))
        .bind(org.to_string())
        .bind(limit)
        .bind(offset)
        .fetch_all(&mut *self.reader().await?)
        .await?;
        Ok(Page { items: rows.into_iter().map(|r| r.open(&self.sealer)).collect::<Result<_>>()?, total })
    }

    async fn active_webhooks(&self, org: OrgId) -> Result<Vec<Webhook>> {
        let rows: Vec<WebhookRecord> = sqlx::query_as(concatcp!(
            "SELECT ",
            columns::WEBHOOK,
            " FROM webhooks WHERE organization_id = $1 AND active ORDER BY created_at, id"
        ))
        .bind(org.to_string())
        .fetch_all(&mut *self.reader().await?)
        .await?;
        rows.into_iter().map(|r| r.open(&self.sealer)).collect()
    }

    async fn list_attempts(
        &self,
        org: OrgId,
        webhook: WebhookId,
        offset: i64,
        limit: i64,
    ) -> Result<Page<DeliveryAttempt>> {
        let (total,): (i64,) =
            sqlx::query_as("SELECT COUNT(*) FROM webhook_attempts WHERE organization_id = $1 AND webhook_id = $2")
                .bind(org.to_string())
                .bind(webhook.to_string())
                .fetch_one(&mut *self.writer().await?)
                .await?;
        let rows: Vec<AttemptRecord> = sqlx::query_as(concatcp!(
            "SELECT ",
            columns::ATTEMPT,
            " FROM webhook_attempts WHERE organization_id = $1 AND webhook_id = $2 \
             ORDER BY created_at DESC, attempt DESC, id DESC LIMIT $3 OFFSET $4"
        ))
        .bind(org.to_string())
        .bind(webhook.to_string())
        .bind(limit)
        .bind(offset)
        .fetch_all(&mut *self.reader().await?)
        .await?;
        Ok(Page { items: rows.into_iter().map(DeliveryAttempt::try_from).collect::<Result<_>>()?, total })
    }

    async fn attempt(&self, org: OrgId, webhook: WebhookId, id: ObjectId) -> Result<Option<DeliveryAttempt>> {
        let row: Option<AttemptRecord> = sqlx::query_as(concatcp!(
            "SELECT ",
            columns::ATTEMPT,
            " FROM webhook_attempts WHERE organization_id = $1 AND webhook_id = $2 AND id = $3"
        ))
        .bind(org.to_string())
        .bind(webhook.to_string())
        .bind(id.to_string())
        .fetch_optional(&mut *self.writer().await?)
        .await?;
        row.map(DeliveryAttempt::try_from).transpose()
    }

    async fn delivery(&self, org: OrgId, id: ObjectId) -> Result<Option<Delivery>> {
        let row: Option<DeliveryRecord> = sqlx::query_as(concatcp!(
            "SELECT ",
            columns::DELIVERY,
            " FROM webhook_deliveries WHERE organization_id = $1 AND id = $2"
        ))
        .bind(org.to_string())
        .bind(id.to_string())
        .fetch_optional(&mut *self.writer().await?)
        .await?;
        row.map(Delivery::try_from).transpose()
    }

    async fn insert_deliveries(&self, deliveries: &[Delivery], due: DateTime<Utc>) -> Result<()> {
        let mut tx = self.begin_write().await?;
        Self::insert_delivery_rows(&mut tx, deliveries, due).await?;
        tx.commit().await?;
        Ok(())
    }

    async fn claim_deliveries(
        &self,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
        limit: i64,
    ) -> Result<Vec<(Delivery, Option<Webhook>)>> {
        let mut tx = self.begin_write().await?;
        let rows: Vec<DeliveryRecord> = sqlx::query_as(AssertSqlSafe(format!("{DUE_DELIVERIES}{}", DB::LOCK_DUE)))
            .bind(millis(now))
            .bind(limit)
            .fetch_all(&mut *tx)
            .await?;
        if rows.is_empty() {
            return Ok(vec![]);
        }
        let deliveries: Vec<Delivery> = rows.into_iter().map(Delivery::try_from).collect::<Result<_>>()?;
        let ids: Vec<ObjectId> = deliveries.iter().map(|d| d.id).collect();
        let mut lease = QueryBuilder::<DB>::new("UPDATE webhook_deliveries SET lease_until = ");
        lease.push_bind(millis(lease_until)).push(" WHERE id IN ");
        Self::push_id_list(&mut lease, &ids);
        lease.build().execute(&mut *tx).await?;
        let mut hook_ids: Vec<WebhookId> = deliveries.iter().map(|d| d.webhook_id).collect();
        hook_ids.sort();
        hook_ids.dedup();
        let mut hooks = QueryBuilder::<DB>::new(concatcp!("SELECT ", columns::WEBHOOK, " FROM webhooks WHERE id IN "));
        Self::push_id_list(&mut hooks, &hook_ids);
        let hooks: Vec<Webhook> = hooks
            .build_query_as::<WebhookRecord>()
            .fetch_all(&mut *tx)
            .await?
            .into_iter()
            .map(|r| r.open(&self.sealer))
            .collect::<Result<_>>()?;
        tx.commit().await?;
        Ok(deliveries
            .into_iter()
            .map(|d| {
                let hook =
                    hooks.iter().find(|h| h.id == d.webhook_id && h.organization_id == d.organization_id).cloned();
                (d, hook)
            })
            .collect())
    }

    async fn record_attempt(
        &self,
        delivery: &Delivery,
        attempt: &DeliveryAttempt,
        next_attempt_at: Option<DateTime<Utc>>,
    ) -> Result<bool> {
        let mut tx = self.begin_write().await?;
        if !Self::advance_delivery(&mut tx, delivery, next_attempt_at).await? {
            return Ok(false);
        }
        sqlx::query(
            "UPDATE webhook_attempts SET state = 'failed', next_retry_at = NULL \
             WHERE delivery_id = $1 AND state = 'pending_retry'",
        )
        .bind(delivery.id.to_string())
        .execute(&mut *tx)
        .await?;
        Self::insert_attempt_row(&mut tx, attempt).await?;
        tx.commit().await?;
        Ok(true)
    }

    async fn skip_delivery(&self, delivery: &Delivery, skipped: &DeliveryAttempt) -> Result<bool> {
        let mut tx = self.begin_write().await?;
        if !Self::advance_delivery(&mut tx, delivery, None).await? {
            return Ok(false);
        }
        let marked = sqlx::query(
            "UPDATE webhook_attempts SET state = 'skipped', next_retry_at = NULL \
             WHERE delivery_id = $1 AND state = 'pending_retry'",
        )
        .bind(delivery.id.to_string())
        .execute(&mut *tx)
        .await?;
        if marked.rows_affected() == 0 {
            Self::insert_attempt_row(&mut tx, skipped).await?;
        }
        tx.commit().await?;
        Ok(true)
    }
}
