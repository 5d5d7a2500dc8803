//! AI Fix: when a run of a scrap with `autoFix` ends `error`, `empty` or
//! `regression`, tell a blocked page from a broken script; for a broken
//! script, ask the model for a repair, shadow-run each candidate in a fresh
//! context, and promote the first that passes `fix_policy::judge_candidate`
//! as a new version of the scrap's script, amending the failed row.

use chrono::{DateTime, Utc};
use serde_json::{Value, json};
use svc_domain::activity::Activity;
use svc_domain::history::{HistoryRow, StatusDetail};
use svc_domain::scrap::{ParamSet, Scrap};
use svc_domain::script_version::{FixProposal, ProposalState, ScriptVersion, VersionSource};
use svc_domain::task::{Task, TaskKind, TaskState};
use svc_domain::{HistoryId, ObjectId, OrgId, ScrapId};
use svc_storage::{HistoryFilter, Store};

use crate::ai::attachments::Attachments;
use crate::ai::authoring::{run_script_with, try_candidate};
use crate::ai::fix_policy::{Diagnosis, diagnose, judge_candidate};
use crate::ai::prompts::{self, Attempt, FixContext, SNAPSHOT_BUDGET_TOKENS};
use crate::ai::spend::Spend;
use crate::ai::task_runner::{FixWrite, TaskContext, TaskOutcome};
use crate::outbox::deliveries::run_deliveries;
use crate::outbox::redact::KnownSecrets;
use crate::scraps::site_accounts::run_login;
use crate::{Result, ServiceError};
use svc_engine::ScriptResult;
use svc_page_snapshot::snapshot;

/// Repaired scripts tried per failed run.
pub const MAX_FIX_ATTEMPTS: usize = 3;
/// Default of `SVC_AI_FIX_DAILY`: AI Fix tasks per organization per UTC day.
pub const DEFAULT_FIX_DAILY: i64 = 20;
/// Successful runs whose item counts make the band a repair must fall in.
const RECENT_RUNS: i64 = 20;
pub(crate) const SCRIPT_CHANGED: &str =
    "the scrap's script was changed while AI Fix worked; the repair was not applied";

/// Midnight UTC of `now`'s day (the daily limit's window).
fn day_start(now: DateTime<Utc>) -> DateTime<Utc> {
    now.date_naive().and_hms_opt(0, 0, 0).expect("midnight exists").and_utc()
}

fn log(org: OrgId, scrap: ScrapId, row: HistoryId, kind: &str, message: String) -> Activity {
    let mut entry = Activity::new(org, scrap, kind, "system".into(), message);
    entry.history_id = Some(row);
    entry
}

/// A run as it was recorded, for AI Fix to judge.
pub(crate) struct RecordedRun<'a> {
    pub scrap: &'a Scrap,
    pub row: &'a HistoryRow,
    pub detail: StatusDetail,
    /// The main document's HTTP status, as the engine saw it.
    pub status: Option<i64>,
    /// The page's HTML, masked, when it was captured.
    pub html: Option<&'a str>,
    pub param: Option<&'a ParamSet>,
}

/// After a run was recorded: queues its repair when AI Fix applies, or
/// says in the activity log why not. At most `daily_limit` repairs a day.
pub(crate) async fn after_run(
    store: &dyn Store,
    attached: &Attachments,
    daily_limit: i64,
    run: RecordedRun<'_>,
) -> Result<bool> {
    let RecordedRun { scrap, row, detail, status, html, param } = run;
    if !scrap.auto_fix || detail == StatusDetail::Success {
        return Ok(false);
    }
    let org = scrap.organization_id;
    let skip = |why: String| log(org, scrap.id, row.id, "fix.skipped", format!("AI Fix skipped: {why}"));
    if attached.model().is_none() {
        store.log_activity(&skip("no AI provider is configured (SVC_AI_BASE_URL)".into())).await?;
        return Ok(false);
    }
    match diagnose(status, html, row.error.as_deref()) {
        Diagnosis::Blocked(why) => {
            let why = format!("the page looks blocked ({why}); blocked pages are not sent to the model");
            store.log_activity(&skip(why)).await?;
            return Ok(false);
        }
        Diagnosis::Unreachable(why) => {
            store.log_activity(&skip(format!("the page could not be loaded ({why})"))).await?;
            return Ok(false);
        }
        Diagnosis::Broken => {}
    }
    let now = Utc::now();
    if store.count_tasks(org, TaskKind::AiFix, day_start(now)).await? >= daily_limit {
        let why = format!("the organization's daily limit of {daily_limit} repairs is reached (SVC_AI_FIX_DAILY)");
        store.log_activity(&skip(why)).await?;
        return Ok(false);
    }
    let outline = snapshot(html.unwrap_or_default(), &scrap.request, SNAPSHOT_BUDGET_TOKENS).text;
    let input = json!({
        "url": scrap.url,
        "script": scrap.request,
        "outcome": detail.as_str(),
        "error": row.error,
        "length": row.length,
        "snapshot": outline,
        "param": param.map(|p| json!({"key": p.key, "value": p.value})),
    });
    let mut task = Task::queued(org, None, TaskKind::AiFix, input, now);
    task.scrap_id = Some(scrap.id);
    task.history_id = Some(row.id);
    store.insert_task(&task).await?;
    let started = log(
        org,
        scrap.id,
        row.id,
        "fix.started",
        format!("AI Fix is repairing the script (run ended {})", detail.as_str()),
    );
    store.log_activity(&started).await?;
    Ok(true)
}

/// What went wrong, and what it cost, as a failed fix records it.
fn failed(task: &Task, scrap: ScrapId, row: HistoryId, spend: Spend, why: String, tried: &[Attempt]) -> TaskOutcome {
    let message = format!("AI Fix failed: {why} ({})", spend.summary());
    TaskOutcome {
        state: TaskState::Failed,
        result: Some(json!({ "attempts": tried.len(), "failedAttempts": attempts_json(tried) })),
        error: Some(why),
        row: None,
        activities: vec![log(task.organization_id, scrap, row, "fix.failed", message)],
        spend,
        fix: None,
        proposal: None,
        emails: vec![],
    }
}

fn attempts_json(tried: &[Attempt]) -> Vec<Value> {
    tried.iter().map(|a| json!({ "script": a.script, "problem": a.problem })).collect()
}

fn input_param(task: &Task) -> Option<ParamSet> {
    let p = &task.input["param"];
    Some(ParamSet { key: p["key"].as_str()?.to_string(), value: p["value"].clone() })
}

/// The AI Fix task: repair, shadow-run, promote.
pub(crate) async fn repair(cx: &TaskContext<'_>, task: &Task) -> Result<TaskOutcome> {
    let org = task.organization_id;
    let (Some(scrap_id), Some(row_id)) = (task.scrap_id, task.history_id) else {
        return Err(ServiceError::Internal(format!("fix task {} names no run", task.id)));
    };
    let spend = Spend::new(&cx.model.pricing);
    let Some(scrap) = cx.store.scrap(org, scrap_id).await? else {
        return Ok(failed(task, scrap_id, row_id, spend, "the scrap was deleted".into(), &[]));
    };
    let old_script = task.input["script"].as_str().unwrap_or_default().to_string();
    if scrap.request != old_script {
        return Ok(failed(task, scrap_id, row_id, spend, "the script was changed since the run failed".into(), &[]));
    }
    let Some(row) = cx.store.history_row(org, row_id).await? else {
        return Ok(failed(task, scrap_id, row_id, spend, "the run was deleted".into(), &[]));
    };
    let recent = cx
        .store
        .list_history(org, &HistoryFilter { scrap: Some(scrap_id), only_scraps: None, offset: 0, limit: RECENT_RUNS })
        .await?;
    let good: Vec<&HistoryRow> =
        recent.items.iter().filter(|r| r.id != row_id && r.status_detail == Some(StatusDetail::Success)).collect();
    let good_lengths: Vec<i64> = good.iter().map(|r| r.length).collect();
    let last_good = good.first().map(|r| r.data.as_str());
    let ctx = FixContext {
        url: &scrap.url,
        script: &old_script,
        outcome: task.input["outcome"].as_str().unwrap_or("error"),
        error: task.input["error"].as_str(),
        length: task.input["length"].as_i64().unwrap_or(0),
        good_length: good.first().map(|r| r.length),
        last_good_sample: last_good,
        snapshot: task.input["snapshot"].as_str().unwrap_or_default(),
    };
    let param = input_param(task);
    // Shadow runs log in as the scrap's runs do; the login never reaches the
    // model: what it reads of their outcome is masked.
    let login = match run_login(cx.store, org, scrap_id).await? {
        Ok(login) => login,
        Err(why) => return Ok(failed(task, scrap_id, row_id, spend, why, &[])),
    };
    let secrets = KnownSecrets::of(login.account.as_ref());
    // The tier the failed run ended on: the repair is tried where the page loaded.
    let tier = crate::scraps::proxy_tiers::parse_tier(&row.proxy_tier).unwrap_or(0);
    let mut spend = spend;
    let mut tried: Vec<Attempt> = Vec::new();
    for _ in 0..MAX_FIX_ATTEMPTS {
        let answer = match cx.model.model.complete(&prompts::fix(&ctx, &tried)).await {
            Ok(answer) => answer,
            Err(e) => return Ok(failed(task, scrap_id, row_id, spend, e.to_string(), &tried)),
        };
        let run = async |script: &str| run_script_with(cx, task.id, &scrap, script, param.clone(), tier, &login).await;
        let (script, result) = match try_candidate(&answer, &mut spend, run).await {
            Ok(ran) => ran,
            Err(attempt) => {
                tried.push(attempt);
                continue;
            }
        };
        let problem = match result {
            ScriptResult::Failed { message } => secrets.text(&message),
            ScriptResult::Data { json, length } => match judge_candidate(&json, length, &good_lengths, last_good) {
                Ok(()) => {
                    let attempts = tried.len() + 1;
                    let json = secrets.data(&json);
                    let repair = Repair { script, data: json, length, attempts };
                    // A model's script is not run with a site login until a
                    // person has read it: with one, the repair waits.
                    if login.account.is_some() {
                        return propose(cx, task, &scrap, &row, repair, spend, &tried).await;
                    }
                    return promote(cx, task, &scrap, row, repair, spend, &tried).await;
                }
                Err(rejection) => secrets.text(&rejection.to_string()),
            },
        };
        tried.push(Attempt { script, problem });
    }
    let last = tried.last().map(|a| a.problem.clone()).unwrap_or_default();
    let why = format!("no repair passed after {MAX_FIX_ATTEMPTS} attempts; the last one: {last}");
    Ok(failed(task, scrap_id, row_id, spend, why, &tried))
}

/// A repaired script that passed, with what its shadow run returned.
struct Repair {
    script: String,
    /// The shadow run's data (JSON) and its item count.
    data: String,
    length: i64,
    /// Model answers it took.
    attempts: usize,
}

/// A repair that passed on a scrap with a site login: not applied. It
/// waits as a proposal for the owner to approve in the web app
/// (`fix_review`), and the owner (the scrap's alert address, else its
/// creator) is told by email and in the activity log.
async fn propose(
    cx: &TaskContext<'_>,
    task: &Task,
    scrap: &Scrap,
    failed_row: &HistoryRow,
    repair: Repair,
    spend: Spend,
    tried: &[Attempt],
) -> Result<TaskOutcome> {
    let Repair { script, length, attempts, .. } = repair;
    let proposal = FixProposal {
        id: ObjectId::new(),
        organization_id: scrap.organization_id,
        scrap_id: scrap.id,
        task_id: task.id,
        history_id: failed_row.id,
        base_request: failed_row_script(task),
        request: script.clone(),
        length,
        state: ProposalState::Pending,
        created_at: Utc::now(),
        decided_at: None,
        decided_by: None,
        version_id: None,
    };
    let site = svc_engine::Site::of_url(&scrap.url).map(|s| s.to_string()).unwrap_or_default();
    let plural = if attempts == 1 { "" } else { "s" };
    let message = format!(
        "AI Fix has a repair that waits for your approval: this scrap signs in to its site, so a script a model \
         wrote is not run with its login until a person has read it. Its trial run, held to {site}, found {length} \
         items after {attempts} attempt{plural} ({}). The proposed script:\n{script}",
        spend.summary()
    );
    let proposed = log(scrap.organization_id, scrap.id, failed_row.id, "fix.proposed", message);
    let mut emails = Vec::new();
    if cx.email.enabled {
        // The alert address when it may receive (confirmed recipients,
        // issue 37), else the scrap's creator while a member.
        let creator = cx.store.user(scrap.organization_id, scrap.user_id).await?.map(|u| u.email);
        let mut to = None;
        for candidate in [scrap.alert.clone(), creator].into_iter().flatten() {
            let reach = crate::outbox::recipients::reach(cx.store, scrap.organization_id, &candidate).await?;
            if reach == crate::outbox::recipients::Reach::Allowed {
                to = Some(candidate);
                break;
            }
        }
        if let Some(to) = to {
            emails.push(crate::outbox::email_compose::fix_proposed_email(
                scrap,
                failed_row,
                &to,
                &cx.email.public_url,
                Utc::now(),
            ));
        }
    }
    Ok(TaskOutcome {
        state: TaskState::Succeeded,
        result: Some(json!({
            "awaitingApproval": true,
            "proposalId": proposal.id.to_string(),
            "proposedScript": script,
            "historyId": failed_row.id.to_string(),
            "length": length,
            "attempts": attempts,
            "failedAttempts": attempts_json(tried),
        })),
        error: None,
        row: None,
        activities: vec![proposed],
        spend,
        fix: None,
        proposal: Some(proposal),
        emails,
    })
}

/// The write of a repair that passed: a new version, the amended row, its
/// `scrap.success` deliveries.
async fn promote(
    cx: &TaskContext<'_>,
    task: &Task,
    scrap: &Scrap,
    failed_row: HistoryRow,
    repair: Repair,
    spend: Spend,
    tried: &[Attempt],
) -> Result<TaskOutcome> {
    let Repair { script, data, length, attempts } = repair;
    let site = svc_engine::Site::of_url(&scrap.url).map(|s| s.to_string()).unwrap_or_default();
    let now = Utc::now();
    let version = ScriptVersion {
        id: ObjectId::new(),
        organization_id: scrap.organization_id,
        scrap_id: scrap.id,
        number: 0,
        request: script.clone(),
        source: VersionSource::AiFix,
        history_id: Some(failed_row.id),
        restored_from: None,
        created_at: now,
        // A model's script: its runs are held to the scrap's site until
        // its owner approves it (`fix_review`).
        approved_at: None,
        approved_by: None,
    };
    let mut row = failed_row.clone();
    let was = row.status_detail.map(|d| d.as_str()).unwrap_or("error");
    row.status_detail = Some(StatusDetail::Success);
    row.data = data;
    row.length = length;
    row.error = None;
    row.error_snapshot = None;
    row.fix_version_id = Some(version.id.to_string());
    row.fixed_at = Some(now);
    spend.add_fix_costs(&mut row.costs);
    spend.add_fix_meter(&mut row.meter);
    let deliveries = run_deliveries(cx.store, &row).await?;
    let plural = if attempts == 1 { "" } else { "s" };
    let fixed = log(
        scrap.organization_id,
        scrap.id,
        row.id,
        "script.fixed",
        format!(
            "AI Fix repaired the script after {attempts} attempt{plural}: the run that ended {was} now has {length} items \
             ({}). Until you approve it, its runs reach only {site}.",
            spend.summary()
        ),
    );
    let changed = log(
        scrap.organization_id,
        scrap.id,
        row.id,
        "fix.failed",
        format!("AI Fix failed: {SCRIPT_CHANGED} ({})", spend.summary()),
    );
    Ok(TaskOutcome {
        state: TaskState::Succeeded,
        result: Some(json!({
            "versionId": version.id.to_string(),
            "historyId": row.id.to_string(),
            "length": length,
            "attempts": attempts,
            "failedAttempts": attempts_json(tried),
        })),
        error: None,
        row: None,
        activities: vec![fixed],
        spend,
        emails: vec![],
        proposal: None,
        fix: Some(FixWrite {
            scrap_id: scrap.id,
            replaced: failed_row_script(task),
            version,
            row,
            deliveries,
            if_script_changed: vec![changed],
        }),
    })
}

fn failed_row_script(task: &Task) -> String {
    task.input["script"].as_str().unwrap_or_default().to_string()
}
