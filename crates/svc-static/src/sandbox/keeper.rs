//! The keeper: one thread per svc process, for its whole life, that starts
//! sandbox processes, reaps them, and sweeps the pools' idle ones.
//!
//! Why one long-lived thread: the kernel sends a child its parent-death
//! signal when the *thread* that forked it ends, not the process. Forked
//! from a thread that never ends, a sandbox process gets its `SIGKILL`
//! when svc dies, and only then. Starts are serialized (fork, exec, the
//! child's start-up up to `Ready`) and happen ahead of the runs that need
//! them (`pool.rs` keeps spares).

use std::process::Child;
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::sync::{Arc, OnceLock, Weak};
use std::time::{Duration, Instant};

use super::launch::Launch;
use super::process::Process;

/// How often the pools are swept of expired processes.
const SWEEP_EVERY: Duration = Duration::from_millis(500);

/// Something the keeper sweeps.
pub trait Sweep: Send + Sync {
    fn sweep(&self);
}

type Then = Box<dyn FnOnce(std::io::Result<Process>) + Send>;

enum Work {
    Start(Arc<Launch>, Then),
    Reap(Child),
    Watch(Weak<dyn Sweep>),
}

static KEEPER: OnceLock<Sender<Work>> = OnceLock::new();

fn keeper() -> &'static Sender<Work> {
    KEEPER.get_or_init(|| {
        let (sender, work) = mpsc::channel();
        std::thread::Builder::new()
            .name("svc-static-keeper".into())
            .spawn(move || keep(work))
            .expect("cannot start the static engine's keeper thread");
        sender
    })
}

fn keep(work: mpsc::Receiver<Work>) {
    let mut pools: Vec<Weak<dyn Sweep>> = Vec::new();
    let mut next_sweep = Instant::now() + SWEEP_EVERY;
    loop {
        match work.recv_timeout(next_sweep.saturating_duration_since(Instant::now())) {
            Ok(Work::Start(launch, then)) => then(launch.start()),
            Ok(Work::Reap(mut child)) => {
                let _ = child.kill();
                let _ = child.wait();
            }
            Ok(Work::Watch(pool)) => pools.push(pool),
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => return,
        }
        if Instant::now() >= next_sweep {
            pools.retain(|pool| pool.upgrade().map(|pool| pool.sweep()).is_some());
            next_sweep = Instant::now() + SWEEP_EVERY;
        }
    }
}

/// Starts a process with `launch` on the keeper thread, then calls `then` there.
pub fn start(launch: Arc<Launch>, then: impl FnOnce(std::io::Result<Process>) + Send + 'static) {
    let _ = keeper().send(Work::Start(launch, Box::new(then)));
}

/// Kills `child` (if it still runs) and waits for it, on the keeper thread.
pub fn reap(child: Child) {
    if let Err(mpsc::SendError(Work::Reap(mut child))) = keeper().send(Work::Reap(child)) {
        let _ = child.kill();
        let _ = child.wait();
    }
}

/// Sweeps `pool` every half second while it lives.
pub fn watch(pool: Weak<dyn Sweep>) {
    let _ = keeper().send(Work::Watch(pool));
}
