//! Fresh databases for tests: a new SQLite file in a temporary folder, or a
//! new database on the PostgreSQL server named by `SVC_TEST_POSTGRES_URL`.

use std::sync::Arc;

use sqlx::Connection;

use crate::Store;

/// A database that lives as long as this value (the SQLite folder is removed
/// on drop; PostgreSQL test databases are left for the server to be wiped).
pub struct TestDb {
    pub url: String,
    _dir: Option<tempfile::TempDir>,
}

impl TestDb {
    pub fn sqlite() -> TestDb {
        let dir = tempfile::tempdir().expect("temporary folder");
        let url = format!("sqlite://{}", dir.path().join("svc.db").display());
        TestDb { url, _dir: Some(dir) }
    }

    /// `None` when `SVC_TEST_POSTGRES_URL` is not set.
    pub async fn postgres() -> Option<TestDb> {
        let admin_url = std::env::var("SVC_TEST_POSTGRES_URL").ok().filter(|s| !s.is_empty())?;
        let name = format!("svc_test_{}", svc_domain::ObjectId::new());
        let mut admin = sqlx::PgConnection::connect(&admin_url).await.expect("connect to SVC_TEST_POSTGRES_URL");
        sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
            .execute(&mut admin)
            .await
            .expect("create test database");
        let (base, _) = admin_url.rsplit_once('/').expect("SVC_TEST_POSTGRES_URL ends in /<database>");
        Some(TestDb { url: format!("{base}/{name}"), _dir: None })
    }

    pub async fn open(&self) -> Arc<dyn Store> {
        crate::connect(&self.url).await.expect("open test store")
    }
}
