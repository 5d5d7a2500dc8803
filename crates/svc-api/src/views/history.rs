use serde::Serialize;
use serde_json::Value;
use svc_service::history::HistoryView;

use super::iso;

/// The History row shape. `costs` and `meter` are absent (not null) unless
/// the caller may see them.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct HistoryRowView {
    id: String,
    scrap: String,
    organization_id: String,
    status: Option<bool>,
    status_detail: Option<&'static str>,
    data: String,
    length: i64,
    time: Option<i64>,
    digest: Option<String>,
    triggered_by: &'static str,
    #[serde(rename = "type")]
    run_type: &'static str,
    proxy_tier: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    costs: Option<Option<Value>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    meter: Option<Option<Value>>,
    fix_version_id: Option<String>,
    fixed_at: Option<String>,
    error_snapshot: Option<Value>,
    retries: i64,
    error: Option<String>,
    created_at: String,
    finished_at: Option<String>,
}

impl From<HistoryView> for HistoryRowView {
    fn from(v: HistoryView) -> Self {
        let r = v.row;
        let status = r.status();
        HistoryRowView {
            id: r.id.to_string(),
            scrap: r.scrap_id.to_string(),
            organization_id: r.organization_id.to_string(),
            status,
            status_detail: r.status_detail.map(|d| d.as_str()),
            data: r.data,
            length: r.length,
            time: r.time_ms,
            digest: r.digest,
            triggered_by: r.triggered_by.as_str(),
            run_type: r.run_type.as_str(),
            proxy_tier: r.proxy_tier,
            costs: v.admin_fields.then_some(r.costs),
            meter: v.admin_fields.then_some(r.meter),
            fix_version_id: r.fix_version_id,
            fixed_at: r.fixed_at.map(iso),
            error_snapshot: r.error_snapshot,
            retries: r.retries,
            error: r.error,
            created_at: iso(r.created_at),
            finished_at: r.finished_at.map(iso),
        }
    }
}
