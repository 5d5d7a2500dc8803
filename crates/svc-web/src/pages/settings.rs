//! `/settings`: the organization (plan, compute balance, weekly renewal,
//! default containers), the account (email and password changes, each
//! confirmed with the current password) and its sessions (device, address,
//! last seen; sign one out, or all).

use std::sync::Arc;

use askama::Template;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use chrono::Utc;
use serde::Deserialize;
use svc_domain::SessionId;
use svc_service::Services;
use svc_service::paging::PageRequest;
use svc_service::schedule::renewal;

use super::{render, render_status};
use crate::chrome::Chrome;
use crate::form_errors::FieldErrors;
use crate::page_error::PageError;
use crate::path_id::PathId;
use crate::present::device::device_name;
use crate::present::plans;
use crate::present::when::{Moment, moment};
use crate::signed_in::{SignedForm, SignedIn};

#[derive(Template)]
#[template(path = "settings.html")]
struct SettingsPage {
    chrome: Chrome,
    organization: String,
    plan: &'static str,
    balance: String,
    /// The plan's weekly top-up and the next renewal (`None` on Free).
    renewal: Option<Renewal>,
    /// The weekly amounts of Growth and Pro (for Free's wording).
    growth_weekly: String,
    pro_weekly: String,
    default_containers: Vec<String>,
    email: String,
    flash: Option<&'static str>,
    /// What the email form holds.
    new_email: String,
    email_errors: FieldErrors,
    password_errors: FieldErrors,
    sessions: Vec<SessionRow>,
    /// Live sessions beyond those listed.
    more_sessions: i64,
    /// The organization's settings, when the user may administer it (the
    /// history card and the audit log link show only then).
    administers: bool,
    /// What the history age limit field holds (empty: runs are kept).
    history_days: String,
    /// The limit saved, in words.
    history_kept: String,
    history_errors: FieldErrors,
}

/// One live session of the account.
struct SessionRow {
    id: String,
    /// "Firefox on Linux".
    device: String,
    /// The `User-Agent` it was named from (the tooltip).
    agent: String,
    address: String,
    last_seen: Moment,
    signed_in: Moment,
    current: bool,
}

/// Sessions listed on the page (the most recently seen).
const SESSIONS_SHOWN: i64 = 50;

/// "topped up to N units every Monday at 00:00 UTC; next: <date>".
struct Renewal {
    units: String,
    /// RFC 3339, for `<time datetime>`.
    next_iso: String,
    /// "Monday 2026-01-19".
    next_day: String,
}

#[derive(Deserialize)]
pub(crate) struct Params {
    #[serde(default)]
    saved: Option<String>,
}

#[derive(Deserialize)]
pub(crate) struct EmailForm {
    #[serde(default)]
    email: String,
    #[serde(default, rename = "currentPassword")]
    current_password: String,
}

#[derive(Deserialize)]
pub(crate) struct HistoryForm {
    #[serde(default, rename = "historyRetentionDays")]
    days: String,
}

#[derive(Deserialize)]
pub(crate) struct PasswordForm {
    #[serde(default, rename = "currentPassword")]
    current_password: String,
    #[serde(default)]
    password: String,
}

async fn settings_page(
    services: &Services,
    user: &SignedIn,
    flash: Option<&'static str>,
) -> Result<SettingsPage, PageError> {
    let now = Utc::now();
    let weekly = services.weekly_units();
    let org = &user.organization;
    let next = renewal::next_renewal(now);
    let listed = services.sessions.list(&user.session, PageRequest { page: 1, per_page: SESSIONS_SHOWN }).await?;
    let more_sessions = listed.total - listed.items.len() as i64;
    let sessions = listed
        .items
        .into_iter()
        .map(|e| SessionRow {
            id: e.session.id.to_string(),
            device: device_name(&e.session.device),
            agent: e.session.device,
            address: e.session.address,
            last_seen: moment(e.session.last_seen_at, now),
            signed_in: moment(e.session.created_at, now),
            current: e.current,
        })
        .collect();
    let org_settings = services.organization.get(&user.session).await.ok();
    let history_limit = org_settings.and_then(|s| s.history_retention_days);
    Ok(SettingsPage {
        chrome: user.chrome("Settings", "settings"),
        organization: org.name.clone(),
        plan: plans::name(org.plan),
        balance: plans::grouped(org.balance),
        renewal: weekly.of(org.plan).map(|units| Renewal {
            units: plans::grouped(units),
            next_iso: next.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            next_day: next.format("%A %Y-%m-%d").to_string(),
        }),
        growth_weekly: plans::grouped(weekly.growth),
        pro_weekly: plans::grouped(weekly.pro),
        default_containers: org.default_containers.clone(),
        email: user.user.email.clone(),
        flash,
        new_email: String::new(),
        email_errors: FieldErrors::default(),
        password_errors: FieldErrors::default(),
        sessions,
        more_sessions,
        administers: org_settings.is_some(),
        history_days: history_limit.map(|d| d.to_string()).unwrap_or_default(),
        history_kept: match history_limit {
            Some(1) => "Runs are kept for 1 day.".into(),
            Some(d) => format!("Runs are kept for {d} days."),
            None => "Every run is kept.".into(),
        },
        history_errors: FieldErrors::default(),
    })
}

pub(crate) async fn page(
    State(services): State<Arc<Services>>,
    user: SignedIn,
    Query(params): Query<Params>,
) -> Result<Response, PageError> {
    let flash = match params.saved.as_deref() {
        Some("email") => Some("Your email was changed: log in with the new one from now on."),
        Some("password") => Some("Your password was changed, and your other sessions were signed out."),
        Some("session") => Some("The session was signed out."),
        Some("history") => Some("The history setting was saved; the hourly housekeeping applies it."),
        _ => None,
    };
    render(&settings_page(&services, &user, flash).await?)
}

/// The status of a form shown again with its errors: 409 for a taken email, else 422.
fn status_of(e: &svc_service::ServiceError) -> StatusCode {
    match e {
        svc_service::ServiceError::Conflict { .. } => StatusCode::CONFLICT,
        _ => StatusCode::UNPROCESSABLE_ENTITY,
    }
}

pub(crate) async fn change_email(
    State(services): State<Arc<Services>>,
    SignedForm { user, form }: SignedForm<EmailForm>,
) -> Result<Response, PageError> {
    match services.accounts.change_email(&user.session, &form.email, &form.current_password).await {
        Ok(()) => Ok(Redirect::to("/settings?saved=email").into_response()),
        Err(e) => {
            let Some(errors) = FieldErrors::from_service(&e, "email") else { return Err(e.into()) };
            let page = SettingsPage {
                new_email: form.email,
                email_errors: errors,
                ..settings_page(&services, &user, None).await?
            };
            render_status(status_of(&e), &page)
        }
    }
}

pub(crate) async fn change_password(
    State(services): State<Arc<Services>>,
    SignedForm { user, form }: SignedForm<PasswordForm>,
) -> Result<Response, PageError> {
    match services.accounts.change_password(&user.session, &form.current_password, &form.password).await {
        Ok(()) => Ok(Redirect::to("/settings?saved=password").into_response()),
        Err(e) => {
            let Some(errors) = FieldErrors::from_service(&e, "password") else { return Err(e.into()) };
            render_status(
                status_of(&e),
                &SettingsPage { password_errors: errors, ..settings_page(&services, &user, None).await? },
            )
        }
    }
}

/// Sets the history age limit: a number of days, or blank to keep every run.
pub(crate) async fn set_history(
    State(services): State<Arc<Services>>,
    SignedForm { user, form }: SignedForm<HistoryForm>,
) -> Result<Response, PageError> {
    let field = "historyRetentionDays";
    let days = match form.days.trim() {
        "" => Ok(None),
        text => text.parse::<i64>().map(Some).map_err(|_| {
            svc_service::ServiceError::validation(field, "must be a whole number of days, or blank to keep every run")
        }),
    };
    let saved = match days {
        Ok(days) => services.organization.set_history_retention(&user.session, days).await.map(|_| ()),
        Err(e) => Err(e),
    };
    match saved {
        Ok(()) => Ok(Redirect::to("/settings?saved=history").into_response()),
        Err(e) => {
            let Some(errors) = FieldErrors::from_service(&e, field) else { return Err(e.into()) };
            let page = SettingsPage {
                history_days: form.days,
                history_errors: errors,
                ..settings_page(&services, &user, None).await?
            };
            render_status(status_of(&e), &page)
        }
    }
}

#[derive(Deserialize)]
pub(crate) struct Nothing {}

/// Signs one session out: this browser's own logs out (to the log-in
/// page); another's ends, back to Settings.
pub(crate) async fn end_session(
    State(services): State<Arc<Services>>,
    PathId(id): PathId<SessionId>,
    SignedForm { user, .. }: SignedForm<Nothing>,
) -> Result<Response, PageError> {
    services.sessions.end(&user.session, id).await?;
    if id == user.session.id() {
        return Ok(super::auth::signed_out(&services));
    }
    Ok(Redirect::to("/settings?saved=session").into_response())
}

/// Signs out everywhere, this browser included.
pub(crate) async fn end_all_sessions(
    State(services): State<Arc<Services>>,
    SignedForm { user, .. }: SignedForm<Nothing>,
) -> Result<Response, PageError> {
    services.sessions.end_all(&user.session).await?;
    Ok(super::auth::signed_out(&services))
}
