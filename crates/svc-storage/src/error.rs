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
    Database(sqlx::Error),
    /// The database cannot be reached now (no connection within the pool's
    /// acquire timeout, a connection lost, the server shutting down, the
    /// store closed): the same call may succeed later.
    #[error("the database is unreachable: {0}")]
    Unavailable(sqlx::Error),
    #[error("migration failed: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    #[error("cannot prepare database location: {0}")]
    Io(#[from] std::io::Error),
    /// A sealed secret could not be opened (another master key, or altered).
    #[error("{0}")]
    Sealing(String),
}

impl StoreError {
    /// Whether the database could not be reached (retrying later may succeed).
    pub fn is_unavailable(&self) -> bool {
        matches!(self, StoreError::Unavailable(_))
    }
}

impl From<sqlx::Error> for StoreError {
    fn from(e: sqlx::Error) -> Self {
        if is_unreachable(&e) { StoreError::Unavailable(e) } else { StoreError::Database(e) }
    }
}

/// SQLSTATEs that say the server or the connection is gone, not the
/// statement: connection exceptions (class 08), the server shutting down or
/// not accepting connections yet (57P01-57P03), too many connections (53300).
fn unreachable_sqlstate(code: &str) -> bool {
    code.starts_with("08") || matches!(code, "57P01" | "57P02" | "57P03" | "53300")
}

/// Whether `e` says the database cannot be reached rather than that the
/// statement failed: the pool found no connection in time (`PoolTimedOut`:
/// refused connections are retried until then) or is closed, the
/// connection failed at the socket (`Io`, `Tls`), or the server said it is
/// going away.
pub(crate) fn is_unreachable(e: &sqlx::Error) -> bool {
    match e {
        sqlx::Error::PoolTimedOut | sqlx::Error::PoolClosed | sqlx::Error::Io(_) | sqlx::Error::Tls(_) => true,
        sqlx::Error::Database(db) => db.code().is_some_and(|code| unreachable_sqlstate(&code)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lost_connections_and_pool_timeouts_are_unavailable() {
        let refused = std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "refused");
        for e in [sqlx::Error::PoolTimedOut, sqlx::Error::PoolClosed, sqlx::Error::Io(refused)] {
            assert!(StoreError::from(e).is_unavailable());
        }
        for e in [sqlx::Error::RowNotFound, sqlx::Error::Protocol("unexpected".into())] {
            assert!(!StoreError::from(e).is_unavailable());
        }
    }

    #[test]
    fn server_going_away_states_are_unavailable_and_statement_errors_are_not() {
        for code in ["08006", "08001", "57P01", "57P03", "53300"] {
            assert!(unreachable_sqlstate(code), "{code}");
        }
        for code in ["23505", "40001", "42P01", "55000"] {
            assert!(!unreachable_sqlstate(code), "{code}");
        }
    }
}
