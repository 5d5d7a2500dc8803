//! The query code both engines share. The schemas of both engines use the
//! same column types (BIGINT milliseconds, TEXT JSON, BOOLEAN), and both
//! accept `$n` placeholders, so one body of SQL serves both; the macro
//! instantiates it once per engine, each with its own pool type and its own
//! way to open a write transaction (`begin_write`).

macro_rules! user_columns {
    () => {
        "id, organization_id, email, name, is_admin, created_at"
    };
}

macro_rules! org_columns {
    () => {
        "id, name, plan, balance, default_containers, created_at"
    };
}

macro_rules! scrap_columns {
    () => {
        "id, organization_id, user_id, title, description, url, request, scrapper, containers, params, \
         cron, cron_timezone, alert, auto_fix, proxy_tier, last_tier_change_at, email_notif, \
         email_notif_recipient, email_notif_format, digest_enabled, digest_prompt, digest_recipient, \
         banner, created_at, updated_at"
    };
}

/// The columns read back for a scrap: the written ones and the derived list
/// of run ids.
macro_rules! scrap_read_columns {
    () => {
        concat!(scrap_columns!(), ", history_ids, next_fire_at")
    };
}

macro_rules! history_columns {
    () => {
        "id, organization_id, scrap_id, status_detail, data, length, time_ms, digest, triggered_by, \
         run_type, proxy_tier, costs, meter, fix_version_id, fixed_at, error_snapshot, retries, error, \
         created_at, finished_at"
    };
}

macro_rules! key_columns {
    () => {
        "k.id AS id, k.organization_id AS organization_id, k.user_id AS user_id, k.name AS name, \
         k.prefix AS prefix, k.scopes AS scopes, k.scrap_ids AS scrap_ids, k.expires_at AS expires_at, \
         k.created_at AS created_at, k.revoked_at AS revoked_at"
    };
}

macro_rules! activity_columns {
    () => {
        "id, organization_id, scrap_id, kind, actor, message, history_id, created_at"
    };
}

macro_rules! sql_store {
    ($store:ident, $db:ty, claim_run = $claim_sql:literal) => {
        use async_trait::async_trait;
        use chrono::{DateTime, Utc};
        use sqlx::{QueryBuilder, Transaction};
        use svc_domain::ObjectId;
        use svc_domain::account::{Organization, User};
        use svc_domain::activity::Activity;
        use svc_domain::api_key::{ApiKey, KeyOwner};
        use svc_domain::history::HistoryRow;
        use svc_domain::plan::Plan;
        use svc_domain::scrap::{HISTORY_IDS_CAP, Scrap};

        // `refresh_history_ids` spells the cap as a literal (a bound LIMIT makes
        // SQLite re-prepare the statement on every run).
        const _: () = assert!(HISTORY_IDS_CAP == 50);

        use $crate::records::{
            ActivityRecord, HistoryRecord, KeyOwnerRecord, KeyRecord, OrganizationRecord,
            ScrapRecord, UserRecord, ClaimRecord, UserWithHashRecord, escape_like, id, ids_json, like_pattern, millis, opt_millis,
            scopes_json, search_text, to_json,
        };
        use $crate::traits::{
            AccountStore, ActivityStore, ClaimedRun, ExpiredLeases, HistoryFilter, HistoryStore, KeyStore, NewAccount,
            Page, RunStore, ScrapFilter, ScrapStore,
        };
        use svc_domain::scrap::ParamSet;
        use $crate::{Result, StoreError};

        fn conflict_on_unique(e: sqlx::Error, what: &'static str) -> StoreError {
            match &e {
                sqlx::Error::Database(db) if db.is_unique_violation() => StoreError::Conflict(what),
                _ => StoreError::Database(e),
            }
        }

        async fn insert_activity(tx: &mut Transaction<'static, $db>, a: &Activity) -> Result<()> {
            insert_activities(tx, &[a]).await
        }

        async fn insert_activities(tx: &mut Transaction<'static, $db>, rows: &[&Activity]) -> Result<()> {
            if rows.is_empty() {
                return Ok(());
            }
            let mut qb = QueryBuilder::<$db>::new(concat!("INSERT INTO activities (", activity_columns!(), ") "));
            qb.push_values(rows, |mut b, a| {
                b.push_bind(a.id.to_string())
                    .push_bind(a.organization_id.to_string())
                    .push_bind(a.scrap_id.to_string())
                    .push_bind(&a.kind)
                    .push_bind(&a.actor)
                    .push_bind(&a.message)
                    .push_bind(a.history_id.map(|h| h.to_string()))
                    .push_bind(millis(a.created_at));
            });
            qb.build().execute(&mut **tx).await?;
            Ok(())
        }

        /// Inserts a pending history row and its run-queue entry.
        async fn insert_queued_run(
            tx: &mut Transaction<'static, $db>,
            row: &HistoryRow,
            containers: &[String],
            param: Option<&ParamSet>,
        ) -> Result<()> {
            insert_history_row(tx, row).await?;
            insert_queue_entries(tx, &[(row, containers, param)]).await
        }

        /// Queues runs of pending history rows: `(row, containers, param)`.
        async fn insert_queue_entries(
            tx: &mut Transaction<'static, $db>,
            runs: &[(&HistoryRow, &[String], Option<&ParamSet>)],
        ) -> Result<()> {
            if runs.is_empty() {
                return Ok(());
            }
            let mut qb = QueryBuilder::<$db>::new(
                "INSERT INTO run_queue (history_id, organization_id, scrap_id, containers, param, state, attempts, \
                 enqueued_at) ",
            );
            qb.push_values(runs, |mut b, (row, containers, param)| {
                b.push_bind(row.id.to_string())
                    .push_bind(row.organization_id.to_string())
                    .push_bind(row.scrap_id.to_string())
                    .push_bind(format!(",{},", containers.join(",")))
                    .push_bind(param.map(to_json))
                    .push("'queued'")
                    .push("0")
                    .push_bind(millis(row.created_at));
            });
            qb.build().execute(&mut **tx).await?;
            Ok(())
        }

        /// Inserts a history row and refreshes its scrap's `history_ids`.
        async fn insert_history_row(tx: &mut Transaction<'static, $db>, h: &HistoryRow) -> Result<()> {
            insert_history_rows(tx, &[h]).await?;
            refresh_history_ids(tx, h.organization_id, h.scrap_id).await
        }

        /// Inserts history rows; the caller keeps `history_ids` current.
        async fn insert_history_rows(tx: &mut Transaction<'static, $db>, rows: &[&HistoryRow]) -> Result<()> {
            if rows.is_empty() {
                return Ok(());
            }
            let mut qb = QueryBuilder::<$db>::new(concat!("INSERT INTO history (", history_columns!(), ") "));
            qb.push_values(rows, |mut b, h| {
                b.push_bind(h.id.to_string())
                    .push_bind(h.organization_id.to_string())
                    .push_bind(h.scrap_id.to_string())
                    .push_bind(h.status_detail.map(|d| d.as_str()))
                    .push_bind(&h.data)
                    .push_bind(h.length)
                    .push_bind(h.time_ms)
                    .push_bind(&h.digest)
                    .push_bind(h.triggered_by.as_str())
                    .push_bind(h.run_type.as_str())
                    .push_bind(&h.proxy_tier)
                    .push_bind(h.costs.as_ref().map(to_json))
                    .push_bind(h.meter.as_ref().map(to_json))
                    .push_bind(&h.fix_version_id)
                    .push_bind(opt_millis(h.fixed_at))
                    .push_bind(h.error_snapshot.as_ref().map(to_json))
                    .push_bind(h.retries)
                    .push_bind(&h.error)
                    .push_bind(millis(h.created_at))
                    .push_bind(opt_millis(h.finished_at));
            });
            qb.build().execute(&mut **tx).await.map_err(|e| conflict_on_unique(e, "history row"))?;
            Ok(())
        }

        fn push_id_list(qb: &mut QueryBuilder<$db>, ids: &[ObjectId]) {
            qb.push("(");
            let mut list = qb.separated(", ");
            for id in ids {
                list.push_bind(id.to_string());
            }
            qb.push(")");
        }

        fn push_scrap_filter(qb: &mut QueryBuilder<$db>, org: ObjectId, filter: &ScrapFilter) {
            qb.push(" FROM scraps WHERE organization_id = ").push_bind(org.to_string());
            if let Some(search) = &filter.search {
                qb.push(" AND search_text LIKE ").push_bind(like_pattern(search)).push(" ESCAPE '\\'");
            }
            if let Some(only) = &filter.only {
                qb.push(" AND id IN ");
                push_id_list(qb, only);
            }
        }

        fn push_history_filter(qb: &mut QueryBuilder<$db>, org: ObjectId, filter: &HistoryFilter) {
            qb.push(" FROM history WHERE organization_id = ").push_bind(org.to_string());
            if let Some(scrap) = filter.scrap {
                qb.push(" AND scrap_id = ").push_bind(scrap.to_string());
            }
            if let Some(only) = &filter.only_scraps {
                qb.push(" AND scrap_id IN ");
                push_id_list(qb, only);
            }
        }

        /// Recomputes a scrap's `history_ids` from its history rows (in the
        /// transaction that changed them).
        async fn refresh_history_ids(tx: &mut Transaction<'static, $db>, org: ObjectId, scrap: ObjectId) -> Result<()> {
            sqlx::query(concat!(
                "UPDATE scraps SET history_ids = COALESCE((SELECT string_agg(h.id, ',' ORDER BY h.created_at DESC, h.id DESC) \
                 FROM (SELECT id, created_at FROM history WHERE organization_id = $1 AND scrap_id = $2 \
                 ORDER BY created_at DESC, id DESC LIMIT ",
                50,
                ") h), '') WHERE organization_id = $1 AND id = $2"
            ))
            .bind(org.to_string())
            .bind(scrap.to_string())
            .execute(&mut **tx)
            .await?;
            Ok(())
        }

        #[async_trait]
        impl AccountStore for $store {
            async fn create_account(&self, account: &NewAccount) -> Result<()> {
                let org = &account.organization;
                let user = &account.user;
                let mut tx = self.begin_write().await?;
                sqlx::query(concat!("INSERT INTO organizations (", org_columns!(), ") VALUES ($1, $2, $3, $4, $5, $6)"))
                    .bind(org.id.to_string())
                    .bind(&org.name)
                    .bind(org.plan.as_str())
                    .bind(org.balance)
                    .bind(to_json(&org.default_containers))
                    .bind(millis(org.created_at))
                    .execute(&mut *tx)
                    .await?;
                sqlx::query(concat!(
                    "INSERT INTO users (",
                    user_columns!(),
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
                tx.commit().await?;
                Ok(())
            }

            async fn user_by_email(&self, email: &str) -> Result<Option<(User, String)>> {
                let row: Option<UserWithHashRecord> =
                    sqlx::query_as(concat!("SELECT ", user_columns!(), ", password_hash FROM users WHERE email = $1"))
                        .bind(email)
                        .fetch_optional(&self.pool)
                        .await?;
                row.map(|r| Ok((User::try_from(r.user)?, r.password_hash))).transpose()
            }

            async fn user(&self, org: ObjectId, user: ObjectId) -> Result<Option<User>> {
                let row: Option<UserRecord> = sqlx::query_as(concat!(
                    "SELECT ",
                    user_columns!(),
                    " FROM users WHERE organization_id = $1 AND id = $2"
                ))
                .bind(org.to_string())
                .bind(user.to_string())
                .fetch_optional(&self.pool)
                .await?;
                row.map(User::try_from).transpose()
            }

            async fn organization(&self, org: ObjectId) -> Result<Option<Organization>> {
                let row: Option<OrganizationRecord> =
                    sqlx::query_as(concat!("SELECT ", org_columns!(), " FROM organizations WHERE id = $1"))
                        .bind(org.to_string())
                        .fetch_optional(&self.pool)
                        .await?;
                row.map(Organization::try_from).transpose()
            }

            async fn set_plan(&self, org: ObjectId, plan: Plan) -> Result<bool> {
                let done = sqlx::query("UPDATE organizations SET plan = $2 WHERE id = $1")
                    .bind(org.to_string())
                    .bind(plan.as_str())
                    .execute(&self.pool)
                    .await?;
                Ok(done.rows_affected() == 1)
            }

            async fn set_admin(&self, org: ObjectId, user: ObjectId, is_admin: bool) -> Result<bool> {
                let done = sqlx::query("UPDATE users SET is_admin = $3 WHERE organization_id = $1 AND id = $2")
                    .bind(org.to_string())
                    .bind(user.to_string())
                    .bind(is_admin)
                    .execute(&self.pool)
                    .await?;
                Ok(done.rows_affected() == 1)
            }

            async fn add_balance(&self, org: ObjectId, units: i64) -> Result<Option<i64>> {
                let row: Option<(i64,)> =
                    sqlx::query_as("UPDATE organizations SET balance = balance + $2 WHERE id = $1 RETURNING balance")
                        .bind(org.to_string())
                        .bind(units)
                        .fetch_optional(&self.pool)
                        .await?;
                Ok(row.map(|(b,)| b))
            }

            async fn setting_or_init(&self, key: &str, value: &str) -> Result<String> {
                sqlx::query("INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING")
                    .bind(key)
                    .bind(value)
                    .execute(&self.pool)
                    .await?;
                let (stored,): (String,) = sqlx::query_as("SELECT value FROM settings WHERE key = $1")
                    .bind(key)
                    .fetch_one(&self.pool)
                    .await?;
                Ok(stored)
            }
        }

        #[async_trait]
        impl ScrapStore for $store {
            async fn insert_scrap(&self, s: &Scrap, activity: &Activity) -> Result<()> {
                let mut tx = self.begin_write().await?;
                sqlx::query(concat!(
                    "INSERT INTO scraps (",
                    scrap_columns!(),
                    ", search_text, next_fire_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, \
                     $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27)"
                ))
                .bind(s.id.to_string())
                .bind(s.organization_id.to_string())
                .bind(s.user_id.to_string())
                .bind(&s.title)
                .bind(&s.description)
                .bind(&s.url)
                .bind(&s.request)
                .bind(&s.scrapper)
                .bind(to_json(&s.containers))
                .bind(to_json(&s.params))
                .bind(&s.cron)
                .bind(&s.cron_timezone)
                .bind(&s.alert)
                .bind(s.auto_fix)
                .bind(&s.proxy_tier)
                .bind(opt_millis(s.last_tier_change_at))
                .bind(s.email_notif)
                .bind(&s.email_notif_recipient)
                .bind(s.email_notif_format.as_str())
                .bind(s.digest_enabled)
                .bind(&s.digest_prompt)
                .bind(&s.digest_recipient)
                .bind(&s.banner)
                .bind(millis(s.created_at))
                .bind(millis(s.updated_at))
                .bind(search_text(s))
                .bind(opt_millis(s.next_fire_at))
                .execute(&mut *tx)
                .await
                .map_err(|e| conflict_on_unique(e, "scrap"))?;
                insert_activity(&mut tx, activity).await?;
                tx.commit().await?;
                Ok(())
            }

            async fn update_scrap(&self, org: ObjectId, s: &Scrap, activity: &Activity) -> Result<bool> {
                let mut tx = self.begin_write().await?;
                let done = sqlx::query(
                    "UPDATE scraps SET title = $3, description = $4, url = $5, request = $6, scrapper = $7, \
                     containers = $8, params = $9, cron = $10, cron_timezone = $11, alert = $12, auto_fix = $13, \
                     proxy_tier = $14, last_tier_change_at = $15, email_notif = $16, email_notif_recipient = $17, \
                     email_notif_format = $18, digest_enabled = $19, digest_prompt = $20, digest_recipient = $21, \
                     banner = $22, updated_at = $23, search_text = $24, \
                     next_fire_at = CASE WHEN cron IS NOT DISTINCT FROM $10 AND cron_timezone = $11 \
                     AND next_fire_at IS NOT NULL THEN next_fire_at ELSE $25 END \
                     WHERE organization_id = $1 AND id = $2",
                )
                .bind(org.to_string())
                .bind(s.id.to_string())
                .bind(&s.title)
                .bind(&s.description)
                .bind(&s.url)
                .bind(&s.request)
                .bind(&s.scrapper)
                .bind(to_json(&s.containers))
                .bind(to_json(&s.params))
                .bind(&s.cron)
                .bind(&s.cron_timezone)
                .bind(&s.alert)
                .bind(s.auto_fix)
                .bind(&s.proxy_tier)
                .bind(opt_millis(s.last_tier_change_at))
                .bind(s.email_notif)
                .bind(&s.email_notif_recipient)
                .bind(s.email_notif_format.as_str())
                .bind(s.digest_enabled)
                .bind(&s.digest_prompt)
                .bind(&s.digest_recipient)
                .bind(&s.banner)
                .bind(millis(s.updated_at))
                .bind(search_text(s))
                .bind(opt_millis(s.next_fire_at))
                .execute(&mut *tx)
                .await?;
                if done.rows_affected() != 1 {
                    return Ok(false);
                }
                insert_activity(&mut tx, activity).await?;
                tx.commit().await?;
                Ok(true)
            }

            async fn delete_scrap(&self, org: ObjectId, scrap: ObjectId, activity: &Activity) -> Result<bool> {
                let mut tx = self.begin_write().await?;
                let done = sqlx::query("DELETE FROM scraps WHERE organization_id = $1 AND id = $2")
                    .bind(org.to_string())
                    .bind(scrap.to_string())
                    .execute(&mut *tx)
                    .await?;
                if done.rows_affected() != 1 {
                    return Ok(false);
                }
                for table in ["DELETE FROM history WHERE organization_id = $1 AND scrap_id = $2",
                              "DELETE FROM run_queue WHERE organization_id = $1 AND scrap_id = $2"] {
                    sqlx::query(table).bind(org.to_string()).bind(scrap.to_string()).execute(&mut *tx).await?;
                }
                insert_activity(&mut tx, activity).await?;
                tx.commit().await?;
                Ok(true)
            }

            async fn scrap(&self, org: ObjectId, scrap: ObjectId) -> Result<Option<Scrap>> {
                let row: Option<ScrapRecord> = sqlx::query_as(concat!(
                    "SELECT ",
                    scrap_read_columns!(),
                    " FROM scraps WHERE organization_id = $1 AND id = $2"
                ))
                .bind(org.to_string())
                .bind(scrap.to_string())
                .fetch_optional(&self.pool)
                .await?;
                row.map(Scrap::try_from).transpose()
            }

            async fn list_scraps(&self, org: ObjectId, filter: &ScrapFilter) -> Result<Page<Scrap>> {
                if filter.only.as_ref().is_some_and(Vec::is_empty) {
                    return Ok(Page { items: vec![], total: 0 });
                }
                let mut count = QueryBuilder::<$db>::new("SELECT COUNT(*)");
                push_scrap_filter(&mut count, org, filter);
                let (total,): (i64,) = count.build_query_as().fetch_one(&self.pool).await?;

                let mut select = QueryBuilder::<$db>::new(concat!("SELECT ", scrap_read_columns!()));
                push_scrap_filter(&mut select, org, filter);
                select.push(" ORDER BY created_at DESC, id DESC LIMIT ").push_bind(filter.limit);
                select.push(" OFFSET ").push_bind(filter.offset);
                let rows: Vec<ScrapRecord> = select.build_query_as().fetch_all(&self.pool).await?;
                let items = rows.into_iter().map(Scrap::try_from).collect::<Result<_>>()?;
                Ok(Page { items, total })
            }

            async fn existing_scrap_ids(&self, org: ObjectId, ids: &[ObjectId]) -> Result<Vec<ObjectId>> {
                if ids.is_empty() {
                    return Ok(vec![]);
                }
                let mut qb = QueryBuilder::<$db>::new("SELECT id FROM scraps WHERE organization_id = ");
                qb.push_bind(org.to_string()).push(" AND id IN ");
                push_id_list(&mut qb, ids);
                let rows: Vec<(String,)> = qb.build_query_as().fetch_all(&self.pool).await?;
                rows.iter().map(|(s,)| id(s)).collect()
            }
        }

        #[async_trait]
        impl KeyStore for $store {
            async fn insert_key(&self, key: &ApiKey, key_hash: &str, activities: &[Activity]) -> Result<()> {
                let mut tx = self.begin_write().await?;
                sqlx::query(
                    "INSERT INTO api_keys (id, organization_id, user_id, name, prefix, key_hash, scopes, scrap_ids, \
                     expires_at, created_at, revoked_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
                )
                .bind(key.id.to_string())
                .bind(key.organization_id.to_string())
                .bind(key.user_id.to_string())
                .bind(&key.name)
                .bind(&key.prefix)
                .bind(key_hash)
                .bind(scopes_json(&key.scopes))
                .bind(ids_json(&key.scrap_ids))
                .bind(opt_millis(key.expires_at))
                .bind(millis(key.created_at))
                .bind(opt_millis(key.revoked_at))
                .execute(&mut *tx)
                .await
                .map_err(|e| conflict_on_unique(e, "key"))?;
                for activity in activities {
                    insert_activity(&mut tx, activity).await?;
                }
                tx.commit().await?;
                Ok(())
            }

            async fn key_by_hash(&self, key_hash: &str) -> Result<Option<KeyOwner>> {
                let row: Option<KeyOwnerRecord> = sqlx::query_as(concat!(
                    "SELECT ",
                    key_columns!(),
                    ", u.is_admin AS owner_is_admin FROM api_keys k JOIN users u ON u.id = k.user_id \
                     WHERE k.key_hash = $1"
                ))
                .bind(key_hash)
                .fetch_optional(&self.pool)
                .await?;
                row.map(|r| Ok(KeyOwner { key: ApiKey::try_from(r.key)?, owner_is_admin: r.owner_is_admin }))
                    .transpose()
            }

            async fn list_keys(&self, org: ObjectId, offset: i64, limit: i64) -> Result<Page<ApiKey>> {
                let (total,): (i64,) = sqlx::query_as(
                    "SELECT COUNT(*) FROM api_keys WHERE organization_id = $1 AND revoked_at IS NULL",
                )
                .bind(org.to_string())
                .fetch_one(&self.pool)
                .await?;
                let rows: Vec<KeyRecord> = sqlx::query_as(concat!(
                    "SELECT ",
                    key_columns!(),
                    " FROM api_keys k WHERE k.organization_id = $1 AND k.revoked_at IS NULL \
                     ORDER BY k.created_at DESC, k.id DESC LIMIT $2 OFFSET $3"
                ))
                .bind(org.to_string())
                .bind(limit)
                .bind(offset)
                .fetch_all(&self.pool)
                .await?;
                let items = rows.into_iter().map(ApiKey::try_from).collect::<Result<_>>()?;
                Ok(Page { items, total })
            }

            async fn key(&self, org: ObjectId, key: ObjectId) -> Result<Option<ApiKey>> {
                let row: Option<KeyRecord> = sqlx::query_as(concat!(
                    "SELECT ",
                    key_columns!(),
                    " FROM api_keys k WHERE k.organization_id = $1 AND k.id = $2 AND k.revoked_at IS NULL"
                ))
                .bind(org.to_string())
                .bind(key.to_string())
                .fetch_optional(&self.pool)
                .await?;
                row.map(ApiKey::try_from).transpose()
            }

            async fn revoke_key(
                &self,
                org: ObjectId,
                key: ObjectId,
                at: DateTime<Utc>,
                activities: &[Activity],
            ) -> Result<bool> {
                let mut tx = self.begin_write().await?;
                let done = sqlx::query(
                    "UPDATE api_keys SET revoked_at = $3 WHERE organization_id = $1 AND id = $2 AND revoked_at IS NULL",
                )
                .bind(org.to_string())
                .bind(key.to_string())
                .bind(millis(at))
                .execute(&mut *tx)
                .await?;
                if done.rows_affected() != 1 {
                    return Ok(false);
                }
                for activity in activities {
                    insert_activity(&mut tx, activity).await?;
                }
                tx.commit().await?;
                Ok(true)
            }
        }

        #[async_trait]
        impl HistoryStore for $store {
            async fn insert_history(&self, h: &HistoryRow) -> Result<()> {
                let mut tx = self.begin_write().await?;
                insert_history_row(&mut tx, h).await?;
                tx.commit().await?;
                Ok(())
            }

            async fn history_row(&self, org: ObjectId, row: ObjectId) -> Result<Option<HistoryRow>> {
                let row: Option<HistoryRecord> = sqlx::query_as(concat!(
                    "SELECT ",
                    history_columns!(),
                    " FROM history WHERE organization_id = $1 AND id = $2"
                ))
                .bind(org.to_string())
                .bind(row.to_string())
                .fetch_optional(&self.pool)
                .await?;
                row.map(HistoryRow::try_from).transpose()
            }

            async fn list_history(&self, org: ObjectId, filter: &HistoryFilter) -> Result<Page<HistoryRow>> {
                if filter.only_scraps.as_ref().is_some_and(Vec::is_empty) {
                    return Ok(Page { items: vec![], total: 0 });
                }
                let mut count = QueryBuilder::<$db>::new("SELECT COUNT(*)");
                push_history_filter(&mut count, org, filter);
                let (total,): (i64,) = count.build_query_as().fetch_one(&self.pool).await?;

                let mut select = QueryBuilder::<$db>::new(concat!("SELECT ", history_columns!()));
                push_history_filter(&mut select, org, filter);
                select.push(" ORDER BY created_at DESC, id DESC LIMIT ").push_bind(filter.limit);
                select.push(" OFFSET ").push_bind(filter.offset);
                let rows: Vec<HistoryRecord> = select.build_query_as().fetch_all(&self.pool).await?;
                let items = rows.into_iter().map(HistoryRow::try_from).collect::<Result<_>>()?;
                Ok(Page { items, total })
            }
        }

        #[async_trait]
        impl ActivityStore for $store {
            async fn list_activities(
                &self,
                org: ObjectId,
                scrap: ObjectId,
                offset: i64,
                limit: i64,
            ) -> Result<Page<Activity>> {
                let (total,): (i64,) =
                    sqlx::query_as("SELECT COUNT(*) FROM activities WHERE organization_id = $1 AND scrap_id = $2")
                        .bind(org.to_string())
                        .bind(scrap.to_string())
                        .fetch_one(&self.pool)
                        .await?;
                let rows: Vec<ActivityRecord> = sqlx::query_as(concat!(
                    "SELECT ",
                    activity_columns!(),
                    " FROM activities WHERE organization_id = $1 AND scrap_id = $2 \
                     ORDER BY created_at DESC, id DESC LIMIT $3 OFFSET $4"
                ))
                .bind(org.to_string())
                .bind(scrap.to_string())
                .bind(limit)
                .bind(offset)
                .fetch_all(&self.pool)
                .await?;
                let items = rows.into_iter().map(Activity::try_from).collect::<Result<_>>()?;
                Ok(Page { items, total })
            }
        }

        #[async_trait]
        impl RunStore for $store {
            async fn enqueue_run(
                &self,
                row: &HistoryRow,
                containers: &[String],
                param: Option<&ParamSet>,
                activity: &Activity,
            ) -> Result<()> {
                let mut tx = self.begin_write().await?;
                insert_queued_run(&mut tx, row, containers, param).await?;
                insert_activity(&mut tx, activity).await?;
                tx.commit().await?;
                Ok(())
            }

            async fn claim_run(
                &self,
                container: &str,
                worker_id: &str,
                lease_until: DateTime<Utc>,
            ) -> Result<Option<ClaimedRun>> {
                let row: Option<ClaimRecord> = sqlx::query_as($claim_sql)
                    .bind(worker_id)
                    .bind(millis(lease_until))
                    .bind(format!("%,{},%", escape_like(container)))
                    .fetch_optional(&self.pool)
                    .await?;
                row.map(|r| r.into_claim(worker_id)).transpose()
            }

            async fn finish_run(
                &self,
                claim: &ClaimedRun,
                h: &HistoryRow,
                units: i64,
                activity: &Activity,
                deliveries: &[svc_domain::webhook::Delivery],
            ) -> Result<bool> {
                let mut tx = self.begin_write().await?;
                let held = sqlx::query("DELETE FROM run_queue WHERE history_id = $1 AND worker_id = $2 AND attempts = $3")
                    .bind(claim.history_id.to_string())
                    .bind(&claim.worker_id)
                    .bind(claim.attempts)
                    .execute(&mut *tx)
                    .await?;
                if held.rows_affected() != 1 {
                    return Ok(false);
                }
                sqlx::query(
                    "UPDATE history SET status_detail = $3, data = $4, length = $5, time_ms = $6, proxy_tier = $7, \
                     costs = $8, meter = $9, error_snapshot = $10, retries = $11, error = $12, finished_at = $13, \
                     digest = $14 WHERE organization_id = $1 AND id = $2",
                )
                .bind(claim.organization_id.to_string())
                .bind(claim.history_id.to_string())
                .bind(h.status_detail.map(|d| d.as_str()))
                .bind(&h.data)
                .bind(h.length)
                .bind(h.time_ms)
                .bind(&h.proxy_tier)
                .bind(h.costs.as_ref().map(to_json))
                .bind(h.meter.as_ref().map(to_json))
                .bind(h.error_snapshot.as_ref().map(to_json))
                .bind(h.retries)
                .bind(&h.error)
                .bind(opt_millis(h.finished_at))
                .bind(&h.digest)
                .execute(&mut *tx)
                .await?;
                sqlx::query("UPDATE organizations SET balance = balance - $2 WHERE id = $1")
                    .bind(claim.organization_id.to_string())
                    .bind(units)
                    .execute(&mut *tx)
                    .await?;
                insert_activity(&mut tx, activity).await?;
                insert_delivery_rows(&mut tx, deliveries, h.finished_at.unwrap_or_else(Utc::now)).await?;
                tx.commit().await?;
                Ok(true)
            }

            async fn expire_leases(&self, now: DateTime<Utc>, max_attempts: i64) -> Result<ExpiredLeases> {
                let mut tx = self.begin_write().await?;
                let requeued: Vec<(String, String)> = sqlx::query_as(
                    "UPDATE run_queue SET state = 'queued', worker_id = NULL, lease_until = NULL \
                     WHERE state = 'running' AND lease_until < $1 AND attempts < $2 RETURNING history_id, organization_id",
                )
                .bind(millis(now))
                .bind(max_attempts)
                .fetch_all(&mut *tx)
                .await?;
                let mut out = ExpiredLeases::default();
                for (history, org) in requeued {
                    sqlx::query("UPDATE history SET retries = retries + 1 WHERE organization_id = $1 AND id = $2")
                        .bind(&org)
                        .bind(&history)
                        .execute(&mut *tx)
                        .await?;
                    out.requeued.push(id(&history)?);
                }
                let lost: Vec<(String, String, String, Option<String>, i64, Option<String>)> = sqlx::query_as(
                    "SELECT history_id, organization_id, scrap_id, param, attempts, worker_id FROM run_queue \
                     WHERE state = 'running' AND lease_until < $1 AND attempts >= $2",
                )
                .bind(millis(now))
                .bind(max_attempts)
                .fetch_all(&mut *tx)
                .await?;
                for (history, org, scrap, param, attempts, worker) in lost {
                    let record = ClaimRecord { history_id: history, organization_id: org, scrap_id: scrap, param, attempts };
                    out.lost.push(record.into_claim(worker.as_deref().unwrap_or_default())?);
                }
                tx.commit().await?;
                Ok(out)
            }

            async fn last_success(&self, org: ObjectId, scrap: ObjectId) -> Result<Option<HistoryRow>> {
                let row: Option<HistoryRecord> = sqlx::query_as(concat!(
                    "SELECT ",
                    history_columns!(),
                    " FROM history WHERE organization_id = $1 AND scrap_id = $2 AND status_detail = 'success' \
                     ORDER BY created_at DESC, id DESC LIMIT 1"
                ))
                .bind(org.to_string())
                .bind(scrap.to_string())
                .fetch_optional(&self.pool)
                .await?;
                row.map(HistoryRow::try_from).transpose()
            }

            async fn log_activity(&self, activity: &Activity) -> Result<()> {
                let mut tx = self.begin_write().await?;
                insert_activity(&mut tx, activity).await?;
                tx.commit().await?;
                Ok(())
            }
        }
    };
}
