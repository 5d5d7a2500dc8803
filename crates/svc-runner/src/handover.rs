//! The warm-page protocol as one type: [`Handover`], how a page is handed
//! from one run of its scrap to the next (page_hold.rs describes the
//! phases; docs/decisions.md, "Warm pages", why each step is there).
//!
//! A page's [`Phase`] is shared by the runs in the page and its request
//! guard (chromium.rs, `GuardTask`), and only the [`Handover`] writes it:
//! every change is one of the [`Step`]s of [`Phase::after`], taken under
//! the phase's lock, and a step the phase does not allow is refused and
//! leaves it as it was. The guard's steps ([`Handover::answered`],
//! [`Handover::hold`], [`Handover::unheld`]) are refused whenever the
//! event is not the one the page waits for (a later document's answer, an
//! iframe's hold), and the guard then treats the request as any other.
//! The run's steps are taken where the protocol says the phase allows
//! them; were one refused all the same, the run treats it as a clearing
//! that failed: the page serves no other run.
//!
//! The steps that let the requests waiting for a held document's
//! clearings go, or refuse them ([`Handover::release`], [`Handover::end`],
//! [`Handover::settle`]), tell the guard so through `releases` after the
//! phase has moved: the guard judges those requests by the new phase.
//!
//! A page's round:
//!
//! ```text
//! Running --park--> Ending --blanked--> Parked --answered--> Navigating --hold--> Held --release(Ok)--> Running
//! ```
//!
//! (`park`: the run is over and its document is being ended with
//! `about:blank`; `blanked`: it is.) Around it: a document whose hold
//! script cannot make its request ends the page (`unheld`: Navigating ->
//! Ending), so do failed clearings (`release(Err)`: Held -> Ending), an
//! answer without a document (`end`) and a navigation that held no document
//! (`settle`); a page whose unheld document was ended runs again (`run`:
//! Ending -> Running).

use std::fmt;
use std::sync::Mutex;

use tokio::sync::mpsc::UnboundedSender;

/// Where a warm page is between two runs (page_hold.rs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// A run, or a page that was never parked.
    Running,
    /// Showing `about:blank` since the last run's document was ended; the
    /// next document's answer is awaited.
    Parked,
    /// The new document answered and is not yet held: the old document's
    /// unload handlers may run now. Nothing but the main document loads
    /// yet: what the new document's preload scanner asks for waits for the
    /// clearings (`page_hold::waits_for_the_hold`), the rest is refused.
    Navigating,
    /// The new document is held while the run clears: what its preload
    /// scanner asks for waits, the rest is refused.
    Held,
    /// The last run's document is being ended with `about:blank`, or the
    /// clearings failed: nothing loads, not even a document.
    Ending,
}

impl Phase {
    /// The phase `step` leads to from this one, or `None` when this phase
    /// does not allow it. The protocol's whole table.
    pub fn after(self, step: Step) -> Option<Phase> {
        use Phase::*;
        match (step, self) {
            (Step::Park, Running) => Some(Ending),
            (Step::Blanked, Ending) => Some(Parked),
            (Step::Answered, Parked) => Some(Navigating),
            (Step::Hold, Navigating) => Some(Held),
            (Step::Unheld, Navigating) => Some(Ending),
            (Step::Cleared, Held) => Some(Running),
            (Step::NotCleared, Held) => Some(Ending),
            (Step::End, _) => Some(Ending),
            (Step::Settle, Running) => Some(Running),
            (Step::Settle, _) => Some(Ending),
            (Step::Run, Running | Ending) => Some(Running),
            _ => None,
        }
    }

    /// Whether the page waits for its next document, or that document
    /// commits and is held (the unload handlers of the document it
    /// replaces may run then): only the next main document may load.
    pub fn unloading(self) -> bool {
        matches!(self, Phase::Parked | Phase::Navigating | Phase::Held)
    }

    /// Whether what the next document's preload scanner asks for waits
    /// for the clearings, rather than being judged at once: while that
    /// document commits and is held.
    pub fn preloads_wait(self) -> bool {
        matches!(self, Phase::Navigating | Phase::Held)
    }
}

/// A change of phase, named for what makes it (who takes it, in brackets).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// (Run) The run is over: its document is ended with `about:blank`.
    /// Running -> Ending.
    Park,
    /// (Run) `about:blank` shows: the page waits for its next run.
    /// Ending -> Parked.
    Blanked,
    /// (Guard) The main frame's next document answered (not a redirect,
    /// nor an answer without a document). Parked -> Navigating.
    Answered,
    /// (Guard) That document's hold request came. Navigating -> Held.
    Hold,
    /// (Guard) That document's hold script could not make its request.
    /// Navigating -> Ending.
    Unheld,
    /// (Run) The held document's clearings are done. Held -> Running.
    Cleared,
    /// (Run) They failed. Held -> Ending.
    NotCleared,
    /// (Run) Nothing more of the page goes (the answer had no document):
    /// any phase -> Ending.
    End,
    /// (Run) The navigation is over: a page whose document was held and
    /// cleared runs on; any other phase (no document was held) -> Ending.
    Settle,
    /// (Run) The page is clean and runs the script: Running (its
    /// document cleared) or Ending (its unheld document ended) -> Running.
    Run,
}

/// A step the page's phase did not allow: the phase is unchanged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Refused {
    pub step: Step,
    pub phase: Phase,
}

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the warm-page step {:?} is not allowed in phase {:?}", self.step, self.phase)
    }
}

/// A page's phase and every change of it (see the module's text).
#[derive(Debug)]
pub struct Handover {
    phase: Mutex<Phase>,
}

impl Default for Handover {
    fn default() -> Handover {
        Handover::new()
    }
}

impl Handover {
    /// A new page's: `Running` (it has never been parked).
    pub fn new() -> Handover {
        Handover { phase: Mutex::new(Phase::Running) }
    }

    pub fn phase(&self) -> Phase {
        *self.phase.lock().expect("phase lock")
    }

    /// The one place the phase is written: `step` if the phase allows it,
    /// handing back the phase it was taken from.
    fn take(&self, step: Step) -> Result<Phase, Refused> {
        let mut phase = self.phase.lock().expect("phase lock");
        let from = *phase;
        *phase = from.after(step).ok_or(Refused { step, phase: from })?;
        Ok(from)
    }

    // The run's steps.

    /// The run is over and its document is about to be ended (chromium.rs,
    /// `empty`): `Running -> Ending`.
    pub fn park(&self) -> Result<(), Refused> {
        self.take(Step::Park).map(drop)
    }

    /// The last run's document was ended with `about:blank`: `Ending -> Parked`.
    pub fn blanked(&self) -> Result<(), Refused> {
        self.take(Step::Blanked).map(drop)
    }

    /// A held document's clearings are over, as `cleared` says: `Held ->
    /// Running`, or `Ending` if they failed; then the requests that waited
    /// for them go, or are refused (`releases`). Hands back `cleared`, or
    /// the refusal when the page was not held (the waiting requests are
    /// refused then).
    pub fn release(&self, cleared: Result<(), String>, releases: &UnboundedSender<bool>) -> Result<(), String> {
        let step = if cleared.is_ok() { Step::Cleared } else { Step::NotCleared };
        let released = self.take(step);
        let cleared = cleared.and(released.map(drop).map_err(|refused| refused.to_string()));
        let _ = releases.send(cleared.is_ok());
        cleared
    }

    /// Nothing more of the page goes, whatever its phase: `-> Ending`, and
    /// what waited for clearings is refused.
    pub fn end(&self, releases: &UnboundedSender<bool>) {
        let _ = self.take(Step::End);
        let _ = releases.send(false);
    }

    /// The run's navigation is over: whether its document was held (and
    /// cleared: the page is `Running`). If not, `-> Ending` (the old
    /// document may run again while it is ended: nothing it asks for goes)
    /// and what waited for clearings is refused.
    pub fn settle(&self, releases: &UnboundedSender<bool>) -> bool {
        let held = self.take(Step::Settle) == Ok(Phase::Running);
        if !held {
            let _ = releases.send(false);
        }
        held
    }

    /// The page is clean and the run reads it: `Running | Ending -> Running`.
    pub fn run(&self) -> Result<(), Refused> {
        self.take(Step::Run).map(drop)
    }

    // The request guard's steps: `false` when the page does not wait for this event.

    /// The main frame's next document answered: `Parked -> Navigating`.
    pub fn answered(&self) -> bool {
        self.take(Step::Answered).is_ok()
    }

    /// The main frame's document asked for its hold: `Navigating -> Held`.
    pub fn hold(&self) -> bool {
        self.take(Step::Hold).is_ok()
    }

    /// The main frame's document could not be held: `Navigating -> Ending`.
    pub fn unheld(&self) -> bool {
        self.take(Step::Unheld).is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Phase::*;

    const PHASES: [Phase; 5] = [Running, Parked, Navigating, Held, Ending];
    const STEPS: [Step; 10] = [
        Step::Park,
        Step::Blanked,
        Step::Answered,
        Step::Hold,
        Step::Unheld,
        Step::Cleared,
        Step::NotCleared,
        Step::End,
        Step::Settle,
        Step::Run,
    ];

    /// A run's page parked: its document ended, `about:blank` showing.
    fn parked(page: &Handover) {
        page.park().unwrap();
        page.blanked().unwrap();
    }

    /// A page in `phase` (reached through the protocol's own steps).
    fn page_in(phase: Phase) -> Handover {
        let page = Handover::new();
        let (releases, _) = tokio::sync::mpsc::unbounded_channel();
        match phase {
            Running => {}
            Parked => parked(&page),
            Navigating => {
                parked(&page);
                assert!(page.answered());
            }
            Held => {
                parked(&page);
                assert!(page.answered() && page.hold());
            }
            Ending => page.end(&releases),
        }
        assert_eq!(page.phase(), phase);
        page
    }

    #[test]
    fn the_table_allows_these_steps_and_no_other() {
        let allowed = [
            (Step::Park, Running, Ending),
            (Step::Blanked, Ending, Parked),
            (Step::Answered, Parked, Navigating),
            (Step::Hold, Navigating, Held),
            (Step::Unheld, Navigating, Ending),
            (Step::Cleared, Held, Running),
            (Step::NotCleared, Held, Ending),
            (Step::Settle, Running, Running),
            (Step::Run, Running, Running),
            (Step::Run, Ending, Running),
        ];
        for step in STEPS {
            for phase in PHASES {
                let expected = match step {
                    Step::End => Some(Ending),
                    Step::Settle if phase != Running => Some(Ending),
                    _ => allowed.iter().find(|(s, from, _)| *s == step && *from == phase).map(|(_, _, to)| *to),
                };
                assert_eq!(phase.after(step), expected, "{step:?} from {phase:?}");
            }
        }
    }

    #[test]
    fn a_refused_step_leaves_the_phase_as_it_was() {
        for step in STEPS {
            for phase in PHASES {
                if phase.after(step).is_some() {
                    continue;
                }
                let page = page_in(phase);
                assert_eq!(page.take(step), Err(Refused { step, phase }), "{step:?} from {phase:?}");
                assert_eq!(page.phase(), phase, "{step:?} from {phase:?}");
            }
        }
    }

    #[test]
    fn a_held_round_returns_to_running() {
        let (releases, mut released) = tokio::sync::mpsc::unbounded_channel();
        let page = Handover::new();
        page.park().unwrap();
        assert_eq!(page.phase(), Ending, "nothing loads while the document is ended");
        assert!(!page.answered(), "not even a document");
        page.blanked().unwrap();
        assert_eq!(page.phase(), Parked, "parked once about:blank shows");
        assert!(page.answered());
        assert!(!page.answered(), "a second answer (a later document) is not the one awaited");
        assert!(page.hold());
        assert!(!page.hold(), "one hold per round");
        assert_eq!(page.release(Ok(()), &releases), Ok(()));
        assert_eq!(released.try_recv(), Ok(true), "what waited goes");
        assert_eq!(page.phase(), Running);
        assert!(page.settle(&releases), "held");
        assert!(released.try_recv().is_err(), "nothing more to release");
        page.run().unwrap();
        assert_eq!(page.phase(), Running);
    }

    #[test]
    fn failed_clearings_end_the_page_and_refuse_what_waited() {
        let (releases, mut released) = tokio::sync::mpsc::unbounded_channel();
        let page = page_in(Held);
        assert_eq!(page.release(Err("clearing storage: gone".into()), &releases), Err("clearing storage: gone".into()));
        assert_eq!(released.try_recv(), Ok(false));
        assert_eq!(page.phase(), Ending);
        assert!(!page.settle(&releases));
        assert_eq!(released.try_recv(), Ok(false));
        assert_eq!(page.phase(), Ending);
    }

    #[test]
    fn a_release_of_a_page_not_held_is_refused_and_refuses_what_waited() {
        let (releases, mut released) = tokio::sync::mpsc::unbounded_channel();
        for phase in [Running, Parked, Navigating, Ending] {
            let page = page_in(phase);
            let refused = page.release(Ok(()), &releases).unwrap_err();
            assert!(refused.contains("Cleared") && refused.contains(&format!("{phase:?}")), "{refused}");
            assert_eq!(released.try_recv(), Ok(false), "{phase:?}");
            assert_eq!(page.phase(), phase);
        }
    }

    #[test]
    fn only_a_page_being_ended_is_blanked() {
        for phase in [Running, Parked, Navigating, Held] {
            assert_eq!(page_in(phase).blanked(), Err(Refused { step: Step::Blanked, phase }));
        }
    }

    #[test]
    fn a_document_that_could_not_be_held_ends_the_page() {
        let (releases, mut released) = tokio::sync::mpsc::unbounded_channel();
        let page = page_in(Navigating);
        assert!(page.unheld());
        assert_eq!(page.phase(), Ending);
        assert!(!page.hold(), "its hold, should it come, is not the one awaited");
        assert!(!page.unheld());
        assert!(!page.settle(&releases));
        assert_eq!(released.try_recv(), Ok(false));
    }

    #[test]
    fn a_navigation_that_held_nothing_ends_the_page_until_its_document_is_ended() {
        let (releases, mut released) = tokio::sync::mpsc::unbounded_channel();
        for phase in [Parked, Navigating, Held] {
            let page = page_in(phase);
            assert!(!page.settle(&releases), "{phase:?}");
            assert_eq!(released.try_recv(), Ok(false));
            assert_eq!(page.phase(), Ending);
            page.run().unwrap();
            assert_eq!(page.phase(), Running, "the ended page runs");
        }
    }

    #[test]
    fn an_answer_without_a_document_ends_the_page_from_any_phase() {
        let (releases, mut released) = tokio::sync::mpsc::unbounded_channel();
        for phase in PHASES {
            let page = page_in(phase);
            page.end(&releases);
            assert_eq!(page.phase(), Ending, "{phase:?}");
            assert_eq!(released.try_recv(), Ok(false));
        }
    }

    #[test]
    fn only_a_running_page_is_parked() {
        for phase in [Parked, Navigating, Held, Ending] {
            assert_eq!(page_in(phase).park(), Err(Refused { step: Step::Park, phase }));
        }
        assert_eq!(page_in(Navigating).run(), Err(Refused { step: Step::Run, phase: Navigating }));
        assert_eq!(page_in(Parked).run(), Err(Refused { step: Step::Run, phase: Parked }));
    }

    #[test]
    fn what_loads_in_each_phase() {
        assert!(!Running.unloading() && !Running.preloads_wait());
        assert!(Parked.unloading() && !Parked.preloads_wait(), "only the next main document");
        assert!(Navigating.unloading() && Navigating.preloads_wait());
        assert!(Held.unloading() && Held.preloads_wait());
        assert!(!Ending.unloading() && !Ending.preloads_wait(), "Ending refuses everything on its own");
    }
}
