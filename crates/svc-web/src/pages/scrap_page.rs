//! `/scraps/:id`: a scrap, the data of its latest successful run, Run now
//! (live in `app.js`; without the script, `POST /scraps/:id/run`), its runs
//! and its activity log; `POST /scraps/:id/delete`.

use std::sync::Arc;

use askama::Template;
use axum::extract::{Query, State};
use axum::response::{IntoResponse, Redirect, Response};
use chrono::{DateTime, Utc};
use serde::Deserialize;
use svc_domain::email::{EmailKind, EmailState};
use svc_domain::history::HistoryRow;
use svc_domain::{HistoryId, ScrapId};
use svc_service::Services;
use svc_service::ai::fix_review::AwaitingApproval;
use svc_service::paging::PageRequest;
use svc_service::runs::Trigger;

use crate::chrome::Chrome;
use crate::page_error::PageError;
use crate::pages::auth::Nothing;
use crate::pages::pager::Pager;
use crate::pages::render;
use crate::path_id::PathId;
use crate::present::data_table::DataTable;
use crate::present::run_chart::{self, CHART_RUNS, ChartRun};
use crate::present::run_status::{self, Chip};
use crate::present::when::{Moment, duration_ms, moment, moment_in};
use crate::present::{activity, schedule_words};
use crate::signed_in::{SignedForm, SignedIn};
use svc_service::outbox::feeds::FeedAddress;

/// How many items of the latest data the scrap page shows.
pub const LATEST_ROWS: usize = 100;
const RUNS_PER_PAGE: i64 = 20;
const LOG_PER_PAGE: i64 = 20;

#[derive(Deserialize)]
pub(crate) struct ScrapParams {
    /// Page of the run history.
    #[serde(default)]
    runs: Option<String>,
    /// Page of the activity log.
    #[serde(default)]
    log: Option<String>,
    /// A run just started by the form (without the script).
    #[serde(default)]
    started: Option<String>,
    /// `rotated`: the feed's address was just replaced.
    #[serde(default)]
    feed: Option<String>,
    /// `set` or `removed`: the banner just changed.
    #[serde(default)]
    banner: Option<String>,
}

/// A run in a list.
pub(crate) struct RunRow {
    pub id: String,
    pub href: String,
    pub chip: Chip,
    pub items: Option<i64>,
    pub duration: Option<String>,
    pub trigger: &'static str,
    pub when: Moment,
    /// AI Fix amended the run.
    pub repaired: bool,
}

impl RunRow {
    pub fn of(row: &HistoryRow, now: DateTime<Utc>) -> RunRow {
        RunRow {
            id: row.id.to_string(),
            href: row.scrap_id.map(|s| run_href(s, row.id)).unwrap_or_default(),
            chip: run_status::chip(row.status_detail),
            items: row.status_detail.map(|_| row.length),
            duration: row.time_ms.map(duration_ms),
            trigger: run_status::trigger(row.triggered_by),
            when: moment(row.created_at, now),
            repaired: row.fixed_at.is_some(),
        }
    }
}

pub(crate) fn run_href(scrap: ScrapId, run: HistoryId) -> String {
    format!("/scraps/{scrap}/history/{run}")
}

/// An entry of the activity log.
struct LogRow {
    when: Moment,
    /// The tag of AI Fix's and the versions' entries.
    tag: Option<Chip>,
    message: String,
    actor: String,
    run_href: Option<String>,
    /// The entry made a new version of the script.
    versions_href: Option<String>,
    /// The entry asks for a decision (AI Fix's proposal).
    review_href: Option<String>,
}

/// The latest successful run and its data.
struct Latest {
    href: String,
    when: Moment,
    table: Result<DataTable, String>,
}

#[derive(Template)]
#[template(path = "scrap.html")]
struct ScrapPage {
    chrome: Chrome,
    id: String,
    title: String,
    url: String,
    /// The URL is http(s) and may be a link.
    url_is_link: bool,
    description: String,
    schedule: String,
    next_run: Option<Moment>,
    created: Moment,
    updated: Moment,
    latest: Option<Latest>,
    runs: Vec<RunRow>,
    runs_total: i64,
    runs_pager: Pager,
    log: Vec<LogRow>,
    log_total: i64,
    log_pager: Pager,
    /// The run started by the form, to watch.
    started: Option<String>,
    /// The newest emails of the scrap (result emails, alerts).
    emails: Vec<EmailRow>,
    /// What of AI Fix waits for a person's approval.
    awaiting: AwaitingApproval,
    /// The feed of what changed between successful runs.
    feed: FeedAddress,
    /// Its address was just replaced.
    feed_rotated: bool,
    /// The chart of the last runs (inline SVG) and its text alternative.
    chart: Option<(String, String)>,
    /// The path of the scrap's banner image, when svc serves one.
    banner: Option<String>,
    /// `set`, `removed` or empty: what just happened to the banner.
    banner_notice: &'static str,
}

/// One email of the scrap as the page lists it.
pub(crate) struct EmailRow {
    pub kind: &'static str,
    pub to: String,
    pub subject: String,
    /// CSS chip modifier and words: sent, queued (retrying), failed.
    pub chip: (&'static str, &'static str),
    pub attempts: i64,
    pub error: Option<String>,
    pub when: Moment,
    pub run_href: Option<String>,
}

/// How many of a scrap's emails the page lists.
const EMAILS_SHOWN: i64 = 10;

fn page_number(raw: Option<&str>) -> i64 {
    raw.and_then(|p| p.trim().parse::<i64>().ok()).filter(|p| *p >= 1).unwrap_or(1)
}

fn page_link(id: &str, runs: i64, log: i64, anchor: &str) -> String {
    format!("/scraps/{id}?runs={runs}&log={log}#{anchor}")
}

pub(crate) async fn page(
    State(services): State<Arc<Services>>,
    user: SignedIn,
    PathId(id): PathId<ScrapId>,
    Query(params): Query<ScrapParams>,
) -> Result<Response, PageError> {
    let principal = user.principal();
    let scrap = services.scraps.get(&principal, id).await?;
    let (runs_page, log_page) = (page_number(params.runs.as_deref()), page_number(params.log.as_deref()));
    let runs_request = PageRequest::new(Some(runs_page), Some(RUNS_PER_PAGE)).unwrap_or_default();
    let log_request = PageRequest::new(Some(log_page), Some(LOG_PER_PAGE)).unwrap_or_default();
    let runs = services.history.list(&principal, Some(id), runs_request).await?;
    let log = services.scraps.activities(&principal, id, log_request).await?;
    let latest = services.history.last_success(&principal, id).await?;
    let emails = services.scraps.emails(&user.session, id, EMAILS_SHOWN).await?;
    let awaiting = services.ai.awaiting_approval(&principal, id).await?;
    let feed = services.feeds.address_of(&user.session, id).await?;
    let recent = services
        .history
        .list(&principal, Some(id), PageRequest::new(Some(1), Some(CHART_RUNS as i64)).unwrap_or_default())
        .await?;

    let now = Utc::now();
    let tz = scrap.cron_timezone.parse().unwrap_or(chrono_tz::UTC);
    let next_run = svc_service::schedule::cron::next_fire_of(scrap.cron.as_deref(), &scrap.cron_timezone, now)
        .map(|t| moment_in(t, now, tz));
    let latest = latest.map(|view| {
        let row = view.row;
        let href = run_href(id, row.id);
        let table = DataTable::from_json(&row.data, LATEST_ROWS)
            .map(|t| t.with_caption("Latest data").with_more(href.clone(), "See every item of this run"))
            .map_err(|e| e.to_string());
        Latest { href, when: moment(row.finished_at.unwrap_or(row.created_at), now), table }
    });
    let me = user.user.id.to_string();
    let log_rows = log
        .items
        .iter()
        .map(|a| LogRow {
            when: moment(a.created_at, now),
            tag: activity::tag(&a.kind),
            message: a.message.clone(),
            actor: activity::by(&a.kind, &a.actor, &me),
            run_href: a.history_id.map(|h| run_href(id, h)),
            versions_href: activity::made_a_version(&a.kind).then(|| format!("/scraps/{id}/versions")),
            review_href: activity::asks_for_approval(&a.kind).then(|| format!("/scraps/{id}/ai-fix")),
        })
        .collect();
    let emails = emails
        .into_iter()
        .map(|r| EmailRow {
            kind: match r.email.kind {
                EmailKind::Result => "Result",
                EmailKind::Alert => "Alert",
                EmailKind::Recovered => "Recovered",
                EmailKind::Digest => "Digest",
                EmailKind::Announcement => "Announcement",
                EmailKind::FixProposed => "AI Fix proposal",
                EmailKind::Invite => "Invitation",
                EmailKind::Confirmation => "Recipient confirmation",
            },
            to: svc_domain::channel::shown(&r.email.to),
            subject: r.email.subject,
            chip: match (r.state, r.attempts) {
                (EmailState::Sent, _) => ("success", "Sent"),
                (EmailState::Failed, _) => ("error", "Failed"),
                (EmailState::Queued, 0) => ("pending", "Queued"),
                (EmailState::Queued, _) => ("regression", "Retrying"),
            },
            attempts: r.attempts,
            error: r.last_error,
            when: moment(r.sent_at.unwrap_or(r.email.created_at), now),
            run_href: r.email.history_id.map(|h| run_href(id, h)),
        })
        .collect();
    let chart_runs = chart_runs(recent.items.iter().map(|v| &v.row));
    let chart = run_chart::svg(&chart_runs, "run-chart").map(|svg| (svg, run_chart::summary(&chart_runs)));
    let sid = id.to_string();
    let runs_pager = Pager::new(runs_page, RUNS_PER_PAGE, runs.total, |p| page_link(&sid, p, log_page, "run-history"))
        .labelled("Pages of the run history");
    let log_pager = Pager::new(log_page, LOG_PER_PAGE, log.total, |p| page_link(&sid, runs_page, p, "activity"))
        .labelled("Pages of the activity log");
    let url_is_link = url::Url::parse(&scrap.url).is_ok_and(|u| matches!(u.scheme(), "http" | "https"));
    let started = params.started.as_deref().and_then(HistoryId::parse).map(|h| h.to_string());
    render(&ScrapPage {
        chrome: user.chrome(scrap.title.clone(), "scraps"),
        id: sid,
        schedule: schedule_words::describe(scrap.cron.as_deref(), &scrap.cron_timezone),
        next_run,
        created: moment(scrap.created_at, now),
        updated: moment(scrap.updated_at, now),
        latest,
        runs: runs.items.iter().map(|v| RunRow::of(&v.row, now)).collect(),
        runs_total: runs.total,
        runs_pager,
        log: log_rows,
        log_total: log.total,
        log_pager,
        started,
        emails,
        awaiting,
        feed,
        feed_rotated: params.feed.as_deref() == Some("rotated"),
        chart,
        banner: crate::present::banner::shown(&scrap.banner),
        banner_notice: match params.banner.as_deref() {
            Some("set") => "set",
            Some("removed") => "removed",
            _ => "",
        },
        url_is_link,
        title: scrap.title,
        url: scrap.url,
        description: scrap.description,
    })
}

/// The finished runs among `newest_first`, oldest first, as the chart
/// shows them.
fn chart_runs<'a>(newest_first: impl Iterator<Item = &'a HistoryRow>) -> Vec<ChartRun> {
    let mut runs: Vec<ChartRun> = newest_first
        .filter(|row| row.status_detail.is_some())
        .map(|row| ChartRun {
            when: row.created_at.format("%Y-%m-%d %H:%M UTC").to_string(),
            items: row.length,
            duration_ms: row.time_ms,
            failed: row.status() == Some(false),
            outcome: run_status::chip(row.status_detail).label.to_string(),
        })
        .collect();
    runs.reverse();
    runs
}

/// Run now without the script: trigger, then back to the scrap page.
pub(crate) async fn run(
    State(services): State<Arc<Services>>,
    id: Result<PathId<ScrapId>, PageError>,
    SignedForm { user, .. }: SignedForm<Nothing>,
) -> Result<Response, PageError> {
    // The id is read after the session and CSRF checks of the form.
    let PathId(id) = id?;
    let row = services.runs.trigger(&user.principal(), Trigger::Worker, id, None).await?;
    Ok(Redirect::to(&format!("/scraps/{id}?started={}#run-history", row.id)).into_response())
}

/// Deletes the scrap, then to the list with a notice.
pub(crate) async fn delete(
    State(services): State<Arc<Services>>,
    id: Result<PathId<ScrapId>, PageError>,
    SignedForm { user, .. }: SignedForm<Nothing>,
) -> Result<Response, PageError> {
    // The id is read after the session and CSRF checks of the form.
    let PathId(id) = id?;
    services.scraps.delete(&user.session, id).await?;
    Ok(Redirect::to("/?deleted=1").into_response())
}
