//! The organization's audit log and settings: owners and admins, web
//! sessions only (`svc_service::accounts::audit::access::require_org_admin`).

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use svc_api_types::{AuditActorView, AuditEntryView, OrganizationSettingsBody, OrganizationSettingsView, iso};
use svc_service::Services;
use svc_service::accounts::audit::{AuditActor, AuditEntry};
use svc_service::accounts::organization::OrgSettings;

use crate::ApiError;
use crate::extract::{ApiJson, ListQuery, Paging, WebSession};
use crate::views::{self, ListView};

fn entry_view(e: AuditEntry) -> AuditEntryView {
    let (target_type, target) = e.action.target();
    let actor = match e.actor {
        AuditActor::User { id, email } => {
            AuditActorView { kind: "user".into(), id: Some(id.to_string()), email: Some(email) }
        }
        AuditActor::Key { id } => AuditActorView { kind: "key".into(), id: Some(id.to_string()), email: None },
        AuditActor::Operator => AuditActorView { kind: "operator".into(), id: None, email: None },
    };
    AuditEntryView {
        id: e.id.to_string(),
        action: e.action.name().into(),
        target_type: target_type.into(),
        target_id: target.to_string(),
        actor,
        detail: e.detail,
        address: e.address,
        created_at: iso(e.created_at),
    }
}

fn settings_view(s: OrgSettings) -> OrganizationSettingsView {
    OrganizationSettingsView { history_retention_days: s.history_retention_days }
}

/// The audit log
///
/// The organization's security-relevant actions (keys, webhooks, log-ins
/// from a new address, password and email changes, plan changes, deleted
/// scraps, restored versions, approved AI fixes, members), newest first:
/// who, what, to what, when and from which address. Owners and admins
/// only; entries are kept `SVC_RETAIN_AUDIT` (default 90 days).
#[utoipa::path(
    get,
    path = "/api/organization/audit",
    operation_id = "listAuditEntries",
    tag = "organization",
    params(Paging),
    responses((status = 200, description = "one page of audit entries", body = ListView<AuditEntryView>))
)]
pub(crate) async fn audit(
    State(services): State<Arc<Services>>,
    WebSession(session): WebSession,
    query: ListQuery,
) -> Result<Json<ListView<AuditEntryView>>, ApiError> {
    let found = services.audit.list(&session, query.page).await?;
    Ok(Json(views::list(found, entry_view)))
}

/// The organization's settings
///
/// Owners and admins only.
#[utoipa::path(
    get,
    path = "/api/organization/settings",
    operation_id = "getOrganizationSettings",
    tag = "organization",
    responses((status = 200, description = "the settings", body = OrganizationSettingsView))
)]
pub(crate) async fn settings(
    State(services): State<Arc<Services>>,
    WebSession(session): WebSession,
) -> Result<Json<OrganizationSettingsView>, ApiError> {
    Ok(Json(settings_view(services.organization.get(&session).await?)))
}

/// Change the organization's settings
///
/// `historyRetentionDays`: runs older than this many days are deleted by
/// the hourly housekeeping (pending runs and each scrap's newest successful
/// run stay); null keeps every run. Owners and admins only; recorded in
/// the audit log.
#[utoipa::path(
    put,
    path = "/api/organization/settings",
    operation_id = "updateOrganizationSettings",
    tag = "organization",
    request_body = OrganizationSettingsBody,
    responses((status = 200, description = "the settings", body = OrganizationSettingsView))
)]
pub(crate) async fn update_settings(
    State(services): State<Arc<Services>>,
    WebSession(session): WebSession,
    ApiJson(body): ApiJson<OrganizationSettingsBody>,
) -> Result<Json<OrganizationSettingsView>, ApiError> {
    let set = services.organization.set_history_retention(&session, body.history_retention_days).await?;
    Ok(Json(settings_view(set)))
}
