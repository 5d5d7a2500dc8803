//! `/settings`: the organization (plan, compute balance, weekly renewal,
//! default containers) and the account (email and password changes, each
//! confirmed with the current password).

use std::sync::Arc;

use askama::Template;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use chrono::{DateTime, Utc};
use serde::Deserialize;
use svc_service::schedule::renewal;
use svc_service::{Services, WeeklyUnits};

use super::{render, render_status};
use crate::chrome::Chrome;
use crate::form_errors::FieldErrors;
use crate::page_error::PageError;
use crate::present::plans;
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
}

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
pub(crate) struct PasswordForm {
    #[serde(default, rename = "currentPassword")]
    current_password: String,
    #[serde(default)]
    password: String,
}

fn settings_page(
    user: &SignedIn,
    weekly: WeeklyUnits,
    now: DateTime<Utc>,
    flash: Option<&'static str>,
) -> SettingsPage {
    let org = &user.organization;
    let next = renewal::next_renewal(now);
    SettingsPage {
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
    }
}

pub(crate) async fn page(
    State(services): State<Arc<Services>>,
    user: SignedIn,
    Query(params): Query<Params>,
) -> Result<Response, PageError> {
    let flash = match params.saved.as_deref() {
        Some("email") => Some("Your email was changed: log in with the new one from now on."),
        Some("password") => Some("Your password was changed."),
        _ => None,
    };
    render(&settings_page(&user, services.weekly_units(), Utc::now(), flash))
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
                ..settings_page(&user, services.weekly_units(), Utc::now(), None)
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
                &SettingsPage {
                    password_errors: errors,
                    ..settings_page(&user, services.weekly_units(), Utc::now(), None)
                },
            )
        }
    }
}
