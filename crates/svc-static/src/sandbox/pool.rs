//! The engine's sandbox processes: spares started ahead, and processes kept
//! between runs of one organization.
//!
//! The tenancy rule: **a process never serves two organizations.** A spare
//! has served nobody; the first run that takes it binds it to that run's
//! organization (`Process::organization`), and it only ever goes back to
//! that organization's idle list. A run without an organization gets a
//! process of its own, never kept. With [`Reuse::Never`] no process is
//! kept after its run.
//!
//! Bounds: at most [`PoolConfig::max_idle`] idle processes in all (the least
//! recently used goes first), each kept [`PoolConfig::idle_for`] at most; a
//! process retires after [`PoolConfig::max_runs`] runs or
//! [`PoolConfig::max_age`] (so its CPU time stays far below its
//! `RLIMIT_CPU`: one thread, killed at each run's deadline).

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use svc_domain::OrgId;

use super::keeper::{self, Sweep};
use super::launch::Launch;
use super::process::Process;

/// Whether a process serves several runs (of one organization).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reuse {
    /// Kept for the next run of the organization it served.
    SameOrganization,
    /// One run per process.
    Never,
}

#[derive(Clone, Debug)]
pub struct PoolConfig {
    pub reuse: Reuse,
    /// Processes started ahead, for runs that find none of their organization idle.
    pub spares: usize,
    pub max_idle: usize,
    pub idle_for: Duration,
    pub max_runs: u32,
    pub max_age: Duration,
}

impl Default for PoolConfig {
    fn default() -> Self {
        PoolConfig {
            reuse: Reuse::SameOrganization,
            spares: 1,
            max_idle: 16,
            idle_for: Duration::from_secs(30),
            max_runs: 500,
            max_age: Duration::from_secs(300),
        }
    }
}

pub struct Pool {
    shared: Arc<Shared>,
}

struct Shared {
    launch: Arc<Launch>,
    config: PoolConfig,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    spares: Vec<Process>,
    /// Spares being started.
    starting: usize,
    /// Each bound to its organization; the least recently used first.
    idle: Vec<(Instant, Process)>,
}

impl Shared {
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn expired(&self, process: &Process) -> bool {
        process.runs >= self.config.max_runs || process.started.elapsed() >= self.config.max_age
    }
}

impl Sweep for Shared {
    fn sweep(&self) {
        let gone: Vec<(Instant, Process)>;
        let old_spares: Vec<Process>;
        {
            let mut state = self.state();
            let idle_for = self.config.idle_for;
            let (keep, drop): (Vec<_>, Vec<_>) = std::mem::take(&mut state.idle)
                .into_iter()
                .partition(|(since, p)| since.elapsed() < idle_for && !self.expired(p));
            state.idle = keep;
            gone = drop;
            let (keep, drop): (Vec<_>, Vec<_>) =
                std::mem::take(&mut state.spares).into_iter().partition(|p| !self.expired(p));
            state.spares = keep;
            old_spares = drop;
        }
        // Killed outside the lock.
        drop((gone, old_spares));
    }
}

impl Pool {
    pub fn new(launch: Launch, config: PoolConfig) -> Pool {
        let shared = Arc::new(Shared { launch: Arc::new(launch), config, state: Mutex::default() });
        let weak: std::sync::Weak<Shared> = Arc::downgrade(&shared);
        keeper::watch(weak);
        Pool { shared }
    }

    /// A process for a run of `organization`: its idle one, else a spare,
    /// else one started now.
    pub async fn take(&self, organization: Option<OrgId>) -> Result<Process, String> {
        let reuse = self.shared.config.reuse == Reuse::SameOrganization;
        {
            let mut state = self.shared.state();
            if reuse && organization.is_some() {
                let found = state.idle.iter().rposition(|(_, p)| p.organization == organization);
                if let Some(at) = found {
                    return Ok(state.idle.remove(at).1);
                }
            }
            if let Some(mut spare) = state.spares.pop() {
                drop(state);
                self.refill();
                spare.organization = organization;
                return Ok(spare);
            }
        }
        let (sender, started) = tokio::sync::oneshot::channel();
        keeper::start(self.shared.launch.clone(), move |process| {
            let _ = sender.send(process);
        });
        self.refill();
        let mut process = match started.await {
            Ok(Ok(process)) => process,
            Ok(Err(e)) => return Err(e.to_string()),
            Err(_) => return Err("the keeper thread is gone".into()),
        };
        process.organization = organization;
        Ok(process)
    }

    /// After a run that ended well: kept for its organization's next run, or ended.
    pub fn give_back(&self, process: Process) {
        let shared = &self.shared;
        if shared.config.reuse == Reuse::Never || process.organization.is_none() || shared.expired(&process) {
            return;
        }
        let evicted = {
            let mut state = shared.state();
            state.idle.push((Instant::now(), process));
            let over = state.idle.len().saturating_sub(shared.config.max_idle);
            state.idle.drain(..over).collect::<Vec<_>>()
        };
        drop(evicted);
    }

    /// Starts spares up to [`PoolConfig::spares`].
    fn refill(&self) {
        let mut state = self.shared.state();
        while state.spares.len() + state.starting < self.shared.config.spares {
            state.starting += 1;
            let weak = Arc::downgrade(&self.shared);
            keeper::start(self.shared.launch.clone(), move |started| {
                let Some(shared) = weak.upgrade() else { return };
                let mut state = shared.state();
                state.starting -= 1;
                match started {
                    Ok(process) => state.spares.push(process),
                    Err(e) => tracing::error!("cannot start a sandbox process for the static engine: {e}"),
                }
            });
        }
    }

    /// The processes waiting for a run (spares and idle ones), by pid.
    pub fn waiting(&self) -> Vec<u32> {
        let state = self.shared.state();
        state.spares.iter().map(Process::pid).chain(state.idle.iter().map(|(_, p)| p.pid())).collect()
    }
}
