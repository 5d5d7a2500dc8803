//! `/scraps/new` and `/scraps/:id/edit`: every writable field of a scrap,
//! the cron preview, and **Test run** (the unsaved script against the URL,
//! through `RunService::test_run`: no history row, no webhook, charged like
//! a run). One POST route per editor; the button pressed (`intent`) says
//! whether to save or to test, so a test run keeps everything typed.
//!
//! An existing scrap's editor also has the **Site login** card (its own
//! forms, outside the editor's: `/scraps/:id/login`, `.../login/remove`,
//! `/scraps/:id/session/forget`), written at once through
//! `SiteAccountService`; it shows the login's hint only, never the password.

use std::sync::Arc;

use askama::Template;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Redirect, Response};
use chrono::Utc;
use serde::Deserialize;
use serde_json::Value;
use svc_domain::ScrapId;
use svc_domain::scrap::{PROXY_TIERS, ParamSet, SCRAPPERS, STATIC_SCRAPPER, Scrap};
use svc_service::runs::TestRun;
use svc_service::scraps::input::ScrapChanges;
use svc_service::scraps::proxy_tiers::parse_tier;
use svc_service::{ServiceError, Services};

use crate::chrome::Chrome;
use crate::form_errors::FieldErrors;
use crate::page_error::PageError;
use crate::pages::recipient_notice::PendingNotes;
use crate::pages::render;
use crate::path_id::PathId;
use crate::present::site_login::{SiteLoginView, flash, site_login};
use crate::present::test_run::TestRunView;
use crate::present::when::moment_in;
use crate::signed_in::{SignedForm, SignedIn};

/// What a new scrap's script starts as: a working example.
const SAMPLE_SCRIPT: &str = "// Runs in the page once it has loaded. SVC.url, SVC.param and\n\
// SVC.waitFor(selector) are at hand; end with returnData(array).\n\
const rows = [...document.querySelectorAll('h1, h2')].map(h => ({\n  text: h.textContent.trim(),\n}));\n\
returnData(rows);\n";

/// The editor's fields as typed (the wire names, so service errors land on them).
#[derive(Clone, Debug, Default, Deserialize)]
pub(crate) struct ScrapForm {
    #[serde(default)]
    intent: String,
    #[serde(default)]
    title: String,
    #[serde(default)]
    description: String,
    #[serde(default)]
    url: String,
    #[serde(default)]
    request: String,
    #[serde(default)]
    scrapper: String,
    #[serde(default)]
    containers: String,
    #[serde(default)]
    cron: String,
    #[serde(default, rename = "cronTimezone")]
    cron_timezone: String,
    #[serde(default, rename = "paramKey")]
    param_keys: Vec<String>,
    #[serde(default, rename = "paramValue")]
    param_values: Vec<String>,
    /// The parameter set a test run hands to the script.
    #[serde(default, rename = "testParam")]
    test_param: String,
    /// A ticked checkbox sends a value; an unticked one sends nothing.
    #[serde(default, rename = "emailNotif")]
    email_notif: Option<String>,
    #[serde(default, rename = "emailNotifRecipient")]
    email_notif_recipient: String,
    #[serde(default, rename = "emailNotifFormat")]
    email_notif_format: String,
    #[serde(default)]
    alert: String,
    #[serde(default, rename = "digestEnabled")]
    digest_enabled: Option<String>,
    #[serde(default, rename = "digestPrompt")]
    digest_prompt: String,
    #[serde(default, rename = "digestRecipient")]
    digest_recipient: String,
    #[serde(default, rename = "autoFix")]
    auto_fix: Option<String>,
    /// `tier0`..`tier4`, or empty for automatic.
    #[serde(default, rename = "proxyTier")]
    proxy_tier: String,
    /// The AI panel's description and field names: not stored, only kept
    /// across a test run or a refused save.
    #[serde(default, rename = "aiDescription")]
    ai_description: String,
    #[serde(default, rename = "aiFields")]
    ai_fields: String,
}

/// One parameter row of the form.
pub(crate) struct ParamRow {
    pub key: String,
    pub value: String,
}

/// A value as the form shows it: strings as they are, anything else as JSON.
fn shown_value(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// A typed value: JSON when it parses as JSON, else the text itself.
fn typed_value(text: &str) -> Value {
    serde_json::from_str(text.trim()).unwrap_or_else(|_| Value::String(text.to_string()))
}

impl ScrapForm {
    fn from_scrap(scrap: &Scrap) -> ScrapForm {
        ScrapForm {
            intent: String::new(),
            title: scrap.title.clone(),
            description: scrap.description.clone(),
            url: scrap.url.clone(),
            request: scrap.request.clone(),
            scrapper: scrap.scrapper.clone(),
            containers: scrap.containers.join(", "),
            cron: scrap.cron.clone().unwrap_or_default(),
            cron_timezone: scrap.cron_timezone.clone(),
            param_keys: scrap.params.iter().map(|p| p.key.clone()).collect(),
            param_values: scrap.params.iter().map(|p| shown_value(&p.value)).collect(),
            test_param: String::new(),
            email_notif: scrap.email_notif.then(|| "on".to_string()),
            email_notif_recipient: scrap.email_notif_recipient.clone().unwrap_or_default(),
            email_notif_format: scrap.email_notif_format.as_str().to_string(),
            alert: scrap.alert.clone().unwrap_or_default(),
            digest_enabled: scrap.digest_enabled.then(|| "on".to_string()),
            digest_prompt: scrap.digest_prompt.clone().unwrap_or_default(),
            digest_recipient: scrap.digest_recipient.clone().unwrap_or_default(),
            auto_fix: scrap.auto_fix.then(|| "on".to_string()),
            proxy_tier: scrap.proxy_tier.clone().unwrap_or_default(),
            ai_description: String::new(),
            ai_fields: String::new(),
        }
    }

    fn blank(default_containers: &[String]) -> ScrapForm {
        ScrapForm {
            request: SAMPLE_SCRIPT.into(),
            scrapper: "puppeteer".into(),
            containers: default_containers.join(", "),
            cron_timezone: "UTC".into(),
            email_notif_format: "json".into(),
            ..ScrapForm::default()
        }
    }

    /// The parameter sets typed, blank rows dropped; a value without a key
    /// is refused on `params`.
    fn params(&self) -> Result<Vec<ParamSet>, ServiceError> {
        let mut sets = Vec::new();
        for (i, key) in self.param_keys.iter().enumerate() {
            let value = self.param_values.get(i).map(String::as_str).unwrap_or("");
            if key.trim().is_empty() {
                if value.trim().is_empty() {
                    continue;
                }
                return Err(ServiceError::validation("params", "every parameter set needs a key"));
            }
            sets.push(ParamSet { key: key.trim().to_string(), value: typed_value(value) });
        }
        Ok(sets)
    }

    fn rows(&self) -> Vec<ParamRow> {
        let mut rows: Vec<ParamRow> = self
            .param_keys
            .iter()
            .enumerate()
            .map(|(i, k)| ParamRow { key: k.clone(), value: self.param_values.get(i).cloned().unwrap_or_default() })
            .filter(|r| !(r.key.trim().is_empty() && r.value.trim().is_empty()))
            .collect();
        rows.push(ParamRow { key: String::new(), value: String::new() });
        rows
    }

    /// The fields this editor writes (the banner, set on the scrap's page,
    /// is left as stored).
    fn changes(&self) -> Result<ScrapChanges, ServiceError> {
        let containers =
            self.containers.split(',').map(str::trim).filter(|c| !c.is_empty()).map(str::to_string).collect();
        Ok(ScrapChanges {
            title: Some(self.title.clone()),
            description: Some(self.description.clone()),
            url: Some(self.url.clone()),
            request: Some(self.request.clone()),
            scrapper: Some(self.scrapper.clone()).filter(|s| !s.is_empty()),
            containers: Some(containers),
            params: Some(self.params()?),
            cron: Some(Some(self.cron.clone())),
            cron_timezone: Some(self.cron_timezone.clone()).filter(|s| !s.is_empty()),
            email_notif: Some(self.email_notif.is_some()),
            email_notif_recipient: Some(Some(self.email_notif_recipient.clone())),
            email_notif_format: Some(self.email_notif_format.clone()).filter(|s| !s.is_empty()),
            alert: Some(Some(self.alert.clone())),
            digest_enabled: Some(self.digest_enabled.is_some()),
            digest_prompt: Some(Some(self.digest_prompt.clone()).filter(|p| !p.trim().is_empty())),
            digest_recipient: Some(Some(self.digest_recipient.clone())),
            auto_fix: Some(self.auto_fix.is_some()),
            proxy_tier: Some(Some(self.proxy_tier.trim().to_string()).filter(|t| !t.is_empty())),
            ..ScrapChanges::default()
        })
    }
}

#[derive(Template)]
#[template(path = "scrap_editor.html")]
struct EditorPage {
    chrome: Chrome,
    /// `None` for a new scrap.
    scrap_id: Option<String>,
    form: ScrapForm,
    params: Vec<ParamRow>,
    errors: FieldErrors,
    time_zones: &'static [&'static str],
    scrappers: &'static [&'static str],
    /// Every tier, with whether this server has it.
    proxy_tiers: Vec<TierOption>,
    preview: SchedulePreview,
    test: Option<TestRunView>,
    /// Whether this server can send email (`SVC_SMTP_URL`).
    email_enabled: bool,
    /// Whether this server has a model (`SVC_AI_BASE_URL`).
    ai_enabled: bool,
    /// The Site login card (existing scraps only).
    login: Option<LoginCard>,
    /// Recipient fields whose address has not confirmed (stored scraps only).
    pending: PendingNotes,
}

/// The Site login card: what is saved, and its form as typed (never the
/// password).
pub(crate) struct LoginCard {
    view: SiteLoginView,
    /// The username typed when the form was refused.
    username: String,
    errors: FieldErrors,
    flash: Option<&'static str>,
}

/// The card of scrap `id` for `user`.
async fn login_card(
    services: &Services,
    user: &SignedIn,
    id: ScrapId,
    done: Option<&str>,
    username: String,
    errors: FieldErrors,
) -> Result<LoginCard, PageError> {
    let status = services.site_accounts.account_status(&user.principal(), id).await?;
    Ok(LoginCard { view: site_login(&status, Utc::now()), username, errors, flash: flash(done) })
}

impl EditorPage {
    fn action(&self) -> String {
        match &self.scrap_id {
            Some(id) => format!("/scraps/{id}/edit"),
            None => "/scraps/new".into(),
        }
    }
}

/// A proxy tier in the picker.
pub(crate) struct TierOption {
    pub name: &'static str,
    /// The operator configured it (`tier0` always).
    pub configured: bool,
}

fn tier_options(services: &Services) -> Vec<TierOption> {
    PROXY_TIERS
        .iter()
        .map(|name| TierOption {
            name,
            configured: parse_tier(name).is_some_and(|t| services.scraps.tiers().is_configured(t)),
        })
        .collect()
}

/// Every IANA time zone, for the picker.
fn time_zones() -> &'static [&'static str] {
    static ZONES: std::sync::LazyLock<Vec<&'static str>> =
        std::sync::LazyLock::new(|| chrono_tz::TZ_VARIANTS.iter().map(|tz| tz.name()).collect());
    &ZONES
}

/// The next firings of a schedule, or why it is refused.
#[derive(Clone, Debug, Default)]
pub(crate) struct SchedulePreview {
    pub times: Vec<String>,
    pub error: Option<String>,
    pub manual: bool,
}

fn preview(services: &Services, cron: &str, timezone: &str) -> SchedulePreview {
    if cron.trim().is_empty() {
        return SchedulePreview { manual: true, ..SchedulePreview::default() };
    }
    let now = Utc::now();
    match services.scraps.preview_schedule(cron, timezone, 5) {
        Ok(times) => {
            let tz = timezone.trim().parse().unwrap_or(chrono_tz::UTC);
            SchedulePreview {
                times: times.into_iter().map(|t| moment_in(t, now, tz).absolute).collect(),
                ..SchedulePreview::default()
            }
        }
        Err(ServiceError::Validation { message, .. }) => {
            SchedulePreview { error: Some(message), ..SchedulePreview::default() }
        }
        Err(e) => SchedulePreview { error: Some(e.to_string()), ..SchedulePreview::default() },
    }
}

/// What the editor shows besides the page's chrome: the scrap (when it
/// is stored), the form as typed, its errors, a test run's outcome and the
/// Site login card.
struct Editing {
    scrap_id: Option<ScrapId>,
    stored: Option<Scrap>,
    form: ScrapForm,
    errors: FieldErrors,
    test: Option<TestRunView>,
    login: Option<LoginCard>,
}

impl Editing {
    /// `form` of a scrap not stored yet, with no error.
    fn new(form: ScrapForm) -> Self {
        Editing { scrap_id: None, stored: None, form, errors: FieldErrors::default(), test: None, login: None }
    }

    /// `form` over stored scrap `scrap` (id `id`), with its login card.
    fn stored(id: ScrapId, scrap: Scrap, form: ScrapForm, login: Option<LoginCard>) -> Self {
        Editing { scrap_id: Some(id), stored: Some(scrap), login, ..Editing::new(form) }
    }
}

fn editor(services: &Services, user: &SignedIn, editing: Editing) -> EditorPage {
    let Editing { scrap_id, stored, form, errors, test, login } = editing;
    let title = match &stored {
        Some(s) => format!("Edit {}", s.title),
        None => "New scrap".into(),
    };
    EditorPage {
        chrome: user.chrome(title, "scraps"),
        scrap_id: scrap_id.map(|id| id.to_string()),
        params: form.rows(),
        preview: preview(services, &form.cron, &form.cron_timezone),
        form,
        errors,
        time_zones: time_zones(),
        scrappers: &SCRAPPERS,
        proxy_tiers: tier_options(services),
        test,
        email_enabled: services.announcements.email_enabled(),
        ai_enabled: services.ai.enabled(),
        login,
        pending: PendingNotes::default(),
    }
}

fn with_status(status: StatusCode, page: &EditorPage) -> Result<Response, PageError> {
    Ok((status, Html(page.render()?)).into_response())
}

pub(crate) async fn new_page(State(services): State<Arc<Services>>, user: SignedIn) -> Result<Response, PageError> {
    let form = ScrapForm::blank(&user.organization.default_containers);
    render(&editor(&services, &user, Editing::new(form)))
}

#[derive(Deserialize)]
pub(crate) struct EditQuery {
    /// What the Site login card just did (`saved`, `removed`, `forgotten`).
    login: Option<String>,
    /// What "Send again" just did (`sent`, `recent`, `confirmed`).
    recipient: Option<String>,
}

pub(crate) async fn edit_page(
    State(services): State<Arc<Services>>,
    user: SignedIn,
    PathId(id): PathId<ScrapId>,
    Query(query): Query<EditQuery>,
) -> Result<Response, PageError> {
    let scrap = services.scraps.get(&user.principal(), id).await?;
    let form = ScrapForm::from_scrap(&scrap);
    let login = login_card(&services, &user, id, query.login.as_deref(), String::new(), FieldErrors::default()).await?;
    let pending = PendingNotes::of(&services, &user, &scrap, query.recipient).await?;
    let page = editor(&services, &user, Editing::stored(id, scrap, form, Some(login)));
    render(&EditorPage { pending, ..page })
}

/// The Site login form (apart from the editor's).
#[derive(Deserialize)]
pub(crate) struct LoginForm {
    #[serde(default)]
    username: String,
    #[serde(default)]
    password: String,
}

/// The editor of scrap `id` as stored, with its Site login card.
async fn stored_editor(
    services: &Services,
    user: &SignedIn,
    id: ScrapId,
    card: LoginCard,
) -> Result<EditorPage, PageError> {
    let scrap = services.scraps.get(&user.principal(), id).await?;
    let form = ScrapForm::from_scrap(&scrap);
    let pending = PendingNotes::of(services, user, &scrap, None).await?;
    let page = editor(services, user, Editing::stored(id, scrap, form, Some(card)));
    Ok(EditorPage { pending, ..page })
}

/// `POST /scraps/:id/login`: sets (or replaces) the login; a refusal shows
/// the editor again with the message next to its field and the username
/// as typed (the password field is never filled back).
pub(crate) async fn set_login(
    State(services): State<Arc<Services>>,
    id: Result<PathId<ScrapId>, PageError>,
    SignedForm { user, form }: SignedForm<LoginForm>,
) -> Result<Response, PageError> {
    // The id is read after the session and CSRF checks of the form.
    let PathId(id) = id?;
    let LoginForm { username, password } = form;
    match services.site_accounts.set_account(&user.session, id, username.clone(), password).await {
        Ok(_) => Ok(Redirect::to(&format!("/scraps/{id}/edit?login=saved#site-login")).into_response()),
        Err(e @ ServiceError::Validation { .. }) => {
            let errors = FieldErrors::from_service(&e, "username").unwrap_or_default();
            let card = login_card(&services, &user, id, None, username, errors).await?;
            with_status(StatusCode::UNPROCESSABLE_ENTITY, &stored_editor(&services, &user, id, card).await?)
        }
        Err(e) => Err(e.into()),
    }
}

/// `POST /scraps/:id/login/remove`: removes the login and its session.
pub(crate) async fn remove_login(
    State(services): State<Arc<Services>>,
    id: Result<PathId<ScrapId>, PageError>,
    SignedForm { user, .. }: SignedForm<crate::pages::auth::Nothing>,
) -> Result<Response, PageError> {
    // The id is read after the session and CSRF checks of the form.
    let PathId(id) = id?;
    services.site_accounts.delete_account(&user.session, id).await?;
    Ok(Redirect::to(&format!("/scraps/{id}/edit?login=removed#site-login")).into_response())
}

/// `POST /scraps/:id/session/forget`: the next run starts logged out.
pub(crate) async fn forget_session(
    State(services): State<Arc<Services>>,
    id: Result<PathId<ScrapId>, PageError>,
    SignedForm { user, .. }: SignedForm<crate::pages::auth::Nothing>,
) -> Result<Response, PageError> {
    // The id is read after the session and CSRF checks of the form.
    let PathId(id) = id?;
    services.site_accounts.forget_session(&user.session, id).await?;
    Ok(Redirect::to(&format!("/scraps/{id}/edit?login=forgotten#site-login")).into_response())
}

/// Runs the typed script without saving it and shows the editor again.
async fn test_run(
    services: &Services,
    user: &SignedIn,
    scrap_id: Option<ScrapId>,
    stored: Option<Scrap>,
    form: ScrapForm,
) -> Result<Response, PageError> {
    let draft = form.params().map(|params| TestRun {
        url: form.url.clone(),
        script: form.request.clone(),
        params,
        param: Some(form.test_param.clone()).filter(|p| !p.is_empty()),
        // A saved scrap's test run signs in with its site login.
        scrap: scrap_id,
        scrapper: Some(form.scrapper.clone()).filter(|s| !s.is_empty()),
    });
    let outcome = match draft {
        Ok(draft) => services.runs.test_run(&user.session, draft).await,
        Err(e) => Err(e),
    };
    let login = match scrap_id {
        Some(id) => Some(login_card(services, user, id, None, String::new(), FieldErrors::default()).await?),
        None => None,
    };
    match outcome {
        Ok(outcome) => {
            let view = TestRunView::from_outcome(outcome);
            render(&editor(services, user, Editing { scrap_id, stored, test: Some(view), login, ..Editing::new(form) }))
        }
        // A server without a browser (`SVC_EMBEDDED_WORKER=false`) says so
        // above the form, and what was typed stays.
        Err(ServiceError::Unavailable(message)) => {
            let mut errors = FieldErrors::default();
            errors.general = Some(message);
            let page = editor(services, user, Editing { scrap_id, stored, errors, login, ..Editing::new(form) });
            with_status(StatusCode::SERVICE_UNAVAILABLE, &page)
        }
        Err(e) => {
            let Some(errors) = FieldErrors::from_service(&e, "title") else { return Err(e.into()) };
            let page = editor(services, user, Editing { scrap_id, stored, errors, login, ..Editing::new(form) });
            with_status(StatusCode::UNPROCESSABLE_ENTITY, &page)
        }
    }
}

fn refused(page: EditorPage) -> Result<Response, PageError> {
    with_status(StatusCode::UNPROCESSABLE_ENTITY, &page)
}

pub(crate) async fn create(
    State(services): State<Arc<Services>>,
    SignedForm { user, mut form }: SignedForm<ScrapForm>,
) -> Result<Response, PageError> {
    if form.intent == "test" {
        return test_run(&services, &user, None, None, form).await;
    }
    if form.intent == "save-static" {
        form.scrapper = STATIC_SCRAPPER.to_string();
    }
    let saved = match form.changes() {
        Ok(changes) => services.scraps.create(&user.session, changes).await,
        Err(e) => Err(e),
    };
    match saved {
        Ok(scrap) => Ok(Redirect::to(&format!("/scraps/{}?saved=1", scrap.id)).into_response()),
        Err(e) => {
            let Some(errors) = FieldErrors::from_service(&e, "title") else { return Err(e.into()) };
            refused(editor(&services, &user, Editing { errors, ..Editing::new(form) }))
        }
    }
}

pub(crate) async fn update(
    State(services): State<Arc<Services>>,
    id: Result<PathId<ScrapId>, PageError>,
    SignedForm { user, mut form }: SignedForm<ScrapForm>,
) -> Result<Response, PageError> {
    // The id is read after the session and CSRF checks of the form.
    let PathId(id) = id?;
    let stored = services.scraps.get(&user.principal(), id).await?;
    if form.intent == "test" {
        return test_run(&services, &user, Some(id), Some(stored), form).await;
    }
    // The test run's "Switch to static and save".
    if form.intent == "save-static" {
        form.scrapper = STATIC_SCRAPPER.to_string();
    }
    let saved = match form.changes() {
        Ok(changes) => services.scraps.update(&user.session, id, changes).await,
        Err(e) => Err(e),
    };
    match saved {
        Ok(scrap) => Ok(Redirect::to(&format!("/scraps/{}?saved=1", scrap.id)).into_response()),
        Err(ServiceError::NotFound(what)) => Err(ServiceError::NotFound(what).into()),
        Err(e) => {
            let Some(errors) = FieldErrors::from_service(&e, "title") else { return Err(e.into()) };
            let login = login_card(&services, &user, id, None, String::new(), FieldErrors::default()).await?;
            refused(editor(&services, &user, Editing { errors, ..Editing::stored(id, stored, form, Some(login)) }))
        }
    }
}

#[derive(Deserialize)]
pub(crate) struct PreviewQuery {
    #[serde(default)]
    cron: String,
    #[serde(default, rename = "cronTimezone")]
    cron_timezone: String,
}

#[derive(Template)]
#[template(path = "schedule_preview.html")]
struct PreviewFragment {
    preview: SchedulePreview,
}

/// The cron preview alone, for the editor's script to refresh as one types.
pub(crate) async fn schedule_preview(
    State(services): State<Arc<Services>>,
    _user: SignedIn,
    Query(q): Query<PreviewQuery>,
) -> Result<Response, PageError> {
    render(&PreviewFragment { preview: preview(&services, &q.cron, &q.cron_timezone) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameter_values_are_json_when_they_parse_and_text_otherwise() {
        assert_eq!(typed_value("42"), Value::from(42));
        assert_eq!(typed_value("{\"a\": 1}"), serde_json::json!({"a": 1}));
        assert_eq!(typed_value("paris"), Value::from("paris"));
        assert_eq!(shown_value(&Value::from("paris")), "paris");
        assert_eq!(shown_value(&serde_json::json!([1, 2])), "[1,2]");
    }

    #[test]
    fn auto_fix_round_trips_through_the_form() {
        let ticked: ScrapForm = serde_html_form::from_str("title=t&autoFix=on&aiDescription=prices").unwrap();
        assert_eq!(ticked.changes().unwrap().auto_fix, Some(true));
        assert_eq!(ticked.ai_description, "prices", "the AI panel's text is kept across a re-render");
        let unticked: ScrapForm = serde_html_form::from_str("title=t").unwrap();
        assert_eq!(unticked.changes().unwrap().auto_fix, Some(false), "an unticked box turns it off");
    }

    #[test]
    fn blank_parameter_rows_are_dropped_and_keyless_values_refused() {
        let form = ScrapForm {
            param_keys: vec!["city".into(), "".into()],
            param_values: vec!["paris".into(), "".into()],
            ..ScrapForm::default()
        };
        assert_eq!(form.params().unwrap(), vec![ParamSet { key: "city".into(), value: Value::from("paris") }]);
        let bad = ScrapForm { param_keys: vec!["".into()], param_values: vec!["x".into()], ..ScrapForm::default() };
        assert!(matches!(bad.params(), Err(ServiceError::Validation { field, .. }) if field == "params"));
    }
}
