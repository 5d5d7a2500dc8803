//! Fresh databases for tests: a new SQLite file in a temporary folder, or a
//! new database on the PostgreSQL server named by `SVC_TEST_POSTGRES_URL`.

use std::sync::Arc;

use sqlx::Connection;

use crate::Store;

/// A database that lives as long as this value: on drop the SQLite folder is
/// removed and a PostgreSQL test database is dropped, unless the test is
/// panicking (then it stays, to be looked at; the server is a throwaway).
pub struct TestDb {
    pub url: String,
    _dir: Option<tempfile::TempDir>,
    /// The server's url and this database's name, for PostgreSQL.
    postgres: Option<(String, String)>,
    /// A master key of its own.
    key: crate::MasterKey,
}

impl TestDb {
    pub fn sqlite() -> TestDb {
        let dir = tempfile::tempdir().expect("temporary folder");
        let url = format!("sqlite://{}", dir.path().join("svc.db").display());
        TestDb { url, _dir: Some(dir), postgres: None, key: crate::MasterKey::generate() }
    }

    /// `None` when `SVC_TEST_POSTGRES_URL` is not set.
    pub async fn postgres() -> Option<TestDb> {
        let admin_url = std::env::var("SVC_TEST_POSTGRES_URL").ok().filter(|s| !s.is_empty())?;
        let name = format!("svc_test_{}", svc_domain::ObjectId::new());
        let mut admin = sqlx::PgConnection::connect(&admin_url).await.expect("connect to SVC_TEST_POSTGRES_URL");
        // FILE_COPY: PostgreSQL 15's default (WAL_LOG) writes the whole
        // template to the WAL, about 8 MB for every test database.
        sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name} STRATEGY = FILE_COPY")))
            .execute(&mut admin)
            .await
            .expect("create test database");
        let (base, _) = admin_url.rsplit_once('/').expect("SVC_TEST_POSTGRES_URL ends in /<database>");
        Some(TestDb {
            url: format!("{base}/{name}"),
            _dir: None,
            postgres: Some((admin_url, name)),
            key: crate::MasterKey::generate(),
        })
    }

    /// The store, sealing with the test database's own master key.
    pub async fn open(&self) -> Arc<dyn Store> {
        crate::connect(&self.url, crate::Sealer::new(self.key.clone())).await.expect("open test store")
    }

    /// The store, sealing with `sealer` (another key, or a rotation's new one).
    pub async fn open_with(&self, sealer: crate::Sealer) -> Arc<dyn Store> {
        crate::connect(&self.url, sealer).await.expect("open test store")
    }

    /// The master key the test database's secrets are sealed with.
    pub fn key(&self) -> &crate::MasterKey {
        &self.key
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        let Some((admin_url, name)) = self.postgres.take() else {
            return;
        };
        if std::thread::panicking() {
            eprintln!("test database {name} kept for inspection");
            return;
        }
        // Drop runs inside the test's runtime, which cannot be blocked on:
        // the statement runs on a thread of its own. FORCE ends connections
        // that an app's pool still holds.
        let dropped = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
            runtime.block_on(async {
                let mut admin = sqlx::PgConnection::connect(&admin_url).await?;
                sqlx::query(sqlx::AssertSqlSafe(format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)")))
                    .execute(&mut admin)
                    .await?;
                Ok::<_, Box<dyn std::error::Error + Send + Sync>>(())
            })
        })
        .join();
        if let Ok(Err(e)) = dropped {
            eprintln!("could not drop a test database: {e}");
        }
    }
}
