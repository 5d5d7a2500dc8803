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
                use $crate::traits::{DueScrap, FiredTick, TickAction, TickOutcome};

                let mut tx = self.begin_write().await?;
                let due: Vec<ScrapRecord> = sqlx::query_as(concat!(
                    "SELECT ",
                    scrap_read_columns!(),
                    " FROM scraps WHERE next_fire_at <= $1 ORDER BY next_fire_at, id LIMIT $2",
                    $lock_due
                ))
                .bind(millis(now))
                .bind(limit)
                .fetch_all(&mut *tx)
                .await?;
                let mut balances: std::collections::HashMap<ObjectId, i64> = std::collections::HashMap::new();
                let mut fired = Vec::with_capacity(due.len());
                for record in due {
                    let scrap = Scrap::try_from(record)?;
                    let Some(due_at) = scrap.next_fire_at else { continue };
                    let due = DueScrap { scrap, due_at };
                    let plan = planner.plan(&due);
                    let scrap = due.scrap;
                    sqlx::query("UPDATE scraps SET next_fire_at = $1 WHERE id = $2 AND next_fire_at = $3")
                        .bind(opt_millis(plan.next_fire_at))
                        .bind(scrap.id.to_string())
                        .bind(millis(due_at))
                        .execute(&mut *tx)
                        .await?;
                    let Some(tick) = plan.tick else { continue };
                    let mut outcome = match &tick.action {
                        TickAction::Missed => TickOutcome::Missed,
                        TickAction::Run { .. } => {
                            let running: Option<(String,)> =
                                sqlx::query_as("SELECT history_id FROM run_queue WHERE scrap_id = $1 LIMIT 1")
                                    .bind(scrap.id.to_string())
                                    .fetch_optional(&mut *tx)
                                    .await?;
                            let balance = match balances.get(&scrap.organization_id) {
                                Some(b) => *b,
                                None => {
                                    let (b,): (i64,) = sqlx::query_as("SELECT balance FROM organizations WHERE id = $1")
                                        .bind(scrap.organization_id.to_string())
                                        .fetch_one(&mut *tx)
                                        .await?;
                                    balances.insert(scrap.organization_id, b);
                                    b
                                }
                            };
                            if running.is_some() {
                                TickOutcome::SkippedOverlap
                            } else if balance <= 0 {
                                TickOutcome::SkippedBalance
                            } else {
                                TickOutcome::Enqueued
                            }
                        }
                    };
                    let history_id = match (&tick.action, outcome) {
                        (TickAction::Run { row, .. }, TickOutcome::Enqueued) => Some(row.id),
                        _ => None,
                    };
                    // The unique (scrap, instant) decides which scheduler fires.
                    let recorded = sqlx::query(
                        "INSERT INTO schedule_ticks (scrap_id, scheduled_at, organization_id, outcome, history_id, \
                         fired_at) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING",
                    )
                    .bind(scrap.id.to_string())
                    .bind(millis(tick.scheduled_at))
                    .bind(scrap.organization_id.to_string())
                    .bind(outcome.as_str())
                    .bind(history_id.map(|h| h.to_string()))
                    .bind(millis(Utc::now()))
                    .execute(&mut *tx)
                    .await?;
                    if recorded.rows_affected() == 0 {
                        outcome = TickOutcome::AlreadyFired;
                    } else if let (TickAction::Run { row, param }, TickOutcome::Enqueued) = (&tick.action, outcome) {
                        insert_queued_run(&mut tx, row, &scrap.containers, param.as_ref()).await?;
                    }
                    let history_id = history_id.filter(|_| outcome == TickOutcome::Enqueued);
                    if outcome != TickOutcome::AlreadyFired
                        && let Some(activity) = planner.activity(&scrap, &tick, outcome, history_id)
                    {
                        insert_activity(&mut tx, &activity).await?;
                    }
                    fired.push(FiredTick {
                        organization_id: scrap.organization_id,
                        scrap_id: scrap.id,
                        scheduled_at: tick.scheduled_at,
                        outcome,
                        history_id,
                    });
                }
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
