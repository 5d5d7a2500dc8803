//! The master key that seals the secrets svc stores (`svc_storage::sealing`):
//! where it comes from, the key check at every start, the key file's first
//! generation, and the crash-safe order of a rotation.
//!
//! The key is `SVC_SECRET_KEY` when set; else the key file: `SVC_SECRET_KEY_FILE`,
//! else `secret.key` beside a SQLite database, else (PostgreSQL)
//! `svc-data/secret.key` in the working directory. It is never stored in the
//! database. The database holds a key check (`svc_storage::key_check`) instead,
//! which this module compares with the key at every start:
//!
//! | key found | key check in the database | start-up |
//! |---|---|---|
//! | yes | none | writes the check (first start, or a database from before sealing) |
//! | yes | opens | goes on |
//! | yes | does not open | refuses, naming both key ids (unless `secret.key.new` opens it: adopted) |
//! | no (no file) | none | generates the key file, then writes the check |
//! | no (no file) | present | refuses: svc never makes a new key for a database that holds sealed secrets |

use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use svc_storage::MasterKey;
use svc_storage::key_check::key_check_opens;
pub use svc_storage::sealing::KeyError;
use svc_storage::{Sealer, Store, StoreError};

use crate::{Config, LaunchError};

/// The default key file's name.
pub const KEY_FILE_NAME: &str = "secret.key";

/// Where this process's master key came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeySource {
    /// `SVC_SECRET_KEY`.
    Env,
    /// A key file (`SVC_SECRET_KEY_FILE`, or the default one).
    File(PathBuf),
    /// A throwaway key for an in-memory SQLite database, kept nowhere.
    Memory,
}

impl fmt::Display for KeySource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KeySource::Env => f.write_str("SVC_SECRET_KEY"),
            KeySource::File(path) => write!(f, "key file {}", path.display()),
            KeySource::Memory => f.write_str("a throwaway key of an in-memory database"),
        }
    }
}

/// Why svc cannot start (or rotate) with the master key it has. Never
/// quotes a key, only key ids.
#[derive(Debug, thiserror::Error)]
pub enum SecretKeyError {
    #[error(
        "the database was sealed with master key {stored}; this server has key {ours} (from {from}); set \
         SVC_SECRET_KEY (or SVC_SECRET_KEY_FILE) to the master key the database was sealed with"
    )]
    WrongKey { stored: String, ours: String, from: KeySource },
    #[error(
        "the key file {} is missing, and the database holds secrets sealed with master key {stored}; restore the \
         file or set SVC_SECRET_KEY to that key; svc never generates a new key for a database that holds sealed \
         secrets",
        path.display()
    )]
    MissingKeyFile { path: PathBuf, stored: String },
    #[error("the key file {} does not hold a master key: {reason}", path.display())]
    BadKeyFile { path: PathBuf, reason: KeyError },
    #[error("invalid {name}: {reason}")]
    BadVariable { name: &'static str, reason: KeyError },
    #[error("cannot {what}: {error}")]
    Io { what: String, error: io::Error },
    #[error(
        "the database is now sealed with master key {new_key}, which is in {}, but renaming it to {} failed \
         ({error}); rename it by hand (the next start would adopt it anyway)",
        pending.display(), path.display()
    )]
    RenameAfterRotation { new_key: String, pending: PathBuf, path: PathBuf, error: io::Error },
    #[error("an in-memory database has no master key to rotate")]
    NothingToRotate,
}

/// The key file a configuration uses when `SVC_SECRET_KEY` is unset, or
/// `None` for an in-memory SQLite database.
pub fn key_file_path(config: &Config) -> Option<PathBuf> {
    if let Some(path) = &config.secret_key_file {
        return Some(path.clone());
    }
    let url = config.database_url.expose();
    let Some(rest) = url.strip_prefix("sqlite:") else {
        // PostgreSQL: every server of the database must have the same key
        // (the key check refuses a server with another one).
        return Some(Path::new("svc-data").join(KEY_FILE_NAME));
    };
    // As `SqliteStore::open` reads the url.
    let path = url.strip_prefix("sqlite://").unwrap_or(url);
    let path = path.split('?').next().unwrap_or(path);
    if rest.contains(":memory:") || url.contains("mode=memory") || path.is_empty() {
        return None;
    }
    let dir = Path::new(path).parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    Some(dir.join(KEY_FILE_NAME))
}

/// `secret.key.new`: where a rotation puts the new key before the database
/// is sealed with it.
pub fn pending_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().map(|n| n.to_os_string()).unwrap_or_default();
    name.push(".new");
    path.with_file_name(name)
}

fn io_error(what: impl Into<String>) -> impl FnOnce(io::Error) -> SecretKeyError {
    let what = what.into();
    move |error| SecretKeyError::Io { what, error }
}

/// The key in `path`, `None` when there is no such file.
pub fn read_key_file(path: &Path) -> Result<Option<MasterKey>, SecretKeyError> {
    let bytes = match fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io_error(format!("read the key file {}", path.display()))(e)),
    };
    warn_if_shared(path);
    let text = String::from_utf8(bytes)
        .map_err(|_| SecretKeyError::BadKeyFile { path: path.to_path_buf(), reason: KeyError::NotBase64 })?;
    MasterKey::from_base64(&text)
        .map(Some)
        .map_err(|reason| SecretKeyError::BadKeyFile { path: path.to_path_buf(), reason })
}

/// A key file others can read is worth a warning (it still works).
fn warn_if_shared(path: &Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if let Ok(meta) = fs::metadata(path)
            && meta.permissions().mode() & 0o077 != 0
        {
            tracing::warn!(
                "the key file {} can be read by other users (mode {:o}); `chmod 600` it",
                path.display(),
                meta.permissions().mode() & 0o777
            );
        }
    }
    #[cfg(not(unix))]
    let _ = path;
}

/// Writes `key` to a new file at `path`, readable by its owner only, and
/// flushes it to disk. Fails if the file exists.
fn write_new_private(path: &Path, key: &MasterKey) -> io::Result<()> {
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options.open(path)?;
    file.write_all(format!("{}\n", key.to_base64()).as_bytes())?;
    file.sync_all()
}

/// Makes a rename or a link in `dir` durable.
fn sync_dir(dir: &Path) {
    #[cfg(unix)]
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    #[cfg(not(unix))]
    let _ = dir;
}

fn dir_of(path: &Path) -> &Path {
    path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."))
}

/// A temporary name beside `path`.
fn temporary(path: &Path) -> PathBuf {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    dir_of(path).join(format!(".{name}.{}.{:016x}.tmp", std::process::id(), rand::random::<u64>()))
}

/// Creates the key file at `path` holding `key`, atomically and without ever
/// replacing one: the key is written to a temporary file (mode 0600,
/// fsynced), which is then linked to `path` (a link fails if `path` exists,
/// so a concurrent start that wrote first wins). False when a key file was
/// there already.
pub fn create_key_file(path: &Path, key: &MasterKey) -> Result<bool, SecretKeyError> {
    let shown = path.display().to_string();
    let dir = dir_of(path);
    fs::create_dir_all(dir).map_err(io_error(format!("create the folder of the key file {shown}")))?;
    let tmp = temporary(path);
    write_new_private(&tmp, key).map_err(io_error(format!("write the key file {shown}")))?;
    let linked = fs::hard_link(&tmp, path);
    let _ = fs::remove_file(&tmp);
    match linked {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => return Ok(false),
        // A file system without hard links: create it in place (exclusive
        // create still never replaces a key file).
        Err(_) => match write_new_private(path, key) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => return Ok(false),
            Err(e) => return Err(io_error(format!("write the key file {shown}"))(e)),
        },
    }
    sync_dir(dir);
    Ok(true)
}

/// A rotation's first step: the new key in `secret.key.new` (replacing a
/// leftover one), fsynced, before the database changes.
pub fn write_pending(path: &Path, key: &MasterKey) -> Result<(), SecretKeyError> {
    let pending = pending_path(path);
    let shown = pending.display().to_string();
    let tmp = temporary(&pending);
    write_new_private(&tmp, key).map_err(io_error(format!("write {shown}")))?;
    fs::rename(&tmp, &pending).map_err(|e| {
        let _ = fs::remove_file(&tmp);
        io_error(format!("write {shown}"))(e)
    })?;
    sync_dir(dir_of(&pending));
    Ok(())
}

/// A rotation's last step, after the database commit: `secret.key.new`
/// replaces `secret.key` (one atomic rename).
pub fn commit_pending(path: &Path) -> io::Result<()> {
    fs::rename(pending_path(path), path)?;
    sync_dir(dir_of(path));
    Ok(())
}

/// A master key of the configuration (`SVC_SECRET_KEY`, `SVC_SECRET_KEY_PREVIOUS`).
fn configured(name: &'static str, value: Option<&crate::Secret>) -> Result<Option<MasterKey>, SecretKeyError> {
    value
        .map(|v| MasterKey::from_base64(v.expose()).map_err(|reason| SecretKeyError::BadVariable { name, reason }))
        .transpose()
}

/// The store of a started process and what its key is.
pub(crate) struct KeyedStore {
    pub store: Arc<dyn Store>,
    pub source: KeySource,
    pub key_id: String,
}

/// Opens the store named by `config` with the right master key, applying
/// the rules in this module's table; the store's key check is in place when
/// this returns.
pub(crate) async fn open_store(config: &Config) -> Result<KeyedStore, LaunchError> {
    let url = config.database_url.expose();
    let previous = configured("SVC_SECRET_KEY_PREVIOUS", config.secret_key_previous.as_ref())?;
    let sealer_of = |key: &MasterKey| {
        let sealer = Sealer::new(key.clone());
        match &previous {
            Some(p) => sealer.with_previous(p.clone()),
            None => sealer,
        }
    };
    let (source, loaded) = match (configured("SVC_SECRET_KEY", config.secret_key.as_ref())?, key_file_path(config)) {
        (Some(key), _) => (KeySource::Env, Some(key)),
        (None, Some(path)) => {
            let loaded = read_key_file(&path)?;
            (KeySource::File(path), loaded)
        }
        (None, None) => (KeySource::Memory, Some(MasterKey::generate())),
    };
    // The store needs a sealer to open; until the key check has been read,
    // a key that may not be the one kept.
    let provisional = loaded.clone().unwrap_or_else(MasterKey::generate);
    let store = svc_storage::connect_with(url, sealer_of(&provisional), config.pool()).await?;
    let check = store.key_check().await?;
    let key = match (loaded, check) {
        (Some(key), None) => key,
        (Some(key), Some(check)) if key_check_opens(&sealer_of(&key), &check) => {
            if let KeySource::File(path) = &source
                && pending_path(path).exists()
            {
                // Left by a rotation that did not commit (or one running now
                // in another process): not used, and not removed either.
                tracing::warn!(
                    "{} is left from a master key rotation that did not change the database; it is not used",
                    pending_path(path).display()
                );
            }
            key
        }
        (loaded, Some(check)) => match adopt_pending(&source, &check, &sealer_of)? {
            Some(key) => key,
            None => {
                let stored = Sealer::key_id_of(&check).unwrap_or("(unsealed)").to_string();
                store.close().await;
                return Err(match (loaded, &source) {
                    (None, KeySource::File(path)) => SecretKeyError::MissingKeyFile { path: path.clone(), stored },
                    (key, _) => SecretKeyError::WrongKey {
                        stored,
                        ours: key.map(|k| k.id().to_string()).unwrap_or_default(),
                        from: source.clone(),
                    },
                }
                .into());
            }
        },
        (None, None) => {
            // Neither a key nor sealed secrets: the first start. The key file
            // is written before the key check: a crash in between leaves a key
            // file and a database that holds nothing sealed yet (the next start
            // takes that file), never the reverse.
            let KeySource::File(path) = &source else { unreachable!("only a key file can be missing") };
            if create_key_file(path, &provisional)? {
                tracing::info!(
                    key_id = provisional.id(),
                    "generated the master key in {} (mode 0600); back it up: without it, the secrets in the \
                     database cannot be read",
                    path.display()
                );
                provisional.clone()
            } else {
                // Another process starting at the same moment wrote it first.
                read_key_file(path)?.ok_or_else(|| SecretKeyError::Io {
                    what: format!("read the key file {}", path.display()),
                    error: io::Error::new(io::ErrorKind::NotFound, "it vanished after it was written"),
                })?
            }
        }
    };
    let store = if key.id() == provisional.id() {
        store
    } else {
        store.close().await;
        svc_storage::connect_with(url, sealer_of(&key), config.pool()).await?
    };
    if let Err(e) = store.init_key_check().await {
        // Another process with another key wrote the check first.
        let stored = store.key_check().await.ok().flatten();
        store.close().await;
        return Err(match (e, stored) {
            (StoreError::Sealing(_), Some(check)) => SecretKeyError::WrongKey {
                stored: Sealer::key_id_of(&check).unwrap_or("(unsealed)").to_string(),
                ours: key.id().to_string(),
                from: source,
            }
            .into(),
            (e, _) => e.into(),
        });
    }
    Ok(KeyedStore { store, source, key_id: key.id().to_string() })
}

/// A rotation that committed but died before renaming `secret.key.new`
/// over `secret.key` left the key that opens the database in the former:
/// when it opens the key check, it becomes the key file.
fn adopt_pending(
    source: &KeySource,
    check: &str,
    sealer_of: &impl Fn(&MasterKey) -> Sealer,
) -> Result<Option<MasterKey>, SecretKeyError> {
    let KeySource::File(path) = source else { return Ok(None) };
    let pending = pending_path(path);
    let Some(key) = read_key_file(&pending)? else { return Ok(None) };
    if !key_check_opens(&sealer_of(&key), check) {
        return Ok(None);
    }
    commit_pending(path).map_err(io_error(format!("rename {} to {}", pending.display(), path.display())))?;
    tracing::warn!(
        key_id = key.id(),
        "the last master key rotation committed but did not replace {}: its new key (from {}) is now the key file",
        path.display(),
        pending.display()
    );
    Ok(Some(key))
}

/// What `App::rotate_secret_key` did.
#[derive(Clone, Debug)]
pub struct KeyRotation {
    pub from_key: String,
    pub to_key: String,
    /// Values re-sealed, the key check included.
    pub resealed: u64,
    /// Where the new key is: the key file, or `SVC_SECRET_KEY` for the
    /// operator to replace.
    pub source: KeySource,
}

/// Rotates the master key of `store` (opened with the key from `source`):
/// a new key, every sealed value re-sealed with it in one transaction, and
/// the key file replaced. `announce` gets the new key before the database
/// changes (with `SVC_SECRET_KEY`, the operator must see it before it is in
/// use).
///
/// Crash safety with a key file, in this order:
/// 1. the new key is written to `secret.key.new` and fsynced;
/// 2. the database is re-sealed in one transaction and committed;
/// 3. `secret.key.new` is renamed over `secret.key` (atomic) and the folder fsynced.
///
/// A crash before 2 commits leaves the database on the old key and an unused
/// `secret.key.new` (the next rotation overwrites it). A crash between 2 and 3
/// leaves `secret.key` that no longer opens the key check and
/// `secret.key.new` that does: the next start adopts it (`adopt_pending`).
/// At no point is the database sealed with a key that is on no disk.
pub(crate) async fn rotate(
    store: &Arc<dyn Store>,
    source: &KeySource,
    announce: impl FnOnce(&MasterKey),
) -> Result<KeyRotation, LaunchError> {
    let new_key = MasterKey::generate();
    let report = match source {
        KeySource::Memory => return Err(SecretKeyError::NothingToRotate.into()),
        KeySource::File(path) => {
            write_pending(path, &new_key)?;
            announce(&new_key);
            let report = store.rotate_master_key(&new_key).await?;
            commit_pending(path).map_err(|error| SecretKeyError::RenameAfterRotation {
                new_key: new_key.id().to_string(),
                pending: pending_path(path),
                path: path.clone(),
                error,
            })?;
            report
        }
        KeySource::Env => {
            announce(&new_key);
            store.rotate_master_key(&new_key).await?
        }
    };
    Ok(KeyRotation {
        from_key: report.from_key,
        to_key: report.to_key,
        resealed: report.resealed,
        source: source.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(pairs: &[(&str, &str)]) -> Config {
        Config::load(None, pairs.iter().map(|(k, v)| (k.to_string(), v.to_string()))).unwrap()
    }

    #[test]
    fn the_key_file_is_beside_a_sqlite_database_or_named() {
        let path = |pairs: &[(&str, &str)]| key_file_path(&config(pairs));
        assert_eq!(path(&[]), Some(PathBuf::from("svc-data/secret.key")), "the default database's folder");
        assert_eq!(
            path(&[("SVC_DATABASE_URL", "sqlite:///var/lib/svc/main.db")]),
            Some("/var/lib/svc/secret.key".into())
        );
        assert_eq!(path(&[("SVC_DATABASE_URL", "sqlite://data/svc.db?mode=rwc")]), Some("data/secret.key".into()));
        assert_eq!(path(&[("SVC_DATABASE_URL", "sqlite://svc.db")]), Some("./secret.key".into()));
        assert_eq!(path(&[("SVC_DATABASE_URL", "sqlite::memory:")]), None);
        assert_eq!(
            path(&[("SVC_DATABASE_URL", "postgres://db.example.com/svc")]),
            Some("svc-data/secret.key".into()),
            "PostgreSQL: the working directory's svc-data"
        );
        assert_eq!(
            path(&[("SVC_DATABASE_URL", "postgres://db/svc"), ("SVC_SECRET_KEY_FILE", "/run/secrets/svc")]),
            Some("/run/secrets/svc".into())
        );
        assert_eq!(pending_path(Path::new("/x/secret.key")), PathBuf::from("/x/secret.key.new"));
    }

    #[test]
    fn a_generated_key_file_is_private_complete_and_never_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("nested").join("secret.key");
        assert!(read_key_file(&path).unwrap().is_none(), "missing is not an error");
        let key = MasterKey::generate();
        assert!(create_key_file(&path, &key).unwrap());
        let text = fs::read_to_string(&path).unwrap();
        assert_eq!(text, format!("{}\n", key.to_base64()));
        assert_eq!(read_key_file(&path).unwrap().unwrap().id(), key.id());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        }
        assert!(!create_key_file(&path, &MasterKey::generate()).unwrap(), "an existing key file wins");
        assert_eq!(read_key_file(&path).unwrap().unwrap().id(), key.id());
        let leftovers: Vec<_> = fs::read_dir(path.parent().unwrap()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(leftovers, vec![std::ffi::OsString::from("secret.key")], "no temporary file stays");
    }

    #[test]
    fn a_bad_key_file_is_named_without_its_content() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("secret.key");
        for (content, why) in [
            (b"not base64 at all: hunter2".to_vec(), "not base64"),
            (b"aHVudGVyMg==\n".to_vec(), "7 bytes"),
            (vec![0xff, 0xfe, 0x00], "not base64"),
        ] {
            fs::write(&path, &content).unwrap();
            let err = read_key_file(&path).unwrap_err().to_string();
            assert!(err.contains(&path.display().to_string()) && err.contains(why), "{err}");
            assert!(!err.contains("hunter2") && !err.contains("aHVudGVyMg"), "{err}");
        }
    }

    #[test]
    fn the_key_comes_from_the_environment_first() {
        let key = MasterKey::generate();
        let c = config(&[("SVC_SECRET_KEY", &key.to_base64()), ("SVC_SECRET_KEY_FILE", "/nonexistent/secret.key")]);
        assert_eq!(configured("SVC_SECRET_KEY", c.secret_key.as_ref()).unwrap().unwrap().id(), key.id());
        let mut bad = c.clone();
        bad.secret_key = Some(crate::Secret::new("c2hvcnQ="));
        let err = configured("SVC_SECRET_KEY", bad.secret_key.as_ref()).unwrap_err().to_string();
        assert!(err.contains("SVC_SECRET_KEY") && !err.contains("c2hvcnQ="), "{err}");
    }

    #[test]
    fn a_pending_key_replaces_the_key_file_in_one_rename() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("secret.key");
        let (old, new) = (MasterKey::generate(), MasterKey::generate());
        assert!(create_key_file(&path, &old).unwrap());
        write_pending(&path, &MasterKey::generate()).unwrap();
        write_pending(&path, &new).unwrap();
        assert_eq!(read_key_file(&pending_path(&path)).unwrap().unwrap().id(), new.id(), "a leftover is replaced");
        assert_eq!(read_key_file(&path).unwrap().unwrap().id(), old.id(), "untouched until the commit");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(fs::metadata(pending_path(&path)).unwrap().permissions().mode() & 0o777, 0o600);
        }
        commit_pending(&path).unwrap();
        assert_eq!(read_key_file(&path).unwrap().unwrap().id(), new.id());
        assert!(!pending_path(&path).exists());
    }
}
