//! One sandbox process as the engine holds it: its channel, and its end.
//! Dropping a [`Process`] kills it (`SIGKILL`) at once and has the keeper
//! thread reap it, so that no process outlives its use and none is left a
//! zombie. [`Process::serve`] is the engine's side of one run's
//! conversation (`protocol`).

use std::io;
use std::os::unix::net::UnixStream;
use std::process::Child;
use std::sync::atomic::AtomicU64;
use std::time::Instant;

use svc_domain::OrgId;

use super::protocol::{self, FROM_CHILD_MAX, FromChild, RunDone, RunOrder, RunRef, ToChild};
use crate::fetch::Fetcher;
use crate::script_network::ScriptResponse;

pub struct Process {
    child: Option<Child>,
    /// Non-blocking; `None` only while a run has it.
    channel: Option<UnixStream>,
    pub started: Instant,
    /// Runs served.
    pub runs: u32,
    /// The organization whose runs it serves, from its first run on (it
    /// never serves another's).
    pub organization: Option<OrgId>,
}

/// Why a run in a process has no outcome.
#[derive(Debug)]
pub enum Lost {
    /// The run was not handed over (the process had died): another process may take it.
    NotSent(io::Error),
    /// The process failed during the run (died, or said what it may not).
    Failed(String),
}

impl Process {
    pub fn new(child: Child, channel: UnixStream) -> Process {
        Process { child: Some(child), channel: Some(channel), started: Instant::now(), runs: 0, organization: None }
    }

    pub fn pid(&self) -> u32 {
        self.child.as_ref().map(Child::id).unwrap_or(0)
    }

    /// Runs `order` in the process: answers its `fetch` requests with
    /// `fetcher` (their bytes counted in `received`, each within the time
    /// left before `deadline`) until it is done. The caller bounds the
    /// whole with the run's timeout, and drops the process if it ends
    /// without an outcome.
    pub async fn serve(
        &mut self,
        order: &RunOrder,
        fetcher: &Fetcher,
        received: &AtomicU64,
        deadline: Instant,
    ) -> Result<RunDone, Lost> {
        let channel = self.channel.take().ok_or_else(|| Lost::Failed("the process has no channel".into()))?;
        let mut stream = tokio::net::UnixStream::from_std(channel).map_err(|e| Lost::Failed(e.to_string()))?;
        self.runs += 1;
        let outcome = talk(&mut stream, order, fetcher, received, deadline).await;
        if outcome.is_ok() {
            self.channel = stream.into_std().ok();
        }
        outcome
    }

    /// Why the process failed a run, for the run's error: its exit status
    /// when it ends within a moment (its channel closes before the kernel
    /// has its status).
    pub async fn ending(&mut self) -> String {
        let Some(child) = self.child.as_mut() else { return "the sandbox process is gone".into() };
        for _ in 0..20 {
            if let Ok(Some(status)) = child.try_wait() {
                return format!("the sandbox process ended ({status})");
            }
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
        "the sandbox process stopped answering".into()
    }
}

async fn talk(
    stream: &mut tokio::net::UnixStream,
    order: &RunOrder,
    fetcher: &Fetcher,
    received: &AtomicU64,
    deadline: Instant,
) -> Result<RunDone, Lost> {
    // `order` is serialized from the engine's copy: the page stays here for a killed run's snapshot.
    protocol::send(stream, &RunRef::Run(order)).await.map_err(Lost::NotSent)?;
    loop {
        let message = protocol::receive::<FromChild>(stream, FROM_CHILD_MAX).await;
        match message.map_err(|e| Lost::Failed(e.to_string()))? {
            FromChild::Done(done) => return Ok(done),
            FromChild::Fetch { request } => {
                let remaining = deadline.saturating_duration_since(Instant::now());
                let answer = if remaining.is_zero() {
                    Err("the run's time is up".to_string())
                } else {
                    match tokio::time::timeout(remaining, fetcher.script_fetch(&request, received)).await {
                        Ok(Ok(response)) => Ok(ScriptResponse::from(response)),
                        Ok(Err(e)) => Err(e.to_string()),
                        Err(_) => Err("the run's time is up".to_string()),
                    }
                };
                let sent = protocol::send(stream, &ToChild::FetchAnswer { answer }).await;
                sent.map_err(|e| Lost::Failed(e.to_string()))?;
            }
            FromChild::Ready => return Err(Lost::Failed("the sandbox process said `Ready` during a run".into())),
        }
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            super::keeper::reap(child);
        }
    }
}
