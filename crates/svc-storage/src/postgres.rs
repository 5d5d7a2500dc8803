//! The engine for several processes sharing one database.

use sqlx::Postgres;
use sqlx::postgres::{PgPoolOptions, PgQueryResult};

use crate::sql::{Dialect, Readers, RowsAffected, SqlStore, Writers};

pub type PostgresStore = SqlStore<Postgres>;

impl PostgresStore {
    /// Connects to and migrates `postgres://...` (migrations hold an advisory
    /// lock, so several processes may start at once).
    pub async fn open(url: &str, sealer: crate::Sealer, settings: crate::PoolSettings) -> crate::Result<Self> {
        let pool =
            PgPoolOptions::new().max_connections(16).acquire_timeout(settings.acquire_timeout).connect(url).await?;
        crate::migrations::postgres().run(&pool).await?;
        // No readers: the pool's ping on release finds a broken connection.
        Ok(SqlStore::new(Writers::Pool(pool), Readers::none(), sealer))
    }
}

impl Dialect for Postgres {
    const BACKEND: &'static str = "postgres";

    // SKIP LOCKED: concurrent workers each take a different run, none waits;
    // rows another scheduler or delivery worker is handling are skipped, not
    // waited for (the unique tick record stops a second firing of the same
    // instant).
    const LOCK_DUE: &'static str = " FOR UPDATE SKIP LOCKED";

    // The extended protocol takes one statement per query.
    const JOINS_STATEMENTS: bool = false;

    const BEGIN_WRITE: &'static str = "BEGIN";
}

impl RowsAffected for PgQueryResult {
    fn rows_affected(&self) -> u64 {
        PgQueryResult::rows_affected(self)
    }
}
