//! `/`: the organization's scraps with their schedule and last run.

use std::sync::Arc;

use askama::Template;
use axum::extract::{Query, State};
use axum::response::Response;
use chrono::Utc;
use serde::Deserialize;
use svc_service::Services;
use svc_service::paging::PageRequest;

use crate::chrome::Chrome;
use crate::page_error::PageError;
use crate::pages::pager::Pager;
use crate::pages::render;
use crate::present::run_status::{self, Chip};
use crate::present::schedule_words;
use crate::present::when::{Moment, moment, moment_in};
use crate::signed_in::SignedIn;

#[derive(Deserialize)]
pub(crate) struct ListParams {
    #[serde(default)]
    search: String,
    #[serde(default)]
    failing: Option<String>,
    #[serde(default)]
    page: Option<String>,
    /// Set by the redirect after a scrap was deleted.
    #[serde(default)]
    deleted: Option<String>,
}

pub(crate) struct Row {
    pub id: String,
    pub title: String,
    pub url: String,
    /// The scrap's engine (`scrapper`), in words.
    pub engine: &'static str,
    pub schedule: String,
    pub next_run: Option<Moment>,
    pub chip: Chip,
    /// Items of the last finished run.
    pub items: Option<i64>,
    pub when: Option<Moment>,
    /// The path of the scrap's banner image, when svc serves one.
    pub banner: Option<String>,
}

/// A scrap's engine as the list says it.
fn engine_words(scrapper: &str) -> &'static str {
    match scrapper {
        svc_domain::scrap::STATIC_SCRAPPER => "static",
        svc_domain::scrap::AUTO_SCRAPPER => "auto",
        _ => "browser",
    }
}

#[derive(Template)]
#[template(path = "scrap_list.html")]
struct ScrapListPage {
    chrome: Chrome,
    rows: Vec<Row>,
    total: i64,
    search: String,
    failing: bool,
    pager: Pager,
    deleted: bool,
}

fn query_link(search: &str, failing: bool, page: i64) -> String {
    let mut q = url::form_urlencoded::Serializer::new(String::new());
    if !search.is_empty() {
        q.append_pair("search", search);
    }
    if failing {
        q.append_pair("failing", "1");
    }
    q.append_pair("page", &page.to_string());
    format!("/?{}", q.finish())
}

pub(crate) async fn page(
    State(services): State<Arc<Services>>,
    user: SignedIn,
    Query(params): Query<ListParams>,
) -> Result<Response, PageError> {
    let failing = params.failing.is_some_and(|v| !v.is_empty());
    let page_number = params.page.as_deref().and_then(|p| p.parse::<i64>().ok()).filter(|p| *p >= 1).unwrap_or(1);
    let page_request = PageRequest::new(Some(page_number), None).unwrap_or_default();
    let search = params.search.trim().to_string();
    let search_arg = Some(search.clone()).filter(|s| !s.is_empty());
    let found = services.scraps.overview(&user.session, search_arg, failing, page_request).await?;
    let now = Utc::now();
    let rows = found
        .items
        .into_iter()
        .map(|o| {
            let scrap = o.scrap;
            let tz = scrap.cron_timezone.parse().unwrap_or(chrono_tz::UTC);
            let next_run = scrap
                .cron
                .as_deref()
                .and_then(|c| svc_service::schedule::cron::next_fire_of(Some(c), &scrap.cron_timezone, now))
                .map(|t| moment_in(t, now, tz));
            let run = o.last_run;
            Row {
                id: scrap.id.to_string(),
                engine: engine_words(&scrap.scrapper),
                schedule: schedule_words::describe(scrap.cron.as_deref(), &scrap.cron_timezone),
                next_run,
                chip: run.as_ref().map(|r| run_status::chip(r.status_detail)).unwrap_or(run_status::NEVER),
                items: run.as_ref().filter(|r| r.status_detail.is_some()).map(|r| r.length),
                when: run.as_ref().map(|r| moment(r.finished_at.unwrap_or(r.created_at), now)),
                banner: crate::present::banner::shown(&scrap.banner),
                title: scrap.title,
                url: scrap.url,
            }
        })
        .collect();
    let pager = Pager::new(page_number, page_request.per_page, found.total, |p| query_link(&search, failing, p));
    let deleted = params.deleted.is_some();
    render(&ScrapListPage {
        chrome: user.chrome("Scraps", "scraps"),
        rows,
        total: found.total,
        search,
        failing,
        pager,
        deleted,
    })
}
