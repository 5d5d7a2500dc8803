//! The organization's audit log and settings.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// One entry of the organization's audit log.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AuditEntryView {
    pub id: String,
    /// What was done: `member.invited`, `member.joined`, `member.removed`,
    /// `member.role_changed`, `key.created`, `key.revoked`,
    /// `webhook.created`, `webhook.changed`, `webhook.deleted`,
    /// `login.new_address`, `user.password_changed`, `user.email_changed`,
    /// `organization.plan_changed`, `scrap.deleted`, `version.restored`,
    /// `fix.approved`, `organization.settings_changed`.
    pub action: String,
    /// The kind of the target: `invite`, `user`, `key`, `webhook`,
    /// `session`, `organization`, `scrap` or `version`.
    pub target_type: String,
    pub target_id: String,
    pub actor: AuditActorView,
    /// What the action changed, in words (never a secret).
    pub detail: Option<String>,
    /// The client address of the request (null for the operator's commands).
    pub address: Option<String>,
    pub created_at: String,
}

/// Who did it: a user (with the email the user had then), an API key, or
/// the operator (`svc admin`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AuditActorView {
    /// `user`, `key` or `operator`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The user's or key's id (null for the operator).
    pub id: Option<String>,
    /// The user's email (null for a key or the operator).
    pub email: Option<String>,
}

/// The organization's settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OrganizationSettingsView {
    /// Days a run (history row) is kept; null keeps every run.
    pub history_retention_days: Option<i64>,
}

/// The body of `PUT /api/organization/settings`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(description = "The body of `PUT /api/organization/settings`: `historyRetentionDays`, 1 to 3650 \
    days a run is kept before housekeeping deletes it (a scrap's newest successful run and pending runs \
    are always kept), or null to keep every run.")]
pub struct OrganizationSettingsBody {
    #[schema(minimum = 1, maximum = 3650)]
    #[serde(default, deserialize_with = "whole_number")]
    pub history_retention_days: Option<i64>,
}

/// A JSON integer, as JSON Schema counts them: `30` or `30.0` (not `30.5`), or null.
fn whole_number<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<i64>, D::Error> {
    use serde::de::Error;
    match Option::<serde_json::Number>::deserialize(d)? {
        None => Ok(None),
        Some(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => Ok(Some(i)),
            (None, Some(f)) if f.fract() == 0.0 && f.abs() < 9.0e15 => Ok(Some(f as i64)),
            _ => Err(D::Error::custom("must be a whole number of days")),
        },
    }
}
