//! `/scraps/:id/versions`: every version of a scrap's script (who made it,
//! when), the selected one (`?v=<id>`, else the newest) as a line diff
//! against the version before it, and `POST /scraps/:id/versions/:v/restore`
//! to make an older one current again (a new `rollback` version).

use std::collections::HashMap;
use std::sync::Arc;

use askama::Template;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use chrono::Utc;
use serde::Deserialize;
use svc_domain::scrap::Scrap;
use svc_domain::script_version::{ScriptVersion, VersionSource};
use svc_domain::{ObjectId, ScrapId};
use svc_service::paging::PageRequest;
use svc_service::{Principal, ServiceError, Services};

use crate::chrome::Chrome;
use crate::page_error::PageError;
use crate::pages::auth::Nothing;
use crate::pages::pager::Pager;
use crate::pages::scrap_page::run_href;
use crate::pages::{object_id, page_number, render, render_status};
use crate::path_id::{PathId, PathIds};
use crate::present::script_diff::{self, ScriptDiff};
use crate::present::versions::made_by;
use crate::present::when::{Moment, moment};
use crate::signed_in::{SignedForm, SignedIn};

const PER_PAGE: i64 = 20;

#[derive(Deserialize, Default)]
pub(crate) struct VersionsQuery {
    /// The selected version's id.
    #[serde(default)]
    v: Option<String>,
    #[serde(default)]
    page: Option<String>,
    /// The number of the version just restored (the notice).
    #[serde(default)]
    restored: Option<String>,
}

/// A version in the list.
struct VersionRow {
    id: String,
    number: i64,
    href: String,
    made_by: String,
    /// AI Fix: the run it repaired.
    run_href: Option<String>,
    when: Moment,
    current: bool,
    selected: bool,
    /// AI Fix wrote it and no one has approved it yet.
    awaits_approval: bool,
}

/// The selected version and how it differs from the one before.
struct Selected {
    id: String,
    number: i64,
    made_by: String,
    run_href: Option<String>,
    when: Moment,
    /// The version before it (none for the first).
    previous: Option<(i64, String)>,
    diff: ScriptDiff,
    /// What the diff's table is of, for screen readers.
    diff_label: String,
    /// AI Fix wrote it and no one has approved it yet.
    awaits_approval: bool,
    /// Its script is the scrap's script now (restoring it changes nothing).
    is_current_script: bool,
    /// It is the newest version.
    is_newest: bool,
    restore_action: String,
}

#[derive(Template)]
#[template(path = "versions.html")]
struct VersionsPage {
    chrome: Chrome,
    scrap_id: String,
    scrap_title: String,
    total: i64,
    rows: Vec<VersionRow>,
    pager: Pager,
    selected: Option<Selected>,
    notice: Option<String>,
    refusal: Option<String>,
}

/// The version numbered `number`, found by its place in the newest-first
/// list (numbers run from 1 without gaps; checked).
async fn by_number(
    services: &Services,
    principal: &Principal,
    scrap: ScrapId,
    total: i64,
    number: i64,
) -> Result<Option<ScriptVersion>, PageError> {
    if number < 1 || number > total {
        return Ok(None);
    }
    let page = PageRequest::new(Some(total - number + 1), Some(1))?;
    let found = services.scraps.versions(principal, scrap, page).await?;
    Ok(found.items.into_iter().next().filter(|v| v.number == number))
}

/// The number of the version a rollback restored.
async fn restored_number(
    services: &Services,
    principal: &Principal,
    scrap: ScrapId,
    known: &HashMap<ObjectId, i64>,
    version: &ScriptVersion,
) -> Result<Option<i64>, PageError> {
    let Some(from) = version.restored_from else { return Ok(None) };
    if let Some(n) = known.get(&from) {
        return Ok(Some(*n));
    }
    match services.scraps.version(principal, scrap, from).await {
        Ok(v) => Ok(Some(v.number)),
        Err(ServiceError::NotFound(_)) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

async fn build(
    services: &Services,
    user: &SignedIn,
    scrap: Scrap,
    query: &VersionsQuery,
) -> Result<VersionsPage, PageError> {
    let principal = user.principal();
    let id = scrap.id;
    let page = page_number(query.page.as_deref());
    let listed = services.scraps.versions(&principal, id, PageRequest::new(Some(page), Some(PER_PAGE))?).await?;
    let total = listed.total;
    let newest = if page == 1 {
        listed.items.first().cloned()
    } else {
        services.scraps.versions(&principal, id, PageRequest::new(Some(1), Some(1))?).await?.items.into_iter().next()
    };
    let selected = match query.v.as_deref().map(str::trim).filter(|v| !v.is_empty()) {
        Some(raw) => Some(services.scraps.version(&principal, id, object_id(raw, "version")?).await?),
        None => newest.clone(),
    };
    let now = Utc::now();
    let mut known: HashMap<ObjectId, i64> = listed.items.iter().map(|v| (v.id, v.number)).collect();
    if let Some(s) = &selected {
        known.insert(s.id, s.number);
    }
    let newest_id = newest.as_ref().map(|v| v.id);
    let selected_id = selected.as_ref().map(|v| v.id);
    let href = |v: ObjectId| format!("/scraps/{id}/versions?v={v}&page={page}#selected");
    let run_of = |v: &ScriptVersion| (v.source == VersionSource::AiFix).then_some(v.history_id).flatten();
    let mut rows = Vec::with_capacity(listed.items.len());
    for v in &listed.items {
        let restored = restored_number(services, &principal, id, &known, v).await?;
        rows.push(VersionRow {
            id: v.id.to_string(),
            number: v.number,
            href: href(v.id),
            made_by: made_by(v.source, restored),
            run_href: run_of(v).map(|h| run_href(id, h)),
            when: moment(v.created_at, now),
            current: Some(v.id) == newest_id,
            selected: Some(v.id) == selected_id,
            awaits_approval: v.awaits_approval(),
        });
    }
    let selected = match selected {
        None => None,
        Some(v) => {
            let previous = by_number(services, &principal, id, total, v.number - 1).await?;
            let diff = script_diff::diff(previous.as_ref().map_or("", |p| p.request.as_str()), &v.request);
            let restored = restored_number(services, &principal, id, &known, &v).await?;
            Some(Selected {
                id: v.id.to_string(),
                number: v.number,
                made_by: made_by(v.source, restored),
                run_href: run_of(&v).map(|h| run_href(id, h)),
                when: moment(v.created_at, now),
                previous: previous.map(|p| (p.number, href(p.id))),
                diff,
                diff_label: format!("version {}", v.number),
                awaits_approval: v.awaits_approval(),
                is_current_script: v.request == scrap.request,
                is_newest: Some(v.id) == newest_id,
                restore_action: format!("/scraps/{id}/versions/{}/restore", v.id),
            })
        }
    };
    let sid = id.to_string();
    let selected_param = query.v.clone().filter(|v| ObjectId::parse(v).is_some());
    let pager = Pager::new(page, PER_PAGE, total, |p| match &selected_param {
        Some(v) => format!("/scraps/{sid}/versions?v={v}&page={p}"),
        None => format!("/scraps/{sid}/versions?page={p}"),
    })
    .labelled("Pages of the versions");
    let notice = query.restored.as_deref().and_then(|n| n.parse::<i64>().ok()).map(|n| {
        format!("Version {n} is the scrap's script again. Restoring made a new version; the older ones are all kept.")
    });
    Ok(VersionsPage {
        chrome: user.chrome(format!("Versions of {}", scrap.title), "scraps"),
        scrap_id: sid,
        scrap_title: scrap.title,
        total,
        rows,
        pager,
        selected,
        notice,
        refusal: None,
    })
}

pub(crate) async fn page(
    State(services): State<Arc<Services>>,
    user: SignedIn,
    PathId(id): PathId<ScrapId>,
    Query(query): Query<VersionsQuery>,
) -> Result<Response, PageError> {
    let scrap = services.scraps.get(&user.principal(), id).await?;
    render(&build(&services, &user, scrap, &query).await?)
}

/// Makes version `:v` the script again, then back to the versions page
/// with the new version selected.
pub(crate) async fn restore(
    State(services): State<Arc<Services>>,
    ids: Result<PathIds<ScrapId, ObjectId>, PageError>,
    SignedForm { user, .. }: SignedForm<Nothing>,
) -> Result<Response, PageError> {
    // The ids are read after the session and CSRF checks of the form.
    let PathIds(id, version) = ids?;
    let principal = user.principal();
    match services.scraps.restore_version(&user.session, id, version).await {
        Ok(made) => {
            let old = services.scraps.version(&principal, id, version).await?;
            let to = format!("/scraps/{id}/versions?v={}&restored={}#selected", made.id, old.number);
            Ok(Redirect::to(&to).into_response())
        }
        Err(ServiceError::Conflict { message, .. }) => {
            // Already the script: the page again, saying so.
            let scrap = services.scraps.get(&principal, id).await?;
            let query = VersionsQuery { v: Some(version.to_string()), ..VersionsQuery::default() };
            let mut page = build(&services, &user, scrap, &query).await?;
            page.refusal = Some(format!("Nothing changed: {message}."));
            render_status(StatusCode::CONFLICT, &page)
        }
        Err(e) => Err(e.into()),
    }
}
