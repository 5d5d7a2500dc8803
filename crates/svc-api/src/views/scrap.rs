use serde::Serialize;
use svc_domain::scrap::{ParamSet, Scrap};

use super::iso;

/// The Scrap shape of interface.md: exactly these fields.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ScrapView {
    id: String,
    title: String,
    description: String,
    url: String,
    request: String,
    scrapper: String,
    containers: Vec<String>,
    params: Vec<ParamSet>,
    history: Vec<String>,
    cron: Option<String>,
    cron_timezone: String,
    alert: Option<String>,
    auto_fix: bool,
    proxy_tier: Option<String>,
    last_tier_change_at: Option<String>,
    email_notif: bool,
    email_notif_recipient: Option<String>,
    email_notif_format: &'static str,
    digest_enabled: bool,
    digest_prompt: Option<String>,
    digest_recipient: Option<String>,
    banner: String,
    user: String,
    organization_id: String,
    created_at: String,
    updated_at: String,
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
            email_notif_format: s.email_notif_format.as_str(),
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
