use serde::{Deserialize, Serialize};
use svc_domain::scrap::{ParamSet, Scrap};

use crate::iso;

/// The Scrap shape of interface.md: exactly these fields.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScrapView {
    pub id: String,
    pub title: String,
    pub description: String,
    pub url: String,
    pub request: String,
    pub scrapper: String,
    pub containers: Vec<String>,
    pub params: Vec<ParamSet>,
    pub history: Vec<String>,
    pub cron: Option<String>,
    pub cron_timezone: String,
    pub alert: Option<String>,
    pub auto_fix: bool,
    pub proxy_tier: Option<String>,
    pub last_tier_change_at: Option<String>,
    pub email_notif: bool,
    pub email_notif_recipient: Option<String>,
    pub email_notif_format: String,
    pub digest_enabled: bool,
    pub digest_prompt: Option<String>,
    pub digest_recipient: Option<String>,
    pub banner: String,
    pub user: String,
    pub organization_id: String,
    pub created_at: String,
    pub updated_at: String,
}

impl From<Scrap> for ScrapView {
    fn from(s: Scrap) -> Self {
        ScrapView {
            id: s.id.to_string(),
            title: s.title,
            description: s.description,
            url: s.url,
            request: s.request,
            scrapper: s.scrapper,
            containers: s.containers,
            params: s.params,
            history: s.history.iter().map(ToString::to_string).collect(),
            cron: s.cron,
            cron_timezone: s.cron_timezone,
            alert: s.alert,
            auto_fix: s.auto_fix,
            proxy_tier: s.proxy_tier,
            last_tier_change_at: s.last_tier_change_at.map(iso),
            email_notif: s.email_notif,
            email_notif_recipient: s.email_notif_recipient,
            email_notif_format: s.email_notif_format.as_str().to_string(),
            digest_enabled: s.digest_enabled,
            digest_prompt: s.digest_prompt,
            digest_recipient: s.digest_recipient,
            banner: s.banner,
            user: s.user_id.to_string(),
            organization_id: s.organization_id.to_string(),
            created_at: iso(s.created_at),
            updated_at: iso(s.updated_at),
        }
    }
}
