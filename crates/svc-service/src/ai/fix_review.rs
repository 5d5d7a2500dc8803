//! The owner's side of AI Fix. A script a model wrote is approved by a
//! person before it runs unconfined or with a site login:
//! - a repair promoted on a scrap without a site login is the scrap's
//!   script at once, but waits for approval (`ScriptVersion::awaits_approval`)
//!   and, until then, its runs are held to the scrap's site (`runs::execute`);
//! - a repair of a scrap with a site login is only proposed
//!   (`FixProposal`): the owner reads the diff and approves it (it becomes
//!   an approved version) or dismisses it.
//!
//! Deciding is a scrap write, so web sessions only.

use chrono::Utc;
use svc_domain::activity::Activity;
use svc_domain::scope::Scope;
use svc_domain::script_version::{FixProposal, ProposalState, ScriptVersion};
use svc_domain::{ObjectId, ScrapId};
use svc_storage::{Decided, ProposalDecision};

use crate::accounts::audit::AuditAction;
use crate::ai::tasks::AiService;
use crate::scraps::authorize_scrap;
use crate::{Principal, Result, ServiceError, Session};

/// Pending proposals a review lists (a newer one supersedes the older, so
/// there is rarely more than one).
const LISTED: i64 = 10;

/// What waits for a scrap's owner.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AwaitingApproval {
    /// The scrap's current script, when AI Fix wrote it and no one has
    /// approved it yet, with the script it replaced.
    pub version: Option<WaitingVersion>,
    /// Proposed repairs, newest first.
    pub proposals: Vec<FixProposal>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct WaitingVersion {
    pub version: ScriptVersion,
    /// The version before it, when there is one.
    pub previous: Option<ScriptVersion>,
}

impl AwaitingApproval {
    pub fn is_empty(&self) -> bool {
        self.version.is_none() && self.proposals.is_empty()
    }
    /// How many decisions wait.
    pub fn count(&self) -> usize {
        usize::from(self.version.is_some()) + self.proposals.len()
    }
}

fn log(session: &Session, scrap: ScrapId, kind: &str, message: String) -> Activity {
    Activity::new(session.org(), scrap, kind, Principal::Session(session.clone()).actor(), message)
}

impl AiService {
    /// What of AI Fix waits for the scrap's owner.
    pub async fn awaiting_approval(&self, principal: &Principal, scrap: ScrapId) -> Result<AwaitingApproval> {
        principal.require(&[Scope::ScrapsRead])?;
        authorize_scrap(&*self.store, principal, scrap).await?;
        let org = principal.org();
        let (newest, proposals) = tokio::try_join!(
            self.store.script_versions(org, scrap, 0, 2),
            self.store.fix_proposals(org, scrap, true, LISTED),
        )?;
        let mut newest = newest.items.into_iter();
        let version = match newest.next() {
            Some(version) if version.awaits_approval() => Some(WaitingVersion { version, previous: newest.next() }),
            _ => None,
        };
        Ok(AwaitingApproval { version, proposals })
    }

    /// Approves the `ai_fix` version `version`: runs of it are no longer
    /// held to the scrap's site.
    pub async fn approve_version(&self, session: &Session, scrap: ScrapId, version: ObjectId) -> Result<ScriptVersion> {
        session.require(&[Scope::ScrapsWrite])?;
        let org = session.org();
        let found = self.store.script_version(org, scrap, version).await?.ok_or(ServiceError::NotFound("version"))?;
        if !found.awaits_approval() {
            return Err(ServiceError::Conflict {
                code: "NOT_AWAITING_APPROVAL",
                message: format!("version {} does not wait for approval", found.number),
            });
        }
        let entry = log(
            session,
            scrap,
            "fix.approved",
            format!("AI Fix's version {} approved: its runs are no longer held to the scrap's own site", found.number),
        );
        let decided = Decided { by: session.user(), at: Utc::now(), activity: &entry };
        let approved =
            self.store.approve_version(org, scrap, version, &decided).await?.ok_or_else(|| ServiceError::Conflict {
                code: "NOT_AWAITING_APPROVAL",
                message: format!("version {} was approved meanwhile", found.number),
            })?;
        let detail = format!("version {} of scrap {scrap}", approved.number);
        self.audit.record(session, AuditAction::FixApproved { version: approved.id }, Some(detail)).await;
        Ok(approved)
    }

    /// Makes the proposed repair the scrap's script, as an approved version.
    pub async fn approve_proposal(
        &self,
        session: &Session,
        scrap: ScrapId,
        proposal: ObjectId,
    ) -> Result<ScriptVersion> {
        session.require(&[Scope::ScrapsWrite])?;
        let entry = log(
            session,
            scrap,
            "fix.approved",
            "AI Fix's proposed repair approved: it is the scrap's script now".to_string(),
        );
        let decided = Decided { by: session.user(), at: Utc::now(), activity: &entry };
        match self.store.approve_proposal(session.org(), scrap, proposal, &decided).await? {
            None => Err(ServiceError::NotFound("proposal")),
            Some(ProposalDecision::Done { version: Some(v) }) => {
                let detail = format!("proposed repair {proposal} of scrap {scrap}, now version {}", v.number);
                self.audit.record(session, AuditAction::FixApproved { version: v.id }, Some(detail)).await;
                Ok(v)
            }
            Some(ProposalDecision::Done { version: None }) => {
                Err(ServiceError::Internal("an approved proposal made no version".into()))
            }
            Some(ProposalDecision::AlreadyDecided(state)) => Err(already(state)),
            Some(ProposalDecision::ScriptChanged) => Err(ServiceError::Conflict {
                code: "SCRIPT_CHANGED",
                message: "the scrap's script was changed since AI Fix proposed this repair; dismiss it, or run the \
                          scrap again for a new one"
                    .into(),
            }),
        }
    }

    /// Turns the proposed repair down; the scrap's script stays as it is.
    pub async fn dismiss_proposal(&self, session: &Session, scrap: ScrapId, proposal: ObjectId) -> Result<()> {
        session.require(&[Scope::ScrapsWrite])?;
        let entry = log(
            session,
            scrap,
            "fix.dismissed",
            "AI Fix's proposed repair dismissed: the script stays as it was".to_string(),
        );
        let decided = Decided { by: session.user(), at: Utc::now(), activity: &entry };
        match self.store.dismiss_proposal(session.org(), scrap, proposal, &decided).await? {
            None => Err(ServiceError::NotFound("proposal")),
            Some(ProposalDecision::AlreadyDecided(state)) => Err(already(state)),
            Some(_) => Ok(()),
        }
    }
}

fn already(state: ProposalState) -> ServiceError {
    ServiceError::Conflict { code: "ALREADY_DECIDED", message: format!("this proposal was {} already", state.as_str()) }
}
