//! What each action scope of an API key grants, in words (interface.md,
//! Action scopes).

use svc_domain::scope::Scope;

pub fn grants(scope: Scope) -> &'static str {
    match scope {
        Scope::ScrapsRead => "list scraps and read one scrap",
        Scope::ScrapsWrite => "reserved: scrap writes stay in the web app",
        Scope::ScrapsRun => "trigger runs",
        Scope::HistoryRead => "read run history and a scrap's activity log",
        Scope::TasksRead => "reserved",
        Scope::WebhooksManage => "reserved: webhooks are managed in the web app",
        Scope::ApiKeysManage => "reserved: keys are managed in the web app",
        Scope::MailAnnounce => "send release announcements (platform admins only)",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_scope_says_what_it_grants() {
        for scope in Scope::ALL {
            assert!(!grants(scope).is_empty(), "{scope}");
        }
        assert_eq!(grants(Scope::ScrapsRun), "trigger runs");
    }
}
