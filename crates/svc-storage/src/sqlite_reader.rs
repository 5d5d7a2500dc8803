//! Point reads on SQLite without a thread hop.
//!
//! sqlx runs each SQLite connection on its own thread and ships every query
//! and row across channels; for a primary-key lookup that round-trip costs
//! far more than the lookup itself (measured in docs/benchmarks.md). The
//! hottest reads (one scrap, one history row) therefore run here, on a few
//! read-only rusqlite connections, directly on the calling task's thread,
//! with cached prepared statements. Only indexed point lookups belong here:
//! they take microseconds, like taking a lock; anything that scans stays on
//! sqlx. WAL mode means these readers never wait for the writer.

use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};

use crate::StoreError;

pub(crate) struct InlineReader {
    connections: Vec<Mutex<Connection>>,
    next: AtomicUsize,
}

fn to_store(e: rusqlite::Error) -> StoreError {
    StoreError::Corrupt(format!("sqlite read: {e}"))
}

impl InlineReader {
    /// Opens `count` read-only connections to an existing, migrated database.
    pub(crate) fn open(path: &Path, count: usize) -> Result<Self, StoreError> {
        let mut connections = Vec::with_capacity(count);
        for _ in 0..count {
            let conn = Connection::open_with_flags(
                path,
                OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX | OpenFlags::SQLITE_OPEN_URI,
            )
            .map_err(to_store)?;
            conn.busy_timeout(Duration::from_secs(10)).map_err(to_store)?;
            conn.set_prepared_statement_cache_capacity(16);
            connections.push(Mutex::new(conn));
        }
        Ok(InlineReader { connections, next: AtomicUsize::new(0) })
    }

    /// Runs `f` on a free connection (or waits for one).
    pub(crate) fn read<T>(&self, f: impl FnOnce(&Connection) -> rusqlite::Result<T>) -> Result<T, StoreError> {
        let n = self.connections.len();
        let start = self.next.fetch_add(1, Ordering::Relaxed);
        for i in 0..n {
            if let Ok(conn) = self.connections[(start + i) % n].try_lock() {
                return f(&conn).map_err(to_store);
            }
        }
        let conn = self.connections[start % n].lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        f(&conn).map_err(to_store)
    }
}
