//! `/developers/keys`: the organization's API keys, a form to create one
//! (its plain key shown once, in the answer to the form), and revocation.
//!
//! A key created here has every action granted (interface.md,
//! Authentication 3): the form offers a scrap allow-list, never scopes.

use std::sync::Arc;

use askama::Template;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use chrono::{Months, NaiveDate, Utc};
use serde::Deserialize;
use svc_domain::KeyId;
use svc_domain::scope::Scope;
use svc_service::Services;
use svc_service::accounts::keys::NewKey;
use svc_service::paging::PageRequest;

use super::auth::Nothing;
use super::pager::Pager;
use super::scrap_picker::{ScrapLink, ScrapPicker};
use super::{page_number, render, render_status};
use crate::chrome::Chrome;
use crate::form_errors::FieldErrors;
use crate::page_error::PageError;
use crate::path_id::PathId;
use crate::present::scopes;
use crate::present::when::{Moment, moment};
use crate::signed_in::{SignedForm, SignedIn};

pub(crate) struct KeyRow {
    pub id: String,
    pub name: String,
    pub prefix: String,
    /// Empty: every action.
    pub scopes: Vec<&'static str>,
    pub scraps: Vec<ScrapLink>,
    /// `None`: a key from before the expiry policy, valid until revoked.
    pub expires: Option<Moment>,
    pub expired: bool,
    pub created: Moment,
}

pub(crate) struct ScopeWords {
    pub name: &'static str,
    pub grants: &'static str,
}

/// The key just created, shown this once.
pub(crate) struct NewlyCreated {
    pub name: String,
    pub plain_key: String,
    pub expires: Moment,
}

/// What the create form holds.
#[derive(Default)]
pub(crate) struct KeyForm {
    pub name: String,
    pub expires: String,
    pub errors: FieldErrors,
}

#[derive(Template)]
#[template(path = "keys.html")]
struct KeysPage {
    chrome: Chrome,
    rows: Vec<KeyRow>,
    total: i64,
    pager: Pager,
    revoked: bool,
    created: Option<NewlyCreated>,
    form: KeyForm,
    picker: ScrapPicker,
    scopes: Vec<ScopeWords>,
    /// Bounds of the expiry date picker (`YYYY-MM-DD`).
    min_date: String,
    max_date: String,
}

#[derive(Deserialize)]
pub(crate) struct ListParams {
    #[serde(default)]
    page: Option<String>,
    #[serde(default)]
    revoked: Option<String>,
}

#[derive(Deserialize)]
pub(crate) struct CreateForm {
    #[serde(default)]
    name: String,
    #[serde(default)]
    expires: String,
    #[serde(default, rename = "scrapIds")]
    scrap_ids: Vec<String>,
}

/// The expiry of the form's date (`YYYY-MM-DD`): the key stops working at
/// 00:00 UTC that day. Empty: the service's default.
fn expiry_of(date: &str) -> Result<Option<String>, String> {
    let date = date.trim();
    if date.is_empty() {
        return Ok(None);
    }
    NaiveDate::parse_from_str(date, "%Y-%m-%d")
        .map(|d| Some(format!("{}T00:00:00Z", d.format("%Y-%m-%d"))))
        .map_err(|_| "must be a date such as 2027-01-31".to_string())
}

struct Shown {
    page: i64,
    revoked: bool,
    created: Option<NewlyCreated>,
    form: KeyForm,
    checked: Vec<String>,
}

async fn keys_page(services: &Services, user: &SignedIn, shown: Shown) -> Result<KeysPage, PageError> {
    let page = PageRequest::new(Some(shown.page), None).unwrap_or_default();
    let found = services.keys.list(&user.session, page).await?;
    let picker = ScrapPicker::load(services, user, &shown.checked).await?;
    let mut titles = picker.titles();
    let now = Utc::now();
    let mut rows = Vec::with_capacity(found.items.len());
    for key in found.items {
        rows.push(KeyRow {
            id: key.id.to_string(),
            scopes: key.scopes.iter().map(|s| s.as_str()).collect(),
            scraps: titles.links(services, user, &key.scrap_ids).await?,
            expires: key.expires_at.map(|at| moment(at, now)),
            expired: key.expires_at.is_some_and(|at| at <= now),
            created: moment(key.created_at, now),
            name: key.name,
            prefix: key.prefix,
        });
    }
    let today = now.date_naive();
    Ok(KeysPage {
        chrome: user.chrome("API keys", "keys"),
        rows,
        total: found.total,
        pager: Pager::new(page.page, page.per_page, found.total, |p| format!("/developers/keys?page={p}")),
        revoked: shown.revoked,
        created: shown.created,
        form: shown.form,
        picker,
        scopes: Scope::ALL.into_iter().map(|s| ScopeWords { name: s.as_str(), grants: scopes::grants(s) }).collect(),
        min_date: (today + chrono::Days::new(1)).format("%Y-%m-%d").to_string(),
        max_date: today.checked_add_months(Months::new(24)).unwrap_or(today).format("%Y-%m-%d").to_string(),
    })
}

pub(crate) async fn page(
    State(services): State<Arc<Services>>,
    user: SignedIn,
    Query(params): Query<ListParams>,
) -> Result<Response, PageError> {
    let page = page_number(params.page.as_deref());
    let shown =
        Shown { page, revoked: params.revoked.is_some(), created: None, form: KeyForm::default(), checked: Vec::new() };
    render(&keys_page(&services, &user, shown).await?)
}

pub(crate) async fn create(
    State(services): State<Arc<Services>>,
    SignedForm { user, form }: SignedForm<CreateForm>,
) -> Result<Response, PageError> {
    let refused = |errors: FieldErrors| Shown {
        page: 1,
        revoked: false,
        created: None,
        form: KeyForm { name: form.name.clone(), expires: form.expires.clone(), errors },
        checked: form.scrap_ids.clone(),
    };
    let expires_at = match expiry_of(&form.expires) {
        Ok(at) => at,
        Err(message) => {
            let mut errors = FieldErrors::default();
            errors.add("expiresAt", message);
            return render_status(
                StatusCode::UNPROCESSABLE_ENTITY,
                &keys_page(&services, &user, refused(errors)).await?,
            );
        }
    };
    let input = NewKey { name: form.name.clone(), expires_at, scopes: Vec::new(), scrap_ids: form.scrap_ids.clone() };
    match services.keys.create(&user.session, input).await {
        Ok(created) => {
            let expires = created.key.expires_at.unwrap_or_else(Utc::now);
            let shown = Shown {
                page: 1,
                revoked: false,
                created: Some(NewlyCreated {
                    name: created.key.name,
                    plain_key: created.plain_key,
                    expires: moment(expires, Utc::now()),
                }),
                form: KeyForm::default(),
                checked: Vec::new(),
            };
            // Not stored by the browser: every HTML page is `no-store` (pages::page_headers).
            render(&keys_page(&services, &user, shown).await?)
        }
        Err(e) => {
            let Some(errors) = FieldErrors::from_service(&e, "name") else { return Err(e.into()) };
            render_status(StatusCode::UNPROCESSABLE_ENTITY, &keys_page(&services, &user, refused(errors)).await?)
        }
    }
}

pub(crate) async fn revoke(
    State(services): State<Arc<Services>>,
    id: Result<PathId<KeyId>, PageError>,
    SignedForm { user, .. }: SignedForm<Nothing>,
) -> Result<Response, PageError> {
    // The id is read after the session and CSRF checks of the form.
    let PathId(id) = id?;
    services.keys.revoke(&user.session, id).await?;
    Ok(Redirect::to("/developers/keys?revoked=1").into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_date_picker_value_becomes_midnight_utc() {
        assert_eq!(expiry_of("2027-01-31"), Ok(Some("2027-01-31T00:00:00Z".into())));
        assert_eq!(expiry_of("  "), Ok(None));
        assert!(expiry_of("31/01/2027").is_err());
        assert!(expiry_of("2027-02-30").is_err());
    }
}
