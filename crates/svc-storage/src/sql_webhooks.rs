//! Webhooks, their outbox and their delivery log, shared by both engines
//! like `sql_store`. Instantiated next to `sql_store!`, whose helpers and
//! imports it uses.

macro_rules! webhook_columns {
    () => {
        "id, organization_id, url, events, scrap_ids, active, secret, created_at, updated_at"
    };
}

macro_rules! delivery_columns {
    () => {
        "id, organization_id, webhook_id, event, history_id, scrap_id, payload, attempts, created_at"
    };
}

macro_rules! attempt_columns {
    () => {
        "id, delivery_id, organization_id, webhook_id, event, history_id, attempt, state, response_status, \
         response_body, error, duration_ms, created_at, next_retry_at"
    };
}

macro_rules! sql_webhooks {
    ($store:ident, $db:ty, lock_due = $lock_due:literal) => {
        use svc_domain::webhook::{Delivery, DeliveryAttempt, Webhook};
        use $crate::webhook_records::{AttemptRecord, DeliveryRecord, WebhookRecord, events_json};

        /// Queues deliveries (the outbox rows of a run's event), due at `due`.
        async fn insert_delivery_rows(
            tx: &mut Transaction<'static, $db>,
            deliveries: &[Delivery],
            due: DateTime<Utc>,
        ) -> Result<()> {
            if deliveries.is_empty() {
                return Ok(());
            }
            let mut qb = QueryBuilder::<$db>::new(concat!(
                "INSERT INTO webhook_deliveries (",
                delivery_columns!(),
                ", state, next_attempt_at) "
            ));
            qb.push_values(deliveries, |mut b, d| {
                b.push_bind(d.id.to_string())
                    .push_bind(d.organization_id.to_string())
                    .push_bind(d.webhook_id.to_string())
                    .push_bind(d.event.as_str())
                    .push_bind(d.history_id.to_string())
                    .push_bind(d.scrap_id.to_string())
                    .push_bind(&d.payload)
                    .push_bind(d.attempts)
                    .push_bind(millis(d.created_at))
                    .push("'pending'")
                    .push_bind(millis(due));
            });
            qb.build().execute(&mut **tx).await?;
            Ok(())
        }

        async fn insert_attempt_row(tx: &mut Transaction<'static, $db>, a: &DeliveryAttempt) -> Result<()> {
            sqlx::query(concat!(
                "INSERT INTO webhook_attempts (",
                attempt_columns!(),
                ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)"
            ))
            .bind(a.id.to_string())
            .bind(a.delivery_id.to_string())
            .bind(a.organization_id.to_string())
            .bind(a.webhook_id.to_string())
            .bind(a.event.as_str())
            .bind(a.history_id.to_string())
            .bind(a.attempt)
            .bind(a.state.as_str())
            .bind(a.response_status)
            .bind(&a.response_body)
            .bind(&a.error)
            .bind(a.duration_ms)
            .bind(millis(a.created_at))
            .bind(opt_millis(a.next_retry_at))
            .execute(&mut **tx)
            .await?;
            Ok(())
        }

        /// Ends (or reschedules) a claimed delivery if the claim still holds.
        async fn advance_delivery(
            tx: &mut Transaction<'static, $db>,
            d: &Delivery,
            next_attempt_at: Option<DateTime<Utc>>,
        ) -> Result<bool> {
            let done = sqlx::query(
                "UPDATE webhook_deliveries SET attempts = attempts + 1, lease_until = NULL, next_attempt_at = $3, \
                 state = CASE WHEN $3 IS NULL THEN 'done' ELSE 'pending' END \
                 WHERE id = $1 AND attempts = $2 AND state = 'pending'",
            )
            .bind(d.id.to_string())
            .bind(d.attempts)
            .bind(opt_millis(next_attempt_at))
            .execute(&mut **tx)
            .await?;
            Ok(done.rows_affected() == 1)
        }

        #[async_trait]
        impl $crate::traits::WebhookStore for $store {
            async fn insert_webhook(&self, w: &Webhook) -> Result<()> {
                let mut tx = self.begin_write().await?;
                sqlx::query(concat!(
                    "INSERT INTO webhooks (",
                    webhook_columns!(),
                    ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)"
                ))
                .bind(w.id.to_string())
                .bind(w.organization_id.to_string())
                .bind(&w.url)
                .bind(events_json(&w.events))
                .bind(ids_json(&w.scrap_ids))
                .bind(w.active)
                .bind(&w.secret)
                .bind(millis(w.created_at))
                .bind(millis(w.updated_at))
                .execute(&mut *tx)
                .await
                .map_err(|e| conflict_on_unique(e, "webhook"))?;
                tx.commit().await?;
                Ok(())
            }

            async fn update_webhook(&self, org: ObjectId, w: &Webhook) -> Result<bool> {
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

            async fn delete_webhook(&self, org: ObjectId, id: ObjectId) -> Result<bool> {
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
                    sqlx::query(sqlx::AssertSqlSafe(format!(
                        "DELETE FROM {table} WHERE organization_id = $1 AND webhook_id = $2"
                    )))
                    .bind(org.to_string())
                    .bind(id.to_string())
                    .execute(&mut *tx)
                    .await?;
                }
                tx.commit().await?;
                Ok(true)
            }

            async fn webhook(&self, org: ObjectId, id: ObjectId) -> Result<Option<Webhook>> {
                let row: Option<WebhookRecord> = sqlx::query_as(concat!(
                    "SELECT ",
                    webhook_columns!(),
                    " FROM webhooks WHERE organization_id = $1 AND id = $2"
                ))
                .bind(org.to_string())
                .bind(id.to_string())
                .fetch_optional(&self.pool)
                .await?;
                row.map(Webhook::try_from).transpose()
            }

            async fn list_webhooks(&self, org: ObjectId, offset: i64, limit: i64) -> Result<Page<Webhook>> {
                let (total,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM webhooks WHERE organization_id = $1")
                    .bind(org.to_string())
                    .fetch_one(&self.pool)
                    .await?;
                let rows: Vec<WebhookRecord> = sqlx::query_as(concat!(
                    "SELECT ",
                    webhook_columns!(),
                    " FROM webhooks WHERE organization_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3"
                ))
                .bind(org.to_string())
                .bind(limit)
                .bind(offset)
                .fetch_all(&self.pool)
                .await?;
                Ok(Page { items: rows.into_iter().map(Webhook::try_from).collect::<Result<_>>()?, total })
            }

            async fn active_webhooks(&self, org: ObjectId) -> Result<Vec<Webhook>> {
                let rows: Vec<WebhookRecord> = sqlx::query_as(concat!(
                    "SELECT ",
                    webhook_columns!(),
                    " FROM webhooks WHERE organization_id = $1 AND active ORDER BY created_at, id"
                ))
                .bind(org.to_string())
                .fetch_all(&self.pool)
                .await?;
                rows.into_iter().map(Webhook::try_from).collect()
            }

            async fn list_attempts(
                &self,
                org: ObjectId,
                webhook: ObjectId,
                offset: i64,
                limit: i64,
            ) -> Result<Page<DeliveryAttempt>> {
                let (total,): (i64,) = sqlx::query_as(
                    "SELECT COUNT(*) FROM webhook_attempts WHERE organization_id = $1 AND webhook_id = $2",
                )
                .bind(org.to_string())
                .bind(webhook.to_string())
                .fetch_one(&self.pool)
                .await?;
                let rows: Vec<AttemptRecord> = sqlx::query_as(concat!(
                    "SELECT ",
                    attempt_columns!(),
                    " FROM webhook_attempts WHERE organization_id = $1 AND webhook_id = $2 \
                     ORDER BY created_at DESC, attempt DESC, id DESC LIMIT $3 OFFSET $4"
                ))
                .bind(org.to_string())
                .bind(webhook.to_string())
                .bind(limit)
                .bind(offset)
                .fetch_all(&self.pool)
                .await?;
                Ok(Page { items: rows.into_iter().map(DeliveryAttempt::try_from).collect::<Result<_>>()?, total })
            }

            async fn attempt(&self, org: ObjectId, webhook: ObjectId, id: ObjectId) -> Result<Option<DeliveryAttempt>> {
                let row: Option<AttemptRecord> = sqlx::query_as(concat!(
                    "SELECT ",
                    attempt_columns!(),
                    " FROM webhook_attempts WHERE organization_id = $1 AND webhook_id = $2 AND id = $3"
                ))
                .bind(org.to_string())
                .bind(webhook.to_string())
                .bind(id.to_string())
                .fetch_optional(&self.pool)
                .await?;
                row.map(DeliveryAttempt::try_from).transpose()
            }

            async fn delivery(&self, org: ObjectId, id: ObjectId) -> Result<Option<Delivery>> {
                let row: Option<DeliveryRecord> = sqlx::query_as(concat!(
                    "SELECT ",
                    delivery_columns!(),
                    " FROM webhook_deliveries WHERE organization_id = $1 AND id = $2"
                ))
                .bind(org.to_string())
                .bind(id.to_string())
                .fetch_optional(&self.pool)
                .await?;
                row.map(Delivery::try_from).transpose()
            }

            async fn insert_deliveries(&self, deliveries: &[Delivery], due: DateTime<Utc>) -> Result<()> {
                let mut tx = self.begin_write().await?;
                insert_delivery_rows(&mut tx, deliveries, due).await?;
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
                let rows: Vec<DeliveryRecord> = sqlx::query_as(concat!(
                    "SELECT ",
                    delivery_columns!(),
                    " FROM webhook_deliveries WHERE state = 'pending' AND next_attempt_at <= $1 \
                     AND (lease_until IS NULL OR lease_until < $1) ORDER BY next_attempt_at, id LIMIT $2",
                    $lock_due
                ))
                .bind(millis(now))
                .bind(limit)
                .fetch_all(&mut *tx)
                .await?;
                if rows.is_empty() {
                    return Ok(vec![]);
                }
                let deliveries: Vec<Delivery> = rows.into_iter().map(Delivery::try_from).collect::<Result<_>>()?;
                let ids: Vec<ObjectId> = deliveries.iter().map(|d| d.id).collect();
                let mut lease = QueryBuilder::<$db>::new("UPDATE webhook_deliveries SET lease_until = ");
                lease.push_bind(millis(lease_until)).push(" WHERE id IN ");
                push_id_list(&mut lease, &ids);
                lease.build().execute(&mut *tx).await?;
                let mut hook_ids: Vec<ObjectId> = deliveries.iter().map(|d| d.webhook_id).collect();
                hook_ids.sort();
                hook_ids.dedup();
                let mut hooks =
                    QueryBuilder::<$db>::new(concat!("SELECT ", webhook_columns!(), " FROM webhooks WHERE id IN "));
                push_id_list(&mut hooks, &hook_ids);
                let hooks: Vec<Webhook> = hooks
                    .build_query_as::<WebhookRecord>()
                    .fetch_all(&mut *tx)
                    .await?
                    .into_iter()
                    .map(Webhook::try_from)
                    .collect::<Result<_>>()?;
                tx.commit().await?;
                Ok(deliveries
                    .into_iter()
                    .map(|d| {
                        let hook = hooks
                            .iter()
                            .find(|h| h.id == d.webhook_id && h.organization_id == d.organization_id)
                            .cloned();
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
                if !advance_delivery(&mut tx, delivery, next_attempt_at).await? {
                    return Ok(false);
                }
                sqlx::query(
                    "UPDATE webhook_attempts SET state = 'failed', next_retry_at = NULL \
                     WHERE delivery_id = $1 AND state = 'pending_retry'",
                )
                .bind(delivery.id.to_string())
                .execute(&mut *tx)
                .await?;
                insert_attempt_row(&mut tx, attempt).await?;
                tx.commit().await?;
                Ok(true)
            }

            async fn skip_delivery(&self, delivery: &Delivery, skipped: &DeliveryAttempt) -> Result<bool> {
                let mut tx = self.begin_write().await?;
                if !advance_delivery(&mut tx, delivery, None).await? {
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
                    insert_attempt_row(&mut tx, skipped).await?;
                }
                tx.commit().await?;
                Ok(true)
            }
        }
    };
}
