use chrono::{DateTime, Utc};

use crate::{HistoryId, OrgId, ScrapId, UserId};

/// One parameter set `{ key, value }` of a scrap.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ParamSet {
    pub key: String,
    pub value: serde_json::Value,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EmailFormat {
    Json,
    Csv,
}

impl EmailFormat {
    pub fn as_str(self) -> &'static str {
        match self {
            EmailFormat::Json => "json",
            EmailFormat::Csv => "csv",
        }
    }
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "json" => Some(EmailFormat::Json),
            "csv" => Some(EmailFormat::Csv),
            _ => None,
        }
    }
}

pub const PROXY_TIERS: [&str; 5] = ["tier0", "tier1", "tier2", "tier3", "tier4"];
/// The engines a scrap may name in `scrapper`: `puppeteer` (headless
/// Chromium, the default), `static` (no browser: the script runs on the
/// server-rendered HTML; `svc-static`) and `auto` (`static` when it finds
/// what the browser finds, else `puppeteer`, decided and remembered per
/// scrap by the run service).
pub const SCRAPPERS: [&str; 3] = [DEFAULT_SCRAPPER, STATIC_SCRAPPER, AUTO_SCRAPPER];
pub const DEFAULT_SCRAPPER: &str = "puppeteer";
pub const STATIC_SCRAPPER: &str = "static";
pub const AUTO_SCRAPPER: &str = "auto";
/// How many run ids a scrap exposes in `history`.
pub const HISTORY_IDS_CAP: usize = 50;

/// A configured extraction job. `history` is not stored here: it is derived
/// from the history rows by the store.
#[derive(Clone, Debug, PartialEq)]
pub struct Scrap {
    pub id: ScrapId,
    pub organization_id: OrgId,
    pub user_id: UserId,
    pub title: String,
    pub description: String,
    pub url: String,
    pub request: String,
    pub scrapper: String,
    pub containers: Vec<String>,
    pub params: Vec<ParamSet>,
    pub history: Vec<HistoryId>,
    pub cron: Option<String>,
    pub cron_timezone: String,
    pub alert: Option<String>,
    pub auto_fix: bool,
    pub proxy_tier: Option<String>,
    pub last_tier_change_at: Option<DateTime<Utc>>,
    pub email_notif: bool,
    pub email_notif_recipient: Option<String>,
    pub email_notif_format: EmailFormat,
    pub digest_enabled: bool,
    pub digest_prompt: Option<String>,
    pub digest_recipient: Option<String>,
    pub banner: String,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    /// When the schedule is next due (`None`: manual runs only). Internal:
    /// kept by the service and the scheduler, never shown.
    pub next_fire_at: Option<DateTime<Utc>>,
}

impl Scrap {
    /// A new scrap of `user` in `organization` with every optional field at
    /// its default (no schedule, `puppeteer`, tier unset, no notifications).
    pub fn new(
        organization_id: OrgId,
        user_id: UserId,
        title: impl Into<String>,
        url: impl Into<String>,
        request: impl Into<String>,
        now: DateTime<Utc>,
    ) -> Scrap {
        Scrap {
            id: ScrapId::new(),
            organization_id,
            user_id,
            title: title.into(),
            description: String::new(),
            url: url.into(),
            request: request.into(),
            scrapper: DEFAULT_SCRAPPER.into(),
            containers: vec![],
            params: vec![],
            history: vec![],
            cron: None,
            cron_timezone: "UTC".into(),
            alert: None,
            auto_fix: false,
            proxy_tier: None,
            last_tier_change_at: None,
            email_notif: false,
            email_notif_recipient: None,
            email_notif_format: EmailFormat::Json,
            digest_enabled: false,
            digest_prompt: None,
            digest_recipient: None,
            banner: String::new(),
            created_at: now,
            updated_at: now,
            next_fire_at: None,
        }
    }
}
