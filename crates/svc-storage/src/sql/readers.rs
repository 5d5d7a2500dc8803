//! Connections kept beside the writer for the reads every request makes (a
//! session, a scrap) and the lists.
//!
//! A statement through sqlx's pool costs two round trips to the
//! connection: the statement, then the ping with which the pool tests every
//! connection handed back (in a task it spawns; sqlx 0.9 has no setting to
//! skip it). With SQLite each round trip is a hand-off to the connection's
//! own thread and back, and the profile of `GET /api/scraps/:id` put a third
//! of the server's CPU there (docs/benchmarks.md). A reader is handed back
//! without the ping: a SQLite connection to a local file does not break the
//! way a network connection does, and a statement cut off by a dropped
//! future leaves nothing behind (sqlx's SQLite worker resets the statement
//! as soon as its reply cannot be delivered), so the ping would test
//! nothing. PostgreSQL keeps no readers: its connections can break, and the
//! pool's ping is how a broken one is found.
//!
//! On SQLite the one writer is kept by the store too (`writer.rs`): when
//! every reader is taken a read waits for one, rather than for the writer,
//! so the hot reads do not queue behind writes nor writes behind them. With
//! no readers (PostgreSQL) a read goes through the pool.

use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};

use sqlx::{Connection, Database};

use super::{Writer, Writers};

/// The free readers of a store (none for PostgreSQL).
pub(crate) struct Readers<DB: Database> {
    free: Mutex<Vec<DB::Connection>>,
    /// A permit per free reader: a read waits for one (`get`).
    permits: tokio::sync::Semaphore,
    /// How many readers there are (none: every read goes through the pool).
    count: usize,
    /// Set by [`Readers::close`]: a reader handed back then is dropped,
    /// which ends its connection.
    closed: AtomicBool,
}

impl<DB: Database> Readers<DB> {
    /// No readers: every read goes through the pool.
    pub(crate) fn none() -> Self {
        Readers::of(Vec::new())
    }

    /// These connections as readers.
    pub(crate) fn of(connections: Vec<DB::Connection>) -> Self {
        let count = connections.len();
        Readers {
            free: Mutex::new(connections),
            permits: tokio::sync::Semaphore::new(count),
            count,
            closed: AtomicBool::new(false),
        }
    }

    /// A reader, waiting for one when all are taken; a connection of
    /// `writers` when there are none (or the store is closing).
    pub(crate) async fn get<'a>(&'a self, writers: &Writers<DB>) -> sqlx::Result<Reader<'a, DB>> {
        if self.count > 0 {
            // Closed only when the store closes: then the read goes to the
            // writers, which answer that they are closed.
            if let Ok(permit) = self.permits.acquire().await {
                // Given back with the connection (`give_back`).
                permit.forget();
            }
        }
        let taken = self.free.lock().unwrap_or_else(PoisonError::into_inner).pop();
        Ok(match taken {
            Some(connection) => Reader::Kept { connection: Some(connection), home: self },
            None => Reader::Writer(writers.acquire().await?),
        })
    }

    /// Closes the free readers; one in use is closed when its read ends
    /// and it is dropped.
    pub(crate) async fn close(&self) {
        self.closed.store(true, Ordering::SeqCst);
        self.permits.close();
        let free = std::mem::take(&mut *self.free.lock().unwrap_or_else(PoisonError::into_inner));
        for connection in free {
            // Closing a connection that is going away anyway: its error
            // tells the caller nothing it could act on.
            let _ = connection.close().await;
        }
    }

    fn give_back(&self, connection: DB::Connection) {
        if self.closed.load(Ordering::SeqCst) {
            return;
        }
        self.free.lock().unwrap_or_else(PoisonError::into_inner).push(connection);
        self.permits.add_permits(1);
    }
}

/// A connection for one read: use it as `&mut *reader`.
pub(crate) enum Reader<'a, DB: Database> {
    /// One of the store's readers, handed back when dropped.
    Kept { connection: Option<DB::Connection>, home: &'a Readers<DB> },
    /// The writer's, when the store has no readers (or is closing).
    Writer(Writer<DB>),
}

impl<DB: Database> Deref for Reader<'_, DB> {
    type Target = DB::Connection;
    fn deref(&self) -> &DB::Connection {
        match self {
            Reader::Kept { connection, .. } => {
                connection.as_ref().expect("a kept reader holds its connection until dropped")
            }
            Reader::Writer(connection) => connection,
        }
    }
}

impl<DB: Database> DerefMut for Reader<'_, DB> {
    fn deref_mut(&mut self) -> &mut DB::Connection {
        match self {
            Reader::Kept { connection, .. } => {
                connection.as_mut().expect("a kept reader holds its connection until dropped")
            }
            Reader::Writer(connection) => connection,
        }
    }
}

impl<DB: Database> Drop for Reader<'_, DB> {
    fn drop(&mut self) {
        if let Reader::Kept { connection, home } = self
            && let Some(connection) = connection.take()
        {
            home.give_back(connection);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::str::FromStr;
    use std::time::Duration;

    use futures::FutureExt;
    use sqlx::sqlite::SqliteConnectOptions;
    use sqlx::{ConnectOptions, Sqlite};

    use super::*;
    use crate::testing::TestDb;

    async fn store_parts(readers: usize) -> (TestDb, Writers<Sqlite>, Readers<Sqlite>) {
        let db = TestDb::sqlite();
        let options = SqliteConnectOptions::from_str(&db.url)
            .unwrap()
            .create_if_missing(true)
            .journal_mode(sqlx::sqlite::SqliteJournalMode::Wal);
        let writers = Writers::kept(options.clone(), Duration::from_secs(5)).await.unwrap();
        sqlx::query("CREATE TABLE t (n INTEGER)").execute(&mut *writers.acquire().await.unwrap()).await.unwrap();
        let mut connections = Vec::new();
        for _ in 0..readers {
            connections.push(options.connect().await.unwrap());
        }
        (db, writers, Readers::of(connections))
    }

    #[tokio::test]
    async fn a_read_waits_for_a_reader_not_for_the_writer() {
        let (_dir, writers, readers) = store_parts(1).await;
        // The writer is busy: a write transaction holds it.
        let mut write = writers.begin("BEGIN IMMEDIATE").await.unwrap();
        sqlx::query("INSERT INTO t (n) VALUES (1)").execute(&mut *write).await.unwrap();

        // A read meanwhile is served by the reader (the committed state).
        let mut first = readers.get(&writers).await.unwrap();
        assert!(matches!(first, Reader::Kept { .. }));
        let (n,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM t").fetch_one(&mut *first).await.unwrap();
        assert_eq!(n, 0);

        // A second read while the only reader is taken waits for it: it
        // neither goes to the busy writer nor fails.
        let mut second = Box::pin(readers.get(&writers));
        assert!((&mut second).now_or_never().is_none(), "no reader free: the read waits");
        drop(first);
        let mut second = second.await.unwrap();
        assert!(matches!(second, Reader::Kept { .. }), "the reader handed back, not the writer");

        write.commit().await.unwrap();
        let (n,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM t").fetch_one(&mut *second).await.unwrap();
        assert_eq!(n, 1, "the reader sees the write once committed");
    }

    #[tokio::test]
    async fn without_readers_a_read_goes_to_the_writer_and_after_closing_it_fails() {
        let (_dir, writers, readers) = store_parts(0).await;
        let mut read = readers.get(&writers).await.unwrap();
        assert!(matches!(read, Reader::Writer(_)));
        let (n,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM t").fetch_one(&mut *read).await.unwrap();
        assert_eq!(n, 0);
        drop(read);

        let (_dir, writers, readers) = store_parts(2).await;
        readers.close().await;
        writers.close().await;
        assert!(readers.get(&writers).await.is_err(), "a closed store answers an error, it does not hang");
    }
}
