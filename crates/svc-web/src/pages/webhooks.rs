//! `/developers/webhooks`: the organization's webhooks, creating one (its
//! signing secret shown once, in the answer to the form), editing and
//! deleting one, and its delivery log with redelivery. Listing and the log
//! are open on every plan; every change needs Growth or Pro (the service
//! says `PlanRequired`, and Free organizations see why instead of the forms).

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::sync::Arc;

use askama::Template;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use chrono::Utc;
use serde::Deserialize;
use svc_domain::plan::Plan;
use svc_domain::webhook::{Webhook, WebhookEvent};
use svc_domain::{HistoryId, ObjectId, ScrapId, WebhookId};
use svc_service::outbox::webhooks::WebhookChanges;
use svc_service::paging::PageRequest;
use svc_service::{ServiceError, Services};

use super::auth::Nothing;
use super::pager::Pager;
use super::scrap_picker::{ScrapLink, ScrapPicker};
use super::{page_number, render, render_status};
use crate::chrome::Chrome;
use crate::form_errors::FieldErrors;
use crate::page_error::PageError;
use crate::path_id::{PathId, PathIds};
use crate::present::run_status::Chip;
use crate::present::when::{Moment, duration_ms, moment};
use crate::present::{delivery_state, plans};
use crate::signed_in::{SignedForm, SignedIn};

/// What a Free organization can and cannot do with webhooks (after the
/// headline "Webhooks need the Growth or Pro plan.").
fn plan_note(plan: Plan) -> String {
    format!(
        "This organization is on the {} plan: you can see its webhooks and their delivery logs, but not create, \
         change, delete or redeliver them.",
        plans::name(plan)
    )
}

/// The service's refusal as the page shows it: `PlanRequired` says which
/// plan the organization is on.
fn refusal(e: ServiceError, plan: Plan) -> PageError {
    match e {
        ServiceError::PlanRequired(_) => {
            PageError::Forbidden(format!("Webhooks need the Growth or Pro plan. {}", plan_note(plan)))
        }
        e => e.into(),
    }
}

pub(crate) struct EventOption {
    pub name: &'static str,
    pub when: &'static str,
    pub checked: bool,
}

/// What the create and edit forms hold.
pub(crate) struct HookForm {
    pub url: String,
    pub events: Vec<EventOption>,
    pub active: bool,
    pub errors: FieldErrors,
}

impl HookForm {
    fn new(url: String, events: &[String], active: bool, errors: FieldErrors) -> HookForm {
        let events = WebhookEvent::ALL
            .into_iter()
            .map(|e| EventOption {
                name: e.as_str(),
                when: match e {
                    WebhookEvent::ScrapSuccess => "a run succeeded",
                    WebhookEvent::ScrapFailure => "a run failed, came back empty or regressed",
                },
                checked: events.iter().any(|s| s == e.as_str()),
            })
            .collect();
        HookForm { url, events, active, errors }
    }

    /// A new webhook's form: every event.
    fn blank() -> HookForm {
        let all: Vec<String> = WebhookEvent::ALL.iter().map(|e| e.as_str().to_string()).collect();
        HookForm::new(String::new(), &all, true, FieldErrors::default())
    }

    fn of(hook: &Webhook) -> HookForm {
        let events: Vec<String> = hook.events.iter().map(|e| e.as_str().to_string()).collect();
        HookForm::new(hook.url.clone(), &events, hook.active, FieldErrors::default())
    }
}

#[derive(Deserialize)]
pub(crate) struct WebhookForm {
    #[serde(default)]
    url: String,
    #[serde(default)]
    events: Vec<String>,
    #[serde(default, rename = "scrapIds")]
    scrap_ids: Vec<String>,
    #[serde(default)]
    active: Option<String>,
}

impl WebhookForm {
    fn shown(&self, errors: FieldErrors) -> HookForm {
        HookForm::new(self.url.clone(), &self.events, self.active.is_some(), errors)
    }
}

pub(crate) struct HookRow {
    pub id: String,
    pub url: String,
    pub events: Vec<&'static str>,
    pub scraps: Vec<ScrapLink>,
    pub active: bool,
    pub created: Moment,
}

/// The webhook just created, with its secret shown this once.
pub(crate) struct NewlyCreated {
    pub url: String,
    pub plain_secret: String,
}

#[derive(Template)]
#[template(path = "webhooks.html")]
struct WebhooksPage {
    chrome: Chrome,
    rows: Vec<HookRow>,
    total: i64,
    pager: Pager,
    /// `None` on Free: why the forms are not there.
    plan_note: Option<String>,
    flash: Option<&'static str>,
    created: Option<NewlyCreated>,
    form: HookForm,
    picker: ScrapPicker,
}

#[derive(Deserialize)]
pub(crate) struct ListParams {
    #[serde(default)]
    page: Option<String>,
    #[serde(default)]
    saved: Option<String>,
    #[serde(default)]
    deleted: Option<String>,
}

struct Shown {
    page: i64,
    flash: Option<&'static str>,
    created: Option<NewlyCreated>,
    form: HookForm,
    checked: Vec<String>,
}

fn developer_features(user: &SignedIn) -> Option<String> {
    let plan = user.organization.plan;
    (!plan.has_developer_features()).then(|| plan_note(plan))
}

async fn webhooks_page(services: &Services, user: &SignedIn, shown: Shown) -> Result<WebhooksPage, PageError> {
    let page = PageRequest::new(Some(shown.page), None).unwrap_or_default();
    let found = services.webhooks.list(&user.session, page).await?;
    let picker = ScrapPicker::load(services, user, &shown.checked).await?;
    let mut titles = picker.titles();
    let now = Utc::now();
    let mut rows = Vec::with_capacity(found.items.len());
    for hook in found.items {
        rows.push(HookRow {
            id: hook.id.to_string(),
            events: hook.events.iter().map(|e| e.as_str()).collect(),
            scraps: titles.links(services, user, &hook.scrap_ids).await?,
            active: hook.active,
            created: moment(hook.created_at, now),
            url: hook.url,
        });
    }
    Ok(WebhooksPage {
        chrome: user.chrome("Webhooks", "webhooks"),
        rows,
        total: found.total,
        pager: Pager::new(page.page, page.per_page, found.total, |p| format!("/developers/webhooks?page={p}")),
        plan_note: developer_features(user),
        flash: shown.flash,
        created: shown.created,
        form: shown.form,
        picker,
    })
}

pub(crate) async fn page(
    State(services): State<Arc<Services>>,
    user: SignedIn,
    Query(params): Query<ListParams>,
) -> Result<Response, PageError> {
    let flash = if params.saved.is_some() {
        Some("The webhook was saved.")
    } else if params.deleted.is_some() {
        Some("The webhook was deleted: it receives nothing more.")
    } else {
        None
    };
    let shown = Shown {
        page: page_number(params.page.as_deref()),
        flash,
        created: None,
        form: HookForm::blank(),
        checked: vec![],
    };
    render(&webhooks_page(&services, &user, shown).await?)
}

pub(crate) async fn create(
    State(services): State<Arc<Services>>,
    SignedForm { user, form }: SignedForm<WebhookForm>,
) -> Result<Response, PageError> {
    let input = WebhookChanges {
        url: Some(form.url.clone()),
        events: Some(form.events.clone()),
        scrap_ids: Some(form.scrap_ids.clone()),
        active: None,
    };
    match services.webhooks.create(&user.session, input).await {
        Ok(created) => {
            let shown = Shown {
                page: 1,
                flash: None,
                created: Some(NewlyCreated { url: created.webhook.url, plain_secret: created.plain_secret }),
                form: HookForm::blank(),
                checked: vec![],
            };
            // Not stored by the browser: every HTML page is `no-store` (pages::page_headers).
            render(&webhooks_page(&services, &user, shown).await?)
        }
        Err(e @ ServiceError::PlanRequired(_)) => Err(refusal(e, user.organization.plan)),
        Err(e) => {
            let Some(errors) = FieldErrors::from_service(&e, "url") else { return Err(e.into()) };
            let shown = Shown {
                page: 1,
                flash: None,
                created: None,
                form: form.shown(errors),
                checked: form.scrap_ids.clone(),
            };
            render_status(StatusCode::UNPROCESSABLE_ENTITY, &webhooks_page(&services, &user, shown).await?)
        }
    }
}

#[derive(Template)]
#[template(path = "webhook_edit.html")]
struct EditPage {
    chrome: Chrome,
    id: String,
    plan_note: Option<String>,
    form: HookForm,
    picker: ScrapPicker,
    scraps: Vec<ScrapLink>,
}

async fn edit_view(
    services: &Services,
    user: &SignedIn,
    hook: &Webhook,
    form: HookForm,
    checked: &[String],
) -> Result<EditPage, PageError> {
    let picker = ScrapPicker::load(services, user, checked).await?;
    let scraps = picker.titles().links(services, user, &hook.scrap_ids).await?;
    Ok(EditPage {
        chrome: user.chrome("Edit webhook", "webhooks"),
        id: hook.id.to_string(),
        plan_note: developer_features(user),
        form,
        picker,
        scraps,
    })
}

/// `/developers/webhooks/:id` is the edit page.
pub(crate) async fn show(PathId(id): PathId<WebhookId>) -> Redirect {
    Redirect::to(&format!("/developers/webhooks/{id}/edit"))
}

pub(crate) async fn edit_page(
    State(services): State<Arc<Services>>,
    user: SignedIn,
    PathId(id): PathId<WebhookId>,
) -> Result<Response, PageError> {
    let hook = services.webhooks.get(&user.session, id).await?;
    let checked: Vec<String> = hook.scrap_ids.iter().map(ScrapId::to_string).collect();
    render(&edit_view(&services, &user, &hook, HookForm::of(&hook), &checked).await?)
}

pub(crate) async fn update(
    State(services): State<Arc<Services>>,
    id: Result<PathId<WebhookId>, PageError>,
    SignedForm { user, form }: SignedForm<WebhookForm>,
) -> Result<Response, PageError> {
    // The id is read after the session and CSRF checks of the form.
    let PathId(id) = id?;
    let input = WebhookChanges {
        url: Some(form.url.clone()),
        events: Some(form.events.clone()),
        scrap_ids: Some(form.scrap_ids.clone()),
        active: Some(form.active.is_some()),
    };
    match services.webhooks.update(&user.session, id, input).await {
        Ok(_) => Ok(Redirect::to("/developers/webhooks?saved=1").into_response()),
        Err(e @ (ServiceError::PlanRequired(_) | ServiceError::NotFound(_))) => Err(refusal(e, user.organization.plan)),
        Err(e) => {
            let Some(errors) = FieldErrors::from_service(&e, "url") else { return Err(e.into()) };
            let hook = services.webhooks.get(&user.session, id).await?;
            let page = edit_view(&services, &user, &hook, form.shown(errors), &form.scrap_ids).await?;
            render_status(StatusCode::UNPROCESSABLE_ENTITY, &page)
        }
    }
}

pub(crate) async fn delete(
    State(services): State<Arc<Services>>,
    id: Result<PathId<WebhookId>, PageError>,
    SignedForm { user, .. }: SignedForm<Nothing>,
) -> Result<Response, PageError> {
    // The id is read after the session and CSRF checks of the form.
    let PathId(id) = id?;
    services.webhooks.delete(&user.session, id).await.map_err(|e| refusal(e, user.organization.plan))?;
    Ok(Redirect::to("/developers/webhooks?deleted=1").into_response())
}

pub(crate) struct AttemptRow {
    pub id: String,
    pub chip: Chip,
    pub event: &'static str,
    pub history_id: String,
    /// The run's scrap, when the run still exists.
    pub scrap_id: Option<String>,
    pub attempt: i64,
    pub response_status: Option<i64>,
    /// The start of the receiver's answer, or the error when it did not answer.
    pub detail: Option<String>,
    pub duration: Option<String>,
    pub created: Moment,
    pub next_retry: Option<Moment>,
    /// The newest attempt of its delivery: where "Redeliver" goes.
    pub newest_of_delivery: bool,
}

#[derive(Template)]
#[template(path = "webhook_deliveries.html")]
struct DeliveriesPage {
    chrome: Chrome,
    id: String,
    url: String,
    active: bool,
    plan_note: Option<String>,
    rows: Vec<AttemptRow>,
    total: i64,
    pager: Pager,
    redelivered: bool,
}

#[derive(Deserialize)]
pub(crate) struct DeliveryParams {
    #[serde(default)]
    page: Option<String>,
    #[serde(default)]
    redelivered: Option<String>,
}

/// At most this much of a receiver's answer is shown in the log.
const SHOWN_RESPONSE: usize = 200;

fn shortened(text: &str) -> String {
    match text.char_indices().nth(SHOWN_RESPONSE) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}

pub(crate) async fn deliveries_page(
    State(services): State<Arc<Services>>,
    user: SignedIn,
    PathId(id): PathId<WebhookId>,
    Query(params): Query<DeliveryParams>,
) -> Result<Response, PageError> {
    let hook = services.webhooks.get(&user.session, id).await?;
    let page = PageRequest::new(Some(page_number(params.page.as_deref())), None).unwrap_or_default();
    let found = services.webhooks.deliveries(&user.session, hook.id, page).await?;
    let principal = user.principal();
    // The scrap of each run, to link to it (the attempt record names only the run).
    let mut scrap_of: HashMap<HistoryId, Option<ScrapId>> = HashMap::new();
    for attempt in &found.items {
        if let Entry::Vacant(slot) = scrap_of.entry(attempt.history_id) {
            slot.insert(match services.history.get(&principal, attempt.history_id).await {
                Ok(view) => view.row.scrap_id,
                Err(ServiceError::NotFound(_)) => None,
                Err(e) => return Err(e.into()),
            });
        }
    }
    let now = Utc::now();
    let mut seen_deliveries = Vec::new();
    let rows = found
        .items
        .into_iter()
        .map(|a| {
            let newest_of_delivery = !seen_deliveries.contains(&a.delivery_id);
            seen_deliveries.push(a.delivery_id);
            AttemptRow {
                id: a.id.to_string(),
                chip: delivery_state::chip(a.state),
                event: a.event.as_str(),
                history_id: a.history_id.to_string(),
                scrap_id: scrap_of.get(&a.history_id).copied().flatten().map(|s| s.to_string()),
                attempt: a.attempt,
                response_status: a.response_status,
                detail: if a.response_status.is_some() { a.response_body } else { a.error }
                    .filter(|t| !t.trim().is_empty())
                    .map(|t| shortened(&t)),
                duration: a.duration_ms.map(duration_ms),
                created: moment(a.created_at, now),
                next_retry: a.next_retry_at.map(|t| moment(t, now)),
                newest_of_delivery,
            }
        })
        .collect();
    let hook_id = hook.id.to_string();
    let pager = Pager::new(page.page, page.per_page, found.total, |p| {
        format!("/developers/webhooks/{hook_id}/deliveries?page={p}")
    });
    render(&DeliveriesPage {
        chrome: user.chrome("Delivery log", "webhooks"),
        id: hook_id.clone(),
        url: hook.url,
        active: hook.active,
        plan_note: developer_features(&user),
        rows,
        total: found.total,
        pager,
        redelivered: params.redelivered.is_some(),
    })
}

pub(crate) async fn redeliver(
    State(services): State<Arc<Services>>,
    ids: Result<PathIds<WebhookId, ObjectId>, PageError>,
    SignedForm { user, .. }: SignedForm<Nothing>,
) -> Result<Response, PageError> {
    // The ids are read after the session and CSRF checks of the form.
    let PathIds(id, attempt) = ids?;
    services.webhooks.redeliver(&user.session, id, attempt).await.map_err(|e| refusal(e, user.organization.plan))?;
    Ok(Redirect::to(&format!("/developers/webhooks/{id}/deliveries?redelivered=1")).into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_answers_are_shortened_on_a_character_boundary() {
        assert_eq!(shortened("ok"), "ok");
        let long = "é".repeat(SHOWN_RESPONSE + 5);
        let short = shortened(&long);
        assert_eq!(short.chars().count(), SHOWN_RESPONSE + 1);
        assert!(short.ends_with('…'));
    }

    #[test]
    fn a_plan_refusal_says_what_is_needed_and_names_the_plan() {
        let PageError::Forbidden(message) = refusal(ServiceError::PlanRequired("webhooks"), Plan::Free) else {
            panic!("a 403 page")
        };
        assert!(message.starts_with("Webhooks need the Growth or Pro plan."), "{message}");
        assert!(message.contains("on the Free plan"), "{message}");
        assert!(matches!(refusal(ServiceError::NotFound("webhook"), Plan::Free), PageError::NotFound(_)));
    }
}
