use std::fmt;
use std::str::FromStr;

/// Action scopes of API keys, named `{vendor}:{resource}:{action}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scope {
    ScrapsRead,
    ScrapsWrite,
    ScrapsRun,
    HistoryRead,
    TasksRead,
    WebhooksManage,
    ApiKeysManage,
    MailAnnounce,
}

impl Scope {
    pub const ALL: [Scope; 8] = [
        Scope::ScrapsRead,
        Scope::ScrapsWrite,
        Scope::ScrapsRun,
        Scope::HistoryRead,
        Scope::TasksRead,
        Scope::WebhooksManage,
        Scope::ApiKeysManage,
        Scope::MailAnnounce,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Scope::ScrapsRead => "svc:scraps:read",
            Scope::ScrapsWrite => "svc:scraps:write",
            Scope::ScrapsRun => "svc:scraps:run",
            Scope::HistoryRead => "svc:history:read",
            Scope::TasksRead => "svc:tasks:read",
            Scope::WebhooksManage => "svc:webhooks:manage",
            Scope::ApiKeysManage => "svc:api-keys:manage",
            Scope::MailAnnounce => "svc:mail:announce",
        }
    }
}

impl FromStr for Scope {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        Scope::ALL.into_iter().find(|scope| scope.as_str() == s).ok_or(())
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_scope_round_trips_through_its_name() {
        for scope in Scope::ALL {
            assert_eq!(scope.as_str().parse::<Scope>(), Ok(scope));
        }
        assert!("svc:scraps:delete".parse::<Scope>().is_err());
    }
}
