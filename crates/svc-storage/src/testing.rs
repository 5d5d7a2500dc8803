//! Fresh databases for tests: a new SQLite file in a temporary folder, or an
//! empty, migrated database on the PostgreSQL server named by
//! `SVC_TEST_POSTGRES_URL`.
//!
//! PostgreSQL databases come from a pool shared by every test process. A
//! new database costs 0.7-0.9 s on a 2-core machine (`CREATE DATABASE`'s
//! checkpoints, then the migrations' DDL), emptying a held one about 0.03 s
//! (docs/decisions.md, "Test databases on PostgreSQL"). A test holds its
//! database by a session advisory lock, so no two tests, in one process or
//! several, ever share one; the next holder ends the connections the last
//! one left and deletes every row.

use std::sync::Arc;
use std::time::Duration;

use sha2::{Digest, Sha256};
use sqlx::{Connection, PgConnection};

use crate::Store;

/// A database that lives as long as this value: on drop the SQLite folder is
/// removed, a PostgreSQL database goes back to the pool (or, made by
/// [`TestDb::postgres_unmigrated`], is dropped), unless the test is
/// panicking (then it stays, renamed `svc_failed_…`, to be looked at; the
/// server is a throwaway).
pub struct TestDb {
    pub url: String,
    _dir: Option<tempfile::TempDir>,
    postgres: Option<PgDb>,
    /// A master key of its own.
    key: crate::MasterKey,
}

struct PgDb {
    admin_url: String,
    name: String,
    /// The session holding the pool slot's advisory lock; `None` for a
    /// database of the test's own.
    holder: Option<PgConnection>,
}

/// Deletes every row of every table but the migrations' record, without the
/// foreign keys' triggers (the test server's user is a superuser).
const EMPTY: &str = "DO $$ DECLARE t text; BEGIN \
    SET LOCAL session_replication_role = replica; \
    FOR t IN SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename <> '_sqlx_migrations' LOOP \
    EXECUTE format('DELETE FROM %I', t); END LOOP; END $$";

/// The pool's databases are named for the migrations they hold, so that a
/// server kept across builds never hands out a database of an older schema.
fn migrations_tag() -> u32 {
    let mut digest = Sha256::new();
    for m in crate::migrations::postgres().iter() {
        digest.update(m.version.to_le_bytes());
        digest.update(&m.checksum);
    }
    let digest = digest.finalize();
    u32::from_be_bytes([digest[0], digest[1], digest[2], digest[3]])
}

/// The server named by `SVC_TEST_POSTGRES_URL`, when it is set.
fn admin_url() -> Option<String> {
    std::env::var("SVC_TEST_POSTGRES_URL").ok().filter(|s| !s.is_empty())
}

async fn connect_admin(admin_url: &str) -> PgConnection {
    PgConnection::connect(admin_url).await.expect("connect to SVC_TEST_POSTGRES_URL")
}

/// Ends every other session connected to `name`, and waits until they are gone.
async fn end_sessions(admin: &mut PgConnection, name: &str) {
    let give_up = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        let left: i64 = sqlx::query_scalar(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity \
             WHERE datname = $1 AND pid <> pg_backend_pid()",
        )
        .bind(name)
        .fetch_one(&mut *admin)
        .await
        .expect("end the sessions of a test database");
        if left == 0 {
            return;
        }
        assert!(tokio::time::Instant::now() < give_up, "sessions on {name} did not end");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

impl TestDb {
    pub fn sqlite() -> TestDb {
        let dir = tempfile::tempdir().expect("temporary folder");
        let url = format!("sqlite://{}", dir.path().join("svc.db").display());
        TestDb { url, _dir: Some(dir), postgres: None, key: crate::MasterKey::generate() }
    }

    /// An empty, migrated database of the pool, held until this value is
    /// dropped. `None` when `SVC_TEST_POSTGRES_URL` is not set.
    pub async fn postgres() -> Option<TestDb> {
        let admin_url = admin_url()?;
        let mut holder = connect_admin(&admin_url).await;
        let tag = migrations_tag();
        let mut slot: i32 = 0;
        loop {
            let held: bool = sqlx::query_scalar("SELECT pg_try_advisory_lock($1, $2)")
                .bind(tag as i32)
                .bind(slot)
                .fetch_one(&mut holder)
                .await
                .expect("lock a test database");
            if held {
                break;
            }
            slot += 1;
        }
        let name = format!("svc_pool_{tag:08x}_{slot}");
        let exists: bool = sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)")
            .bind(&name)
            .fetch_one(&mut holder)
            .await
            .expect("look for a test database");
        let url = database_url(&admin_url, &name);
        if exists {
            // Under `cargo test` the last holder was a thread of this
            // process, and its app's connections may outlive it.
            end_sessions(&mut holder, &name).await;
            let mut db = PgConnection::connect(&url).await.expect("connect to a test database");
            sqlx::raw_sql(sqlx::AssertSqlSafe(EMPTY)).execute(&mut db).await.expect("empty a test database");
            let _ = db.close().await;
        } else {
            create_database(&mut holder, &name).await;
            let pool = sqlx::PgPool::connect(&url).await.expect("connect to a test database");
            crate::migrations::postgres().run(&pool).await.expect("migrate a test database");
            pool.close().await;
        }
        Some(TestDb {
            url,
            _dir: None,
            postgres: Some(PgDb { admin_url, name, holder: Some(holder) }),
            key: crate::MasterKey::generate(),
        })
    }

    /// A new database with no table at all (for tests of the migrations
    /// themselves), dropped with this value. `None` when
    /// `SVC_TEST_POSTGRES_URL` is not set.
    pub async fn postgres_unmigrated() -> Option<TestDb> {
        let admin_url = admin_url()?;
        let name = format!("svc_test_{}", svc_domain::ObjectId::new());
        let mut admin = connect_admin(&admin_url).await;
        create_database(&mut admin, &name).await;
        let _ = admin.close().await;
        Some(TestDb {
            url: database_url(&admin_url, &name),
            _dir: None,
            postgres: Some(PgDb { admin_url, name, holder: None }),
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

fn database_url(admin_url: &str, name: &str) -> String {
    let (base, _) = admin_url.rsplit_once('/').expect("SVC_TEST_POSTGRES_URL ends in /<database>");
    format!("{base}/{name}")
}

async fn create_database(admin: &mut PgConnection, name: &str) {
    // FILE_COPY: PostgreSQL 15's default (WAL_LOG) writes the whole
    // template to the WAL, about 8 MB for every test database.
    sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name} STRATEGY = FILE_COPY")))
        .execute(admin)
        .await
        .expect("create test database");
}

impl Drop for TestDb {
    fn drop(&mut self) {
        let Some(PgDb { admin_url, name, holder }) = self.postgres.take() else {
            return;
        };
        let panicking = std::thread::panicking();
        if holder.is_some() && !panicking {
            // Back to the pool: the lock ends with the holder's session.
            return;
        }
        // Drop runs inside the test's runtime, which cannot be blocked on:
        // the statements run on a thread of their own. The sessions an
        // app's pool still holds are ended first.
        let kept = format!("svc_failed_{}", svc_domain::ObjectId::new());
        let statement = if panicking {
            format!("ALTER DATABASE {name} RENAME TO {kept}")
        } else {
            format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        };
        let done = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
            runtime.block_on(async {
                let mut admin = PgConnection::connect(&admin_url).await?;
                end_sessions(&mut admin, &name).await;
                sqlx::query(sqlx::AssertSqlSafe(statement)).execute(&mut admin).await?;
                Ok::<_, Box<dyn std::error::Error + Send + Sync>>(())
            })
        })
        .join();
        match done {
            Ok(Ok(())) if panicking => eprintln!("test database kept for inspection as {kept}"),
            Ok(Err(e)) => eprintln!("could not drop or keep a test database: {e}"),
            _ => {}
        }
        // The pool slot's lock is released only now, after the rename.
        drop(holder);
    }
}
