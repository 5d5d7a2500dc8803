//! The embedded default engine.

use std::path::Path;
use std::str::FromStr;
use std::sync::Once;
use std::time::Duration;

use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqliteQueryResult, SqliteSynchronous};
use sqlx::{ConnectOptions, Sqlite};

use crate::sql::{Dialect, Readers, RowsAffected, SqlStore, Writers};
use crate::wal_checkpoints::{Checkpointer, WRITER_BACKSTOP_PAGES};

pub type SqliteStore = SqlStore<Sqlite>;

/// Connections kept beside the writer for the hot reads and the lists
/// (`sql/readers.rs`). A read holds one for a single statement, so a few
/// serve every worker thread of the runtime; when all are taken, a read
/// waits for one.
const READERS: usize = 4;

/// The writer: one connection, lent to one write at a time (`sql/writer.rs`).
/// SQLite lets one connection write at a time anyway; and in WAL mode a
/// connection drops its whole page cache when another one wrote since its
/// last statement, so with several writers nearly every statement read its
/// pages again (a pool of 8: 1.3-1.5 ms more CPU per static run end to end,
/// docs/benchmarks.md). With one, the writes queue for it, in order,
/// instead of in SQLite's busy handler, whose retries sleep. The hot reads
/// and the lists go to the readers, not behind the writes; the other reads
/// stay on the writer, whose cache no other connection invalidates.
impl SqliteStore {
    /// Opens (creating file and folder if needed) and migrates `sqlite://path`.
    pub async fn open(url: &str, sealer: crate::Sealer, settings: crate::PoolSettings) -> crate::Result<Self> {
        let path = url.strip_prefix("sqlite://").unwrap_or(url);
        let path = path.split('?').next().unwrap_or(path);
        if let Some(parent) = Path::new(path).parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent)?;
        }
        without_memory_statistics();
        let options = SqliteConnectOptions::from_str(url)?
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal)
            .busy_timeout(Duration::from_secs(10))
            .foreign_keys(true)
            .pragma("wal_autocheckpoint", WRITER_BACKSTOP_PAGES.to_string());
        let writers = Writers::kept(options.clone(), settings.acquire_timeout).await?;
        let mut writer = writers.acquire().await?;
        // `run` over a borrowed connection makes this future `Send` for one
        // lifetime only (rustc's "`Acquire` is not general enough");
        // `run_direct` is what sqlx's `run` calls, and says so.
        crate::migrations::sqlite().run_direct(None, &mut *writer, false).await?;
        drop(writer);
        let mut readers = Vec::with_capacity(READERS);
        for _ in 0..READERS {
            readers.push(options.connect().await?);
        }
        let checkpoints = Checkpointer::connect(&options).await?.spawn();
        Ok(SqlStore::new(writers, Readers::of(readers), sealer).with_checkpoints(checkpoints))
    }
}

/// Turns off SQLite's memory statistics, once per process and before the
/// first connection (SQLite accepts the setting only then). With them on,
/// every allocation and free SQLite makes takes one process-wide mutex:
/// 4-5 % of the server's CPU in a profile of `GET /api/scraps/:id`
/// (docs/benchmarks.md). svc reads none of the statistics; SQLite lists
/// `SQLITE_DEFAULT_MEMSTATUS=0` among its recommended options.
fn without_memory_statistics() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // SAFETY: `sqlite3_config` takes an int and, for MEMSTATUS, one int
        // argument. Called before SQLite is initialized (no connection has
        // been opened yet by this process) it sets the option; called later
        // (a connection opened elsewhere first) it changes nothing and
        // answers SQLITE_MISUSE, which is harmless: the statistics stay on.
        let answer = unsafe { libsqlite3_sys::sqlite3_config(libsqlite3_sys::SQLITE_CONFIG_MEMSTATUS, 0) };
        if answer != libsqlite3_sys::SQLITE_OK {
            tracing::debug!(answer, "SQLite was initialized already: its memory statistics stay on");
        }
    });
}

impl Dialect for Sqlite {
    const BACKEND: &'static str = "sqlite";

    // SQLite has one writer: the write transaction already excludes other
    // workers, schedulers and delivery workers.
    const LOCK_DUE: &'static str = "";

    const JOINS_STATEMENTS: bool = true;

    /// SQLite allows one writer: take the write lock when the transaction
    /// starts, so that it waits on `busy_timeout` instead of failing when a
    /// read transaction cannot be upgraded.
    const BEGIN_WRITE: &'static str = "BEGIN IMMEDIATE";
}

impl RowsAffected for SqliteQueryResult {
    fn rows_affected(&self) -> u64 {
        SqliteQueryResult::rows_affected(self)
    }
}
