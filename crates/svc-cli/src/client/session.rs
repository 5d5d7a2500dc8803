//! The saved login session: `<config dir>/svc/session.json`, mode 0600.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SavedSession {
    pub base_url: String,
    pub email: String,
    pub token: String,
    pub expires_at: String,
}

/// `$SVC_CONFIG_DIR` (tests), else the user's config directory + `svc`.
pub(crate) fn dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("SVC_CONFIG_DIR").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(d));
    }
    dirs::config_dir().map(|d| d.join("svc"))
}

fn path() -> Option<PathBuf> {
    dir().map(|d| d.join("session.json"))
}

pub(crate) fn load() -> Option<SavedSession> {
    let text = std::fs::read_to_string(path()?).ok()?;
    serde_json::from_str(&text).ok()
}

pub(crate) fn save(session: &SavedSession) -> std::io::Result<PathBuf> {
    let path = path().ok_or_else(|| std::io::Error::other("no config directory for this user"))?;
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let text = serde_json::to_string_pretty(session).expect("plain data serializes");
    write_private(&path, text.as_bytes())?;
    Ok(path)
}

/// Writes a file only its owner can read (created with mode 0600).
fn write_private(path: &std::path::Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    #[cfg(unix)]
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    options.mode(0o600);
    let mut file = options.open(path)?;
    #[cfg(unix)]
    file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    file.write_all(bytes)
}

/// Forgets the saved session; true if there was one.
pub(crate) fn remove() -> bool {
    path().is_some_and(|p| std::fs::remove_file(p).is_ok())
}
