//! In-process signals between the services and the background loops (new
//! runs, tasks, deliveries and emails to wake them; finished runs and tasks
//! for the requests waiting on them), and how long a request may wait.
//! Other processes do not hear them and fall back to polling.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use svc_domain::history::{HistoryRow, MAX_RUN_WAIT_SECS};
use svc_domain::{HistoryId, ObjectId, OrgId};
use tokio::sync::{Notify, broadcast};

use crate::{Result, ServiceError};

/// The longest a trigger may wait for its run to finish (`wait`).
pub const MAX_WAIT: Duration = Duration::from_secs(MAX_RUN_WAIT_SECS);

/// A caller's `wait`, in whole seconds from 0 to [`MAX_WAIT`]; 0 means
/// answer at once with the pending run.
pub fn wait_from_secs(secs: u64) -> Result<Duration> {
    if secs > MAX_WAIT.as_secs() {
        return Err(wait_refused());
    }
    Ok(Duration::from_secs(secs))
}

/// The refusal of a `wait` that is not a whole number of seconds in range.
pub fn wait_refused() -> ServiceError {
    ServiceError::validation("wait", format!("must be an integer number of seconds from 0 to {}", MAX_WAIT.as_secs()))
}

/// In-process signals: new work for the embedded workers, finished runs for
/// callers waiting on them. Other processes fall back to polling.
pub struct RunSignals {
    pub queued: Notify,
    pub(crate) finished: broadcast::Sender<RunEnded>,
    /// Webhook deliveries were queued (wakes the dispatcher).
    pub deliveries: Arc<Notify>,
    /// Emails were queued (wakes the mailer).
    pub emails: Arc<Notify>,
    /// Tasks were queued (wakes the task runner).
    pub tasks: Arc<Notify>,
    /// Tasks finished, for callers waiting on them.
    pub(crate) task_finished: broadcast::Sender<ObjectId>,
    /// The runs callers of this process wait on, for the poll they share
    /// (`RunService::poll_watched`): runs a worker in another process
    /// finishes are read for all of them at once.
    pub(crate) watched: std::sync::Mutex<Watched>,
}

/// A run that finished, for the callers waiting on it: with its row as
/// stored when an in-process worker recorded it (the callers answer with it,
/// without reading it again), without when the shared poll found it.
#[derive(Clone, Debug)]
pub(crate) struct RunEnded {
    pub(crate) id: HistoryId,
    pub(crate) row: Option<Arc<HistoryRow>>,
}

/// See [`RunSignals::watched`].
#[derive(Default)]
pub(crate) struct Watched {
    /// Each run with its organization and how many callers wait on it.
    pub(crate) runs: HashMap<HistoryId, (OrgId, usize)>,
    /// When the last shared poll started.
    pub(crate) polled: Option<tokio::time::Instant>,
}

impl Default for RunSignals {
    fn default() -> Self {
        RunSignals {
            queued: Notify::new(),
            finished: broadcast::channel(1024).0,
            deliveries: Arc::new(Notify::new()),
            emails: Arc::new(Notify::new()),
            tasks: Arc::new(Notify::new()),
            task_finished: broadcast::channel(256).0,
            watched: std::sync::Mutex::default(),
        }
    }
}
