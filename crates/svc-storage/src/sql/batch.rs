//! The statements of a transaction's hot path, sent to the engine together
//! where it allows.
//!
//! With sqlx's SQLite driver every statement is a round trip to the
//! connection's own thread, and while a write transaction waits for its
//! task to send the next statement, the one writer is held idle: a run's
//! queueing and its finish were four statements each between `BEGIN` and
//! `COMMIT`, six round trips. SQLite takes several statements in one query
//! string (sqlx prepares and runs them in order on its thread, and answers
//! each one's result), so a [`Batch`] there is one round trip; its `?`
//! placeholders number on from one statement to the next. PostgreSQL's
//! extended protocol takes one statement per query: there a batch runs its
//! statements one by one, as before.
//!
//! A batch runs inside the caller's transaction, which commits it or, when
//! it is dropped, rolls it back: a statement that fails fails the batch, and
//! a [`Batch::guard`]ed statement that changed no row stops it (on SQLite,
//! after the rest ran; the rollback undoes them).
//!
//! Or a batch is a write transaction of its own ([`Batch::transaction`],
//! [`Batch::commit`], [`Batch::commit_returning`]): on SQLite its `BEGIN` and
//! `COMMIT` then go in the same query, one round trip in all. sqlx's
//! transaction does not know of them, so the batch runs in a task of its
//! own, which a cancelled caller does not stop; a batch that fails is rolled
//! back there, and a connection that could not be (or whose task was dropped
//! midway) is closed, never handed back inside a transaction (`writer.rs`).
//!
//! A guard in such a batch must stop it before its `COMMIT`, in the same
//! query: on SQLite the guarded statement is followed by a check that fails
//! when it changed no row ([`GUARD_CHECK`]); the batch answers `None` and is
//! rolled back.

use futures::TryStreamExt;
use sqlx::{Either, Executor, QueryBuilder};

use super::{Dialect, RowsAffected, WriteTx, Writers};
use crate::{Result, StoreError};

/// After a guarded statement in a SQLite transaction batch: fails the query
/// (SQLite's "integer overflow", from `abs` of the smallest integer) when
/// that statement changed no row, and returns no row otherwise. SQLite
/// cannot raise an error from a plain statement; this expression depends on
/// `changes()`, so it is evaluated when the statement runs, not once ahead.
const GUARD_CHECK: &str = "SELECT 1 WHERE abs(changes() - 9223372036854775807 - 1) < 0";

pub(crate) struct Batch<DB: Dialect> {
    /// One builder holding every statement where the engine takes them
    /// together (`Dialect::JOINS_STATEMENTS`), else one per statement.
    builders: Vec<QueryBuilder<DB>>,
    statements: usize,
    /// Statements that must change a row for the batch to stand.
    guarded: Vec<usize>,
    /// Whether the batch opens its own transaction (`Batch::transaction`).
    own: bool,
}

impl<DB: Dialect> Batch<DB>
where
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
{
    /// A batch run inside the caller's transaction ([`Batch::run`]).
    pub(crate) fn new() -> Self {
        Batch { builders: vec![QueryBuilder::new("")], statements: 0, guarded: Vec::new(), own: false }
    }

    /// A batch that is a write transaction of its own ([`Batch::commit`],
    /// [`Batch::commit_returning`]).
    pub(crate) fn transaction() -> Self {
        let mut batch = Batch::new();
        batch.own = true;
        if DB::JOINS_STATEMENTS {
            batch.statement().push(DB::BEGIN_WRITE);
        }
        batch
    }

    /// Starts the next statement: the builder to write it into.
    pub(crate) fn statement(&mut self) -> &mut QueryBuilder<DB> {
        if self.statements > 0 {
            if DB::JOINS_STATEMENTS {
                self.last().push(";\n");
            } else {
                self.builders.push(QueryBuilder::new(""));
            }
        }
        self.statements += 1;
        self.last()
    }

    /// Marks the statement last started as one that must change a row:
    /// when it changes none, [`Batch::run`] (or [`Batch::commit_returning`])
    /// answers `None`.
    pub(crate) fn guard(&mut self) {
        if let Some(last) = self.statements.checked_sub(1) {
            self.guarded.push(last);
            if self.own && DB::JOINS_STATEMENTS {
                self.statement().push(GUARD_CHECK);
            }
        }
    }

    fn last(&mut self) -> &mut QueryBuilder<DB> {
        self.builders.last_mut().expect("a batch has a builder")
    }

    /// Runs the statements in order in `tx`: the rows they returned, in
    /// order. `None` when a guarded statement changed no row; the caller
    /// then drops the transaction.
    pub(crate) async fn run(self, tx: &mut WriteTx<DB>) -> Result<Option<Vec<DB::Row>>> {
        self.run_on(tx).await
    }

    /// Runs and commits a [`Batch::transaction`]: on SQLite its statements,
    /// `BEGIN` and `COMMIT` in one query, in a task of its own (see the
    /// module's documentation); elsewhere in a transaction, one by one.
    pub(crate) async fn commit(self, writers: &Writers<DB>) -> Result<()> {
        debug_assert!(self.guarded.is_empty(), "`commit_returning` answers whether a guard stood");
        self.commit_returning(writers).await.map(drop)
    }

    /// [`Batch::commit`], answering the rows the statements returned, in
    /// order; `None` (and nothing written) when a guarded statement changed
    /// no row.
    pub(crate) async fn commit_returning(mut self, writers: &Writers<DB>) -> Result<Option<Vec<DB::Row>>> {
        debug_assert!(self.own, "a batch of the caller's transaction is run with `run`");
        if !DB::JOINS_STATEMENTS {
            let mut tx = writers.begin(DB::BEGIN_WRITE).await?;
            let Some(rows) = self.run(&mut tx).await? else { return Ok(None) };
            tx.commit().await?;
            return Ok(Some(rows));
        }
        self.statement().push("COMMIT");
        let mut writer = writers.acquire().await?;
        // Closed, not handed back, unless known outside the transaction:
        // should this task be dropped midway, it is not.
        writer.set_clean(false);
        let task = tokio::spawn(async move {
            let mut writer = writer;
            let ran = self.run_on(&mut writer).await;
            if matches!(ran, Ok(Some(_))) {
                writer.set_clean(true);
            } else {
                // A statement after `BEGIN` failed (a guard's check among
                // them) and left the transaction open, or `BEGIN` itself did
                // (then this fails harmlessly, and the connection is closed
                // all the same).
                let rolled_back = sqlx::query("ROLLBACK").execute(&mut *writer).await.is_ok();
                writer.set_clean(rolled_back);
            }
            ran
        });
        task.await.map_err(|e| StoreError::Database(sqlx::Error::Protocol(format!("a write's task failed: {e}"))))?
    }

    async fn run_on(mut self, conn: &mut DB::Connection) -> Result<Option<Vec<DB::Row>>> {
        let mut done = 0;
        let mut stood = true;
        let mut rows = Vec::new();
        for builder in &mut self.builders {
            // Deprecated because only SQLite's driver runs several statements
            // of one query; that is what it is used for here. Should a later
            // sqlx run only the first, the count below fails every batch.
            #[allow(deprecated)]
            let mut results = builder.build().fetch_many(&mut *conn);
            loop {
                match results.try_next().await {
                    Ok(Some(Either::Left(result))) => {
                        if result.rows_affected() == 0 && self.guarded.contains(&done) {
                            stood = false;
                        }
                        done += 1;
                    }
                    Ok(Some(Either::Right(row))) => rows.push(row),
                    Ok(None) => break,
                    // On SQLite the statements after a failed guard ran in the
                    // same round trip, and may fail for it (a row the claim's
                    // new holder wrote), or its check ([`GUARD_CHECK`]) failed
                    // right after it: the rollback undoes them all.
                    Err(_) if !stood => return Ok(None),
                    Err(e) => return Err(e.into()),
                }
            }
            if !stood {
                return Ok(None);
            }
        }
        if done != self.statements {
            let answered = format!("a batch of {} statements answered for {done}", self.statements);
            return Err(StoreError::Database(sqlx::Error::Protocol(answered)));
        }
        Ok(Some(rows))
    }
}
