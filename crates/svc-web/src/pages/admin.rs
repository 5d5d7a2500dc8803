//! `/admin`: for platform admins only. The release announcement form (sent
//! through `AnnouncementService`, disabled with a note while email is off),
//! this server, the admin-only cost fields of the organization's latest
//! runs, and the operator commands.

use std::sync::Arc;

use askama::Template;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Redirect, Response};
use chrono::Utc;
use serde::Deserialize;
use svc_domain::costs::Costs;
use svc_domain::meter::Meter;
use svc_engine::BrowserSandbox;
use svc_service::Services;
use svc_service::outbox::announcements::Announcement;
use svc_service::paging::PageRequest;

use super::render;
use super::scrap_picker::{ScrapLink, ScrapTitles};
use crate::chrome::Chrome;
use crate::form_errors::FieldErrors;
use crate::page_error::PageError;
use crate::present::run_status::{self, Chip};
use crate::present::when::{Moment, moment};
use crate::signed_in::{SignedForm, SignedIn};

/// How many of the latest runs the page shows.
const LATEST_RUNS: i64 = 20;

pub(crate) struct CostRow {
    pub id: String,
    /// `None` for an AI operation (no scrap): then `operation` says which.
    pub scrap: Option<ScrapLink>,
    pub operation: &'static str,
    pub chip: Chip,
    /// `meter.units`.
    pub units: Option<String>,
    /// `costs.total`, in USD.
    pub cost: Option<String>,
    pub when: Moment,
}

/// An outbox row that failed for good: where it went (a channel URL
/// redacted), what it was, why.
pub(crate) struct FailedSend {
    pub to: String,
    pub subject: String,
    pub error: String,
    pub scrap: Option<String>,
    pub when: Moment,
}

/// How many failed sends the page lists.
const FAILURES_SHOWN: i64 = 20;

#[derive(Template)]
#[template(path = "admin.html")]
struct AdminPage {
    chrome: Chrome,
    version: &'static str,
    database: &'static str,
    /// The browser engine's sandbox: a word, and what it means when not on.
    sandbox: Option<(&'static str, Option<String>)>,
    public_url: String,
    runs: Vec<CostRow>,
    runs_total: i64,
    /// Emails and chat messages that failed for good (newest first).
    failures: Vec<FailedSend>,
    email_enabled: bool,
    /// The announcement as typed (kept when refused).
    subject: String,
    text: String,
    errors: FieldErrors,
    /// How many users the announcement just sent was queued for.
    sent: Option<usize>,
}

#[derive(Deserialize)]
pub(crate) struct AdminQuery {
    sent: Option<usize>,
}

#[derive(Deserialize)]
pub(crate) struct AnnounceForm {
    #[serde(default)]
    subject: String,
    #[serde(default)]
    text: String,
}

fn units_of(meter: Option<&Meter>) -> Option<String> {
    meter.map(|m| m.units().to_string())
}

fn cost_of(costs: Option<&Costs>) -> Option<String> {
    costs.map(|c| format!("${:.4}", c.total()))
}

/// What an admin should know of a sandbox that is not on.
fn sandbox_note(sandbox: &BrowserSandbox) -> Option<String> {
    match sandbox {
        BrowserSandbox::On => None,
        BrowserSandbox::Off => Some(
            "SVC_BROWSER_SANDBOX=off: Chromium runs pages without its sandbox, so a page that exploits the browser \
             is not contained."
                .into(),
        ),
        BrowserSandbox::Unavailable(why) => Some(format!("Browser runs fail. {why}.")),
    }
}

fn require_admin(user: &SignedIn) -> Result<(), PageError> {
    if user.user.is_admin {
        return Ok(());
    }
    Err(PageError::Forbidden(
        "The admin area is for platform admins, and this account is not one. An operator makes an account a \
         platform admin on the server with: svc admin grant-admin --email E"
            .into(),
    ))
}

async fn admin_page(
    services: &Services,
    user: &SignedIn,
    form: AnnounceForm,
    errors: FieldErrors,
    sent: Option<usize>,
) -> Result<AdminPage, PageError> {
    let principal = user.principal();
    let latest = services.history.list(&principal, None, PageRequest::new(Some(1), Some(LATEST_RUNS))?).await?;
    let now = Utc::now();
    let mut runs = Vec::with_capacity(latest.items.len());
    let mut titles = ScrapTitles::default();
    for view in latest.items {
        let row = view.row;
        let scrap = match row.scrap_id {
            Some(id) => titles.links(services, user, &[id]).await?.pop(),
            None => None,
        };
        runs.push(CostRow {
            id: row.id.to_string(),
            scrap,
            operation: run_status::operation(row.run_type),
            chip: run_status::chip(row.status_detail),
            units: units_of(row.meter.as_ref()),
            cost: cost_of(row.costs.as_ref()),
            when: moment(row.finished_at.unwrap_or(row.created_at), now),
        });
    }
    let failures = services
        .channels
        .failed_sends(&user.session, FAILURES_SHOWN)
        .await?
        .into_iter()
        .map(|r| FailedSend {
            to: svc_domain::channel::shown(&r.email.to),
            subject: r.email.subject,
            error: r.last_error.unwrap_or_default(),
            scrap: r.email.scrap_id.map(|s| format!("/scraps/{s}")),
            when: moment(r.email.created_at, now),
        })
        .collect();
    Ok(AdminPage {
        chrome: user.chrome("Admin", "admin"),
        failures,
        version: env!("CARGO_PKG_VERSION"),
        database: services.health().database,
        sandbox: services.health().browser_sandbox.map(|sandbox| (sandbox.word(), sandbox_note(&sandbox))),
        public_url: services.public_url().to_string(),
        runs,
        runs_total: latest.total,
        email_enabled: services.announcements.email_enabled(),
        subject: form.subject,
        text: form.text,
        errors,
        sent,
    })
}

pub(crate) async fn page(
    State(services): State<Arc<Services>>,
    user: SignedIn,
    Query(q): Query<AdminQuery>,
) -> Result<Response, PageError> {
    require_admin(&user)?;
    let blank = AnnounceForm { subject: String::new(), text: String::new() };
    render(&admin_page(&services, &user, blank, FieldErrors::default(), q.sent).await?)
}

/// Sends the announcement form: to `/admin?sent=N` once queued, or the page
/// again with the refusal next to its field.
pub(crate) async fn announce(
    State(services): State<Arc<Services>>,
    SignedForm { user, form }: SignedForm<AnnounceForm>,
) -> Result<Response, PageError> {
    require_admin(&user)?;
    let announcement = Announcement { subject: form.subject.clone(), text: form.text.clone() };
    match services.announcements.announce(&user.principal(), announcement).await {
        Ok(done) => Ok(Redirect::to(&format!("/admin?sent={}", done.recipients)).into_response()),
        Err(e) => {
            let Some(errors) = FieldErrors::from_service(&e, "subject") else { return Err(e.into()) };
            let page = admin_page(&services, &user, form, errors, None).await?;
            Ok((StatusCode::UNPROCESSABLE_ENTITY, Html(page.render()?)).into_response())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cost_fields_are_shown_when_recorded() {
        assert_eq!(units_of(Some(&Meter::of_loads(1, 3, None))), Some("3".into()));
        assert_eq!(units_of(None), None);
        assert_eq!(cost_of(Some(&Costs { ai: 0.0125, ..Costs::of_loads(0, 0.0, true) })), Some("$0.0125".into()));
        assert_eq!(cost_of(None), None);
    }
}
