//! Statements and query fragments that several stores use: the rows that
//! runs, schedules and webhooks write inside their own transactions, and the
//! `WHERE` clauses of the lists.

use chrono::{DateTime, Utc};
use const_format::concatcp;
use sqlx::query::Query;
use sqlx::{ColumnIndex, Decode, Encode, Executor, QueryBuilder, Type};
use svc_domain::activity::Activity;
use svc_domain::email::Email;
use svc_domain::history::HistoryRow;
use svc_domain::scrap::{HISTORY_IDS_CAP, ParamSet, Scrap};
use svc_domain::webhook::{Delivery, DeliveryAttempt};
use svc_domain::{OrgId, ScrapId};

use super::batch::Batch;
use super::{Dialect, RowsAffected, SqlStore, WriteTx, columns};
use crate::email_records::attachment_b64;
use crate::records::{like_pattern, millis, opt_millis, to_json};
use crate::traits::{HistoryFilter, ScrapFilter};
use crate::usage_records::{costs_json, meter_json};
use crate::{Result, StoreError};

pub(super) fn conflict_on_unique(e: sqlx::Error, what: &'static str) -> StoreError {
    match &e {
        sqlx::Error::Database(db) if db.is_unique_violation() => StoreError::Conflict(what),
        _ => e.into(),
    }
}

/// Keeps a scrap's `history_ids` current after its history row `$3`
/// (created at `$4`) was inserted. When the row is newer, in (created_at,
/// id) order, than the one `history_ids` lists first, which it nearly
/// always is, its id goes first and the list is cut to `HISTORY_IDS_CAP`
/// ids of 24 characters and their commas, as the scheduler's fired runs
/// are (`schedule.rs`). Otherwise (a first run, an older row, a first
/// entry whose row is gone) the list is recomputed from the last rows,
/// which took ~45 µs on the writer at every enqueue, the costliest
/// statement of a run (docs/benchmarks.md). The cap is part of the text:
/// a bound `LIMIT` makes SQLite re-prepare the statement on every run.
const NOTE_HISTORY_ROW: &str = concatcp!(
    "UPDATE scraps SET history_ids = CASE WHEN EXISTS (SELECT 1 FROM history f \
     WHERE f.organization_id = $1 AND f.id = substr(scraps.history_ids, 1, 24) \
     AND (f.created_at < $4 OR (f.created_at = $4 AND f.id < $3))) \
     THEN substr($3 || ',' || scraps.history_ids, 1, ",
    HISTORY_IDS_CAP * 25 - 1,
    ") ELSE COALESCE((SELECT string_agg(h.id, ',' ORDER BY h.created_at DESC, h.id DESC) \
     FROM (SELECT id, created_at FROM history WHERE organization_id = $1 AND scrap_id = $2 \
     ORDER BY created_at DESC, id DESC LIMIT ",
    HISTORY_IDS_CAP,
    ") h), '') END WHERE organization_id = $1 AND id = $2"
);

/// The scraps whose most recent run (the first id of `history_ids`, ids
/// being 24 characters) ended `error`, `empty` or `regression`.
const FAILING: &str = " AND EXISTS (SELECT 1 FROM history h WHERE h.organization_id = scraps.organization_id \
                       AND h.id = substr(scraps.history_ids, 1, 24) \
                       AND h.status_detail IN ('error', 'empty', 'regression'))";

impl<DB: Dialect> SqlStore<DB>
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
    /// Binds a scrap's writable fields, `title` to `banner` in column order:
    /// what `insert_scrap` and `update_scrap` both write.
    pub(super) fn bind_scrap_fields<'q>(
        query: Query<'q, DB, DB::Arguments>,
        s: &Scrap,
    ) -> Query<'q, DB, DB::Arguments> {
        query
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
    }

    pub(super) async fn insert_activity(tx: &mut WriteTx<DB>, a: &Activity) -> Result<()> {
        Self::insert_activities(tx, &[a]).await
    }

    pub(super) async fn insert_activities(tx: &mut WriteTx<DB>, rows: &[&Activity]) -> Result<()> {
        if rows.is_empty() {
            return Ok(());
        }
        let mut qb = QueryBuilder::<DB>::new("");
        Self::push_activities(&mut qb, rows);
        qb.build().execute(&mut **tx).await?;
        Ok(())
    }

    /// Writes the statement that inserts `rows` (at least one) into `qb`.
    pub(super) fn push_activities(qb: &mut QueryBuilder<DB>, rows: &[&Activity]) {
        qb.push(concatcp!("INSERT INTO activities (", columns::ACTIVITY, ") "));
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
    }

    /// Writes the statements that insert a pending history row, keep its
    /// scrap's `history_ids` current and queue its run into `batch`.
    pub(super) fn push_queued_run(
        batch: &mut Batch<DB>,
        row: &HistoryRow,
        containers: &[String],
        param: Option<&ParamSet>,
    ) {
        Self::push_history_rows(batch.statement(), &[row]);
        if let Some(scrap) = row.scrap_id {
            Self::push_note_history_row(batch.statement(), row, scrap);
        }
        Self::push_queue_entries(batch.statement(), &[(row, containers, param)]);
    }

    /// Queues runs of pending history rows: `(row, containers, param)`.
    pub(super) async fn insert_queue_entries(
        tx: &mut WriteTx<DB>,
        runs: &[(&HistoryRow, &[String], Option<&ParamSet>)],
    ) -> Result<()> {
        if runs.is_empty() {
            return Ok(());
        }
        let mut qb = QueryBuilder::<DB>::new("");
        Self::push_queue_entries(&mut qb, runs);
        qb.build().execute(&mut **tx).await?;
        Ok(())
    }

    /// Writes the statement that queues `runs` (at least one) into `qb`.
    fn push_queue_entries(qb: &mut QueryBuilder<DB>, runs: &[(&HistoryRow, &[String], Option<&ParamSet>)]) {
        qb.push(
            "INSERT INTO run_queue (history_id, organization_id, scrap_id, containers, param, state, attempts, \
             enqueued_at) ",
        );
        qb.push_values(runs, |mut b, (row, containers, param)| {
            b.push_bind(row.id.to_string())
                .push_bind(row.organization_id.to_string())
                .push_bind(row.scrap_id.map(|s| s.to_string()))
                .push_bind(format!(",{},", containers.join(",")))
                .push_bind(param.map(to_json))
                .push("'queued'")
                .push("0")
                .push_bind(millis(row.created_at));
        });
    }

    /// Inserts a history row and refreshes its scrap's `history_ids`.
    pub(super) async fn insert_history_row(tx: &mut WriteTx<DB>, h: &HistoryRow) -> Result<()> {
        Self::insert_history_rows(tx, &[h]).await?;
        match h.scrap_id {
            Some(scrap) => {
                let mut qb = QueryBuilder::<DB>::new("");
                Self::push_note_history_row(&mut qb, h, scrap);
                qb.build().execute(&mut **tx).await?;
                Ok(())
            }
            None => Ok(()),
        }
    }

    /// Inserts history rows; the caller keeps `history_ids` current.
    pub(super) async fn insert_history_rows(tx: &mut WriteTx<DB>, rows: &[&HistoryRow]) -> Result<()> {
        if rows.is_empty() {
            return Ok(());
        }
        let mut qb = QueryBuilder::<DB>::new("");
        Self::push_history_rows(&mut qb, rows);
        qb.build().execute(&mut **tx).await.map_err(|e| conflict_on_unique(e, "history row"))?;
        Ok(())
    }

    /// Writes the statement that inserts `rows` (at least one) into `qb`.
    fn push_history_rows(qb: &mut QueryBuilder<DB>, rows: &[&HistoryRow]) {
        qb.push(concatcp!("INSERT INTO history (", columns::HISTORY, ") "));
        qb.push_values(rows, |mut b, h| {
            b.push_bind(h.id.to_string())
                .push_bind(h.organization_id.to_string())
                .push_bind(h.scrap_id.map(|s| s.to_string()))
                .push_bind(h.status_detail.map(|d| d.as_str()))
                .push_bind(&h.data)
                .push_bind(h.length)
                .push_bind(h.time_ms)
                .push_bind(&h.digest)
                .push_bind(h.triggered_by.as_str())
                .push_bind(h.run_type.as_str())
                .push_bind(&h.proxy_tier)
                .push_bind(h.costs.as_ref().map(costs_json))
                .push_bind(h.meter.as_ref().map(meter_json))
                .push_bind(&h.fix_version_id)
                .push_bind(opt_millis(h.fixed_at))
                .push_bind(h.error_snapshot.as_ref().map(to_json))
                .push_bind(h.retries)
                .push_bind(&h.error)
                .push_bind(millis(h.created_at))
                .push_bind(opt_millis(h.finished_at));
        });
    }

    /// Writes the statement that keeps `scrap`'s `history_ids` current after
    /// `h` was inserted (in the same transaction) into `qb`:
    /// [`NOTE_HISTORY_ROW`], its placeholders bound in the order they come.
    fn push_note_history_row(qb: &mut QueryBuilder<DB>, h: &HistoryRow, scrap: ScrapId) {
        let (org, scrap, id, at) =
            (h.organization_id.to_string(), scrap.to_string(), h.id.to_string(), millis(h.created_at));
        let mut rest = NOTE_HISTORY_ROW;
        while let Some(at_dollar) = rest.find('$') {
            qb.push(&rest[..at_dollar]);
            let n = rest.as_bytes()[at_dollar + 1];
            match n {
                b'1' => qb.push_bind(org.clone()),
                b'2' => qb.push_bind(scrap.clone()),
                b'3' => qb.push_bind(id.clone()),
                b'4' => qb.push_bind(at),
                _ => unreachable!("NOTE_HISTORY_ROW binds $1 to $4"),
            };
            rest = &rest[at_dollar + 2..];
        }
        qb.push(rest);
    }

    /// Queues deliveries (the outbox rows of a run's event), due at `due`.
    /// Queues `emails`, due at `due` (a no-op for none).
    pub(super) async fn insert_email_rows(tx: &mut WriteTx<DB>, emails: &[Email], due: DateTime<Utc>) -> Result<()> {
        // One statement per email: an attachment may be megabytes, and a
        // batch stays far from the engines' statement size limits.
        for e in emails {
            sqlx::query(concatcp!(
                "INSERT INTO emails (",
                columns::EMAIL,
                ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, 'queued', 0, $14, NULL, NULL, $15)"
            ))
            .bind(e.id.to_string())
            .bind(e.organization_id.to_string())
            .bind(e.kind.as_str())
            .bind(&e.to)
            .bind(&e.subject)
            .bind(&e.text)
            .bind(&e.html)
            .bind(e.attachment.as_ref().map(|a| a.filename.clone()))
            .bind(e.attachment.as_ref().map(|a| a.content_type.clone()))
            .bind(attachment_b64(e))
            .bind(&e.unsubscribe_url)
            .bind(e.scrap_id.map(|i| i.to_string()))
            .bind(e.history_id.map(|i| i.to_string()))
            .bind(millis(due))
            .bind(millis(e.created_at))
            .execute(&mut **tx)
            .await?;
        }
        Ok(())
    }

    pub(super) async fn insert_delivery_rows(
        tx: &mut WriteTx<DB>,
        deliveries: &[Delivery],
        due: DateTime<Utc>,
    ) -> Result<()> {
        if deliveries.is_empty() {
            return Ok(());
        }
        let mut qb = QueryBuilder::<DB>::new("");
        Self::push_delivery_rows(&mut qb, deliveries, due);
        qb.build().execute(&mut **tx).await?;
        Ok(())
    }

    /// [`Self::insert_delivery_rows`]'s statement, written into `qb` (`deliveries` not empty).
    pub(super) fn push_delivery_rows(qb: &mut QueryBuilder<DB>, deliveries: &[Delivery], due: DateTime<Utc>) {
        qb.push(concatcp!("INSERT INTO webhook_deliveries (", columns::DELIVERY, ", state, next_attempt_at) "));
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
    }

    pub(super) async fn insert_attempt_row(tx: &mut WriteTx<DB>, a: &DeliveryAttempt) -> Result<()> {
        sqlx::query(concatcp!(
            "INSERT INTO webhook_attempts (",
            columns::ATTEMPT,
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
    pub(super) async fn advance_delivery(
        tx: &mut WriteTx<DB>,
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

    pub(super) fn push_id_list<T: std::fmt::Display>(qb: &mut QueryBuilder<DB>, ids: &[T]) {
        qb.push("(");
        let mut list = qb.separated(", ");
        for id in ids {
            list.push_bind(id.to_string());
        }
        qb.push(")");
    }

    pub(super) fn push_scrap_filter(qb: &mut QueryBuilder<DB>, org: OrgId, filter: &ScrapFilter) {
        qb.push(" FROM scraps WHERE organization_id = ").push_bind(org.to_string());
        if let Some(search) = &filter.search {
            qb.push(" AND search_text LIKE ").push_bind(like_pattern(search)).push(" ESCAPE '\\'");
        }
        if let Some(only) = &filter.only {
            qb.push(" AND id IN ");
            Self::push_id_list(qb, only);
        }
        if filter.failing {
            qb.push(FAILING);
        }
    }

    pub(super) fn push_history_filter(qb: &mut QueryBuilder<DB>, org: OrgId, filter: &HistoryFilter) {
        qb.push(" FROM history WHERE organization_id = ").push_bind(org.to_string());
        if let Some(scrap) = filter.scrap {
            qb.push(" AND scrap_id = ").push_bind(scrap.to_string());
        }
        if let Some(only) = &filter.only_scraps {
            qb.push(" AND scrap_id IN ");
            Self::push_id_list(qb, only);
        }
    }
}
