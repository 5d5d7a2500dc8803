use serde::{Deserialize, Serialize};
use svc_domain::history::HistoryRow;
use utoipa::ToSchema;

use crate::iso;
use crate::usage::{CostsView, MeterView};

/// The History row shape: one run of a scrap. `costs` and `meter` are
/// absent (not null) unless the caller may see them (platform admins).
/// `errorSnapshot` is for the web app's admin view only, so REST and MCP
/// never carry it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct HistoryRowView {
    pub id: String,
    pub scrap: Option<String>,
    pub organization_id: String,
    pub status: Option<bool>,
    pub status_detail: Option<String>,
    pub data: String,
    pub length: i64,
    pub time: Option<i64>,
    pub digest: Option<String>,
    pub triggered_by: String,
    #[serde(rename = "type")]
    pub run_type: String,
    pub proxy_tier: String,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "present")]
    pub costs: Option<Option<CostsView>>,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "present")]
    pub meter: Option<Option<MeterView>>,
    pub fix_version_id: Option<String>,
    pub fixed_at: Option<String>,
    pub retries: i64,
    pub error: Option<String>,
    pub created_at: String,
    pub finished_at: Option<String>,
}

impl HistoryRowView {
    /// `admin_fields`: whether the caller may see `costs` and `meter`.
    pub fn new(r: HistoryRow, admin_fields: bool) -> Self {
        let status = r.status();
        HistoryRowView {
            id: r.id.to_string(),
            scrap: r.scrap_id.map(|s| s.to_string()),
            organization_id: r.organization_id.to_string(),
            status,
            status_detail: r.status_detail.map(|d| d.as_str().to_string()),
            data: r.data,
            length: r.length,
            time: r.time_ms,
            digest: r.digest,
            triggered_by: r.triggered_by.as_str().to_string(),
            run_type: r.run_type.as_str().to_string(),
            proxy_tier: r.proxy_tier,
            costs: admin_fields.then(|| r.costs.as_ref().map(CostsView::from)),
            meter: admin_fields.then(|| r.meter.as_ref().map(MeterView::from)),
            fix_version_id: r.fix_version_id,
            fixed_at: r.fixed_at.map(iso),
            retries: r.retries,
            error: r.error,
            created_at: iso(r.created_at),
            finished_at: r.finished_at.map(iso),
        }
    }
}

/// A member that is present (even as `null`) is `Some`; absent is `None`
/// (through `#[serde(default)]`).
fn present<'de, D: serde::Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<Option<T>>, D::Error> {
    Option::<T>::deserialize(d).map(Some)
}
