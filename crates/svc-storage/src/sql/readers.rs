//! Connections kept beside the pool for the reads every request makes (a
//! session, a scrap).
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
//! Readers never wait for each other: when all are taken, the read goes
//! through the pool.

use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};

use sqlx::pool::PoolConnection;
use sqlx::{Connection, Database, Pool};

/// The free readers of a store (none for PostgreSQL).
pub(crate) struct Readers<DB: Database> {
    free: Mutex<Vec<DB::Connection>>,
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
        Readers { free: Mutex::new(connections), closed: AtomicBool::new(false) }
    }

    /// A free reader, else a connection of `pool`.
    pub(crate) async fn get<'a>(&'a self, pool: &Pool<DB>) -> sqlx::Result<Reader<'a, DB>> {
        let taken = self.free.lock().unwrap_or_else(PoisonError::into_inner).pop();
        Ok(match taken {
            Some(connection) => Reader::Kept { connection: Some(connection), home: self },
            None => Reader::Pooled(pool.acquire().await?),
        })
    }

    /// Closes the free readers; one in use is closed when its read ends
    /// and it is dropped.
    pub(crate) async fn close(&self) {
        self.closed.store(true, Ordering::SeqCst);
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
    }
}

/// A connection for one read: use it as `&mut *reader`.
pub(crate) enum Reader<'a, DB: Database> {
    /// One of the store's readers, handed back when dropped.
    Kept { connection: Option<DB::Connection>, home: &'a Readers<DB> },
    /// From the pool, when every reader was taken.
    Pooled(PoolConnection<DB>),
}

impl<DB: Database> Deref for Reader<'_, DB> {
    type Target = DB::Connection;
    fn deref(&self) -> &DB::Connection {
        match self {
            Reader::Kept { connection, .. } => {
                connection.as_ref().expect("a kept reader holds its connection until dropped")
            }
            Reader::Pooled(connection) => connection,
        }
    }
}

impl<DB: Database> DerefMut for Reader<'_, DB> {
    fn deref_mut(&mut self) -> &mut DB::Connection {
        match self {
            Reader::Kept { connection, .. } => {
                connection.as_mut().expect("a kept reader holds its connection until dropped")
            }
            Reader::Pooled(connection) => connection,
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
