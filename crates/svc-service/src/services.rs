use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use svc_domain::plan::WeeklyUnits;
use svc_storage::Store;

use crate::accounts::AccountService;
use crate::accounts::admin::AdminService;
use crate::accounts::audit::AuditLog;
use crate::accounts::auth::AuthService;
use crate::accounts::jwt::JwtKeys;
use crate::accounts::key_cache::KeyCache;
use crate::accounts::keys::KeyService;
use crate::accounts::organization::OrganizationSettings;
use crate::accounts::rate_limits::RateLimits;
use crate::accounts::sessions::SessionService;
use crate::ai::attachments::Attachments;
use crate::ai::task_runner::TaskRunner;
use crate::ai::tasks::AiService;
use crate::members::{InviteSettings, MemberService};
use crate::metrics::Metrics;
use crate::outbox::announcements::AnnouncementService;
use crate::outbox::feeds::FeedService;
use crate::outbox::recipients::{RecipientService, RecipientSettings};
use crate::outbox::webhooks::WebhookService;
use crate::runs::history::HistoryService;
use crate::runs::{RunService, RunServiceParts};
use crate::schedule::scheduler::Scheduler;
use crate::scraps::ScrapService;
use crate::scraps::site_accounts::SiteAccountService;
use crate::{Result, ServiceError};

/// The settings the business rules depend on.
#[derive(Clone)]
pub struct ServiceConfig {
    pub jwt_secret: Vec<u8>,
    /// Units granted once to a new Free organization.
    pub free_grant: i64,
    /// Schedules firing more often than this are refused.
    pub cron_min_interval: Duration,
    /// How long a verified API key is trusted without a database lookup.
    pub key_cache_ttl: Duration,
    /// One script run, navigation included.
    pub run_timeout: Duration,
    /// How old a missed tick may be and still run after downtime.
    pub cron_catchup_grace: Duration,
    /// Which loopback and private addresses webhook URLs may reach (and
    /// plain http when any).
    pub allow_private_networks: svc_engine::host_vetting::PrivateNetworks,
    /// Proxies whose `X-Forwarded-For` names the client (for per-IP limits).
    pub trusted_proxies: Vec<ipnet::IpNet>,
    /// The service's public base URL (`SVC_PUBLIC_URL`), for every address
    /// svc shows or sends of itself.
    pub public_url: String,
    /// Whether email can be sent (`SVC_SMTP_URL` set): without it, nothing
    /// is queued.
    pub email_enabled: bool,
    /// AI Fix repairs per organization per UTC day (`SVC_AI_FIX_DAILY`).
    pub ai_fix_daily: i64,
    /// The caps on crawls (`SVC_CRAWL_MAX_PAGES`, `SVC_CRAWL_TIMEOUT`).
    pub crawl: crate::runs::crawl::CrawlSettings,
    /// `SVC_SIGNUP`: `open` (default), `invite` or `closed`.
    pub signup: crate::accounts::SignupMode,
    /// The proxy tiers configured (`SVC_PROXY_TIER1`..`4`), their prices and multipliers.
    pub tiers: crate::scraps::proxy_tiers::TierSettings,
    /// The balances Growth and Pro are topped up to every week
    /// (`SVC_GROWTH_WEEKLY`, `SVC_PRO_WEEKLY`).
    pub weekly_units: WeeklyUnits,
    /// How long housekeeping keeps each kind of row (`SVC_RETAIN_*`).
    pub retention: crate::schedule::housekeeping::Retention,
}

impl fmt::Debug for ServiceConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServiceConfig")
            .field("jwt_secret", &"<redacted>")
            .field("free_grant", &self.free_grant)
            .field("cron_min_interval", &self.cron_min_interval)
            .field("key_cache_ttl", &self.key_cache_ttl)
            .field("run_timeout", &self.run_timeout)
            .field("cron_catchup_grace", &self.cron_catchup_grace)
            .field("allow_private_networks", &self.allow_private_networks)
            .field("trusted_proxies", &self.trusted_proxies)
            .field("public_url", &self.public_url)
            .field("email_enabled", &self.email_enabled)
            .field("ai_fix_daily", &self.ai_fix_daily)
            .field("crawl", &self.crawl)
            .field("signup", &self.signup)
            .field("tiers", &self.tiers)
            .field("weekly_units", &self.weekly_units)
            .field("retention", &self.retention)
            .finish()
    }
}

/// Every service over one store. The store itself is private: adapters
/// reach data only through the services' rules.
pub struct Services {
    store: Arc<dyn Store>,
    pub auth: AuthService,
    pub accounts: AccountService,
    /// Web sessions: list, end one, end all.
    pub sessions: Arc<SessionService>,
    pub admin: AdminService,
    pub announcements: AnnouncementService,
    pub scraps: ScrapService,
    /// Scraps' site logins and saved sessions (logged-in scraping).
    pub site_accounts: SiteAccountService,
    /// Scraps' banner images: upload, removal, serving.
    pub banners: crate::scraps::banner::BannerService,
    pub keys: KeyService,
    /// Members, roles, invitations; moving between organizations.
    pub members: MemberService,
    pub history: HistoryService,
    pub runs: RunService,
    /// The AI routes (wizard, generation) and their tasks.
    pub ai: AiService,
    /// Does queued tasks on this process's browser and model.
    pub task_runner: Arc<TaskRunner>,
    pub scheduler: Arc<Scheduler>,
    pub webhooks: WebhookService,
    /// Scraps' feeds of what changed between runs, and their addresses.
    pub feeds: FeedService,
    /// Addresses scraps send to outside the members, and their confirmation.
    pub recipients: RecipientService,
    /// The organization's saved chat channels (`channel:NAME`).
    pub channels: crate::outbox::channels::ChannelService,
    pub rate_limits: Arc<RateLimits>,
    /// The organization's audit log: recording (for services) and reading.
    pub audit: AuditLog,
    /// Organization settings (the history age limit).
    pub organization: OrganizationSettings,
    /// What this process counts for `GET /metrics`.
    pub metrics: Arc<Metrics>,
    /// Proxies whose `X-Forwarded-For` names the client.
    pub trusted_proxies: Vec<ipnet::IpNet>,
    public_url: String,
    weekly_units: WeeklyUnits,
    /// How this process's browser engine contains pages, once it has one.
    isolation: std::sync::OnceLock<Arc<dyn svc_engine::IsolationReport>>,
}

impl Services {
    pub fn new(store: Arc<dyn Store>, config: ServiceConfig) -> Self {
        let jwt = Arc::new(JwtKeys::new(&config.jwt_secret));
        let key_cache = Arc::new(KeyCache::new(config.key_cache_ttl));
        let metrics = Arc::new(Metrics::new());
        let audit = AuditLog::new(store.clone());
        let sessions = Arc::new(SessionService::new(store.clone(), jwt.clone()));
        let rate_limits = Arc::new(RateLimits::new(store.clone(), metrics.clone()));
        let email =
            crate::outbox::EmailSettings { enabled: config.email_enabled, public_url: config.public_url.clone() };
        let attached = Arc::new(Attachments::default());
        let runs = RunService::new(
            store.clone(),
            RunServiceParts {
                run_timeout: config.run_timeout,
                limits: rate_limits.clone(),
                email: email.clone(),
                attached: attached.clone(),
                fix_daily: config.ai_fix_daily,
                crawl: config.crawl,
                tiers: config.tiers.clone(),
                metrics: metrics.clone(),
            },
        );
        let ai =
            AiService::new(store.clone(), attached.clone(), runs.signals.clone(), rate_limits.clone(), audit.clone());
        let task_runner =
            Arc::new(TaskRunner::new(store.clone(), attached, runs.signals.clone(), config.run_timeout, email));
        let schedule_changed = Arc::new(tokio::sync::Notify::new());
        let recipients = RecipientService::new(
            store.clone(),
            RecipientSettings { public_url: config.public_url.clone(), email_enabled: config.email_enabled },
            runs.signals.emails.clone(),
        );
        let scheduler = Scheduler::new(
            store.clone(),
            runs.signals.clone(),
            schedule_changed.clone(),
            config.cron_catchup_grace,
            config.weekly_units,
            config.retention,
        );
        Services {
            auth: AuthService::new(store.clone(), jwt.clone(), key_cache.clone()),
            announcements: AnnouncementService::new(
                store.clone(),
                jwt.clone(),
                config.email_enabled,
                config.public_url.clone(),
                runs.signals.emails.clone(),
            ),
            accounts: AccountService::new(
                store.clone(),
                sessions.clone(),
                config.free_grant,
                rate_limits.clone(),
                config.signup,
                audit.clone(),
            ),
            sessions: sessions.clone(),
            admin: AdminService::new(store.clone(), audit.clone()),
            scraps: ScrapService::new(
                store.clone(),
                config.cron_min_interval,
                schedule_changed,
                config.tiers.clone(),
                audit.clone(),
                recipients.clone(),
            ),
            recipients,
            site_accounts: SiteAccountService::new(store.clone()),
            banners: crate::scraps::banner::BannerService::new(store.clone()),
            members: MemberService::new(
                store.clone(),
                sessions.clone(),
                key_cache.clone(),
                InviteSettings { public_url: config.public_url.clone(), email_enabled: config.email_enabled },
                runs.signals.emails.clone(),
                audit.clone(),
            ),
            keys: KeyService::new(store.clone(), key_cache, audit.clone()),
            history: HistoryService::new(store.clone()),
            webhooks: WebhookService::new(
                store.clone(),
                config.allow_private_networks.clone(),
                runs.signals.deliveries.clone(),
                audit.clone(),
            ),
            feeds: FeedService::new(store.clone(), config.public_url.clone()),
            channels: crate::outbox::channels::ChannelService::new(store.clone(), config.public_url.clone()),
            runs,
            ai,
            task_runner,
            scheduler: Arc::new(scheduler),
            rate_limits,
            audit: audit.clone(),
            organization: OrganizationSettings::new(store.clone(), audit),
            metrics,
            trusted_proxies: config.trusted_proxies.clone(),
            public_url: config.public_url,
            weekly_units: config.weekly_units,
            isolation: std::sync::OnceLock::new(),
            store,
        }
    }

    /// Lets health checks and the admin page say how this process's browser
    /// engine contains pages (the first report attached wins).
    pub fn attach_isolation(&self, report: Arc<dyn svc_engine::IsolationReport>) {
        let _ = self.isolation.set(report);
    }

    /// The service's public base URL, without a trailing slash.
    pub fn public_url(&self) -> &str {
        &self.public_url
    }

    /// The balances Growth and Pro are topped up to every week.
    pub fn weekly_units(&self) -> WeeklyUnits {
        self.weekly_units
    }

    /// The metrics, with the gauges read from the store just now (the run
    /// queue, the outboxes, the connection pool): for `GET /metrics`, which
    /// the operator guards (`SVC_METRICS_TOKEN`, `SVC_METRICS_LISTEN`).
    pub async fn scrape_metrics(&self) -> crate::Result<&Metrics> {
        let backlog = self.store.backlog().await?;
        self.metrics.observe(&backlog, self.store.pool_use(), chrono::Utc::now());
        Ok(&self.metrics)
    }

    /// What a health check reports: the service answers, on this database engine.
    pub fn health(&self) -> Health {
        Health {
            database: self.store.backend(),
            browser_sandbox: self.isolation.get().map(|report| report.browser_sandbox()),
        }
    }

    /// Readiness: whether the database answers a `SELECT 1` within
    /// [`READY_TIMEOUT`] (else `StoreUnavailable`).
    pub async fn ready(&self) -> Result<Health> {
        match tokio::time::timeout(READY_TIMEOUT, self.store.ping()).await {
            Ok(answered) => answered?,
            Err(_) => {
                return Err(ServiceError::StoreUnavailable(format!(
                    "the database did not answer within {} ms",
                    READY_TIMEOUT.as_millis()
                )));
            }
        }
        Ok(self.health())
    }
}

/// How long `GET /readyz` waits for the database's answer.
pub const READY_TIMEOUT: Duration = Duration::from_secs(2);

/// The answer of a health check.
#[derive(Clone, Debug, PartialEq)]
pub struct Health {
    /// `sqlite` or `postgres`.
    pub database: &'static str,
    /// Whether the browser engine runs pages in Chromium's sandbox; `None`
    /// in a process that runs no browser.
    pub browser_sandbox: Option<svc_engine::BrowserSandbox>,
}
