//! The static engine's untrusted half in child processes.
//!
//! The page is untrusted and the script is the user's; html5ever and
//! QuickJS (C) run them. A memory-safety bug there must not reach what svc
//! holds (the master key, the JWT secret, the database, every tenant's
//! data), so they run in sandbox processes: the engine fetches and decodes
//! the page in svc (`fetch.rs`, `decode.rs`), hands it, the wrapped script,
//! the limits and the time left to a process over a socket
//! ([`protocol`]), and answers the script's `fetch` requests itself (vetted
//! and metered there). The process ([`child`]) parses, runs the script and
//! answers the outcome.
//!
//! A sandbox process ([`launch`]): this program re-executed (`svc sandbox`,
//! or the pre-main hook in test and bench programs), with an empty
//! environment, only its channel as a descriptor, as the browser user
//! (`nobody`) when svc is root, with resource limits (address space, CPU
//! time, descriptors, no core dumps), killed when svc dies, and, after its
//! start-up, a seccomp filter ([`syscall_filter`]) that leaves it the
//! channel, memory and the clock. A run past its timeout (plus
//! [`GRACE`](crate::engine::GRACE)) is killed with `SIGKILL` and reaped: a
//! selector match in native code, which no interrupt stops, ends there.
//!
//! [`pool`] keeps spares started ahead and processes between runs of one
//! organization, never across two; [`keeper`] is the thread that starts and
//! reaps them.

pub mod child;
#[cfg(feature = "sandbox-hook")]
mod hook;
pub mod keeper;
pub mod launch;
pub mod pool;
#[cfg(feature = "sandbox-probes")]
pub mod probes;
pub mod process;
pub mod protocol;
pub mod syscall_filter;

pub use launch::{ProcessLimits, SandboxUser};
pub use pool::{PoolConfig, Reuse};

/// How the engine's sandbox processes run.
#[derive(Clone, Debug)]
pub struct SandboxConfig {
    /// Who they run as when svc is root (svc's browser user, `SVC_BROWSER_USER`).
    pub user: String,
    pub limits: ProcessLimits,
    pub pool: PoolConfig,
}

impl Default for SandboxConfig {
    fn default() -> Self {
        SandboxConfig { user: "nobody".into(), limits: ProcessLimits::default(), pool: PoolConfig::default() }
    }
}

/// `svc sandbox`: the sandbox process's main (see [`child`]).
pub fn main() -> std::process::ExitCode {
    std::process::ExitCode::from(child::serve())
}
