//! The organization's audit log: who did what security-relevant thing,
//! when, and from which address. An entry is written once and never
//! changed; housekeeping deletes entries older than the retention setting.

use std::fmt;

use chrono::{DateTime, Utc};

use crate::{KeyId, ObjectId, OrgId, ScrapId, SessionId, UserId, WebhookId};

/// What was done, and to what: each action names its target by a typed id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AuditAction {
    /// An invitation to join the organization was sent (target: the invite).
    MemberInvited {
        invite: ObjectId,
    },
    /// A user joined the organization (target: the user).
    MemberJoined {
        user: UserId,
    },
    /// A member was removed (target: the user).
    MemberRemoved {
        user: UserId,
    },
    /// A member's role changed (target: the user; the detail names the roles).
    RoleChanged {
        user: UserId,
    },
    KeyCreated {
        key: KeyId,
    },
    KeyRevoked {
        key: KeyId,
    },
    WebhookCreated {
        webhook: WebhookId,
    },
    WebhookChanged {
        webhook: WebhookId,
    },
    WebhookDeleted {
        webhook: WebhookId,
    },
    /// A log-in from an address the user had not logged in from (target:
    /// the session it opened).
    LoginFromNewAddress {
        session: SessionId,
    },
    PasswordChanged {
        user: UserId,
    },
    EmailChanged {
        user: UserId,
    },
    /// The organization's plan changed (the detail names both plans).
    PlanChanged {
        organization: OrgId,
    },
    ScrapDeleted {
        scrap: ScrapId,
    },
    /// A script version was made current again (target: the new version).
    VersionRestored {
        version: ObjectId,
    },
    /// An owner approved an AI Fix (target: the version it made current).
    FixApproved {
        version: ObjectId,
    },
    /// The organization's settings changed (the detail says which).
    SettingsChanged {
        organization: OrgId,
    },
}

impl AuditAction {
    /// Every action's name, as stored and shown (`key.created`, ...).
    pub const NAMES: [&'static str; 17] = [
        "member.invited",
        "member.joined",
        "member.removed",
        "member.role_changed",
        "key.created",
        "key.revoked",
        "webhook.created",
        "webhook.changed",
        "webhook.deleted",
        "login.new_address",
        "user.password_changed",
        "user.email_changed",
        "organization.plan_changed",
        "scrap.deleted",
        "version.restored",
        "fix.approved",
        "organization.settings_changed",
    ];

    /// The action's stable name.
    pub fn name(&self) -> &'static str {
        use AuditAction::*;
        match self {
            MemberInvited { .. } => "member.invited",
            MemberJoined { .. } => "member.joined",
            MemberRemoved { .. } => "member.removed",
            RoleChanged { .. } => "member.role_changed",
            KeyCreated { .. } => "key.created",
            KeyRevoked { .. } => "key.revoked",
            WebhookCreated { .. } => "webhook.created",
            WebhookChanged { .. } => "webhook.changed",
            WebhookDeleted { .. } => "webhook.deleted",
            LoginFromNewAddress { .. } => "login.new_address",
            PasswordChanged { .. } => "user.password_changed",
            EmailChanged { .. } => "user.email_changed",
            PlanChanged { .. } => "organization.plan_changed",
            ScrapDeleted { .. } => "scrap.deleted",
            VersionRestored { .. } => "version.restored",
            FixApproved { .. } => "fix.approved",
            SettingsChanged { .. } => "organization.settings_changed",
        }
    }

    /// The target's kind (`key`, `user`, ...) and id.
    pub fn target(&self) -> (&'static str, ObjectId) {
        use crate::TypedId;
        use AuditAction::*;
        match *self {
            MemberInvited { invite } => ("invite", invite),
            MemberJoined { user } | MemberRemoved { user } | RoleChanged { user } => ("user", user.object_id()),
            PasswordChanged { user } | EmailChanged { user } => ("user", user.object_id()),
            KeyCreated { key } | KeyRevoked { key } => ("key", key.object_id()),
            WebhookCreated { webhook } | WebhookChanged { webhook } | WebhookDeleted { webhook } => {
                ("webhook", webhook.object_id())
            }
            LoginFromNewAddress { session } => ("session", session.object_id()),
            PlanChanged { organization } | SettingsChanged { organization } => {
                ("organization", organization.object_id())
            }
            ScrapDeleted { scrap } => ("scrap", scrap.object_id()),
            VersionRestored { version } | FixApproved { version } => ("version", version),
        }
    }

    /// The action of a stored name and target id; `None` for an unknown name.
    pub fn from_parts(name: &str, target: ObjectId) -> Option<Self> {
        use crate::TypedId;
        use AuditAction::*;
        Some(match name {
            "member.invited" => MemberInvited { invite: target },
            "member.joined" => MemberJoined { user: UserId::from_object_id(target) },
            "member.removed" => MemberRemoved { user: UserId::from_object_id(target) },
            "member.role_changed" => RoleChanged { user: UserId::from_object_id(target) },
            "key.created" => KeyCreated { key: KeyId::from_object_id(target) },
            "key.revoked" => KeyRevoked { key: KeyId::from_object_id(target) },
            "webhook.created" => WebhookCreated { webhook: WebhookId::from_object_id(target) },
            "webhook.changed" => WebhookChanged { webhook: WebhookId::from_object_id(target) },
            "webhook.deleted" => WebhookDeleted { webhook: WebhookId::from_object_id(target) },
            "login.new_address" => LoginFromNewAddress { session: SessionId::from_object_id(target) },
            "user.password_changed" => PasswordChanged { user: UserId::from_object_id(target) },
            "user.email_changed" => EmailChanged { user: UserId::from_object_id(target) },
            "organization.plan_changed" => PlanChanged { organization: OrgId::from_object_id(target) },
            "scrap.deleted" => ScrapDeleted { scrap: ScrapId::from_object_id(target) },
            "version.restored" => VersionRestored { version: target },
            "fix.approved" => FixApproved { version: target },
            "organization.settings_changed" => SettingsChanged { organization: OrgId::from_object_id(target) },
            _ => return None,
        })
    }
}

impl fmt::Display for AuditAction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Who did it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AuditActor {
    /// A signed-in user, with the email the user had then.
    User { id: UserId, email: String },
    /// An API key.
    Key { id: KeyId },
    /// The operator, with `svc admin` on the database.
    Operator,
}

impl AuditActor {
    /// `user`, `key` or `operator`.
    pub fn kind(&self) -> &'static str {
        match self {
            AuditActor::User { .. } => "user",
            AuditActor::Key { .. } => "key",
            AuditActor::Operator => "operator",
        }
    }
}

/// One entry of an organization's audit log.
#[derive(Clone, Debug, PartialEq)]
pub struct AuditEntry {
    pub id: ObjectId,
    pub organization_id: OrgId,
    pub actor: AuditActor,
    pub action: AuditAction,
    /// What a reader needs besides the target (the plans of a plan change,
    /// a webhook's URL), at most [`DETAIL_MAX`] characters.
    pub detail: Option<String>,
    /// The client address of the request (absent for the operator).
    pub address: Option<String>,
    pub created_at: DateTime<Utc>,
}

/// The longest `detail` kept.
pub const DETAIL_MAX: usize = 500;

impl AuditEntry {
    /// A new entry, now.
    pub fn new(
        organization: OrgId,
        actor: AuditActor,
        action: AuditAction,
        detail: Option<String>,
        address: Option<String>,
    ) -> Self {
        let detail = detail.map(|d| d.chars().take(DETAIL_MAX).collect());
        AuditEntry {
            id: ObjectId::new(),
            organization_id: organization,
            actor,
            action,
            detail,
            address,
            created_at: Utc::now(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::TypedId;

    #[test]
    fn every_action_round_trips_through_its_name_and_target() {
        let id = ObjectId::new();
        let all = [
            AuditAction::MemberInvited { invite: id },
            AuditAction::MemberJoined { user: UserId::from_object_id(id) },
            AuditAction::MemberRemoved { user: UserId::from_object_id(id) },
            AuditAction::RoleChanged { user: UserId::from_object_id(id) },
            AuditAction::KeyCreated { key: KeyId::from_object_id(id) },
            AuditAction::KeyRevoked { key: KeyId::from_object_id(id) },
            AuditAction::WebhookCreated { webhook: WebhookId::from_object_id(id) },
            AuditAction::WebhookChanged { webhook: WebhookId::from_object_id(id) },
            AuditAction::WebhookDeleted { webhook: WebhookId::from_object_id(id) },
            AuditAction::LoginFromNewAddress { session: SessionId::from_object_id(id) },
            AuditAction::PasswordChanged { user: UserId::from_object_id(id) },
            AuditAction::EmailChanged { user: UserId::from_object_id(id) },
            AuditAction::PlanChanged { organization: OrgId::from_object_id(id) },
            AuditAction::ScrapDeleted { scrap: ScrapId::from_object_id(id) },
            AuditAction::VersionRestored { version: id },
            AuditAction::FixApproved { version: id },
            AuditAction::SettingsChanged { organization: OrgId::from_object_id(id) },
        ];
        assert_eq!(all.len(), AuditAction::NAMES.len());
        for (action, name) in all.iter().zip(AuditAction::NAMES) {
            assert_eq!(action.name(), name);
            let (_, target) = action.target();
            assert_eq!(AuditAction::from_parts(name, target), Some(*action));
        }
        assert_eq!(AuditAction::from_parts("nope", id), None);
    }

    #[test]
    fn a_long_detail_is_cut() {
        let e = AuditEntry::new(
            OrgId::new(),
            AuditActor::Operator,
            AuditAction::PlanChanged { organization: OrgId::new() },
            Some("x".repeat(2 * DETAIL_MAX)),
            None,
        );
        assert_eq!(e.detail.unwrap().chars().count(), DETAIL_MAX);
    }
}
