use std::sync::Arc;

use crate::{PostgresStore, Sealer, SqliteStore, Store, StoreError};

/// Opens the store named by a `sqlite://...` or `postgres://...` url and
/// applies its migrations; secrets are sealed with `sealer`.
pub async fn connect(url: &str, sealer: Sealer) -> crate::Result<Arc<dyn Store>> {
    if url.starts_with("sqlite:") {
        Ok(Arc::new(SqliteStore::open(url, sealer).await?))
    } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        Ok(Arc::new(PostgresStore::open(url, sealer).await?))
    } else {
        Err(StoreError::UnsupportedUrl(url.to_string()))
    }
}
