//! The task runner: claims queued tasks under a lease and does them on this
//! process's browser and model (the AI wizard, script generation, AI Fix).
//! `try_step` does one task; `run` loops until shutdown.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use chrono::Utc;
use serde_json::Value;
use svc_domain::activity::Activity;
use svc_domain::history::HistoryRow;
use svc_domain::script_version::ScriptVersion;
use svc_domain::task::{Task, TaskKind, TaskState};
use svc_domain::webhook::Delivery;
use svc_storage::{AppliedFix, Store, TaskEnd, TaskFinish};

use crate::Result;
use crate::ai::attachments::{AttachedModel, Attachments};
use crate::ai::spend::Spend;
use crate::ai::{authoring, fix};
use crate::outbox::EmailSettings;
use crate::schedule::signals::RunSignals;
use svc_domain::email::Email;
use svc_engine::Engine;

/// How long a claim holds: longer than the longest task (3 model calls and
/// 3 page loads, each bounded by their timeouts).
pub const TASK_LEASE: Duration = Duration::from_secs(15 * 60);
/// Claims of a task before it is given up (its runner disappeared twice).
pub const MAX_TASK_ATTEMPTS: i64 = 2;
/// Tasks one process does at the same time.
pub const TASKS_IN_FLIGHT: usize = 2;
const LOST_TASK: &str = "the server working on this task stopped before finishing it";

/// What a task's work needs.
pub(crate) struct TaskContext<'a> {
    pub store: &'a dyn Store,
    pub engine: &'a dyn Engine,
    pub model: &'a AttachedModel,
    pub run_timeout: Duration,
    /// Whether email goes out, and the links it carries.
    pub email: &'a EmailSettings,
}

/// How a task's work ended, owned (the runner lends it to the store).
#[derive(Debug)]
pub(crate) struct TaskOutcome {
    pub state: TaskState,
    pub result: Option<Value>,
    pub error: Option<String>,
    pub row: Option<HistoryRow>,
    pub spend: Spend,
    pub activities: Vec<Activity>,
    pub fix: Option<FixWrite>,
    /// AI Fix on a scrap with a site login: the repair, proposed.
    pub proposal: Option<svc_domain::script_version::FixProposal>,
    /// Queued once the task is recorded (AI Fix's word to a scrap's owner).
    pub emails: Vec<Email>,
}

/// A repaired script to make current (see `svc_storage::AppliedFix`).
#[derive(Debug)]
pub(crate) struct FixWrite {
    pub scrap_id: svc_domain::ScrapId,
    pub replaced: String,
    pub version: ScriptVersion,
    pub row: HistoryRow,
    pub deliveries: Vec<Delivery>,
    /// What the task records instead when the script changed meanwhile.
    pub if_script_changed: Vec<Activity>,
}

pub struct TaskRunner {
    store: Arc<dyn Store>,
    attached: Arc<Attachments>,
    signals: Arc<RunSignals>,
    run_timeout: Duration,
    email: EmailSettings,
}

impl TaskRunner {
    pub(crate) fn new(
        store: Arc<dyn Store>,
        attached: Arc<Attachments>,
        signals: Arc<RunSignals>,
        run_timeout: Duration,
        email: EmailSettings,
    ) -> Self {
        TaskRunner { store, attached, signals, run_timeout, email }
    }

    /// Whether this process can do tasks: it has a browser and a model.
    pub fn ready(&self) -> bool {
        self.attached.engine().is_some() && self.attached.model().is_some()
    }

    /// Claims one task and does it. False when there was none (or this
    /// process has no browser or model).
    pub async fn try_step(&self) -> Result<bool> {
        let (Some(engine), Some(model)) = (self.attached.engine(), self.attached.model()) else { return Ok(false) };
        let now = Utc::now();
        let lease = now + chrono::Duration::from_std(TASK_LEASE).expect("lease fits");
        let Some(task) = self.store.claim_tasks(now, lease, MAX_TASK_ATTEMPTS, 1, LOST_TASK).await?.pop() else {
            return Ok(false);
        };
        let cx = TaskContext {
            store: &*self.store,
            engine: &**engine,
            model,
            run_timeout: self.run_timeout,
            email: &self.email,
        };
        let outcome = match task.kind {
            TaskKind::AiWizard => authoring::wizard(&cx, &task).await,
            TaskKind::AiGenerate => authoring::generate(&cx, &task).await,
            TaskKind::AiFix => fix::repair(&cx, &task).await,
        };
        let outcome = match outcome {
            Ok(outcome) => outcome,
            Err(e) => {
                tracing::error!(task = %task.id, error = %e, "task failed on an internal error");
                TaskOutcome {
                    state: TaskState::Failed,
                    result: None,
                    error: Some("internal error; the task was not done".into()),
                    row: None,
                    spend: Spend::new(&model.pricing),
                    activities: vec![],
                    fix: None,
                    proposal: None,
                    emails: vec![],
                }
            }
        };
        self.finish(&task, outcome).await?;
        Ok(true)
    }

    async fn finish(&self, task: &Task, outcome: TaskOutcome) -> Result<()> {
        let applied = outcome.fix.as_ref().map(|f| AppliedFix {
            scrap_id: f.scrap_id,
            replaced: &f.replaced,
            version: &f.version,
            row: &f.row,
            deliveries: &f.deliveries,
        });
        let end = TaskEnd {
            state: outcome.state,
            result: outcome.result.clone(),
            error: outcome.error.clone(),
            row: outcome.row.as_ref(),
            units: outcome.spend.units(),
            activities: &outcome.activities,
            fix: applied,
            proposal: outcome.proposal.as_ref(),
        };
        match self.store.finish_task(task, &end).await? {
            TaskFinish::Done { .. } => {
                if outcome.fix.as_ref().is_some_and(|f| !f.deliveries.is_empty()) {
                    self.signals.deliveries.notify_one();
                }
            }
            TaskFinish::ClaimLost => {
                tracing::warn!(task = %task.id, "task finished after its lease was lost; result dropped");
                return Ok(());
            }
            TaskFinish::ScriptChanged => {
                let fix = outcome.fix.as_ref().expect("only a fix can meet a changed script");
                let end = TaskEnd {
                    state: TaskState::Failed,
                    result: outcome.result.clone(),
                    error: Some(fix::SCRIPT_CHANGED.into()),
                    row: None,
                    units: outcome.spend.units(),
                    activities: &fix.if_script_changed,
                    fix: None,
                    proposal: None,
                };
                self.store.finish_task(task, &end).await?;
            }
        }
        if !outcome.emails.is_empty() {
            self.store.queue_emails(&outcome.emails, chrono::Utc::now()).await?;
            self.signals.emails.notify_one();
        }
        let _ = self.signals.task_finished.send(task.id);
        Ok(())
    }

    /// Does tasks as they are queued, [`TASKS_IN_FLIGHT`] at a time, until
    /// `shutdown` resolves; tasks under way are finished first.
    pub async fn run(self: Arc<Self>, shutdown: impl Future<Output = ()>) {
        let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
        let mut loops = tokio::task::JoinSet::new();
        for _ in 0..TASKS_IN_FLIGHT {
            let runner = self.clone();
            let stop = stop_rx.clone();
            loops.spawn(async move { runner.work(stop).await });
        }
        shutdown.await;
        let _ = stop_tx.send(true);
        while loops.join_next().await.is_some() {}
    }

    async fn work(&self, mut stop: tokio::sync::watch::Receiver<bool>) {
        let mut backoff = crate::schedule::backoff::Backoff::default();
        while !*stop.borrow() {
            let idle = match self.try_step().await {
                Ok(true) => {
                    backoff.succeeded();
                    continue;
                }
                Ok(false) => {
                    backoff.succeeded();
                    Duration::from_secs(5)
                }
                Err(e) => {
                    let delay = backoff.failed();
                    tracing::error!(error = %e, failures = backoff.failures(), retry_in_ms = delay.as_millis() as u64, "task runner step failed");
                    delay
                }
            };
            tokio::select! {
                _ = tokio::time::sleep(idle) => {}
                _ = self.signals.tasks.notified() => {}
                _ = stop.changed() => {}
            }
        }
    }
}
