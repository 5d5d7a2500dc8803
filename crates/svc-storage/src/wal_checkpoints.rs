//! SQLite's checkpoints, done beside the writer instead of by it.
//!
//! In WAL mode a commit appends pages to the log (`svc.db-wal`); a
//! checkpoint copies them back into the database file and syncs both. By
//! default the connection that commits runs it, once the log passes 1,000
//! pages: on svc that is the one writer (`sqlite.rs`), which then holds every
//! other write for the copy and its syncs (~20 ms on this machine's disk,
//! about once per hundred static runs; the runs waiting behind it were the
//! end to end's slowest twentieth, docs/benchmarks.md).
//!
//! Here a connection of its own checkpoints ([`Checkpointer`]): `PASSIVE`,
//! which never takes the write lock nor waits for a reader, so the writer
//! goes on appending meanwhile. It looks every [`BUSY_EVERY`] while the log
//! moves and backs off to [`IDLE_MAX`] when it does not ([`next_delay`]).
//! The writer keeps SQLite's own checkpoint as a backstop, at
//! [`WRITER_BACKSTOP_PAGES`]: the log stays bounded if this connection
//! falls behind or is gone.
//!
//! Under writes that never pause, the log grows to the backstop anyway:
//! SQLite starts the log over only from a write transaction that began
//! with all of it copied, and the writer's next transaction nearly always
//! begins before this connection has caught up with the last commit. There
//! the writer's own checkpoint, which finds nearly everything copied already
//! and is mostly the syncs, starts it over: one stop of the writer per
//! 10,000 pages instead of one per 1,000, and a log file of up to ~40 MB
//! (seen in `engine-bench`'s end to end: 41 MB, steady).
//!
//! Stopping it ([`Running::stop`], on the store's close) closes its
//! connection, so that the last connection to close removes the log as
//! SQLite does.

use std::time::Duration;

use sqlx::sqlite::{SqliteConnectOptions, SqliteConnection};
use sqlx::{ConnectOptions, Connection};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// How often the checkpointer looks while the log moves.
pub(crate) const BUSY_EVERY: Duration = Duration::from_millis(100);
/// The longest it waits between two looks when the log stays as it was.
pub(crate) const IDLE_MAX: Duration = Duration::from_secs(2);
/// The log's size (pages) past which the writer checkpoints itself
/// (`PRAGMA wal_autocheckpoint`; SQLite's default is 1,000): ten times
/// the default, about 40 MB.
pub(crate) const WRITER_BACKSTOP_PAGES: u32 = 10_000;

/// What one passive checkpoint answered (`PRAGMA wal_checkpoint`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Checkpoint {
    /// Another checkpoint held the lock: nothing was copied.
    pub busy: bool,
    /// Pages in the log.
    pub log: i64,
    /// Of those, the pages now in the database file.
    pub checkpointed: i64,
}

/// The wait before the next look: [`BUSY_EVERY`] after a look that found
/// the log moved, else twice the last wait, up to [`IDLE_MAX`].
pub(crate) fn next_delay(previous: Duration, log_moved: bool) -> Duration {
    if log_moved { BUSY_EVERY } else { (previous * 2).clamp(BUSY_EVERY, IDLE_MAX) }
}

/// A connection that only checkpoints.
pub(crate) struct Checkpointer {
    connection: SqliteConnection,
}

impl Checkpointer {
    pub(crate) async fn connect(options: &SqliteConnectOptions) -> sqlx::Result<Self> {
        Ok(Checkpointer { connection: options.connect().await? })
    }

    /// One passive checkpoint: as much of the log as no reader still needs
    /// is copied into the database file.
    pub(crate) async fn step(&mut self) -> sqlx::Result<Checkpoint> {
        let (busy, log, checkpointed): (i64, i64, i64) =
            sqlx::query_as("PRAGMA wal_checkpoint(PASSIVE)").fetch_one(&mut self.connection).await?;
        Ok(Checkpoint { busy: busy != 0, log, checkpointed })
    }

    /// Checkpoints in a task of its own until [`Running::stop`] or until
    /// the handle is dropped, then closes its connection.
    pub(crate) fn spawn(mut self) -> Running {
        let (stop, mut stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            let mut delay = BUSY_EVERY;
            let mut last: Option<Checkpoint> = None;
            loop {
                tokio::select! {
                    _ = &mut stopped => break,
                    () = tokio::time::sleep(delay) => {}
                }
                let now = match self.step().await {
                    Ok(checkpoint) => Some(checkpoint),
                    Err(e) => {
                        tracing::debug!("SQLite checkpoint failed: {e}");
                        None
                    }
                };
                delay = next_delay(delay, now.is_some() && now != last);
                last = now.or(last);
            }
            if let Err(e) = self.connection.close().await {
                tracing::debug!("closing the checkpointer's connection: {e}");
            }
        });
        Running { stop, task }
    }
}

/// A checkpointer at work.
pub(crate) struct Running {
    stop: oneshot::Sender<()>,
    task: JoinHandle<()>,
}

impl Running {
    /// Stops it and waits until its connection is closed.
    pub(crate) async fn stop(self) {
        let _ = self.stop.send(());
        if let Err(e) = self.task.await {
            tracing::debug!("the checkpointer's task: {e}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Store;
    use crate::testing::TestDb;

    #[test]
    fn looks_often_while_the_log_moves_and_backs_off_when_it_does_not() {
        assert_eq!(next_delay(IDLE_MAX, true), BUSY_EVERY);
        assert_eq!(next_delay(BUSY_EVERY, false), BUSY_EVERY * 2);
        assert_eq!(next_delay(BUSY_EVERY * 16, false), IDLE_MAX);
        assert_eq!(next_delay(IDLE_MAX, false), IDLE_MAX);
        assert_eq!(next_delay(Duration::ZERO, false), BUSY_EVERY, "never looks in a busy loop");
    }

    fn path_of(db: &TestDb) -> String {
        db.url.strip_prefix("sqlite://").unwrap().to_string()
    }

    async fn open(db: &TestDb) -> crate::SqliteStore {
        let sealer = crate::Sealer::new(db.key().clone());
        crate::SqliteStore::open(&db.url, sealer, crate::PoolSettings::default()).await.unwrap()
    }

    /// Rows written through the store's writer.
    async fn write_rows(store: &crate::SqliteStore, n: usize) {
        let mut writer = store.writer().await.unwrap();
        sqlx::query("CREATE TABLE IF NOT EXISTS t (n INTEGER, pad TEXT)").execute(&mut *writer).await.unwrap();
        for i in 0..n {
            sqlx::query("INSERT INTO t (n, pad) VALUES ($1, $2)")
                .bind(i as i64)
                .bind("x".repeat(500))
                .execute(&mut *writer)
                .await
                .unwrap();
        }
    }

    #[tokio::test]
    async fn a_step_copies_the_log_into_the_database_file_and_the_writer_only_backstops() {
        let db = TestDb::sqlite();
        let store = open(&db).await;
        let (backstop,): (i64,) =
            sqlx::query_as("PRAGMA wal_autocheckpoint").fetch_one(&mut *store.writer().await.unwrap()).await.unwrap();
        assert_eq!(backstop, i64::from(WRITER_BACKSTOP_PAGES), "the writer checkpoints only past the backstop");
        write_rows(&store, 50).await;

        // One step; the store's own checkpointer may be at it at the same
        // moment (then this one is told busy): a few tries.
        let mut checkpointer = Checkpointer::connect(&db.url.parse().unwrap()).await.unwrap();
        let mut done = checkpointer.step().await.unwrap();
        for _ in 0..50 {
            if !done.busy {
                break;
            }
            tokio::task::yield_now().await;
            done = checkpointer.step().await.unwrap();
        }
        assert!(!done.busy, "{done:?}");
        assert!(done.log > 0, "the writes are in the log: {done:?}");
        assert_eq!(done.checkpointed, done.log, "no reader holds an older state: all of it copied");

        // The database file alone now holds the rows: a copy of it, without
        // the log, read while the store is still open.
        let copy = tempfile::tempdir().unwrap();
        let alone = copy.path().join("alone.db");
        std::fs::copy(path_of(&db), &alone).unwrap();
        let options: SqliteConnectOptions = format!("sqlite://{}", alone.display()).parse().unwrap();
        let mut file = options.connect().await.unwrap();
        let (n,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM t").fetch_one(&mut file).await.unwrap();
        assert_eq!(n, 50);
        store.close().await;
    }

    #[tokio::test]
    async fn closing_the_store_stops_the_checkpointer_and_sqlite_removes_the_log() {
        let db = TestDb::sqlite();
        let store = open(&db).await;
        write_rows(&store, 1).await;
        let log = format!("{}-wal", path_of(&db));
        assert!(std::path::Path::new(&log).exists(), "WAL mode keeps a log while open");
        store.close().await;
        assert!(
            !std::path::Path::new(&log).exists(),
            "every connection closed, the checkpointer's too: the last one removed the log"
        );
    }
}
