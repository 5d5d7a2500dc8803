//! Who Chromium runs as, and whether with its sandbox.
//!
//! Pages are untrusted. When svc runs as root, Chromium is started as an
//! unprivileged user (`SVC_BROWSER_USER`, default `nobody`) through
//! util-linux's `setpriv`, so that whatever escapes a renderer is that
//! user, not root. Chromium's own sandbox (the renderers in their own user
//! and PID namespaces, with seccomp) is required: when the host cannot give
//! it (no unprivileged user namespaces, or Chromium left as root), the
//! launch fails with what to fix, and browser runs fail with it. Only the
//! operator's `SVC_BROWSER_SANDBOX=off` starts Chromium with `--no-sandbox`,
//! and then `/readyz`, the start-up line and the admin page say so.
//!
//! Whoever it runs as, Chromium is started through a wrapper script that
//! (1) clears the environment to what a browser needs ([`KEPT_VARIABLES`]
//! as svc has them, a fixed `PATH`, and the profile's `HOME` and XDG
//! folders), so that no `SVC_*` setting, secret or database URL reaches a
//! process that runs pages; and (2) sets, through `setpriv --pdeathsig`,
//! the signal the browser gets when svc dies (`SIGKILL`), so that a killed
//! svc leaves no browser behind (its renderers and helpers end with it).
//! For the kernel, the parent is the thread that forked the browser: a
//! tokio worker thread, which lives as long as svc's runtime (a launch from
//! a short-lived thread would have its browser killed when that thread ends).

use std::io::Write as _;
use std::os::unix::fs::{PermissionsExt, chown};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use svc_engine::BrowserSandbox;

/// The user Chromium is dropped to when svc runs as root.
pub const DEFAULT_BROWSER_USER: &str = "nobody";

/// The variables of svc's environment that Chromium keeps (when set): the
/// locale, the time zone (what a page's `Date` shows) and fontconfig's.
pub const KEPT_VARIABLES: [&str; 7] =
    ["LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TZ", "FONTCONFIG_FILE", "FONTCONFIG_PATH"];

/// The `PATH` Chromium runs with.
const BROWSER_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// The variables a launch sets per profile (see [`Launcher::prepare_profile`]).
const PROFILE_VARIABLES: [&str; 3] = ["HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"];

/// An unprivileged account to run Chromium as.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BrowserUser {
    pub name: String,
    pub uid: u32,
    pub gid: u32,
}

/// `SVC_BROWSER_SANDBOX`: whether Chromium must run with its sandbox.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SandboxSetting {
    /// `on` (the default): with its sandbox, or not at all.
    #[default]
    Required,
    /// `off`: always `--no-sandbox`, the operator's explicit choice.
    Off,
}

/// How the pool starts Chromium: the program to run (the browser, or a
/// wrapper that drops to `user` and runs it), whether with its sandbox, and
/// what the launches found out about it.
#[derive(Debug)]
pub struct Launcher {
    program: PathBuf,
    user: Option<BrowserUser>,
    /// Why Chromium stays as root (said when the sandbox cannot be had).
    stays_root: Option<String>,
    /// Holds the wrapper script.
    _wrapper: Option<tempfile::TempDir>,
    setting: SandboxSetting,
    /// What the last launch found (`On` until one has).
    state: Mutex<BrowserSandbox>,
    /// Whether a launch that worked was logged.
    said: AtomicBool,
}

fn initial_state(setting: SandboxSetting) -> BrowserSandbox {
    match setting {
        SandboxSetting::Required => BrowserSandbox::On,
        SandboxSetting::Off => BrowserSandbox::Off,
    }
}

impl Launcher {
    /// The launcher for `chromium` as this process is: dropped to
    /// `browser_user` when root (`root` keeps it root, which Chromium
    /// cannot sandbox).
    pub fn new(chromium: PathBuf, browser_user: &str, setting: SandboxSetting) -> Launcher {
        let (user, stays_root) = if !nix::unistd::geteuid().is_root() {
            (None, None)
        } else if browser_user == "root" {
            (None, Some("SVC_BROWSER_USER is root".to_string()))
        } else {
            match nix::unistd::User::from_name(browser_user) {
                Ok(Some(user)) if !user.uid.is_root() => {
                    (Some(BrowserUser { name: user.name, uid: user.uid.as_raw(), gid: user.gid.as_raw() }), None)
                }
                Ok(Some(_)) => (None, Some(format!("user `{browser_user}` is root"))),
                Ok(None) => (None, Some(format!("there is no user `{browser_user}`"))),
                Err(e) => (None, Some(format!("cannot look up user `{browser_user}`: {e}"))),
            }
        };
        let (Some(setpriv), Some(env)) = (find_tool("setpriv"), find_tool("env")) else {
            tracing::error!(
                "`setpriv` (util-linux) or `env` (coreutils) was not found: Chromium starts with svc's whole \
                 environment, as root when svc is, and is not stopped if svc is killed"
            );
            return Launcher::plain(chromium, stays_root.or(Some("`setpriv` was not found".into())), setting);
        };
        let kept: Vec<(String, String)> =
            KEPT_VARIABLES.iter().filter_map(|k| std::env::var(k).ok().map(|v| (k.to_string(), v))).collect();
        let wrapper = Wrapper { env: &env, setpriv: &setpriv, user: user.as_ref(), kept: &kept, chromium: &chromium };
        match wrapper.write() {
            Ok(dir) => Launcher {
                program: dir.path().join("chromium"),
                user,
                stays_root,
                _wrapper: Some(dir),
                setting,
                state: Mutex::new(initial_state(setting)),
                said: AtomicBool::new(false),
            },
            Err(e) => {
                tracing::error!("cannot write the browser's launcher script: {e}");
                Launcher::plain(
                    chromium,
                    stays_root.or(Some(format!("cannot write the launcher script: {e}"))),
                    setting,
                )
            }
        }
    }

    fn plain(program: PathBuf, stays_root: Option<String>, setting: SandboxSetting) -> Launcher {
        Launcher {
            program,
            user: None,
            stays_root,
            _wrapper: None,
            setting,
            state: Mutex::new(initial_state(setting)),
            said: AtomicBool::new(false),
        }
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
        if let Some(user) = &self.user {
            chown(dir, Some(user.uid), Some(user.gid))?;
        }
        let home = dir.display().to_string();
        Ok(PROFILE_VARIABLES.iter().map(|k| (k.to_string(), home.clone())).collect())
    }

    /// Whether launches start Chromium with its sandbox (`SVC_BROWSER_SANDBOX`).
    pub fn with_sandbox(&self) -> bool {
        self.setting == SandboxSetting::Required
    }

    /// The sandbox as the launches found it.
    pub fn state(&self) -> BrowserSandbox {
        self.state.lock().expect("sandbox lock").clone()
    }

    /// Records a launch that worked (said once per change).
    pub fn started(&self) {
        let mut state = self.state.lock().expect("sandbox lock");
        let recovered = matches!(*state, BrowserSandbox::Unavailable(_));
        if self.said.swap(true, Ordering::Relaxed) && !recovered {
            return;
        }
        match (self.setting, &self.user) {
            (SandboxSetting::Off, _) => tracing::warn!(
                "CHROMIUM RUNS WITHOUT ITS SANDBOX (SVC_BROWSER_SANDBOX=off): a page that exploits the browser is \
                 not contained"
            ),
            (SandboxSetting::Required, Some(user)) => {
                tracing::info!(user = %user.name, "chromium runs as `{}` with its sandbox", user.name)
            }
            (SandboxSetting::Required, None) => tracing::info!("chromium runs with its sandbox"),
        }
        if self.setting == SandboxSetting::Required {
            *state = BrowserSandbox::On;
        }
    }

    /// Records a launch with the sandbox that failed (`why`), and returns
    /// the run's error: what happened and how to fix it.
    pub fn refused(&self, why: &str) -> String {
        let root = self.stays_root.as_deref().map(|r| format!(" Chromium runs as root: {r}.")).unwrap_or_default();
        let message = format!(
            "Chromium cannot start with its sandbox on this host ({why}).{root} Allow unprivileged user \
             namespaces (sysctl kernel.unprivileged_userns_clone=1; on Ubuntu also \
             kernel.apparmor_restrict_unprivileged_userns=0) and, when svc runs as root, leave \
             SVC_BROWSER_USER to an unprivileged user; or set SVC_BROWSER_SANDBOX=off to run pages without it \
             (a page that exploits the browser is then not contained)"
        );
        let mut state = self.state.lock().expect("sandbox lock");
        if !matches!(*state, BrowserSandbox::Unavailable(_)) {
            tracing::error!("the browser engine is refused: {message}");
        }
        *state = BrowserSandbox::Unavailable(message.clone());
        message
    }
}

/// A system tool, in `/usr/bin` or `/bin` (not looked up in `PATH`: the
/// wrapper runs as root).
fn find_tool(name: &str) -> Option<PathBuf> {
    ["/usr/bin", "/bin"].iter().map(|dir| Path::new(dir).join(name)).find(|candidate| candidate.is_file())
}

/// The script that starts Chromium: `env -i` with the kept variables, then
/// `setpriv` with the parent-death signal (and, for a user, dropped to it
/// with no supplementary groups and no capabilities), then the browser.
/// `exec` all the way, so the process chromiumoxide started is the browser.
struct Wrapper<'a> {
    env: &'a Path,
    setpriv: &'a Path,
    user: Option<&'a BrowserUser>,
    /// Variables of svc's environment, with their values.
    kept: &'a [(String, String)],
    chromium: &'a Path,
}

impl Wrapper<'_> {
    fn script(&self) -> String {
        let mut words = vec![quote(&self.env.display().to_string()), "-i".to_string()];
        words.push(format!("PATH={BROWSER_PATH}"));
        words.extend(PROFILE_VARIABLES.iter().map(|k| format!("{k}=\"${k}\"")));
        words.extend(self.kept.iter().map(|(k, v)| format!("{k}={}", quote(v))));
        words.push(quote(&self.setpriv.display().to_string()));
        words.push("--pdeathsig=KILL".to_string());
        if let Some(user) = self.user {
            words.push(format!("--reuid={} --regid={} --clear-groups --inh-caps=-all", user.uid, user.gid));
        }
        words.push("--".to_string());
        words.push(quote(&self.chromium.display().to_string()));
        format!("#!/bin/sh\nexec {} \"$@\"\n", words.join(" "))
    }

    fn write(&self) -> std::io::Result<tempfile::TempDir> {
        let dir = tempfile::Builder::new().prefix("svc-launcher-").tempdir()?;
        let path = dir.path().join("chromium");
        let mut file = std::fs::File::create(&path)?;
        file.write_all(self.script().as_bytes())?;
        file.set_permissions(std::fs::Permissions::from_mode(0o700))?;
        Ok(dir)
    }
}

/// `text` as one shell word.
fn quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_is_one_shell_word() {
        assert_eq!(quote("/usr/lib/chromium/chromium"), "'/usr/lib/chromium/chromium'");
        assert_eq!(quote("/opt/it's here/chrome"), r"'/opt/it'\''s here/chrome'");
    }

    #[test]
    fn the_wrapper_clears_the_environment_and_runs_the_browser_as_the_user() {
        let user = BrowserUser { name: "nobody".into(), uid: 65534, gid: 65534 };
        let kept = [("LANG".to_string(), "fr_FR.UTF-8".to_string()), ("TZ".to_string(), "Europe/Paris".to_string())];
        let wrapper = Wrapper {
            env: Path::new("/usr/bin/env"),
            setpriv: Path::new("/usr/bin/setpriv"),
            user: Some(&user),
            kept: &kept,
            chromium: Path::new("/opt/chrome"),
        };
        let dir = wrapper.write().unwrap();
        let script = std::fs::read_to_string(dir.path().join("chromium")).unwrap();
        assert_eq!(
            script,
            "#!/bin/sh\nexec '/usr/bin/env' -i PATH=/usr/local/bin:/usr/bin:/bin HOME=\"$HOME\" \
             XDG_CONFIG_HOME=\"$XDG_CONFIG_HOME\" XDG_CACHE_HOME=\"$XDG_CACHE_HOME\" LANG='fr_FR.UTF-8' \
             TZ='Europe/Paris' '/usr/bin/setpriv' --pdeathsig=KILL --reuid=65534 --regid=65534 --clear-groups \
             --inh-caps=-all -- '/opt/chrome' \"$@\"\n"
        );
        let mode = std::fs::metadata(dir.path().join("chromium")).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
        let as_svc = Wrapper { user: None, kept: &[], ..wrapper };
        assert!(
            as_svc.script().contains("'/usr/bin/setpriv' --pdeathsig=KILL -- '/opt/chrome'"),
            "{}",
            as_svc.script()
        );
    }

    /// The script, run by a shell, gives its program only what it keeps.
    #[test]
    fn the_wrapped_program_sees_only_the_kept_variables() {
        let (Some(env), Some(setpriv)) = (find_tool("env"), find_tool("setpriv")) else {
            panic!("env and setpriv are part of every Debian system");
        };
        let kept = [("TZ".to_string(), "Asia/Tokyo".to_string())];
        let wrapper = Wrapper { env: &env, setpriv: &setpriv, user: None, kept: &kept, chromium: &env };
        let dir = wrapper.write().unwrap();
        let out = std::process::Command::new(dir.path().join("chromium"))
            .env("SVC_JWT_SECRET", "canary-7f3a")
            .env("HOME", "/tmp/profile")
            .env("XDG_CONFIG_HOME", "/tmp/profile")
            .env("XDG_CACHE_HOME", "/tmp/profile")
            .output()
            .unwrap();
        let seen = String::from_utf8(out.stdout).unwrap();
        let mut names: Vec<&str> = seen.lines().filter_map(|l| l.split_once('=').map(|(k, _)| k)).collect();
        names.sort();
        assert_eq!(names, ["HOME", "PATH", "TZ", "XDG_CACHE_HOME", "XDG_CONFIG_HOME"], "{seen}");
        assert!(seen.contains("TZ=Asia/Tokyo\n") && seen.contains("HOME=/tmp/profile\n"), "{seen}");
        assert!(!seen.contains("canary-7f3a"));
    }

    #[test]
    fn a_refusal_says_how_to_fix_it_and_a_later_start_clears_it() {
        let launcher =
            Launcher::plain("/bin/false".into(), Some("SVC_BROWSER_USER is root".into()), Default::default());
        assert!(launcher.with_sandbox());
        assert_eq!(launcher.state(), BrowserSandbox::On);
        let message = launcher.refused("No usable sandbox!");
        assert!(message.contains("No usable sandbox!") && message.contains("SVC_BROWSER_SANDBOX=off"), "{message}");
        assert!(message.contains("Chromium runs as root: SVC_BROWSER_USER is root."), "{message}");
        assert_eq!(launcher.state(), BrowserSandbox::Unavailable(message));
        launcher.started();
        assert_eq!(launcher.state(), BrowserSandbox::On);
    }

    #[test]
    fn off_is_off_from_the_start() {
        let launcher = Launcher::plain("/bin/false".into(), None, SandboxSetting::Off);
        assert!(!launcher.with_sandbox());
        assert_eq!(launcher.state(), BrowserSandbox::Off);
        launcher.started();
        assert_eq!(launcher.state(), BrowserSandbox::Off);
    }
}
