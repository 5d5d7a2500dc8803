//! Tasks and script versions as both engines return them.

use svc_domain::script_version::{FixProposal, ProposalState, ScriptVersion, VersionSource};
use svc_domain::task::{Task, TaskKind, TaskState};

use crate::StoreError;
use crate::records::{id, json, opt_time, time};

fn corrupt(what: &str, value: &str) -> StoreError {
    StoreError::Corrupt(format!("{what} `{value}`"))
}

crate::from_row::from_row! {
pub(crate) struct TaskRow {
    id: String,
    organization_id: String,
    user_id: Option<String>,
    kind: String,
    state: String,
    input: String,
    result: Option<String>,
    error: Option<String>,
    scrap_id: Option<String>,
    history_id: Option<String>,
    attempts: i64,
    lease_until: Option<i64>,
    created_at: i64,
    finished_at: Option<i64>,
}
}

impl TryFrom<TaskRow> for Task {
    type Error = StoreError;
    fn try_from(r: TaskRow) -> Result<Self, StoreError> {
        Ok(Task {
            id: id(&r.id)?,
            organization_id: id(&r.organization_id)?,
            user_id: r.user_id.as_deref().map(id).transpose()?,
            kind: TaskKind::parse(&r.kind).ok_or_else(|| corrupt("task kind", &r.kind))?,
            state: TaskState::parse(&r.state).ok_or_else(|| corrupt("task state", &r.state))?,
            input: json(&r.input)?,
            result: r.result.as_deref().map(json).transpose()?,
            error: r.error,
            scrap_id: r.scrap_id.as_deref().map(id).transpose()?,
            history_id: r.history_id.as_deref().map(id).transpose()?,
            attempts: r.attempts,
            lease_until: opt_time(r.lease_until)?,
            created_at: time(r.created_at)?,
            finished_at: opt_time(r.finished_at)?,
        })
    }
}

crate::from_row::from_row! {
pub(crate) struct VersionRow {
    id: String,
    organization_id: String,
    scrap_id: String,
    number: i64,
    request: String,
    source: String,
    history_id: Option<String>,
    restored_from: Option<String>,
    created_at: i64,
    approved_at: Option<i64>,
    approved_by: Option<String>,
}
}

impl TryFrom<VersionRow> for ScriptVersion {
    type Error = StoreError;
    fn try_from(r: VersionRow) -> Result<Self, StoreError> {
        Ok(ScriptVersion {
            id: id(&r.id)?,
            organization_id: id(&r.organization_id)?,
            scrap_id: id(&r.scrap_id)?,
            number: r.number,
            request: r.request,
            source: VersionSource::parse(&r.source).ok_or_else(|| corrupt("version source", &r.source))?,
            history_id: r.history_id.as_deref().map(id).transpose()?,
            restored_from: r.restored_from.as_deref().map(id).transpose()?,
            created_at: time(r.created_at)?,
            approved_at: opt_time(r.approved_at)?,
            approved_by: r.approved_by.as_deref().map(id).transpose()?,
        })
    }
}

crate::from_row::from_row! {
pub(crate) struct ProposalRow {
    id: String,
    organization_id: String,
    scrap_id: String,
    task_id: String,
    history_id: String,
    base_request: String,
    request: String,
    length: i64,
    state: String,
    created_at: i64,
    decided_at: Option<i64>,
    decided_by: Option<String>,
    version_id: Option<String>,
}
}

impl TryFrom<ProposalRow> for FixProposal {
    type Error = StoreError;
    fn try_from(r: ProposalRow) -> Result<Self, StoreError> {
        Ok(FixProposal {
            id: id(&r.id)?,
            organization_id: id(&r.organization_id)?,
            scrap_id: id(&r.scrap_id)?,
            task_id: id(&r.task_id)?,
            history_id: id(&r.history_id)?,
            base_request: r.base_request,
            request: r.request,
            length: r.length,
            state: ProposalState::parse(&r.state).ok_or_else(|| corrupt("proposal state", &r.state))?,
            created_at: time(r.created_at)?,
            decided_at: opt_time(r.decided_at)?,
            decided_by: r.decided_by.as_deref().map(id).transpose()?,
            version_id: r.version_id.as_deref().map(id).transpose()?,
        })
    }
}
