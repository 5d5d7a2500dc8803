//! The connection a store writes on, and its write transactions.
//!
//! sqlx's pool tests every connection handed back to it with a ping, in a
//! task it spawns (sqlx 0.9 has no setting to skip it). With SQLite the
//! ping is a round trip to the connection's own thread and back, on the one
//! writer every write waits for: two per run (its queueing and its finish),
//! which cost 3-8 % of the static engine's runs per second end to end
//! (docs/benchmarks.md, "Sixth pass"). So on SQLite there is no pool: the
//! writer is a connection the store keeps, as it keeps the readers
//! (`readers.rs`), lent to one caller at a time in the order they asked, and
//! handed back without the ping ([`Writers::Kept`]). PostgreSQL keeps its
//! pool, whose ping finds a broken connection.
//!
//! A write transaction on either is a [`WriteTx`]. sqlx's own transaction
//! could only borrow a kept connection from a lender living beside it, so
//! this one owns the lent connection and does what sqlx's does: `BEGIN`
//! through the engine's transaction manager, `COMMIT` when asked, and, when
//! dropped open (an error, a cancelled caller), a rollback queued on the
//! connection, which runs before anything its next borrower sends.
//!
//! A kept connection is closed instead of handed back when its borrower
//! could not tell that it is outside any transaction (a batch whose `BEGIN`
//! and `COMMIT` sqlx does not see, `batch.rs`); the next write opens a new
//! one with the same options. A statement cut off by a dropped future
//! leaves nothing behind (sqlx's SQLite worker resets a statement whose
//! answer cannot be delivered).

use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use sqlx::pool::PoolConnection;
use sqlx::{ConnectOptions, Connection, Database, Pool, SqlSafeStr};
use sqlx_core::transaction::TransactionManager;

use crate::traits::PoolUse;

/// What a store writes on.
pub(crate) enum Writers<DB: Database> {
    /// PostgreSQL's pool: several processes and connections write.
    Pool(Pool<DB>),
    /// SQLite's one writer, kept by the store.
    Kept(Arc<Kept<DB>>),
}

/// SQLite's one writer and what it takes to lend it and open it again.
pub(crate) struct Kept<DB: Database> {
    /// The writer while nobody has it; `None` while lent, or after one was
    /// closed until the next write opens another.
    free: Mutex<Option<DB::Connection>>,
    /// One permit: the writer is lent to one caller at a time, in the
    /// order they asked (tokio's semaphore is fair). Closed with the store.
    permit: tokio::sync::Semaphore,
    /// Opens the writer again after one was closed.
    options: <DB::Connection as Connection>::Options,
    /// How long a write waits for the writer before it fails, as the pool's
    /// `acquire_timeout`.
    acquire_timeout: Duration,
    /// Whether a connection is open, lent or free (`pool_use`).
    open: AtomicBool,
}

impl<DB: Database> Writers<DB> {
    /// One writer opened with `options`, lent for up to `acquire_timeout`
    /// at a time before a waiting write fails.
    pub(crate) async fn kept(
        options: <DB::Connection as Connection>::Options,
        acquire_timeout: Duration,
    ) -> sqlx::Result<Self> {
        let connection = options.connect().await?;
        Ok(Writers::Kept(Arc::new(Kept {
            free: Mutex::new(Some(connection)),
            permit: tokio::sync::Semaphore::new(1),
            options,
            acquire_timeout,
            open: AtomicBool::new(true),
        })))
    }

    /// A connection to write on: the kept writer once it is free (failing
    /// with the pool's `PoolTimedOut` after the acquire timeout, and
    /// `PoolClosed` once the store closed), or one of the pool's.
    pub(crate) async fn acquire(&self) -> sqlx::Result<Writer<DB>> {
        let kept = match self {
            Writers::Pool(pool) => return Ok(Writer::Pooled { connection: pool.acquire().await?, clean: true }),
            Writers::Kept(kept) => kept,
        };
        match tokio::time::timeout(kept.acquire_timeout, kept.permit.acquire()).await {
            Err(_) => return Err(sqlx::Error::PoolTimedOut),
            Ok(Err(_)) => return Err(sqlx::Error::PoolClosed),
            // Given back when the writer is (`Writer`'s drop).
            Ok(Ok(permit)) => permit.forget(),
        }
        // From here the permit goes back with `lent`, even when opening a
        // writer fails or this future is dropped.
        let mut lent = Writer::Kept { connection: None, home: Arc::clone(kept), clean: true };
        let free = kept.free.lock().unwrap_or_else(PoisonError::into_inner).take();
        let connection = match free {
            Some(connection) => connection,
            None => {
                let opened = kept.options.connect().await?;
                kept.open.store(true, Ordering::SeqCst);
                opened
            }
        };
        if let Writer::Kept { connection: slot, .. } = &mut lent {
            *slot = Some(connection);
        }
        Ok(lent)
    }

    /// A write transaction opened with `begin` (`Dialect::BEGIN_WRITE`).
    pub(crate) async fn begin(&self, begin: &'static str) -> sqlx::Result<WriteTx<DB>> {
        let mut writer = self.acquire().await?;
        DB::TransactionManager::begin(&mut writer, Some(begin.into_sql_str())).await?;
        Ok(WriteTx { writer, open: true })
    }

    /// Closes the writers once the writes already waiting are done (as the
    /// pool's `close` waits for its connections), or after the acquire
    /// timeout, when one lent then is closed as it is handed back; a write
    /// after this fails with `PoolClosed`.
    pub(crate) async fn close(&self) {
        match self {
            Writers::Pool(pool) => pool.close().await,
            Writers::Kept(kept) => {
                // Behind the writes that asked first (the semaphore is
                // fair); the permit goes with the semaphore, closed below.
                let waited = tokio::time::timeout(kept.acquire_timeout, kept.permit.acquire()).await;
                if let Ok(Ok(permit)) = waited {
                    permit.forget();
                }
                kept.permit.close();
                let free = kept.free.lock().unwrap_or_else(PoisonError::into_inner).take();
                if let Some(connection) = free {
                    kept.open.store(false, Ordering::SeqCst);
                    // Closing a connection that is going away anyway: its
                    // error tells the caller nothing it could act on.
                    let _ = connection.close().await;
                }
            }
        }
    }

    /// The connections open, idle and at most (no round trip).
    pub(crate) fn pool_use(&self) -> PoolUse {
        match self {
            Writers::Pool(pool) => {
                let open = pool.size();
                let idle = u32::try_from(pool.num_idle()).unwrap_or(u32::MAX).min(open);
                PoolUse { open, idle, max: pool.options().get_max_connections() }
            }
            Writers::Kept(kept) => {
                let open = u32::from(kept.open.load(Ordering::SeqCst));
                let free = kept.free.lock().unwrap_or_else(PoisonError::into_inner).is_some();
                PoolUse { open, idle: u32::from(free).min(open), max: 1 }
            }
        }
    }
}

/// A connection lent to write on: use it as `&mut *writer`. Handed back
/// when dropped; closed instead when marked not clean
/// ([`Writer::set_clean`]).
pub(crate) enum Writer<DB: Database> {
    /// SQLite's kept writer (`None` only while [`Writers::acquire`] opens one).
    Kept { connection: Option<DB::Connection>, home: Arc<Kept<DB>>, clean: bool },
    /// One of the pool's connections.
    Pooled { connection: PoolConnection<DB>, clean: bool },
}

impl<DB: Database> Writer<DB> {
    /// Whether the connection is known outside any transaction, so that it
    /// may be handed back for the next write (it is, unless told otherwise).
    pub(crate) fn set_clean(&mut self, known_clean: bool) {
        match self {
            Writer::Kept { clean, .. } | Writer::Pooled { clean, .. } => *clean = known_clean,
        }
    }
}

impl<DB: Database> Deref for Writer<DB> {
    type Target = DB::Connection;
    fn deref(&self) -> &DB::Connection {
        match self {
            Writer::Kept { connection, .. } => connection.as_ref().expect("a lent writer holds its connection"),
            Writer::Pooled { connection, .. } => connection,
        }
    }
}

impl<DB: Database> DerefMut for Writer<DB> {
    fn deref_mut(&mut self) -> &mut DB::Connection {
        match self {
            Writer::Kept { connection, .. } => connection.as_mut().expect("a lent writer holds its connection"),
            Writer::Pooled { connection, .. } => connection,
        }
    }
}

impl<DB: Database> Drop for Writer<DB> {
    fn drop(&mut self) {
        match self {
            Writer::Kept { connection, home, clean } => {
                if let Some(connection) = connection.take() {
                    if *clean && !home.permit.is_closed() {
                        *home.free.lock().unwrap_or_else(PoisonError::into_inner) = Some(connection);
                    } else {
                        // Dropped, the connection's thread ends and closes it.
                        home.open.store(false, Ordering::SeqCst);
                        drop(connection);
                    }
                }
                home.permit.add_permits(1);
            }
            Writer::Pooled { connection, clean } => {
                if !*clean {
                    connection.close_on_drop();
                }
            }
        }
    }
}

/// A write transaction on a lent writer: use it as `&mut *tx`. Rolled back
/// when dropped without [`WriteTx::commit`].
pub(crate) struct WriteTx<DB: Database> {
    writer: Writer<DB>,
    open: bool,
}

impl<DB: Database> WriteTx<DB> {
    /// Commits the transaction and hands the writer back.
    pub(crate) async fn commit(mut self) -> sqlx::Result<()> {
        DB::TransactionManager::commit(&mut self.writer).await?;
        self.open = false;
        Ok(())
    }
}

impl<DB: Database> Deref for WriteTx<DB> {
    type Target = DB::Connection;
    fn deref(&self) -> &DB::Connection {
        &self.writer
    }
}

impl<DB: Database> DerefMut for WriteTx<DB> {
    fn deref_mut(&mut self) -> &mut DB::Connection {
        &mut self.writer
    }
}

impl<DB: Database> Drop for WriteTx<DB> {
    fn drop(&mut self) {
        if self.open {
            // Queued on the connection: it runs before the next borrower's
            // statements (as sqlx's own transaction does when dropped).
            DB::TransactionManager::start_rollback(&mut self.writer);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::str::FromStr;

    use futures::FutureExt;
    use sqlx::Sqlite;
    use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode};

    use super::*;
    use crate::testing::TestDb;

    async fn kept(timeout: Duration) -> (TestDb, Writers<Sqlite>) {
        let db = TestDb::sqlite();
        let options = SqliteConnectOptions::from_str(&db.url)
            .unwrap()
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal);
        let writers = Writers::kept(options, timeout).await.unwrap();
        sqlx::query("CREATE TABLE t (n INTEGER)").execute(&mut *writers.acquire().await.unwrap()).await.unwrap();
        (db, writers)
    }

    async fn count(writers: &Writers<Sqlite>) -> i64 {
        let (n,): (i64,) =
            sqlx::query_as("SELECT COUNT(*) FROM t").fetch_one(&mut *writers.acquire().await.unwrap()).await.unwrap();
        n
    }

    #[tokio::test]
    async fn the_writer_is_lent_to_one_caller_at_a_time_in_order_and_a_wait_times_out() {
        let (_db, writers) = kept(Duration::from_millis(200)).await;
        let first = writers.acquire().await.unwrap();
        assert_eq!(writers.pool_use(), PoolUse { open: 1, idle: 0, max: 1 });

        // While it is lent, the next two wait; handed back, it goes to the
        // one that asked first.
        let mut second = Box::pin(writers.acquire());
        assert!((&mut second).now_or_never().is_none(), "the writer is lent: the second waits");
        let mut third = Box::pin(writers.acquire());
        assert!((&mut third).now_or_never().is_none());
        drop(first);
        let second = second.await.unwrap();
        assert!((&mut third).now_or_never().is_none(), "the first to ask has it; the next still waits");
        drop(second);
        drop(third.await.unwrap());
        assert_eq!(writers.pool_use(), PoolUse { open: 1, idle: 1, max: 1 });

        // Held past the acquire timeout: the waiting write fails as a
        // pool's would, and the writer is still there afterwards.
        let held = writers.acquire().await.unwrap();
        assert!(matches!(writers.acquire().await, Err(sqlx::Error::PoolTimedOut)));
        drop(held);
        assert_eq!(count(&writers).await, 0);
    }

    #[tokio::test]
    async fn a_transaction_dropped_open_is_rolled_back_before_the_next_write() {
        let (_db, writers) = kept(Duration::from_secs(5)).await;
        let mut tx = writers.begin("BEGIN IMMEDIATE").await.unwrap();
        sqlx::query("INSERT INTO t (n) VALUES (1)").execute(&mut *tx).await.unwrap();
        drop(tx);
        assert_eq!(count(&writers).await, 0, "the dropped transaction's row is gone");

        // The writer is outside any transaction: a new one opens, and a
        // commit stands.
        let mut tx = writers.begin("BEGIN IMMEDIATE").await.unwrap();
        sqlx::query("INSERT INTO t (n) VALUES (2)").execute(&mut *tx).await.unwrap();
        tx.commit().await.unwrap();
        assert_eq!(count(&writers).await, 1);
    }

    #[tokio::test]
    async fn a_writer_not_known_clean_is_closed_and_the_next_write_opens_another() {
        let (_db, writers) = kept(Duration::from_secs(5)).await;
        let mut writer = writers.acquire().await.unwrap();
        // A transaction sqlx does not know of, as a batch's own `BEGIN`.
        sqlx::query("BEGIN IMMEDIATE; INSERT INTO t (n) VALUES (1)").execute(&mut *writer).await.unwrap();
        writer.set_clean(false);
        drop(writer);
        assert_eq!(writers.pool_use(), PoolUse { open: 0, idle: 0, max: 1 });

        // A new connection: the open transaction went with the old one,
        // and the new one writes.
        let mut writer = writers.acquire().await.unwrap();
        assert_eq!(writers.pool_use().open, 1);
        sqlx::query("INSERT INTO t (n) VALUES (2)").execute(&mut *writer).await.unwrap();
        drop(writer);
        let (n,): (i64,) =
            sqlx::query_as("SELECT MIN(n) FROM t").fetch_one(&mut *writers.acquire().await.unwrap()).await.unwrap();
        assert_eq!((count(&writers).await, n), (1, 2), "only the new connection's row stands");
    }

    #[tokio::test]
    async fn closing_waits_for_the_lent_writer_and_then_a_write_fails() {
        let (_db, writers) = kept(Duration::from_secs(5)).await;
        let lent = writers.acquire().await.unwrap();
        let mut closing = Box::pin(writers.close());
        assert!((&mut closing).now_or_never().is_none(), "a write is under way: closing waits for it");
        drop(lent);
        closing.await;
        assert_eq!(writers.pool_use().open, 0, "closed once handed back");
        assert!(matches!(writers.acquire().await, Err(sqlx::Error::PoolClosed)));
    }

    #[tokio::test]
    async fn a_writer_held_past_the_timeout_does_not_stop_closing_and_is_closed_when_handed_back() {
        let (_db, writers) = kept(Duration::from_millis(100)).await;
        let lent = writers.acquire().await.unwrap();
        writers.close().await;
        assert!(matches!(writers.acquire().await, Err(sqlx::Error::PoolClosed)));
        assert_eq!(writers.pool_use().open, 1, "still lent");
        drop(lent);
        assert_eq!(writers.pool_use().open, 0, "handed back after closing, it is closed");
    }
}
