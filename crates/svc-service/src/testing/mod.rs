//! Services over a fresh SQLite database, for the unit tests of the
//! services that need a store.

use std::sync::Arc;
use std::time::Duration;

use chrono::Utc;
use svc_domain::ScrapId;
use svc_domain::history::{HistoryRow, StatusDetail, TriggeredBy};
use svc_storage::Store;
use svc_storage::testing::TestDb;

use crate::accounts::Signup;
use crate::scraps::input::ScrapChanges;
use crate::{ServiceConfig, Services, Session};

pub(crate) struct TestServices {
    pub services: Services,
    pub store: Arc<dyn Store>,
    config: ServiceConfig,
    _db: TestDb,
}

/// A signed-up user: its session and the session's bearer token.
pub(crate) struct TestUser {
    pub session: Session,
    pub token: String,
}

impl TestServices {
    pub async fn start() -> TestServices {
        Self::start_with(false).await
    }

    /// With `SVC_SIGNUP` set to `mode`.
    pub async fn start_with_signup(mode: crate::accounts::SignupMode) -> TestServices {
        let mut t = Self::start_with(false).await;
        let config = ServiceConfig { signup: mode, ..t.config.clone() };
        t.services = Services::new(t.store.clone(), config);
        t
    }

    /// With email on (as with `SVC_SMTP_URL` set).
    pub async fn start_with_email() -> TestServices {
        Self::start_with(true).await
    }

    async fn start_with(email_enabled: bool) -> TestServices {
        let db = TestDb::sqlite();
        let store = db.open().await;
        let config = ServiceConfig {
            jwt_secret: b"unit-test-secret".to_vec(),
            free_grant: 1000,
            cron_min_interval: Duration::from_secs(60),
            key_cache_ttl: Duration::from_secs(60),
            run_timeout: Duration::from_secs(20),
            cron_catchup_grace: Duration::from_secs(60),
            allow_private_networks: Default::default(),
            trusted_proxies: vec![],
            public_url: "http://127.0.0.1:8080".into(),
            email_enabled,
            ai_fix_daily: crate::ai::fix::DEFAULT_FIX_DAILY,
            crawl: crate::runs::crawl::CrawlSettings::default(),
            signup: crate::accounts::SignupMode::Open,
            tiers: Default::default(),
            weekly_units: crate::WeeklyUnits::default(),
            retention: Default::default(),
        };
        TestServices { services: Services::new(store.clone(), config.clone()), store, config, _db: db }
    }

    /// The database's url (for raw SQL in tests).
    /// Services over the same store and settings, shared (what a `Worker` takes).
    pub fn shared(&self) -> Arc<Services> {
        Arc::new(Services::new(self.store.clone(), self.config.clone()))
    }

    pub fn db_url(&self) -> &str {
        &self._db.url
    }

    pub async fn signup(&self, email: &str) -> TestUser {
        let signup = Signup { email: email.into(), password: "password-123".into(), name: None };
        let local = std::net::IpAddr::V4(std::net::Ipv4Addr::LOCALHOST);
        let token = self.services.accounts.signup(signup, local).await.expect("signup").token.token;
        let session = self.services.auth.session(&token).await.expect("session");
        TestUser { session, token }
    }

    /// An account made past the sign-up rule (as the operator would), then
    /// logged into.
    pub async fn signup_anyway(&self, email: &str) -> TestUser {
        let now = Utc::now();
        let org = svc_domain::account::Organization {
            id: svc_domain::OrgId::new(),
            name: email.into(),
            plan: svc_domain::plan::Plan::Free,
            balance: 1000,
            default_containers: vec!["default".into()],
            created_at: now,
        };
        let user = svc_domain::account::User {
            id: svc_domain::UserId::new(),
            organization_id: org.id,
            email: email.into(),
            name: email.into(),
            is_admin: false,
            created_at: now,
        };
        let password_hash = crate::accounts::password::hash("password-123");
        self.store.create_account(&svc_storage::NewAccount { organization: org, user, password_hash }).await.unwrap();
        let login = crate::accounts::Login { email: email.into(), password: "password-123".into(), organization: None };
        let local = std::net::IpAddr::V4(std::net::Ipv4Addr::LOCALHOST);
        let token = self.services.accounts.login(login, local).await.expect("login").token;
        let session = self.services.auth.session(&token).await.expect("session");
        TestUser { session, token }
    }

    /// A scrap with `title` (and a url and script).
    pub async fn scrap(&self, user: &TestUser, title: &str) -> ScrapId {
        let changes = ScrapChanges {
            title: Some(title.into()),
            url: Some("https://example.com/items".into()),
            request: Some("returnData([1])".into()),
            ..ScrapChanges::default()
        };
        self.services.scraps.create(&user.session, changes).await.expect("create scrap").id
    }

    /// Stores a finished (or, with `None`, pending) run of `scrap`,
    /// created `secs` seconds from now.
    pub async fn run(&self, user: &TestUser, scrap: ScrapId, detail: Option<StatusDetail>, secs: i64) -> HistoryRow {
        let at = Utc::now() + chrono::Duration::seconds(secs);
        let mut row = HistoryRow::pending(scrap, user.session.org(), TriggeredBy::Api, "tier0", at);
        row.status_detail = detail;
        row.data = format!("[{secs}]");
        row.length = 1;
        row.time_ms = detail.map(|_| 100);
        row.costs = Some(svc_domain::costs::Costs::of_loads(0, 0.0, true));
        row.error_snapshot = Some(serde_json::json!({"html": "<p></p>"}));
        row.finished_at = detail.map(|_| at);
        self.store.insert_history(&row).await.expect("insert run");
        self.store.history_row(user.session.org(), row.id).await.unwrap().expect("stored run")
    }
}

mod properties;
