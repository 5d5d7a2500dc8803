//! The engine for several processes sharing one database.

use sqlx::Postgres;
use sqlx::postgres::{PgPool, PgPoolOptions};

pub struct PostgresStore {
    pool: PgPool,
}

impl PostgresStore {
    /// Connects to and migrates `postgres://...` (migrations hold an advisory
    /// lock, so several processes may start at once).
    pub async fn open(url: &str) -> crate::Result<Self> {
        let pool = PgPoolOptions::new().max_connections(16).connect(url).await?;
        sqlx::migrate!("./migrations/postgres").run(&pool).await?;
        Ok(PostgresStore { pool })
    }

    async fn begin_write(&self) -> crate::Result<sqlx::Transaction<'static, Postgres>> {
        Ok(self.pool.begin().await?)
    }
}

#[async_trait::async_trait]
impl crate::Store for PostgresStore {
    fn backend(&self) -> &'static str {
        "postgres"
    }
    async fn close(&self) {
        self.pool.close().await;
    }
}

sql_store!(
    PostgresStore,
    Postgres,
    // SKIP LOCKED: concurrent workers each take a different row, none waits.
    claim_run = "UPDATE run_queue SET state = 'running', worker_id = $1, lease_until = $2, attempts = attempts + 1 \
                 WHERE history_id = (SELECT history_id FROM run_queue WHERE state = 'queued' \
                 AND containers LIKE $3 ESCAPE '\\' ORDER BY enqueued_at, history_id LIMIT 1 FOR UPDATE SKIP LOCKED) \
                 RETURNING history_id, organization_id, scrap_id, param, attempts"
);

// Rows another scheduler is firing are skipped, not waited for; the unique
// tick record stops a second firing of the same instant.
sql_schedule!(PostgresStore, Postgres, lock_due = " FOR UPDATE SKIP LOCKED");
sql_webhooks!(PostgresStore, Postgres, lock_due = " FOR UPDATE SKIP LOCKED");
sql_rate!(PostgresStore);
