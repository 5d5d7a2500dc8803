//! `/admin`: for platform admins only. What an admin can see through the
//! services: this server, the admin-only cost fields of the organization's
//! latest runs, and the operator commands. Release announcements need email,
//! which svc cannot send yet: the form is shown disabled, with no handler.

use std::sync::Arc;

use askama::Template;
use axum::extract::State;
use axum::response::Response;
use chrono::Utc;
use serde_json::Value;
use svc_service::Services;
use svc_service::paging::PageRequest;

use super::render;
use super::scrap_picker::{ScrapLink, ScrapTitles};
use crate::chrome::Chrome;
use crate::page_error::PageError;
use crate::present::run_status::{self, Chip};
use crate::present::when::{Moment, moment};
use crate::signed_in::SignedIn;

/// How many of the latest runs the page shows.
const LATEST_RUNS: i64 = 20;

pub(crate) struct CostRow {
    pub id: String,
    pub scrap: ScrapLink,
    pub chip: Chip,
    /// `meter.units`.
    pub units: Option<String>,
    /// `costs.total`, in USD.
    pub cost: Option<String>,
    pub when: Moment,
}

#[derive(Template)]
#[template(path = "admin.html")]
struct AdminPage {
    chrome: Chrome,
    version: &'static str,
    database: &'static str,
    public_url: String,
    runs: Vec<CostRow>,
    runs_total: i64,
}

fn units_of(meter: Option<&Value>) -> Option<String> {
    meter?.get("units").filter(|v| v.is_number()).map(Value::to_string)
}

fn cost_of(costs: Option<&Value>) -> Option<String> {
    costs?.get("total")?.as_f64().map(|usd| format!("${usd:.4}"))
}

pub(crate) async fn page(State(services): State<Arc<Services>>, user: SignedIn) -> Result<Response, PageError> {
    if !user.user.is_admin {
        return Err(PageError::Forbidden(
            "The admin area is for platform admins, and this account is not one. An operator makes an account a \
             platform admin on the server with: svc admin grant-admin --email E"
                .into(),
        ));
    }
    let principal = user.principal();
    let latest = services.history.list(&principal, None, PageRequest::new(Some(1), Some(LATEST_RUNS))?).await?;
    let now = Utc::now();
    let mut runs = Vec::with_capacity(latest.items.len());
    let mut titles = ScrapTitles::default();
    for view in latest.items {
        let row = view.row;
        let scrap = titles.links(&services, &user, &[row.scrap_id]).await?.pop().expect("one link per id");
        runs.push(CostRow {
            id: row.id.to_string(),
            scrap,
            chip: run_status::chip(row.status_detail),
            units: units_of(row.meter.as_ref()),
            cost: cost_of(row.costs.as_ref()),
            when: moment(row.finished_at.unwrap_or(row.created_at), now),
        });
    }
    render(&AdminPage {
        chrome: user.chrome("Admin", "admin"),
        version: env!("CARGO_PKG_VERSION"),
        database: services.health().database,
        public_url: services.public_url().to_string(),
        runs,
        runs_total: latest.total,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn cost_fields_are_read_when_present() {
        assert_eq!(units_of(Some(&json!({"units": 3, "ratioVersion": 1}))), Some("3".into()));
        assert_eq!(units_of(Some(&json!({"breakdown": {}}))), None);
        assert_eq!(units_of(None), None);
        assert_eq!(cost_of(Some(&json!({"total": 0.0125}))), Some("$0.0125".into()));
        assert_eq!(cost_of(Some(&json!({"total": null}))), None);
    }
}
