use chrono::{DateTime, Utc};

use crate::ObjectId;
use crate::plan::Plan;

#[derive(Clone, Debug, PartialEq)]
pub struct Organization {
    pub id: ObjectId,
    pub name: String,
    pub plan: Plan,
    /// Compute balance in units.
    pub balance: i64,
    pub default_containers: Vec<String>,
    pub created_at: DateTime<Utc>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct User {
    pub id: ObjectId,
    pub organization_id: ObjectId,
    /// Stored lowercased.
    pub email: String,
    pub name: String,
    /// Platform admin role (not an organization role).
    pub is_admin: bool,
    pub created_at: DateTime<Utc>,
}
