//! Audit log entries in words.

use svc_domain::audit::{AuditAction, AuditActor};

/// What was done, as a person reads it ("API key created").
pub fn action_words(action: &AuditAction) -> &'static str {
    use AuditAction::*;
    match action {
        MemberInvited { .. } => "Member invited",
        MemberJoined { .. } => "Member joined",
        MemberRemoved { .. } => "Member removed",
        RoleChanged { .. } => "Role changed",
        KeyCreated { .. } => "API key created",
        KeyRevoked { .. } => "API key revoked",
        WebhookCreated { .. } => "Webhook created",
        WebhookChanged { .. } => "Webhook changed",
        WebhookDeleted { .. } => "Webhook deleted",
        LoginFromNewAddress { .. } => "Log-in from a new address",
        PasswordChanged { .. } => "Password changed",
        EmailChanged { .. } => "Email changed",
        PlanChanged { .. } => "Plan changed",
        ScrapDeleted { .. } => "Scrap deleted",
        VersionRestored { .. } => "Script version restored",
        FixApproved { .. } => "AI Fix approved",
        SettingsChanged { .. } => "Settings changed",
    }
}

/// The chip class of an action: removals and revocations stand out.
pub fn action_tone(action: &AuditAction) -> &'static str {
    use AuditAction::*;
    match action {
        KeyRevoked { .. } | WebhookDeleted { .. } | ScrapDeleted { .. } | MemberRemoved { .. } => "chip-error",
        LoginFromNewAddress { .. } | PasswordChanged { .. } | EmailChanged { .. } | RoleChanged { .. } => "chip-empty",
        _ => "chip-none",
    }
}

/// Who did it: an email, an API key by the end of its id, or the operator.
pub fn actor_words(actor: &AuditActor) -> String {
    match actor {
        AuditActor::User { email, .. } if !email.is_empty() => email.clone(),
        AuditActor::User { id, .. } => format!("user {id}"),
        AuditActor::Key { id } => {
            let id = id.to_string();
            format!("API key …{}", &id[id.len() - 6..])
        }
        AuditActor::Operator => "the operator (svc admin)".into(),
    }
}

#[cfg(test)]
mod tests {
    use svc_domain::{KeyId, OrgId, UserId};

    use super::*;

    #[test]
    fn entries_in_words() {
        assert_eq!(action_words(&AuditAction::KeyCreated { key: KeyId::new() }), "API key created");
        assert_eq!(action_tone(&AuditAction::KeyRevoked { key: KeyId::new() }), "chip-error");
        assert_eq!(action_tone(&AuditAction::PlanChanged { organization: OrgId::new() }), "chip-none");
        let ada = AuditActor::User { id: UserId::new(), email: "ada@example.com".into() };
        assert_eq!(actor_words(&ada), "ada@example.com");
        let key = KeyId::parse("0123456789abcdef01234567").unwrap();
        assert_eq!(actor_words(&AuditActor::Key { id: key }), "API key …234567");
        assert_eq!(actor_words(&AuditActor::Operator), "the operator (svc admin)");
    }
}
