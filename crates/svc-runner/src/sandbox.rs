//! Who Chromium runs as, and whether with its sandbox.
//!
//! Pages are untrusted. When svc runs as root, Chromium is started as an
//! unprivileged user (`SVC_BROWSER_USER`, default `nobody`) through
//! util-linux's `setpriv`, so that whatever escapes a renderer is that
//! user, not root. Chromium's own sandbox (the renderers in their own user
//! and PID namespaces, with seccomp) stays on; only when the host cannot
//! give it (no unprivileged user namespaces, or Chromium left as root) is
//! the browser started with `--no-sandbox`, and svc logs that as an error.
//! The first launch decides, and the decision holds for the process.

use std::io::Write as _;
use std::os::unix::fs::{PermissionsExt, chown};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The user Chromium is dropped to when svc runs as root.
pub const DEFAULT_BROWSER_USER: &str = "nobody";

/// An unprivileged account to run Chromium as.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BrowserUser {
    pub name: String,
    pub uid: u32,
    pub gid: u32,
}

/// How the pool starts Chromium: the program to run (the browser, or a
/// wrapper that drops to `user` and runs it) and what the first launch
/// found out about the sandbox.
#[derive(Debug)]
pub struct Launcher {
    program: PathBuf,
    user: Option<BrowserUser>,
    /// Why Chromium stays as root (logged with the sandbox decision).
    stays_root: Option<String>,
    /// Holds the wrapper script.
    _wrapper: Option<tempfile::TempDir>,
    /// `None` until a launch has decided.
    sandbox: Mutex<Option<bool>>,
}

impl Launcher {
    /// The launcher for `chromium` as this process is: dropped to
    /// `browser_user` when root (`root` keeps it root, without a sandbox).
    pub fn new(chromium: PathBuf, browser_user: &str) -> Launcher {
        if !nix::unistd::geteuid().is_root() {
            return Launcher::plain(chromium, None);
        }
        if browser_user == "root" {
            return Launcher::plain(chromium, Some("SVC_BROWSER_USER is root".into()));
        }
        let user = match nix::unistd::User::from_name(browser_user) {
            Ok(Some(user)) if !user.uid.is_root() => {
                BrowserUser { name: user.name, uid: user.uid.as_raw(), gid: user.gid.as_raw() }
            }
            Ok(Some(_)) => return Launcher::plain(chromium, Some(format!("user `{browser_user}` is root"))),
            Ok(None) => return Launcher::plain(chromium, Some(format!("there is no user `{browser_user}`"))),
            Err(e) => return Launcher::plain(chromium, Some(format!("cannot look up user `{browser_user}`: {e}"))),
        };
        let Some(setpriv) = find_setpriv() else {
            return Launcher::plain(chromium, Some("`setpriv` (util-linux) was not found".into()));
        };
        match write_wrapper(&setpriv, &user, &chromium) {
            Ok(dir) => Launcher {
                program: dir.path().join("chromium"),
                user: Some(user),
                stays_root: None,
                _wrapper: Some(dir),
                sandbox: Mutex::new(None),
            },
            Err(e) => Launcher::plain(chromium, Some(format!("cannot write the launcher script: {e}"))),
        }
    }

    fn plain(program: PathBuf, stays_root: Option<String>) -> Launcher {
        Launcher { program, user: None, stays_root, _wrapper: None, sandbox: Mutex::new(None) }
    }

    /// What to start (the browser, or the wrapper that runs it as [`Self::user`]).
    pub fn program(&self) -> &Path {
        &self.program
    }

    /// The unprivileged user Chromium runs as, when svc is root.
    pub fn user(&self) -> Option<&BrowserUser> {
        self.user.as_ref()
    }

    /// Makes a fresh profile directory the browser's own, and returns the
    /// environment it runs with (its home and caches there, as the user
    /// cannot write root's).
    pub fn prepare_profile(&self, dir: &Path) -> std::io::Result<Vec<(String, String)>> {
        let Some(user) = &self.user else { return Ok(Vec::new()) };
        chown(dir, Some(user.uid), Some(user.gid))?;
        let home = dir.display().to_string();
        Ok(["HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"].iter().map(|k| (k.to_string(), home.clone())).collect())
    }

    /// Whether Chromium runs with its sandbox: `None` until the first launch.
    pub fn sandboxed(&self) -> Option<bool> {
        *self.sandbox.lock().expect("sandbox lock")
    }

    /// Records what a first launch found: `Err(why)` when only a launch
    /// without the sandbox worked.
    pub fn decide(&self, sandbox: Result<(), String>) {
        let mut decided = self.sandbox.lock().expect("sandbox lock");
        if decided.is_some() {
            return;
        }
        match sandbox {
            Ok(()) => {
                match &self.user {
                    Some(user) => {
                        tracing::info!(user = %user.name, "chromium runs as `{}` with its sandbox", user.name)
                    }
                    None => tracing::info!("chromium runs with its sandbox"),
                }
                *decided = Some(true);
            }
            Err(why) => {
                let root =
                    self.stays_root.as_deref().map(|r| format!(" Chromium runs as root: {r}.")).unwrap_or_default();
                tracing::error!(
                    "CHROMIUM RUNS WITHOUT ITS SANDBOX: it did not start with it ({why}).{root} A page that \
                     exploits the browser is not contained: run svc where unprivileged user namespaces are \
                     allowed (sysctl kernel.unprivileged_userns_clone=1), and as root leave SVC_BROWSER_USER \
                     to an unprivileged user."
                );
                *decided = Some(false);
            }
        }
    }
}

fn find_setpriv() -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(["/usr/bin".into(), "/bin".into()])
        .map(|dir| dir.join("setpriv"))
        .find(|candidate| candidate.is_file())
}

/// A script that runs `chromium` with its arguments as `user`, with no
/// supplementary groups and no capabilities. `exec` all the way, so the
/// process chromiumoxide started is the browser.
fn write_wrapper(setpriv: &Path, user: &BrowserUser, chromium: &Path) -> std::io::Result<tempfile::TempDir> {
    let dir = tempfile::Builder::new().prefix("svc-launcher-").tempdir()?;
    let script = format!(
        "#!/bin/sh\nexec {} --reuid={} --regid={} --clear-groups --inh-caps=-all -- {} \"$@\"\n",
        quote(setpriv),
        user.uid,
        user.gid,
        quote(chromium)
    );
    let path = dir.path().join("chromium");
    let mut file = std::fs::File::create(&path)?;
    file.write_all(script.as_bytes())?;
    file.set_permissions(std::fs::Permissions::from_mode(0o700))?;
    Ok(dir)
}

/// `path` as one shell word.
fn quote(path: &Path) -> String {
    format!("'{}'", path.display().to_string().replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_is_one_shell_word() {
        assert_eq!(quote(Path::new("/usr/lib/chromium/chromium")), "'/usr/lib/chromium/chromium'");
        assert_eq!(quote(Path::new("/opt/it's here/chrome")), r"'/opt/it'\''s here/chrome'");
    }

    #[test]
    fn the_wrapper_runs_the_browser_as_the_user() {
        let user = BrowserUser { name: "nobody".into(), uid: 65534, gid: 65534 };
        let dir = write_wrapper(Path::new("/usr/bin/setpriv"), &user, Path::new("/opt/chrome")).unwrap();
        let script = std::fs::read_to_string(dir.path().join("chromium")).unwrap();
        assert_eq!(
            script,
            "#!/bin/sh\nexec '/usr/bin/setpriv' --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all -- \
             '/opt/chrome' \"$@\"\n"
        );
        let mode = std::fs::metadata(dir.path().join("chromium")).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
    }

    #[test]
    fn the_first_decision_holds() {
        let launcher = Launcher::plain("/bin/false".into(), None);
        assert_eq!(launcher.sandboxed(), None);
        launcher.decide(Err("no user namespaces".into()));
        launcher.decide(Ok(()));
        assert_eq!(launcher.sandboxed(), Some(false));
    }
}
