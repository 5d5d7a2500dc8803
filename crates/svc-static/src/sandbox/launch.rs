//! How a sandbox process is started: the program (this one, re-executed
//! through `/proc/self/exe` as `svc-static-sandbox sandbox`: `svc sandbox`
//! for the `svc` binary, the pre-main hook in test and bench programs), an
//! empty environment, `/` as its directory, /dev/null as its standard
//! streams and the channel as descriptor 3 and nothing else; the browser
//! user when svc runs as root; resource limits; and `SIGKILL` when its
//! parent dies. Then the child's start-up, up to its `Ready`.

use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

use super::child::CHANNEL_FD;
use super::process::Process;
use super::protocol::{self, FROM_CHILD_MAX, FromChild};

/// The `argv[0]` a sandbox process is started with (what the hook looks for).
pub const SANDBOX_ARGV0: &str = "svc-static-sandbox";
/// The subcommand of `svc` that runs the sandbox process.
pub const SANDBOX_COMMAND: &str = "sandbox";

/// How long a new process may take to say `Ready`.
const START_TIMEOUT: Duration = Duration::from_secs(30);

/// The unprivileged account sandbox processes run as when svc runs as root.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SandboxUser {
    pub uid: u32,
    pub gid: u32,
}

impl SandboxUser {
    /// `name` (svc's browser user, `nobody` by default) when this process
    /// is root; `None` when it is not (nothing to drop), or when `name` is
    /// `root` or unknown (logged: the seccomp filter and limits still hold).
    pub fn for_this_process(name: &str) -> Option<SandboxUser> {
        if !nix::unistd::geteuid().is_root() {
            return None;
        }
        match nix::unistd::User::from_name(name) {
            Ok(Some(user)) if !user.uid.is_root() => {
                Some(SandboxUser { uid: user.uid.as_raw(), gid: user.gid.as_raw() })
            }
            Ok(Some(_)) => {
                tracing::error!("user `{name}` is root: the static engine's sandbox processes run as root");
                None
            }
            Ok(None) => {
                tracing::error!("there is no user `{name}`: the static engine's sandbox processes run as root");
                None
            }
            Err(e) => {
                tracing::error!(
                    "cannot look up user `{name}` ({e}): the static engine's sandbox processes run as root"
                );
                None
            }
        }
    }
}

/// The resource limits of a sandbox process (`setrlimit`, soft and hard).
#[derive(Clone, Copy, Debug)]
pub struct ProcessLimits {
    /// Address space, bytes (the program's own mappings included).
    pub address_space: u64,
    /// CPU seconds over the process's life (the pool retires a process
    /// long before: see `pool.rs`).
    pub cpu_seconds: u64,
    /// Descriptors (the loader's, start-up's and the channel's).
    pub open_files: u64,
    /// The main thread's stack, bytes (QuickJS may use `ScriptLimits::stack` of it).
    pub stack: u64,
}

impl Default for ProcessLimits {
    fn default() -> Self {
        ProcessLimits {
            address_space: 2 * 1024 * 1024 * 1024,
            cpu_seconds: 900,
            open_files: 16,
            stack: 16 * 1024 * 1024,
        }
    }
}

/// What every sandbox process of an engine is started with.
#[derive(Clone, Debug)]
pub struct Launch {
    pub program: PathBuf,
    pub user: Option<SandboxUser>,
    pub limits: ProcessLimits,
}

impl Launch {
    /// This program, re-executed.
    pub fn this_program(user: Option<SandboxUser>, limits: ProcessLimits) -> Launch {
        let program = if std::path::Path::new("/proc/self/exe").exists() {
            PathBuf::from("/proc/self/exe")
        } else {
            std::env::current_exe().unwrap_or_else(|_| PathBuf::from("/proc/self/exe"))
        };
        Launch { program, user, limits }
    }

    /// Starts a process and waits for its `Ready` (blocking).
    pub fn start(&self) -> io::Result<Process> {
        let (ours, theirs) = UnixStream::pair()?;
        // The command holds the child's end: dropped once spawned, so that
        // a child that dies is seen at once (end of file).
        let mut child = self.command(theirs.into()).spawn()?;
        let ready = (|| {
            let mut channel = &ours;
            channel.set_read_timeout(Some(START_TIMEOUT))?;
            match protocol::read_message::<FromChild>(&mut channel, FROM_CHILD_MAX)? {
                FromChild::Ready => Ok(()),
                other => Err(io::Error::other(format!("it said {other:?} first"))),
            }
        })();
        if let Err(e) = ready {
            let _ = child.kill();
            let status = child.wait()?;
            return Err(io::Error::other(format!(
                "the static engine's sandbox process did not start ({e}; {status}): {} has no sandbox entry \
                 (`svc sandbox`, or svc-static's `sandbox-hook` feature in test and bench programs), or the \
                 system call filter could not be installed",
                self.program.display()
            )));
        }
        ours.set_nonblocking(true)?;
        Ok(Process::new(child, ours))
    }

    fn command(&self, channel: OwnedFd) -> Command {
        let mut command = Command::new(&self.program);
        command
            .arg0(SANDBOX_ARGV0)
            .arg(SANDBOX_COMMAND)
            .env_clear()
            .current_dir("/")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        if let Some(user) = self.user {
            command.uid(user.uid).gid(user.gid);
        }
        let parent = std::process::id() as libc::pid_t;
        let limits = self.limits;
        // SAFETY: between fork and exec the closure makes system calls only
        // (no allocation, no lock), as `pre_exec` requires; it runs after
        // std has set the user, so the parent-death signal survives it.
        unsafe {
            command.pre_exec(move || {
                prepare_child(parent, channel.as_raw_fd(), limits)?;
                Ok(())
            });
        }
        command
    }
}

fn check(rc: libc::c_int) -> io::Result<()> {
    if rc < 0 { Err(io::Error::last_os_error()) } else { Ok(()) }
}

/// How much nicer than svc a sandbox process runs. Scripts are the bulk of
/// the CPU a static run takes; svc's own threads (the API, the database's
/// writer, the scheduler) run in short bursts that the runs behind them
/// wait for. At the same priority a burst waited for a script's time slice:
/// with the sandbox processes 10 nicer, a static run end to end went +6 %
/// runs/s on 2 cores (median of seven alternations, docs/benchmarks.md). A
/// script still gets every cycle svc does not want.
pub const NICENESS: libc::c_int = 10;

/// In the child, between fork and exec: dies with its parent, the channel as
/// descriptor 3 and no other above the standard three, the limits, a
/// lower priority ([`NICENESS`]).
fn prepare_child(parent: libc::pid_t, channel: libc::c_int, limits: ProcessLimits) -> io::Result<()> {
    // SAFETY: plain system calls on this (single-threaded, forked) process.
    unsafe {
        check(libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong, 0, 0, 0))?;
        // The parent may have died before the signal was armed.
        if libc::getppid() != parent {
            return Err(io::Error::from_raw_os_error(libc::ESRCH));
        }
        if channel == CHANNEL_FD {
            check(libc::fcntl(channel, libc::F_SETFD, 0))?;
        } else {
            check(libc::dup2(channel, CHANNEL_FD))?;
        }
        // Every other descriptor is close-on-exec already (Rust opens them
        // so); this also closes what a library may have left inheritable.
        let first = (CHANNEL_FD + 1) as libc::c_uint;
        if libc::syscall(libc::SYS_close_range, first, libc::c_uint::MAX, 0) < 0 {
            for fd in first as libc::c_int..1024 {
                libc::close(fd);
            }
        }
        let set =
            |resource, value: u64| check(libc::setrlimit(resource, &libc::rlimit { rlim_cur: value, rlim_max: value }));
        set(libc::RLIMIT_CORE, 0)?;
        set(libc::RLIMIT_FSIZE, 0)?;
        set(libc::RLIMIT_NOFILE, limits.open_files)?;
        set(libc::RLIMIT_CPU, limits.cpu_seconds)?;
        set(libc::RLIMIT_STACK, limits.stack)?;
        set(libc::RLIMIT_AS, limits.address_space)?;
        // A raise of niceness is always allowed (capped at 19), so nothing
        // to check; -1 is also a valid answer.
        libc::nice(NICENESS);
    }
    Ok(())
}
