//! The embedded default engine.

use std::path::Path;
use std::str::FromStr;
use std::time::Duration;

use sqlx::Sqlite;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous};

use rusqlite::OptionalExtension;

// `ObjectId`, `Scrap`, `HistoryRow`, `ScrapRecord` and `HistoryRecord` come
// from the `sql_store!` expansion at the end of this module.
use crate::sqlite_reader::InlineReader;

pub struct SqliteStore {
    pool: SqlitePool,
    reader: InlineReader,
}

impl SqliteStore {
    /// Opens (creating file and folder if needed) and migrates `sqlite://path`.
    pub async fn open(url: &str) -> crate::Result<Self> {
        let path = url.strip_prefix("sqlite://").unwrap_or(url);
        let path = path.split('?').next().unwrap_or(path);
        if let Some(parent) = Path::new(path).parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent)?;
        }
        let options = SqliteConnectOptions::from_str(url)?
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal)
            .busy_timeout(Duration::from_secs(10))
            .foreign_keys(true);
        let pool = SqlitePoolOptions::new()
            .max_connections(8)
            .min_connections(1)
            // A ping per acquire is a round-trip to the connection thread; a broken
            // SQLite file connection is not something a ping would repair.
            .test_before_acquire(false).connect_with(options).await?;
        sqlx::migrate!("./migrations/sqlite").run(&pool).await?;
        let reader = InlineReader::open(Path::new(path), 4)?;
        Ok(SqliteStore { pool, reader })
    }

    /// SQLite allows one writer: take the write lock when the transaction
    /// starts, so that it waits on `busy_timeout` instead of failing when a
    /// read transaction cannot be upgraded.
    async fn begin_write(&self) -> crate::Result<sqlx::Transaction<'static, Sqlite>> {
        Ok(self.pool.begin_with("BEGIN IMMEDIATE").await?)
    }

    async fn fetch_scrap(&self, org: ObjectId, scrap: ObjectId) -> crate::Result<Option<Scrap>> {
        let row = self.reader.read(|conn| {
            conn.prepare_cached(scrap_sql!())?
                .query_row(rusqlite::params![org.to_string(), scrap.to_string()], ScrapRecord::from_rusqlite)
                .optional()
        })?;
        row.map(Scrap::try_from).transpose()
    }

    async fn fetch_history_row(&self, org: ObjectId, id: ObjectId) -> crate::Result<Option<HistoryRow>> {
        let row = self.reader.read(|conn| {
            conn.prepare_cached(history_row_sql!())?
                .query_row(rusqlite::params![org.to_string(), id.to_string()], HistoryRecord::from_rusqlite)
                .optional()
        })?;
        row.map(HistoryRow::try_from).transpose()
    }
}

#[async_trait::async_trait]
impl crate::Store for SqliteStore {
    fn backend(&self) -> &'static str {
        "sqlite"
    }
    async fn close(&self) {
        self.pool.close().await;
    }
}

sql_store!(SqliteStore, Sqlite);
