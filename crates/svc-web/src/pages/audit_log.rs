//! `/settings/audit`: the organization's audit log, newest first, a page
//! at a time (owners and admins: the service checks).

use std::sync::Arc;

use askama::Template;
use axum::extract::{Query, State};
use axum::response::Response;
use chrono::Utc;
use serde::Deserialize;
use svc_service::Services;
use svc_service::paging::PageRequest;

use super::pager::Pager;
use super::{page_number, render};
use crate::chrome::Chrome;
use crate::page_error::PageError;
use crate::present::audit::{action_tone, action_words, actor_words};
use crate::present::when::{Moment, moment};
use crate::signed_in::SignedIn;

/// Entries per page.
const PER_PAGE: i64 = 25;

#[derive(Template)]
#[template(path = "audit_log.html")]
struct AuditLogPage {
    chrome: Chrome,
    rows: Vec<Row>,
    total: i64,
    pager: Pager,
}

struct Row {
    when: Moment,
    actor: String,
    /// `user`, `key` or `operator`.
    actor_kind: &'static str,
    action: &'static str,
    /// `key.created`: the stable name, for the tooltip.
    action_name: &'static str,
    tone: &'static str,
    /// "key 6b09…".
    target: String,
    detail: String,
    address: String,
}

#[derive(Deserialize)]
pub(crate) struct Params {
    #[serde(default)]
    page: Option<String>,
}

pub(crate) async fn page(
    State(services): State<Arc<Services>>,
    user: SignedIn,
    Query(params): Query<Params>,
) -> Result<Response, PageError> {
    let now = Utc::now();
    let page = page_number(params.page.as_deref()).min(svc_service::paging::MAX_PAGE);
    let found = services.audit.list(&user.session, PageRequest { page, per_page: PER_PAGE }).await?;
    let rows = found
        .items
        .into_iter()
        .map(|e| {
            let (kind, id) = e.action.target();
            Row {
                when: moment(e.created_at, now),
                actor: actor_words(&e.actor),
                actor_kind: e.actor.kind(),
                action: action_words(&e.action),
                action_name: e.action.name(),
                tone: action_tone(&e.action),
                target: format!("{kind} {id}"),
                detail: e.detail.unwrap_or_default(),
                address: e.address.unwrap_or_default(),
            }
        })
        .collect();
    let pager = Pager::new(page, PER_PAGE, found.total, |p| format!("/settings/audit?page={p}"))
        .labelled("Pages of the audit log");
    render(&AuditLogPage { chrome: user.chrome("Audit log", "settings"), rows, total: found.total, pager })
}
