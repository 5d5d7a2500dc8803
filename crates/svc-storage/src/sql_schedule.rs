//! The scheduler's queries, shared by both engines like `sql_store`. The
//! macro is instantiated next to `sql_store!` and uses its helpers.

macro_rules! sql_schedule {
    ($store:ident, $db:ty, lock_due = $lock_due:literal) => {
        #[async_trait]
        impl $crate::traits::ScheduleStore for $store {
            async fn next_due_at(&self) -> Result<Option<DateTime<Utc>>> {
                let (next,): (Option<i64>,) =
                    sqlx::query_as("SELECT MIN(next_fire_at) FROM scraps WHERE next_fire_at IS NOT NULL")
                        .fetch_one(&self.pool)
                        .await?;
                $crate::records::opt_time(next)
            }

            async fn fire_due(
                &self,
                now: DateTime<Utc>,
                limit: i64,
                planner: &dyn $crate::traits::TickPlanner,
            ) -> Result<Vec<$crate::traits::FiredTick>> {
                use std::collections::{HashMap, HashSet};
                use $crate::traits::{DueScrap, FiredTick, TickAction, TickOutcome};

                let mut tx = self.begin_write().await?;
                let records: Vec<ScrapRecord> = sqlx::query_as(concat!(
                    "SELECT ",
                    scrap_read_columns!(),
                    " FROM scraps WHERE next_fire_at <= $1 ORDER BY next_fire_at, id LIMIT $2",
                    $lock_due
                ))
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
                let scrap_ids: Vec<ObjectId> = scraps.iter().map(|s| s.id).collect();
                let mut running = QueryBuilder::<$db>::new("SELECT DISTINCT scrap_id FROM run_queue WHERE scrap_id IN ");
                push_id_list(&mut running, &scrap_ids);
                let running: HashSet<String> =
                    running.build_query_scalar::<String>().fetch_all(&mut *tx).await?.into_iter().collect();
                let mut org_ids: Vec<ObjectId> = scraps.iter().map(|s| s.organization_id).collect();
                org_ids.sort();
                org_ids.dedup();
                let mut balances = QueryBuilder::<$db>::new("SELECT id, balance FROM organizations WHERE id IN ");
                push_id_list(&mut balances, &org_ids);
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
                    let mut qb = QueryBuilder::<$db>::new(
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
                insert_history_rows(&mut tx, &rows).await?;
                insert_queue_entries(&mut tx, &runs).await?;
                insert_activities(&mut tx, &activities.iter().collect::<Vec<_>>()).await?;

                // Move each schedule (unless an edit moved it meanwhile) and
                // put the new run first in the scrap's `history_ids`.
                let new_runs: HashMap<ObjectId, ObjectId> = rows.iter().map(|r| (r.scrap_id, r.id)).collect();
                let mut moves = QueryBuilder::<$db>::new("WITH v (id, due, next, run) AS (");
                moves.push_values(due.iter().zip(&plans), |mut b, (d, plan)| {
                    b.push_bind(d.scrap.id.to_string())
                        .push_bind(millis(d.due_at))
                        .push_bind(opt_millis(plan.next_fire_at))
                        .push_bind(new_runs.get(&d.scrap.id).map(|h| h.to_string()));
                });
                moves.push(concat!(
                    ") UPDATE scraps SET next_fire_at = v.next, history_ids = CASE WHEN v.run IS NULL \
                     THEN scraps.history_ids WHEN scraps.history_ids = '' THEN v.run \
                     ELSE substr(v.run || ',' || scraps.history_ids, 1, ",
                    // 50 ids of 24 characters and 49 commas.
                    1249,
                    ") END FROM v WHERE scraps.id = v.id AND scraps.next_fire_at = v.due"
                ));
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
    };
}
