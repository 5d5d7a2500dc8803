//! The work of the two authoring tasks: the wizard (what a page offers to
//! extract) and script generation (a script that works, validated by
//! running it). Each writes one history row of no scrap (`ai_wizard`,
//! `ai_generate`) with what it spent.

use std::time::Instant;

use chrono::Utc;
use serde_json::{Value, json};
use svc_domain::history::{DIRECT_TIER, HistoryRow, RunType, StatusDetail, TriggeredBy};
use svc_domain::scrap::{AUTO_SCRAPPER, DEFAULT_SCRAPPER, ParamSet, Scrap};
use svc_domain::task::{Task, TaskState};
use svc_domain::{HistoryId, ObjectId};

use crate::ai::model::Completion;
use crate::ai::model_answer::script_from;
use crate::ai::prompts::{self, Attempt, SNAPSHOT_BUDGET_TOKENS};
use crate::ai::spend::Spend;
use crate::ai::task_runner::{TaskContext, TaskOutcome};
use crate::scraps::input::check_request;
use crate::scraps::site_accounts::RunLogin;
use crate::{Result, ServiceError};
use svc_domain::history::short_error;
use svc_engine::{EngineReport, ScriptResult};
use svc_engine::{PageCapture, RunJob, Site};
use svc_page_snapshot::snapshot;

/// Model calls and page runs a generation may take.
pub const MAX_GENERATE_ATTEMPTS: usize = 3;
/// Model calls the wizard may take (an answer without a field list is asked again).
pub const MAX_WIZARD_ATTEMPTS: usize = 2;
/// Items of a generated script's data shown as its preview.
pub const PREVIEW_ITEMS: usize = 20;
/// The script that loads a page for the model: it returns nothing, the
/// engine hands back the page.
const PROBE: &str = "returnData([]);";

/// The script of a model's answer, or the failed attempt that an answer
/// without one is (its start shown back to the model).
fn candidate_script(content: &str) -> std::result::Result<String, Attempt> {
    script_from(content).ok_or_else(|| Attempt {
        script: content.chars().take(2_000).collect(),
        problem: "the answer held no script".into(),
    })
}

/// One attempt of a model at a script: the script of its `answer`, run by
/// `run`, with the answer and the page load counted in `spend`. The script
/// and what it returned, or the failed attempt (an answer without a script,
/// a script that could not run); the caller judges what it returned.
pub(crate) async fn try_candidate(
    answer: &Completion,
    spend: &mut Spend,
    run: impl AsyncFnOnce(&str) -> std::result::Result<EngineReport, String>,
) -> std::result::Result<(String, ScriptResult), Attempt> {
    spend.model_call(answer);
    let script = candidate_script(&answer.content)?;
    match run(&script).await {
        Ok(report) => {
            spend.page_load(&report);
            Ok((script, report.result))
        }
        Err(problem) => Err(Attempt { script, problem }),
    }
}

/// Runs `script` on `url` in a fresh context, as a run would.
pub(crate) async fn run_script(
    cx: &TaskContext<'_>,
    task: ObjectId,
    url: &str,
    script: &str,
    capture_page: PageCapture,
) -> std::result::Result<EngineReport, String> {
    let loads = check_request(script).map_err(|e| e.to_string())?;
    let job = RunJob {
        history_id: task.to_string(),
        url: url.to_string(),
        script: script.to_string(),
        param: None,
        params: vec![],
        triggered_by: TriggeredBy::User.as_str(),
        timeout: cx.run_timeout,
        loads,
        capture_page,
        tier: 0,
        // The wizard and generation load the page logged out.
        account: None,
        session: None,
        scrapper: DEFAULT_SCRAPPER.to_string(),
        reuse: None,
        confined_to: None,
        organization: None,
        page: svc_engine::PageInput::single(),
    };
    Ok(cx.engine.run(job).await)
}

/// Runs `script` as a run of `scrap` would (its URL and parameter sets,
/// `param` picked, on proxy `tier`, with its site login and saved session),
/// in a fresh context: AI Fix's shadow run. The session it ends with is
/// not kept.
pub(crate) async fn run_script_with(
    cx: &TaskContext<'_>,
    task: ObjectId,
    scrap: &Scrap,
    script: &str,
    param: Option<ParamSet>,
    tier: u8,
    login: &RunLogin,
) -> std::result::Result<EngineReport, String> {
    let loads = check_request(script).map_err(|e| e.to_string())?;
    let job = RunJob {
        history_id: task.to_string(),
        url: scrap.url.clone(),
        script: script.to_string(),
        param,
        params: scrap.params.clone(),
        triggered_by: TriggeredBy::Cron.as_str(),
        timeout: cx.run_timeout,
        loads,
        capture_page: PageCapture::Never,
        tier,
        account: login.account.clone(),
        session: login.session.clone(),
        // A shadow run runs where the scrap's runs run (`auto` ones in the
        // browser, which finds what static finds and more). Both engines
        // hold it to `confined_to`.
        scrapper: match scrap.scrapper.as_str() {
            AUTO_SCRAPPER => DEFAULT_SCRAPPER.to_string(),
            other => other.to_string(),
        },
        reuse: None,
        // The candidate is the model's, written under the page's influence:
        // it reaches the scrap's own site and nothing else, so that a page
        // that talked the model into sending `SVC.account` elsewhere fails.
        confined_to: Site::of_url(&scrap.url),
        organization: Some(scrap.organization_id),
        page: svc_engine::PageInput::single(),
    };
    Ok(cx.engine.run(job).await)
}

/// Loads `url` and outlines it for the model, keeping what matters to `terms`.
async fn page_outline(
    cx: &TaskContext<'_>,
    task: &Task,
    url: &str,
    terms: &str,
    spend: &mut Spend,
) -> std::result::Result<String, String> {
    let report = run_script(cx, task.id, url, PROBE, PageCapture::Always).await?;
    spend.page_load(&report);
    if let ScriptResult::Failed { message } = &report.result {
        return Err(format!("the page could not be loaded: {message}"));
    }
    let html = report.html.unwrap_or_default();
    Ok(snapshot(&html, terms, SNAPSHOT_BUDGET_TOKENS).text)
}

fn input_str<'a>(task: &'a Task, key: &str) -> Result<&'a str> {
    task.input[key].as_str().ok_or_else(|| ServiceError::Internal(format!("task {} has no `{key}`", task.id)))
}

/// The operation's own row: its outcome, data and spend.
fn ai_row(
    task: &Task,
    run_type: RunType,
    started: Instant,
    spend: &Spend,
    done: std::result::Result<(String, i64), String>,
) -> HistoryRow {
    let now = Utc::now();
    let (status, data, length, error) = match done {
        Ok((data, length)) => (StatusDetail::Success, data, length, None),
        Err(e) => (StatusDetail::Error, "[]".to_string(), 0, Some(short_error(&e))),
    };
    HistoryRow {
        id: HistoryId::new(),
        scrap_id: None,
        organization_id: task.organization_id,
        status_detail: Some(status),
        data,
        length,
        time_ms: Some(started.elapsed().as_millis() as i64),
        digest: None,
        triggered_by: TriggeredBy::User,
        run_type,
        proxy_tier: DIRECT_TIER.into(),
        costs: Some(spend.costs()),
        meter: Some(spend.meter()),
        fix_version_id: None,
        fixed_at: None,
        error_snapshot: None,
        retries: task.attempts - 1,
        error,
        created_at: task.created_at,
        finished_at: Some(now),
    }
}

fn outcome(row: HistoryRow, spend: Spend, result: Value, error: Option<String>) -> TaskOutcome {
    let mut result = result;
    result["historyId"] = json!(row.id.to_string());
    TaskOutcome {
        state: if error.is_none() { TaskState::Succeeded } else { TaskState::Failed },
        result: Some(result),
        error,
        row: Some(row),
        spend,
        activities: vec![],
        fix: None,
        proposal: None,
        emails: vec![],
    }
}

/// `POST /api/ai/wizard`: what can be extracted from the page.
pub(crate) async fn wizard(cx: &TaskContext<'_>, task: &Task) -> Result<TaskOutcome> {
    let started = Instant::now();
    let url = input_str(task, "url")?;
    let mut spend = Spend::new(&cx.model.pricing);
    let found = async {
        let outline = page_outline(cx, task, url, "", &mut spend).await?;
        let chat = prompts::wizard(url, &outline);
        let mut problem = String::new();
        for _ in 0..MAX_WIZARD_ATTEMPTS {
            let answer = cx.model.model.complete(&chat).await.map_err(|e| e.to_string())?;
            spend.model_call(&answer);
            match prompts::proposals_from(&answer.content) {
                Ok(fields) => return Ok(fields),
                Err(why) => problem = why,
            }
        }
        Err(format!("the model did not propose fields: {problem}"))
    }
    .await;
    Ok(match found {
        Ok(fields) => {
            let data = serde_json::to_string(&fields).expect("proposals serialize");
            let row = ai_row(task, RunType::AiWizard, started, &spend, Ok((data, fields.len() as i64)));
            outcome(row, spend, json!({ "fields": fields }), None)
        }
        Err(e) => {
            let row = ai_row(task, RunType::AiWizard, started, &spend, Err(e.clone()));
            outcome(row, spend, json!({ "fields": [] }), Some(e))
        }
    })
}

/// `POST /api/ai/generate`: a script for the description, validated by
/// running it; each failure goes back to the model with the next attempt.
pub(crate) async fn generate(cx: &TaskContext<'_>, task: &Task) -> Result<TaskOutcome> {
    let started = Instant::now();
    let url = input_str(task, "url")?;
    let description = input_str(task, "description")?;
    let fields: Vec<String> = task.input["fields"]
        .as_array()
        .map(|f| f.iter().filter_map(|v| v.as_str().map(str::to_string)).collect())
        .unwrap_or_default();
    let mut spend = Spend::new(&cx.model.pricing);
    let mut tried: Vec<Attempt> = Vec::new();
    let found = async {
        let terms = format!("{description} {}", fields.join(" "));
        let outline = page_outline(cx, task, url, &terms, &mut spend).await?;
        for _ in 0..MAX_GENERATE_ATTEMPTS {
            let chat = prompts::generate(url, description, &fields, &outline, &tried);
            let answer = cx.model.model.complete(&chat).await.map_err(|e| e.to_string())?;
            let run = async |script: &str| run_script(cx, task.id, url, script, PageCapture::Never).await;
            let (script, result) = match try_candidate(&answer, &mut spend, run).await {
                Ok(ran) => ran,
                Err(attempt) => {
                    tried.push(attempt);
                    continue;
                }
            };
            let problem = match result {
                ScriptResult::Failed { message } => message,
                ScriptResult::Data { json, length } => match prompts::check_generated(&json, length, &fields) {
                    Ok(()) => return Ok((script, json, length)),
                    Err(problem) => problem,
                },
            };
            tried.push(Attempt { script, problem });
        }
        let last = tried.last().map(|a| a.problem.clone()).unwrap_or_default();
        Err(format!("no working script after {MAX_GENERATE_ATTEMPTS} attempts; the last one: {last}"))
    }
    .await;
    let attempts = tried.len() + usize::from(found.is_ok());
    let failed: Vec<Value> = tried.iter().map(|a| json!({ "script": a.script, "problem": a.problem })).collect();
    Ok(match found {
        Ok((script, data, length)) => {
            let preview: Vec<Value> = serde_json::from_str::<Vec<Value>>(&data)
                .map(|items| items.into_iter().take(PREVIEW_ITEMS).collect())
                .unwrap_or_default();
            let row = ai_row(task, RunType::AiGenerate, started, &spend, Ok((data, length)));
            let result = json!({ "script": script, "preview": preview, "length": length, "attempts": attempts,
                                 "failedAttempts": failed });
            outcome(row, spend, result, None)
        }
        Err(e) => {
            let row = ai_row(task, RunType::AiGenerate, started, &spend, Err(e.clone()));
            outcome(row, spend, json!({ "attempts": attempts, "failedAttempts": failed }), Some(e))
        }
    })
}
