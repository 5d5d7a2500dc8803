//! `/scraps/:id/ai-fix`: what of AI Fix waits for the scrap's owner, each
//! as a line diff: the current script when AI Fix wrote it and no one has
//! approved it (its runs are held to the scrap's site until then), and the
//! repairs proposed for a scrap with a site login (never applied until
//! approved). `POST .../versions/:v/approve`, `.../proposals/:p/approve`
//! and `.../proposals/:p/dismiss` decide.

use std::sync::Arc;

use askama::Template;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use chrono::Utc;
use serde::Deserialize;
use svc_domain::scrap::Scrap;
use svc_domain::{ObjectId, ScrapId};
use svc_service::ai::fix_review::AwaitingApproval;
use svc_service::{ServiceError, Services};

use crate::chrome::Chrome;
use crate::page_error::PageError;
use crate::pages::auth::Nothing;
use crate::pages::scrap_page::run_href;
use crate::pages::{render, render_status};
use crate::path_id::{PathId, PathIds};
use crate::present::script_diff::{self, ScriptDiff};
use crate::present::when::{Moment, moment};
use crate::signed_in::{SignedForm, SignedIn};

#[derive(Deserialize, Default)]
pub(crate) struct ReviewQuery {
    /// What was just decided: `approved` or `dismissed` (the notice).
    #[serde(default)]
    done: Option<String>,
}

/// The current script, written by AI Fix, waiting.
struct WaitingVersion {
    number: i64,
    when: Moment,
    run_href: Option<String>,
    previous: Option<i64>,
    diff: ScriptDiff,
    diff_label: String,
    approve_action: String,
    /// Restores the version before it.
    restore_action: Option<String>,
}

/// A proposed repair.
struct Proposal {
    id: String,
    when: Moment,
    run_href: String,
    length: i64,
    diff: ScriptDiff,
    diff_label: String,
    /// The scrap's script changed since: it can only be dismissed.
    outdated: bool,
    approve_action: String,
    dismiss_action: String,
}

#[derive(Template)]
#[template(path = "fix_review.html")]
struct ReviewPage {
    chrome: Chrome,
    scrap_id: String,
    scrap_title: String,
    /// The scrap's site, the only one unapproved scripts reach.
    site: String,
    version: Option<WaitingVersion>,
    proposals: Vec<Proposal>,
    notice: Option<&'static str>,
    refusal: Option<String>,
}

fn build(user: &SignedIn, scrap: &Scrap, waiting: AwaitingApproval, query: &ReviewQuery) -> ReviewPage {
    let now = Utc::now();
    let id = scrap.id;
    let version = waiting.version.map(|w| {
        let v = w.version;
        WaitingVersion {
            number: v.number,
            when: moment(v.created_at, now),
            run_href: v.history_id.map(|h| run_href(id, h)),
            previous: w.previous.as_ref().map(|p| p.number),
            diff: script_diff::diff(w.previous.as_ref().map_or("", |p| p.request.as_str()), &v.request),
            diff_label: format!("version {}", v.number),
            approve_action: format!("/scraps/{id}/ai-fix/versions/{}/approve", v.id),
            restore_action: w.previous.as_ref().map(|p| format!("/scraps/{id}/versions/{}/restore", p.id)),
        }
    });
    let proposals = waiting
        .proposals
        .into_iter()
        .map(|p| Proposal {
            id: p.id.to_string(),
            when: moment(p.created_at, now),
            run_href: run_href(id, p.history_id),
            length: p.length,
            diff: script_diff::diff(&p.base_request, &p.request),
            diff_label: "the proposed repair".into(),
            outdated: p.base_request != scrap.request,
            approve_action: format!("/scraps/{id}/ai-fix/proposals/{}/approve", p.id),
            dismiss_action: format!("/scraps/{id}/ai-fix/proposals/{}/dismiss", p.id),
        })
        .collect();
    let notice = match query.done.as_deref() {
        Some("approved") => {
            Some("Approved. The script is the scrap's script now, and its runs reach the web as before.")
        }
        Some("dismissed") => Some("Dismissed. The scrap's script stays as it was."),
        _ => None,
    };
    ReviewPage {
        chrome: user.chrome(format!("AI Fix review of {}", scrap.title), "scraps"),
        scrap_id: id.to_string(),
        scrap_title: scrap.title.clone(),
        site: svc_engine::Site::of_url(&scrap.url).map(|s| s.to_string()).unwrap_or_else(|| scrap.url.clone()),
        version,
        proposals,
        notice,
        refusal: None,
    }
}

pub(crate) async fn page(
    State(services): State<Arc<Services>>,
    user: SignedIn,
    PathId(id): PathId<ScrapId>,
    Query(query): Query<ReviewQuery>,
) -> Result<Response, PageError> {
    let principal = user.principal();
    let scrap = services.scraps.get(&principal, id).await?;
    let waiting = services.ai.awaiting_approval(&principal, id).await?;
    render(&build(&user, &scrap, waiting, &query))
}

/// After a decision: back to the review with a notice, or the review again
/// with the refusal (409) when it could not be made.
async fn decided(
    services: &Services,
    user: &SignedIn,
    id: ScrapId,
    outcome: Result<&'static str, ServiceError>,
) -> Result<Response, PageError> {
    match outcome {
        Ok(done) => Ok(Redirect::to(&format!("/scraps/{id}/ai-fix?done={done}")).into_response()),
        Err(ServiceError::Conflict { message, .. }) => {
            let principal = user.principal();
            let scrap = services.scraps.get(&principal, id).await?;
            let waiting = services.ai.awaiting_approval(&principal, id).await?;
            let mut page = build(user, &scrap, waiting, &ReviewQuery::default());
            page.refusal = Some(format!("Nothing changed: {message}."));
            render_status(StatusCode::CONFLICT, &page)
        }
        Err(e) => Err(e.into()),
    }
}

pub(crate) async fn approve_version(
    State(services): State<Arc<Services>>,
    ids: Result<PathIds<ScrapId, ObjectId>, PageError>,
    SignedForm { user, .. }: SignedForm<Nothing>,
) -> Result<Response, PageError> {
    // The ids are read after the session and CSRF checks of the form.
    let PathIds(id, version) = ids?;
    let outcome = services.ai.approve_version(&user.session, id, version).await.map(|_| "approved");
    decided(&services, &user, id, outcome).await
}

pub(crate) async fn approve_proposal(
    State(services): State<Arc<Services>>,
    ids: Result<PathIds<ScrapId, ObjectId>, PageError>,
    SignedForm { user, .. }: SignedForm<Nothing>,
) -> Result<Response, PageError> {
    let PathIds(id, proposal) = ids?;
    let outcome = services.ai.approve_proposal(&user.session, id, proposal).await.map(|_| "approved");
    decided(&services, &user, id, outcome).await
}

pub(crate) async fn dismiss_proposal(
    State(services): State<Arc<Services>>,
    ids: Result<PathIds<ScrapId, ObjectId>, PageError>,
    SignedForm { user, .. }: SignedForm<Nothing>,
) -> Result<Response, PageError> {
    let PathIds(id, proposal) = ids?;
    let outcome = services.ai.dismiss_proposal(&user.session, id, proposal).await.map(|_| "dismissed");
    decided(&services, &user, id, outcome).await
}
