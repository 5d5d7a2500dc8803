#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// A unique constraint was hit; the string names the constraint's subject.
    #[error("already exists: {0}")]
    Conflict(&'static str),
    #[error("stored data is corrupt: {0}")]
    Corrupt(String),
    #[error("unsupported database url `{0}` (expected sqlite://... or postgres://...)")]
    UnsupportedUrl(String),
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
    #[error("migration failed: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    #[error("cannot prepare database location: {0}")]
    Io(#[from] std::io::Error),
    /// A sealed secret could not be opened (another master key, or altered).
    #[error("{0}")]
    Sealing(String),
}
