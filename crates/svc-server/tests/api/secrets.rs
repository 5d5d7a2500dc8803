//! Secrets at rest: a dump of the database holds no webhook secret, no
//! JWT secret and no site login or session cookie; the master key is checked at every start (a wrong key and a
//! missing key file stop it, and no key is made for a sealed database);
//! rotation keeps everything readable, even when it dies before replacing
//! the key file; secrets stored in plaintext by older versions are sealed
//! at start.

use crate::common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::login_site::{LoginSite, MEMBERS_SCRIPT, saved_session};
use common::receiver::{Hit, Receiver};
use common::{Account, TestApp, fixture};
use reqwest::{Method, StatusCode};
use serde_json::json;
use svc_domain::WebhookId;
use svc_domain::plan::Plan;
use svc_server::secret_key::KeySource;
use svc_server::{App, Config, LaunchError};
use svc_service::outbox::webhook_signing::{verify_hex, verify_standard};
use svc_storage::testing::TestDb;
use svc_storage::{MasterKey, Sealer};

const PRIVATE_OK: (&str, &str) = ("SVC_ALLOW_PRIVATE_NETWORKS", "true");
const SITE_USER: &str = "grace.hopper";
const SITE_PASSWORD: &str = "c0b0l-Members-Only";

async fn growth(app: &TestApp, email: &str) -> Account {
    let account = app.signup(email).await;
    app.store.set_plan(account.org(), Plan::Growth).await.unwrap();
    account
}

/// Creates a webhook to `url`; returns its id and `plainSecret`.
async fn webhook(app: &TestApp, account: &Account, url: &str) -> (WebhookId, String) {
    let (status, hook) =
        app.post("/api/developers/webhooks", &account.token, json!({"url": url, "events": ["scrap.success"]})).await;
    assert_eq!(status, StatusCode::CREATED, "{hook}");
    (WebhookId::parse(hook["id"].as_str().unwrap()).unwrap(), hook["plainSecret"].as_str().unwrap().to_string())
}

/// The JWT secret the app generated (kept sealed in the database).
async fn jwt_secret(app: &TestApp) -> String {
    let secret = app.store.secret_setting_or_init("jwt_secret", "not-this-one").await.unwrap();
    assert_ne!(secret, "not-this-one", "the app generated one at start");
    secret
}

fn sqlite_file(db_url: &str) -> Option<PathBuf> {
    db_url.strip_prefix("sqlite://").map(|p| PathBuf::from(p.split('?').next().unwrap()))
}

/// Everything the database holds, as a thief would see it. SQLite: the bytes
/// of the database file and of its write-ahead log and shared memory (so
/// nothing waits in the log unseen), plus every row as text. PostgreSQL:
/// every row of every table of the schema as text.
async fn dump(db_url: &str) -> String {
    let mut dump = String::new();
    if let Some(file) = sqlite_file(db_url) {
        for suffix in ["", "-wal", "-shm"] {
            let path = PathBuf::from(format!("{}{suffix}", file.display()));
            if let Ok(bytes) = std::fs::read(&path) {
                dump.push_str(&String::from_utf8_lossy(&bytes));
            }
        }
        let pool = sqlx::SqlitePool::connect(db_url).await.unwrap();
        let tables: Vec<(String,)> =
            sqlx::query_as("SELECT name FROM sqlite_master WHERE type = 'table'").fetch_all(&pool).await.unwrap();
        for (table,) in tables {
            let columns: Vec<(String,)> =
                sqlx::query_as(sqlx::AssertSqlSafe(format!("SELECT name FROM pragma_table_info('{table}')")))
                    .fetch_all(&pool)
                    .await
                    .unwrap();
            for (column,) in columns {
                let values: Vec<(Option<Vec<u8>>,)> =
                    sqlx::query_as(sqlx::AssertSqlSafe(format!("SELECT CAST(\"{column}\" AS BLOB) FROM \"{table}\"")))
                        .fetch_all(&pool)
                        .await
                        .unwrap();
                for v in values.into_iter().filter_map(|(v,)| v) {
                    dump.push_str(&String::from_utf8_lossy(&v));
                    dump.push('\n');
                }
            }
        }
        pool.close().await;
    } else {
        let pool = sqlx::PgPool::connect(db_url).await.unwrap();
        let tables: Vec<(String,)> =
            sqlx::query_as("SELECT table_name::text FROM information_schema.tables WHERE table_schema = 'public'")
                .fetch_all(&pool)
                .await
                .unwrap();
        for (table,) in tables {
            let rows: Vec<(String,)> =
                sqlx::query_as(sqlx::AssertSqlSafe(format!("SELECT t::text FROM \"{table}\" t")))
                    .fetch_all(&pool)
                    .await
                    .unwrap();
            for (row,) in rows {
                dump.push_str(&row);
                dump.push('\n');
            }
        }
        pool.close().await;
    }
    dump
}

/// Asserts that `dump` holds none of `secrets` (nor the base64 of a webhook
/// secret without its `whsec_` prefix), and does hold `known` (so the dump
/// is not empty by mistake).
fn assert_no_secret(dump: &str, secrets: &[&str], known: &[&str]) {
    for k in known {
        assert!(dump.contains(k), "the dump holds the data ({k})");
    }
    for secret in secrets {
        let bare = secret.strip_prefix("whsec_").unwrap_or(secret);
        assert!(!dump.contains(bare), "a secret is in the database in plaintext: {secret}");
    }
}

/// Plain SQL beside the app, as an older version of svc wrote.
async fn exec(db_url: &str, sql: &str, binds: &[&str]) {
    let sql = sqlx::AssertSqlSafe(sql.to_string());
    if db_url.starts_with("sqlite") {
        let pool = sqlx::SqlitePool::connect(db_url).await.unwrap();
        let mut q = sqlx::query(sql);
        for b in binds {
            q = q.bind(b.to_string());
        }
        q.execute(&pool).await.unwrap();
        pool.close().await;
    } else {
        let pool = sqlx::PgPool::connect(db_url).await.unwrap();
        let mut q = sqlx::query(sql);
        for b in binds {
            q = q.bind(b.to_string());
        }
        q.execute(&pool).await.unwrap();
        pool.close().await;
    }
}

async fn stored(db_url: &str, sql: &str) -> Vec<String> {
    if db_url.starts_with("sqlite") {
        let pool = sqlx::SqlitePool::connect(db_url).await.unwrap();
        let rows: Vec<(String,)> = sqlx::query_as(sqlx::AssertSqlSafe(sql.to_string())).fetch_all(&pool).await.unwrap();
        pool.close().await;
        rows.into_iter().map(|(v,)| v).collect()
    } else {
        let pool = sqlx::PgPool::connect(db_url).await.unwrap();
        let rows: Vec<(String,)> = sqlx::query_as(sqlx::AssertSqlSafe(sql.to_string())).fetch_all(&pool).await.unwrap();
        pool.close().await;
        rows.into_iter().map(|(v,)| v).collect()
    }
}

/// `App::build` with `settings` on `db_url` (no default key).
async fn build(db_url: &str, settings: &[(&str, &str)]) -> Result<App, LaunchError> {
    App::build(Config::load(None, TestApp::env(db_url, settings, &[])).unwrap()).await
}

fn verify(hit: &Hit, secret: &str) {
    assert!(verify_hex(secret, &hit.body, &hit.header("x-webhook-signature")), "hex signature");
    let ts: i64 = hit.header("webhook-timestamp").parse().unwrap();
    let now = chrono::Utc::now().timestamp();
    assert!(verify_standard(secret, &hit.header("webhook-id"), ts, &hit.body, &hit.header("webhook-signature"), now));
}

async fn login(app: &TestApp, email: &str) -> StatusCode {
    let request =
        app.request(Method::POST, "/api/auth/login", None).json(&json!({"email": email, "password": "password-123"}));
    app.send(request).await.0
}

async fn me(app: &TestApp, token: &str) -> StatusCode {
    app.get("/api/auth/me", token).await.0
}

fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[tokio::test]
async fn a_dump_of_the_database_holds_no_secret() {
    let receiver = Receiver::start(&[]).await;
    let app = TestApp::start_with(&[PRIVATE_OK]).await;
    let alice = growth(&app, "alice@example.com").await;
    let (_, first) = webhook(&app, &alice, &receiver.url).await;
    let (second_id, second) = webhook(&app, &alice, &receiver.url).await;
    let jwt = jwt_secret(&app).await;
    // Updates leave the secret sealed too.
    let (status, _) =
        app.put(&format!("/api/developers/webhooks/{second_id}"), &alice.token, json!({"active": false})).await;
    assert_eq!(status, StatusCode::OK);
    // A scrap that logs in to a site and keeps the session its run got.
    let site = LoginSite::start(SITE_USER, SITE_PASSWORD).await;
    let scrap = app
        .scrap_with(&alice, json!({"title": "Members", "url": site.url("/members"), "request": MEMBERS_SCRIPT}))
        .await;
    let (status, body) = app
        .put(
            &format!("/api/scraps/{scrap}/account"),
            &alice.token,
            json!({"username": SITE_USER, "password": SITE_PASSWORD}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, row) = app.run_and_wait(&alice.token, &scrap).await;
    assert_eq!((status, row["statusDetail"].as_str()), (StatusCode::OK, Some("success")), "{row}");
    assert_eq!(site.logins(), 1);
    let cookie = site.members_cookies().into_iter().find(|c| !c.is_empty()).expect("the run got a session cookie");
    saved_session(&app, &alice.token, &scrap).await;

    let secrets = [first.as_str(), &second, &jwt, SITE_PASSWORD, SITE_USER, &cookie];
    let known = ["alice@example.com", receiver.url.as_str(), "Report 1"];
    assert_no_secret(&dump(&app.db_url).await, &secrets, &known);
    let sealed = stored(&app.db_url, "SELECT secret FROM webhooks").await;
    assert_eq!(sealed.len(), 2);
    let db_url = app.db_url.clone();
    let key_id = MasterKey::from_base64(&app.secret_settings[0].1).unwrap().id().to_string();
    for value in sealed {
        assert!(value.starts_with(&format!("svcenc:1:{key_id}:")), "{value}");
    }
    // And once the server has stopped (SQLite: the log copied into the file).
    let db = app.shut_down().await.unwrap();
    assert_no_secret(&dump(&db_url).await, &secrets, &known);
    drop(db);
}

#[tokio::test]
async fn a_wrong_key_stops_start_up_and_the_data_stays_readable_with_the_right_one() {
    let receiver = Receiver::start(&[]).await;
    let app = TestApp::start_with(&[PRIVATE_OK]).await;
    let alice = growth(&app, "alice@example.com").await;
    let (hook, secret) = webhook(&app, &alice, &receiver.url).await;
    let db = app.shut_down().await.unwrap();

    let wrong = MasterKey::generate();
    let err = build(&db.url, &[("SVC_SECRET_KEY", &wrong.to_base64())]).await.err().expect("refused");
    assert!(err.is_configuration(), "exit code 2: {err}");
    let message = err.to_string();
    assert!(message.contains(&format!("sealed with master key {}", db.key().id())), "{message}");
    assert!(message.contains(&format!("this server has key {}", wrong.id())), "{message}");
    assert!(message.contains("SVC_SECRET_KEY"), "{message}");
    assert!(!message.contains(&wrong.to_base64()), "{message}");

    let app = TestApp::start_on_db(db, &[PRIVATE_OK]).await;
    assert_eq!(me(&app, &alice.token).await, StatusCode::OK);
    assert_eq!(app.store.webhook(alice.org(), hook).await.unwrap().unwrap().secret, secret);
    let (status, list) = app.get("/api/developers/webhooks", &alice.token).await;
    assert_eq!((status, list["total"].clone()), (StatusCode::OK, json!(1)), "{list}");
}

#[tokio::test]
async fn a_missing_key_file_stops_start_up_and_no_key_is_made() {
    let dir = tempfile::tempdir().unwrap();
    let key_file = dir.path().join("keys").join("svc.key");
    let file_setting = ("SVC_SECRET_KEY_FILE", key_file.to_str().unwrap());
    let app = TestApp::start_with(&[file_setting]).await;
    assert!(key_file.is_file(), "generated at the first start");
    assert_eq!(mode(&key_file), 0o600);
    let key = std::fs::read_to_string(&key_file).unwrap();
    let alice = app.signup("alice@example.com").await;
    let db = app.shut_down().await.unwrap();

    let away = dir.path().join("elsewhere.key");
    std::fs::rename(&key_file, &away).unwrap();
    let err = build(&db.url, &[file_setting]).await.err().expect("refused");
    assert!(err.is_configuration(), "{err}");
    let message = err.to_string();
    assert!(message.contains(&key_file.display().to_string()) && message.contains("is missing"), "{message}");
    assert!(message.contains("never generates a new key"), "{message}");
    assert!(message.contains(MasterKey::from_base64(&key).unwrap().id()), "names the key it needs: {message}");
    assert!(!key_file.exists(), "no new key was made");

    std::fs::rename(&away, &key_file).unwrap();
    let app = TestApp::start_on_db(db, &[file_setting]).await;
    assert_eq!(me(&app, &alice.token).await, StatusCode::OK, "the JWT secret opens again");
    assert_eq!(std::fs::read_to_string(&key_file).unwrap(), key, "the key file is left as it is");
}

#[tokio::test]
async fn sqlite_keeps_its_key_file_beside_the_database() {
    let db = TestDb::sqlite();
    let key_file = sqlite_file(&db.url).unwrap().with_file_name("secret.key");
    let app = build(&db.url, &[]).await.unwrap();
    assert_eq!(app.secret_key_source(), &KeySource::File(key_file.clone()));
    assert_eq!(mode(&key_file), 0o600);
    let key = MasterKey::from_base64(&std::fs::read_to_string(&key_file).unwrap()).unwrap();
    assert_eq!(app.secret_key_id(), key.id());
    app.close().await;
    let again = build(&db.url, &[]).await.unwrap();
    assert_eq!(again.secret_key_id(), key.id(), "the same key at the next start");
    again.close().await;
    // SVC_SECRET_KEY wins over the file.
    let err = build(&db.url, &[("SVC_SECRET_KEY", &MasterKey::generate().to_base64())]).await.err().unwrap();
    assert!(err.to_string().contains(key.id()), "{err}");
}

#[tokio::test]
async fn rotation_keeps_webhooks_logins_and_sessions_working() {
    let site = fixture::start().await;
    let receiver = Receiver::start(&[]).await;
    let app = TestApp::start_with(&[PRIVATE_OK]).await;
    let alice = growth(&app, "alice@example.com").await;
    let script = "returnData([...document.querySelectorAll('li.item')].map(li => li.textContent))";
    let sid = app
        .scrap_with(&alice, json!({"title": "Items", "url": format!("{}/items/3", site.base), "request": script}))
        .await;
    let (_, secret) = webhook(&app, &alice, &receiver.url).await;
    let jwt = jwt_secret(&app).await;
    let db = app.shut_down().await.unwrap();
    let old = db.key().clone();

    // svc admin rotate-secret-key, with SVC_SECRET_KEY.
    let rotator = build(&db.url, &[("SVC_SECRET_KEY", &old.to_base64())]).await.unwrap();
    assert_eq!(rotator.secret_key_source(), &KeySource::Env);
    let mut announced = None;
    let rotated = rotator.rotate_secret_key(|key| announced = Some(key.to_base64())).await.unwrap();
    rotator.close().await;
    let new = MasterKey::from_base64(&announced.expect("the new key is announced")).unwrap();
    assert_eq!((rotated.from_key.as_str(), rotated.to_key.as_str()), (old.id(), new.id()));
    assert_eq!(rotated.resealed, 3, "the webhook secret, the JWT secret and the key check");

    let err = build(&db.url, &[("SVC_SECRET_KEY", &old.to_base64())]).await.err().expect("the old key is refused");
    assert!(err.to_string().contains(&format!("sealed with master key {}", new.id())), "{err}");

    let app = TestApp::start_on_db(db, &[PRIVATE_OK, ("SVC_SECRET_KEY", &new.to_base64())]).await;
    assert_eq!(me(&app, &alice.token).await, StatusCode::OK, "a session from before the rotation");
    assert_eq!(login(&app, "alice@example.com").await, StatusCode::OK);
    assert_eq!(jwt_secret(&app).await, jwt, "the JWT secret itself is unchanged, only re-sealed");
    let (status, row) = app.run_and_wait(&alice.token, &sid).await;
    assert_eq!(status, StatusCode::OK, "{row}");
    let hits = receiver.wait_for(1, Duration::from_secs(30)).await;
    verify(&hits[0], &secret);
    assert_no_secret(&dump(&app.db_url).await, &[&secret, &jwt], &["alice@example.com"]);
}

#[tokio::test]
async fn rotation_with_a_key_file_survives_a_crash_before_the_file_is_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let key_file = dir.path().join("secret.key");
    let pending = dir.path().join("secret.key.new");
    let file_setting = ("SVC_SECRET_KEY_FILE", key_file.to_str().unwrap());
    let receiver = Receiver::start(&[]).await;
    let app = TestApp::start_with(&[PRIVATE_OK, file_setting]).await;
    let alice = growth(&app, "alice@example.com").await;
    let (hook, secret) = webhook(&app, &alice, &receiver.url).await;
    let db = app.shut_down().await.unwrap();
    let old_text = std::fs::read_to_string(&key_file).unwrap();

    let rotator = build(&db.url, &[file_setting]).await.unwrap();
    let rotated = rotator.rotate_secret_key(|_| {}).await.unwrap();
    rotator.close().await;
    let new_text = std::fs::read_to_string(&key_file).unwrap();
    assert_ne!(new_text, old_text, "the key file holds the new key");
    assert_eq!(MasterKey::from_base64(&new_text).unwrap().id(), rotated.to_key);
    assert_eq!(mode(&key_file), 0o600);
    assert!(!pending.exists(), "renamed over the key file");

    // As if the rotation had died after its commit, before the rename.
    std::fs::write(&pending, &new_text).unwrap();
    std::fs::write(&key_file, &old_text).unwrap();
    let app = TestApp::start_on_db(db, &[PRIVATE_OK, file_setting]).await;
    assert_eq!(std::fs::read_to_string(&key_file).unwrap(), new_text, "the pending key was adopted");
    assert!(!pending.exists());
    assert_eq!(me(&app, &alice.token).await, StatusCode::OK);
    assert_eq!(app.store.webhook(alice.org(), hook).await.unwrap().unwrap().secret, secret);
    let db = app.shut_down().await.unwrap();

    // As if a rotation had died before its commit: the leftover is not used.
    let unused = MasterKey::generate().to_base64();
    std::fs::write(&pending, &unused).unwrap();
    let app = TestApp::start_on_db(db, &[PRIVATE_OK, file_setting]).await;
    assert_eq!(std::fs::read_to_string(&key_file).unwrap(), new_text);
    assert_eq!(std::fs::read_to_string(&pending).unwrap(), unused, "left alone");
    assert_eq!(app.store.webhook(alice.org(), hook).await.unwrap().unwrap().secret, secret);
}

#[tokio::test]
async fn secrets_stored_in_plaintext_by_an_older_version_are_sealed_at_start() {
    let receiver = Receiver::start(&[]).await;
    let app = TestApp::start_with(&[PRIVATE_OK]).await;
    let alice = growth(&app, "alice@example.com").await;
    let (hook, secret) = webhook(&app, &alice, &receiver.url).await;
    let jwt = jwt_secret(&app).await;
    let db = app.shut_down().await.unwrap();
    // The database as a version before sealing left it: plaintext secrets, no key check.
    exec(&db.url, "UPDATE webhooks SET secret = $1", &[&secret]).await;
    let older = WebhookId::new().to_string();
    let older_secret = "whsec_b2xkZXItd2ViaG9vay1zZWNyZXQtaW4tcGxhaW50ZXh0";
    exec(
        &db.url,
        "INSERT INTO webhooks (id, organization_id, url, events, scrap_ids, active, secret, created_at, updated_at) \
         VALUES ($1, $2, 'https://old.example/hook', '[\"scrap.success\"]', '[]', TRUE, $3, 0, 0)",
        &[&older, &alice.org_id, older_secret],
    )
    .await;
    exec(&db.url, "UPDATE settings SET value = $1 WHERE key = 'jwt_secret'", &[&jwt]).await;
    exec(&db.url, "DELETE FROM settings WHERE key = 'secret_key_check'", &[]).await;
    assert!(dump(&db.url).await.contains(&jwt), "the plaintext is there before the start");

    let app = TestApp::start_on_db(db, &[PRIVATE_OK]).await;
    for value in stored(&app.db_url, "SELECT secret FROM webhooks").await {
        assert!(Sealer::is_sealed(&value), "{value}");
    }
    assert_no_secret(&dump(&app.db_url).await, &[&secret, older_secret, &jwt], &["alice@example.com"]);
    assert_eq!(me(&app, &alice.token).await, StatusCode::OK, "the JWT secret is the same, now sealed");
    assert_eq!(app.store.webhook(alice.org(), hook).await.unwrap().unwrap().secret, secret);
    let older = WebhookId::parse(&older).unwrap();
    assert_eq!(app.store.webhook(alice.org(), older).await.unwrap().unwrap().secret, older_secret);
    // A second start finds nothing left to seal.
    let again = app.store.seal_plaintext_secrets().await.unwrap();
    assert_eq!(again, Default::default());
}
