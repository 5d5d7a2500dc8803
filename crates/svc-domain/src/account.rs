use chrono::{DateTime, Utc};

use crate::plan::Plan;
use crate::{OrgId, UserId};

#[derive(Clone, Debug, PartialEq)]
pub struct Organization {
    pub id: OrgId,
    pub name: String,
    pub plan: Plan,
    /// Compute balance in units.
    pub balance: i64,
    pub default_containers: Vec<String>,
    pub created_at: DateTime<Utc>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct User {
    pub id: UserId,
    pub organization_id: OrgId,
    /// Stored lowercased.
    pub email: String,
    pub name: String,
    /// Platform admin role (not an organization role).
    pub is_admin: bool,
    pub created_at: DateTime<Utc>,
}
