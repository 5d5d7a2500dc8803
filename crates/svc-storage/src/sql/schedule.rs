//! The scheduler's queries: fire the due schedules in one write transaction.

use std::collections::{HashMap, HashSet};

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use const_format::concatcp;
use sqlx::{AssertSqlSafe, ColumnIndex, Decode, Encode, Executor, QueryBuilder, Type};
use svc_domain::history::HistoryRow;
use svc_domain::scrap::{HISTORY_IDS_CAP, Scrap};
use svc_domain::{HistoryId, OrgId, ScrapId};

use super::{Dialect, RowsAffected, SqlStore, columns};
use crate::Result;
use crate::records::{ScrapRecord, millis, opt_millis, opt_time};
use crate::traits::{DueScrap, FiredTick, ScheduleStore, TickAction, TickOutcome, TickPlanner};

/// The due scraps, oldest first; [`Dialect::LOCK_DUE`] follows.
const DUE_SCRAPS: &str = concatcp!(
    "SELECT ",
    columns::SCRAP_READ,
    " FROM scraps WHERE next_fire_at <= $1 ORDER BY next_fire_at, id LIMIT $2"
);

/// Follows the `VALUES` of `v (id, due, next, run)`: moves each schedule
/// (unless an edit moved it meanwhile) and puts the new run first in the
/// scrap's `history_ids`, cut to `HISTORY_IDS_CAP` ids of 24 characters and
/// their commas.
const MOVE_SCHEDULES: &str = concatcp!(
    ") UPDATE scraps SET next_fire_at = v.next, history_ids = CASE WHEN v.run IS NULL \
     THEN scraps.history_ids WHEN scraps.history_ids = '' THEN v.run \
     ELSE substr(v.run || ',' || scraps.history_ids, 1, ",
    HISTORY_IDS_CAP * 25 - 1,
    ") END FROM v WHERE scraps.id = v.id AND scraps.next_fire_at = v.due"
);

#[async_trait]
impl<DB: Dialect> ScheduleStore for SqlStore<DB>
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
    async fn next_due_at(&self) -> Result<Option<DateTime<Utc>>> {
        let (next,): (Option<i64>,) =
            sqlx::query_as("SELECT MIN(next_fire_at) FROM scraps WHERE next_fire_at IS NOT NULL")
                .fetch_one(&mut *self.writer().await?)
                .await?;
        opt_time(next)
    }

    async fn fire_due(&self, now: DateTime<Utc>, limit: i64, planner: &dyn TickPlanner) -> Result<Vec<FiredTick>> {
        let mut tx = self.begin_write().await?;
        let records: Vec<ScrapRecord> = sqlx::query_as(AssertSqlSafe(format!("{DUE_SCRAPS}{}", DB::LOCK_DUE)))
            .bind(millis(now))
            .bind(limit)
            .fetch_all(&mut *tx)
            .await?;
        if records.is_empty() {
            return Ok(vec![]);
        }
        let mut scraps = Vec::with_capacity(records.len());
        for record in records {
            scraps.push(Scrap::try_from(record)?);
        }

        // The facts the rules need, read once per batch.
        let scrap_ids: Vec<ScrapId> = scraps.iter().map(|s| s.id).collect();
        let mut running = QueryBuilder::<DB>::new("SELECT DISTINCT scrap_id FROM run_queue WHERE scrap_id IN ");
        Self::push_id_list(&mut running, &scrap_ids);
        let running: HashSet<String> =
            running.build_query_scalar::<String>().fetch_all(&mut *tx).await?.into_iter().collect();
        let mut org_ids: Vec<OrgId> = scraps.iter().map(|s| s.organization_id).collect();
        org_ids.sort();
        org_ids.dedup();
        let mut balances = QueryBuilder::<DB>::new("SELECT id, balance FROM organizations WHERE id IN ");
        Self::push_id_list(&mut balances, &org_ids);
        let balances: HashMap<String, i64> =
            balances.build_query_as::<(String, i64)>().fetch_all(&mut *tx).await?.into_iter().collect();

        let mut due = Vec::with_capacity(scraps.len());
        for scrap in scraps {
            let Some(due_at) = scrap.next_fire_at else { continue };
            let run_in_flight = running.contains(&scrap.id.to_string());
            let balance = balances.get(&scrap.organization_id.to_string()).copied().unwrap_or(0);
            due.push(DueScrap { scrap, due_at, run_in_flight, balance });
        }
        let plans: Vec<_> = due.iter().map(|d| planner.plan(d)).collect();

        let mut ticks = Vec::new();
        for (d, plan) in due.iter().zip(&plans) {
            let Some(tick) = &plan.tick else { continue };
            let outcome = tick.action.outcome();
            let history_id = match (&tick.action, outcome) {
                (TickAction::Run { row, .. }, TickOutcome::Enqueued) => Some(row.id),
                _ => None,
            };
            ticks.push((d, tick, outcome, history_id));
        }

        // The unique (scrap, instant) decides which scheduler fires a tick.
        let mut recorded: HashSet<String> = HashSet::new();
        if !ticks.is_empty() {
            let fired_at = millis(Utc::now());
            let mut qb = QueryBuilder::<DB>::new(
                "INSERT INTO schedule_ticks (scrap_id, scheduled_at, organization_id, outcome, history_id, fired_at) ",
            );
            qb.push_values(&ticks, |mut b, (d, tick, outcome, history_id)| {
                b.push_bind(d.scrap.id.to_string())
                    .push_bind(millis(tick.scheduled_at))
                    .push_bind(d.scrap.organization_id.to_string())
                    .push_bind(outcome.as_str())
                    .push_bind(history_id.map(|h| h.to_string()))
                    .push_bind(fired_at);
            });
            qb.push(" ON CONFLICT DO NOTHING RETURNING scrap_id");
            recorded.extend(qb.build_query_scalar::<String>().fetch_all(&mut *tx).await?);
        }

        let mut fired = Vec::with_capacity(ticks.len());
        let mut runs = Vec::new();
        let mut activities = Vec::new();
        for (d, tick, mut outcome, mut history_id) in ticks {
            if !recorded.contains(&d.scrap.id.to_string()) {
                outcome = TickOutcome::AlreadyFired;
                history_id = None;
            } else {
                if let (TickAction::Run { row, param }, TickOutcome::Enqueued) = (&tick.action, outcome) {
                    runs.push((&**row, d.scrap.containers.as_slice(), param.as_ref()));
                }
                activities.extend(planner.activity(&d.scrap, tick, outcome, history_id));
            }
            fired.push(FiredTick {
                organization_id: d.scrap.organization_id,
                scrap_id: d.scrap.id,
                scheduled_at: tick.scheduled_at,
                outcome,
                history_id,
            });
        }
        let rows: Vec<&HistoryRow> = runs.iter().map(|(row, _, _)| *row).collect();
        Self::insert_history_rows(&mut tx, &rows).await?;
        Self::insert_queue_entries(&mut tx, &runs).await?;
        Self::insert_activities(&mut tx, &activities.iter().collect::<Vec<_>>()).await?;

        let new_runs: HashMap<ScrapId, HistoryId> = rows.iter().filter_map(|r| Some((r.scrap_id?, r.id))).collect();
        let mut moves = QueryBuilder::<DB>::new("WITH v (id, due, next, run) AS (");
        moves.push_values(due.iter().zip(&plans), |mut b, (d, plan)| {
            b.push_bind(d.scrap.id.to_string())
                .push_bind(millis(d.due_at))
                .push_bind(opt_millis(plan.next_fire_at))
                .push_bind(new_runs.get(&d.scrap.id).map(|h| h.to_string()));
        });
        moves.push(MOVE_SCHEDULES);
        moves.build().execute(&mut *tx).await?;
        tx.commit().await?;
        Ok(fired)
    }

    async fn prune_ticks(&self, before: DateTime<Utc>) -> Result<u64> {
        let mut tx = self.begin_write().await?;
        let done = sqlx::query("DELETE FROM schedule_ticks WHERE fired_at < $1")
            .bind(millis(before))
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(done.rows_affected())
    }
}
