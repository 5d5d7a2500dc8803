//! The scrap a trigger read, handed to this process's worker when it claims
//! the run soon after: the run's preparation then does not read the scrap a
//! second time (one statement of a run's six).
//!
//! Only a run claimed within [`FRESH`] of its trigger takes it (a run that
//! waited in the queue reads its scrap when claimed, as before), only for
//! the run, organization and scrap it was read for, and at most [`MAX`] are
//! held (a run claimed by another process leaves its entry behind: swept
//! when the map is full).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use svc_domain::{HistoryId, OrgId, ScrapId};
use svc_storage::RunScrap;

/// How old a trigger's read may be for a claim to use it.
pub(crate) const FRESH: Duration = Duration::from_millis(100);
/// Entries held at most.
const MAX: usize = 256;

#[derive(Default)]
pub(crate) struct Handover(Mutex<HashMap<HistoryId, (Instant, RunScrap)>>);

impl Handover {
    /// Keeps what the trigger of run `id` read.
    pub(crate) fn put(&self, id: HistoryId, run: RunScrap) {
        self.put_at(id, run, Instant::now());
    }

    /// What the trigger of run `id` read, if it is fresh and of `org`'s `scrap`.
    pub(crate) fn take(&self, id: HistoryId, org: OrgId, scrap: ScrapId) -> Option<RunScrap> {
        self.take_at(id, org, scrap, Instant::now())
    }

    fn put_at(&self, id: HistoryId, run: RunScrap, now: Instant) {
        let mut map = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if map.len() >= MAX {
            map.retain(|_, (at, _)| now.saturating_duration_since(*at) < FRESH);
        }
        if map.len() < MAX {
            map.insert(id, (now, run));
        }
    }

    fn take_at(&self, id: HistoryId, org: OrgId, scrap: ScrapId, now: Instant) -> Option<RunScrap> {
        let (at, run) = self.0.lock().unwrap_or_else(|e| e.into_inner()).remove(&id)?;
        let fresh = now.saturating_duration_since(at) < FRESH;
        (fresh && run.scrap.organization_id == org && run.scrap.id == scrap).then_some(run)
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.0.lock().unwrap().len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use svc_domain::plan::Plan;
    use svc_domain::scrap::Scrap;

    fn read_of(org: OrgId) -> RunScrap {
        let scrap = Scrap::new(
            org,
            svc_domain::UserId::new(),
            "s",
            "https://example.com/",
            "returnData([])",
            chrono::Utc::now(),
        );
        RunScrap {
            scrap,
            has_login: false,
            awaits_approval: false,
            has_webhooks: false,
            last_success_length: None,
            balance: 1,
            plan: Plan::Free,
        }
    }

    /// Puts a read of a new scrap of `org` for `run` at `t`: the scrap's id.
    fn put(handover: &Handover, org: OrgId, run: HistoryId, t: Instant) -> ScrapId {
        let read = read_of(org);
        let scrap = read.scrap.id;
        handover.put_at(run, read, t);
        scrap
    }

    #[test]
    fn a_read_serves_its_own_run_once_while_fresh() {
        let handover = Handover::default();
        let t = Instant::now();
        let (org, run) = (OrgId::new(), HistoryId::new());
        let scrap = put(&handover, org, run, t);
        assert!(handover.take_at(run, org, scrap, t + FRESH / 2).is_some());
        assert!(handover.take_at(run, org, scrap, t + FRESH / 2).is_none(), "taken once");
        let scrap = put(&handover, org, run, t);
        assert!(handover.take_at(run, org, scrap, t + FRESH).is_none(), "too old");
    }

    #[test]
    fn a_read_serves_no_other_organization_scrap_or_run() {
        let handover = Handover::default();
        let t = Instant::now();
        let (org, run) = (OrgId::new(), HistoryId::new());
        let scrap = put(&handover, org, run, t);
        assert!(handover.take_at(HistoryId::new(), org, scrap, t).is_none(), "another run");
        assert!(handover.take_at(run, OrgId::new(), scrap, t).is_none(), "another organization");
        put(&handover, org, run, t);
        assert!(handover.take_at(run, org, ScrapId::new(), t).is_none(), "another scrap");
    }

    #[test]
    fn reads_left_behind_are_bounded_and_swept_once_stale() {
        let handover = Handover::default();
        let t = Instant::now();
        let org = OrgId::new();
        for _ in 0..MAX + 10 {
            handover.put_at(HistoryId::new(), read_of(org), t);
        }
        assert_eq!(handover.len(), MAX);
        handover.put_at(HistoryId::new(), read_of(org), t + FRESH);
        assert_eq!(handover.len(), 1, "the stale ones swept");
    }
}
