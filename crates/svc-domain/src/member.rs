//! Members of an organization and their roles, and invitations to join.

use std::fmt;
use std::str::FromStr;

use chrono::{DateTime, Utc};

use crate::scope::Scope;
use crate::{InviteId, OrgId, UserId};

/// A member's role in an organization, from the most powerful down.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Role {
    /// Everything: the plan, members (owners included).
    Owner,
    /// Members except owners, API keys, webhooks, settings; and what an
    /// editor may do.
    Admin,
    /// Scraps: create, edit, delete, run; versions, AI.
    Editor,
    /// Reads scraps, runs and data; runs nothing.
    Viewer,
}

/// What a role may or may not do beyond an action scope.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Power {
    /// An action of an API key's scope.
    Act(Scope),
    /// Invite, change and remove members other than owners.
    ManageMembers,
    /// Make, demote and remove owners.
    ManageOwners,
    /// Revoke another member's API key.
    ManageOthersKeys,
    /// Read the audit log and change the organization's settings.
    Administer,
}

impl Power {
    /// How a refusal names the power ("the viewer role may not ...").
    pub fn describe(self) -> &'static str {
        match self {
            Power::Act(Scope::ScrapsRead) => "read scraps",
            Power::Act(Scope::ScrapsWrite) => "create, edit or delete scraps",
            Power::Act(Scope::ScrapsRun) => "run scraps",
            Power::Act(Scope::HistoryRead) => "read run history",
            Power::Act(Scope::TasksRead) => "read AI tasks",
            Power::Act(Scope::WebhooksManage) => "manage webhooks",
            Power::Act(Scope::ApiKeysManage) => "manage API keys",
            Power::Act(Scope::MailAnnounce) => "send announcements",
            Power::ManageMembers => "manage members",
            Power::ManageOwners => "manage owners",
            Power::ManageOthersKeys => "revoke another member's API keys",
            Power::Administer => "read the audit log or change the organization's settings",
        }
    }
}

impl Role {
    pub const ALL: [Role; 4] = [Role::Owner, Role::Admin, Role::Editor, Role::Viewer];

    pub fn as_str(self) -> &'static str {
        match self {
            Role::Owner => "owner",
            Role::Admin => "admin",
            Role::Editor => "editor",
            Role::Viewer => "viewer",
        }
    }

    /// Whether this role holds `power`.
    pub fn may(self, power: Power) -> bool {
        match power {
            Power::Act(Scope::ScrapsRead | Scope::HistoryRead | Scope::TasksRead | Scope::MailAnnounce) => true,
            Power::Act(Scope::ScrapsWrite | Scope::ScrapsRun) => self <= Role::Editor,
            Power::Act(Scope::WebhooksManage | Scope::ApiKeysManage) => self <= Role::Admin,
            Power::ManageMembers | Power::ManageOthersKeys | Power::Administer => self <= Role::Admin,
            Power::ManageOwners => self == Role::Owner,
        }
    }
}

impl FromStr for Role {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        Role::ALL.into_iter().find(|r| r.as_str() == s).ok_or(())
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A user's membership of an organization, as the member list shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct Member {
    pub organization_id: OrgId,
    pub user_id: UserId,
    pub email: String,
    pub name: String,
    pub role: Role,
    pub joined_at: DateTime<Utc>,
}

/// One of a user's organizations, for the switcher.
#[derive(Clone, Debug, PartialEq)]
pub struct Membership {
    pub organization_id: OrgId,
    pub organization_name: String,
    pub role: Role,
    pub joined_at: DateTime<Utc>,
}

/// How long an invitation link works.
pub const INVITE_LIFETIME: chrono::Duration = chrono::Duration::days(7);

/// A pending invitation: single-use, until `expires_at`. The link's secret
/// is stored hashed (`token_hash`), so a database read cannot accept it.
#[derive(Clone, Debug, PartialEq)]
pub struct Invite {
    pub id: InviteId,
    pub organization_id: OrgId,
    /// Stored lowercased.
    pub email: String,
    pub role: Role,
    pub invited_by: UserId,
    pub created_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_nest() {
        assert!(Role::Viewer.may(Power::Act(Scope::ScrapsRead)));
        assert!(!Role::Viewer.may(Power::Act(Scope::ScrapsRun)));
        assert!(Role::Editor.may(Power::Act(Scope::ScrapsRun)));
        assert!(!Role::Editor.may(Power::Act(Scope::WebhooksManage)));
        assert!(!Role::Editor.may(Power::ManageMembers));
        assert!(Role::Admin.may(Power::ManageMembers));
        assert!(!Role::Admin.may(Power::ManageOwners));
        assert!(Role::Owner.may(Power::ManageOwners));
        for r in Role::ALL {
            assert_eq!(r.as_str().parse::<Role>(), Ok(r));
        }
        assert!("root".parse::<Role>().is_err());
    }
}
