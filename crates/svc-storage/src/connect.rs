use std::sync::Arc;
use std::time::Duration;

use crate::{PostgresStore, Sealer, SqliteStore, Store, StoreError};

/// How long a statement waits for a pooled connection when none is free or
/// the database cannot be reached, by default (sqlx's own is 30 s).
pub const DEFAULT_ACQUIRE_TIMEOUT: Duration = Duration::from_secs(5);

/// How the store's connection pool behaves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PoolSettings {
    /// The longest a statement waits for a connection (refused connections
    /// are retried until then), after which it fails with
    /// [`StoreError::Unavailable`].
    pub acquire_timeout: Duration,
}

impl Default for PoolSettings {
    fn default() -> Self {
        PoolSettings { acquire_timeout: DEFAULT_ACQUIRE_TIMEOUT }
    }
}

/// Opens the store named by a `sqlite://...` or `postgres://...` url and
/// applies its migrations; secrets are sealed with `sealer`.
pub async fn connect(url: &str, sealer: Sealer) -> crate::Result<Arc<dyn Store>> {
    connect_with(url, sealer, PoolSettings::default()).await
}

/// [`connect`] with the pool's settings.
pub async fn connect_with(url: &str, sealer: Sealer, pool: PoolSettings) -> crate::Result<Arc<dyn Store>> {
    if url.starts_with("sqlite:") {
        Ok(Arc::new(SqliteStore::open(url, sealer, pool).await?))
    } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        Ok(Arc::new(PostgresStore::open(url, sealer, pool).await?))
    } else {
        Err(StoreError::UnsupportedUrl(url.to_string()))
    }
}
