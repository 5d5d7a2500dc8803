//! The embedded default engine.

use std::path::Path;
use std::str::FromStr;
use std::time::Duration;

use sqlx::Sqlite;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous};

pub struct SqliteStore {
    pool: SqlitePool,
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
            .test_before_acquire(false)
            .connect_with(options)
            .await?;
        sqlx::migrate!("./migrations/sqlite").run(&pool).await?;
        Ok(SqliteStore { pool })
    }

    /// SQLite allows one writer: take the write lock when the transaction
    /// starts, so that it waits on `busy_timeout` instead of failing when a
    /// read transaction cannot be upgraded.
    async fn begin_write(&self) -> crate::Result<sqlx::Transaction<'static, Sqlite>> {
        Ok(self.pool.begin_with("BEGIN IMMEDIATE").await?)
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

sql_store!(
    SqliteStore,
    Sqlite,
    // One statement under SQLite's single writer: claims cannot collide.
    claim_run = "UPDATE run_queue SET state = 'running', worker_id = $1, lease_until = $2, attempts = attempts + 1 \
                 WHERE history_id = (SELECT history_id FROM run_queue WHERE state = 'queued' \
                 AND containers LIKE $3 ESCAPE '\\' ORDER BY enqueued_at, history_id LIMIT 1) \
                 RETURNING history_id, organization_id, scrap_id, param, attempts"
);

// SQLite has one writer: the write transaction already excludes other schedulers.
sql_schedule!(SqliteStore, Sqlite, lock_due = "");
sql_webhooks!(SqliteStore, Sqlite, lock_due = "");
sql_rate!(SqliteStore);
