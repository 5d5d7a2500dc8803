//! The changes a create or an update makes to a scrap, and the rules every
//! stored scrap obeys (docs/decisions.md, Scraps). The wire body is
//! `svc_api_types::ScrapBody`; the HTTP adapter turns it into `ScrapChanges`.

use std::collections::HashSet;
use std::str::FromStr;
use std::time::Duration;

use chrono::Utc;
use croner::Cron;
use svc_domain::scrap::{AUTO_SCRAPPER, EmailFormat, PROXY_TIERS, ParamSet, SCRAPPERS, STATIC_SCRAPPER, Scrap};

use crate::ServiceError;
use crate::schedule::cron;
use svc_engine::Loads;

/// What a create or an update sets: only the fields that are `Some`. A
/// nullable field is `Option<Option<_>>`, `Some(None)` clearing it.
#[derive(Debug, Default)]
pub struct ScrapChanges {
    pub title: Option<String>,
    pub description: Option<String>,
    pub url: Option<String>,
    pub request: Option<String>,
    pub scrapper: Option<String>,
    pub containers: Option<Vec<String>>,
    pub params: Option<Vec<ParamSet>>,
    pub cron: Option<Option<String>>,
    pub cron_timezone: Option<String>,
    pub alert: Option<Option<String>>,
    pub auto_fix: Option<bool>,
    pub proxy_tier: Option<Option<String>>,
    pub email_notif: Option<bool>,
    pub email_notif_recipient: Option<Option<String>>,
    /// `json` or `csv`, checked when applied.
    pub email_notif_format: Option<String>,
    pub digest_enabled: Option<bool>,
    pub digest_prompt: Option<Option<String>>,
    pub digest_recipient: Option<Option<String>>,
    pub banner: Option<String>,
}

/// Names of the stored fields `changes` sets, for the activity log.
pub(crate) fn changed_fields(before: &Scrap, after: &Scrap) -> Vec<&'static str> {
    let mut out = Vec::new();
    macro_rules! cmp {
        ($($field:ident => $name:literal),* $(,)?) => {
            $(if before.$field != after.$field { out.push($name); })*
        };
    }
    cmp!(
        title => "title", description => "description", url => "url", request => "request",
        scrapper => "scrapper", containers => "containers", params => "params", cron => "cron",
        cron_timezone => "cronTimezone", alert => "alert", auto_fix => "autoFix", proxy_tier => "proxyTier",
        email_notif => "emailNotif", email_notif_recipient => "emailNotifRecipient",
        email_notif_format => "emailNotifFormat", digest_enabled => "digestEnabled",
        digest_prompt => "digestPrompt", digest_recipient => "digestRecipient", banner => "banner",
    );
    out
}

fn blank_to_none(v: Option<String>) -> Option<String> {
    v.map(|s| s.trim().to_string()).filter(|s| !s.is_empty())
}

impl ScrapChanges {
    /// Copies every field present in `self` onto `scrap`.
    pub(crate) fn apply_to(self, scrap: &mut Scrap) -> Result<(), ServiceError> {
        if let Some(v) = self.title {
            scrap.title = v.trim().to_string();
        }
        if let Some(v) = self.description {
            scrap.description = v;
        }
        if let Some(v) = self.url {
            scrap.url = v.trim().to_string();
        }
        if let Some(v) = self.request {
            scrap.request = v;
        }
        if let Some(v) = self.scrapper {
            scrap.scrapper = v;
        }
        if let Some(v) = self.containers {
            // Worker ids are case-insensitive: stored lowercased.
            scrap.containers = v.into_iter().map(|c| c.trim().to_ascii_lowercase()).collect();
        }
        if let Some(v) = self.params {
            scrap.params = v;
        }
        if let Some(v) = self.cron {
            scrap.cron = blank_to_none(v);
        }
        if let Some(v) = self.cron_timezone {
            scrap.cron_timezone = v.trim().to_string();
        }
        if let Some(v) = self.alert {
            scrap.alert = blank_to_none(v);
        }
        if let Some(v) = self.auto_fix {
            scrap.auto_fix = v;
        }
        if let Some(v) = self.proxy_tier {
            scrap.proxy_tier = v;
        }
        if let Some(v) = self.email_notif {
            scrap.email_notif = v;
        }
        if let Some(v) = self.email_notif_recipient {
            scrap.email_notif_recipient = blank_to_none(v);
        }
        if let Some(v) = self.email_notif_format {
            scrap.email_notif_format = EmailFormat::parse(&v)
                .ok_or_else(|| ServiceError::validation("emailNotifFormat", "must be `json` or `csv`"))?;
        }
        if let Some(v) = self.digest_enabled {
            scrap.digest_enabled = v;
        }
        if let Some(v) = self.digest_prompt {
            scrap.digest_prompt = v;
        }
        if let Some(v) = self.digest_recipient {
            scrap.digest_recipient = blank_to_none(v);
        }
        if let Some(v) = self.banner {
            scrap.banner = v;
        }
        Ok(())
    }
}

fn max_chars(field: &str, value: &str, max: usize) -> Result<(), ServiceError> {
    if value.chars().count() > max {
        return Err(ServiceError::validation(field, format!("must be at most {max} characters")));
    }
    Ok(())
}

/// A recipient: an email address, a channel URL in Apprise's syntax or
/// `channel:NAME` (svc_domain::channel). A saved channel's name is not
/// looked up here: one deleted later fails its sends at once, logged.
fn recipient_field(field: &str, value: &Option<String>) -> Result<(), ServiceError> {
    match value {
        Some(v) => svc_domain::channel::recipient(v).map(|_| ()).map_err(|m| ServiceError::validation(field, m)),
        None => Ok(()),
    }
}

/// Checks a cron expression (five fields, six with seconds, or an `@`
/// alias) and how often it fires.
pub fn check_cron(expr: &str, timezone: chrono_tz::Tz, min_interval: Duration) -> Result<Cron, ServiceError> {
    let cron = cron::parse(expr).map_err(|e| ServiceError::validation("cron", e))?;
    let now = Utc::now();
    if cron::next_fire(&cron, timezone, now).is_none() {
        return Err(ServiceError::validation("cron", "the expression never fires"));
    }
    if let Some(gap) = cron::shortest_gap(&cron, timezone, now, 6)
        && gap < min_interval
    {
        return Err(ServiceError::validation(
            "cron",
            format!("fires more often than once every {} seconds", min_interval.as_secs()),
        ));
    }
    Ok(cron)
}

/// A scrap's `url`: an absolute http(s) URL of at most 2,048 characters.
pub(crate) fn check_url(url: &str) -> Result<(), ServiceError> {
    if url.is_empty() {
        return Err(ServiceError::validation("url", "is required"));
    }
    max_chars("url", url, 2048)?;
    match url::Url::parse(url) {
        Ok(u) if matches!(u.scheme(), "http" | "https") && u.host_str().is_some_and(|h| !h.is_empty()) => Ok(()),
        _ => Err(ServiceError::validation("url", "must be an absolute http or https URL")),
    }
}

/// A scrap's script (`request`): not blank, at most 1,000,000 characters,
/// known `// svc:load` kinds only. Returns what the directives ask to load.
pub(crate) fn check_request(request: &str) -> Result<Loads, ServiceError> {
    if request.trim().is_empty() {
        return Err(ServiceError::validation("request", "is required (a script that calls returnData(array))"));
    }
    max_chars("request", request, 1_000_000)?;
    svc_engine::crawl::parse(request).map_err(|why| ServiceError::validation("request", why))?;
    svc_engine::directives::parse(request).map_err(|why| ServiceError::validation("request", why))
}

/// A scrap's parameter sets: at most 100, keys of 1 to 200 characters, unique.
pub(crate) fn check_params(params: &[ParamSet]) -> Result<(), ServiceError> {
    if params.len() > 100 {
        return Err(ServiceError::validation("params", "at most 100 parameter sets"));
    }
    let mut keys = HashSet::new();
    for p in params {
        if p.key.is_empty() || p.key.chars().count() > 200 {
            return Err(ServiceError::validation("params", "each key must be 1 to 200 characters"));
        }
        if !keys.insert(p.key.as_str()) {
            return Err(ServiceError::validation("params", format!("duplicate key `{}`", p.key)));
        }
    }
    Ok(())
}

/// A scrap's schedule: an IANA `cronTimezone`, and a `cron` (if any) that
/// [`check_cron`] accepts. Returns the parsed schedule.
pub(crate) fn check_schedule(
    cron: Option<&str>,
    timezone: &str,
    min_interval: Duration,
) -> Result<Option<(Cron, chrono_tz::Tz)>, ServiceError> {
    let tz = chrono_tz::Tz::from_str(timezone)
        .map_err(|_| ServiceError::validation("cronTimezone", format!("`{timezone}` is not an IANA time zone")))?;
    cron.map(|expr| Ok((check_cron(expr, tz, min_interval)?, tz))).transpose()
}

/// `scrapper`: one of the engines svc has.
pub(crate) fn check_scrapper(scrapper: &str) -> Result<(), ServiceError> {
    if !SCRAPPERS.contains(&scrapper) {
        return Err(ServiceError::validation("scrapper", format!("unknown engine; known: {}", SCRAPPERS.join(", "))));
    }
    Ok(())
}

/// Every rule a stored scrap obeys.
pub(crate) fn validate(s: &Scrap, cron_min_interval: Duration) -> Result<(), ServiceError> {
    if s.title.is_empty() {
        return Err(ServiceError::validation("title", "is required"));
    }
    max_chars("title", &s.title, 200)?;
    max_chars("description", &s.description, 10_000)?;
    check_url(&s.url)?;
    check_request(&s.request)?;
    check_scrapper(&s.scrapper)?;
    if s.containers.is_empty() || s.containers.len() > 20 {
        return Err(ServiceError::validation("containers", "must list 1 to 20 worker ids"));
    }
    for c in &s.containers {
        let ok = !c.is_empty() && c.len() <= 64 && c.bytes().all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b));
        if !ok {
            return Err(ServiceError::validation(
                "containers",
                format!("`{c}` is not a worker id (1-64 of A-Z a-z 0-9 . _ -)"),
            ));
        }
    }
    check_params(&s.params)?;
    check_schedule(s.cron.as_deref(), &s.cron_timezone, cron_min_interval)?;
    recipient_field("alert", &s.alert)?;
    if let Some(tier) = &s.proxy_tier
        && !PROXY_TIERS.contains(&tier.as_str())
    {
        return Err(ServiceError::validation("proxyTier", format!("must be one of {}", PROXY_TIERS.join(", "))));
    }
    if s.scrapper == STATIC_SCRAPPER && s.proxy_tier.as_deref().is_some_and(|t| t != PROXY_TIERS[0]) {
        return Err(ServiceError::validation(
            "proxyTier",
            "the static engine runs direct only (tier0 or unset); use the puppeteer engine for proxy tiers",
        ));
    }
    if s.scrapper == AUTO_SCRAPPER && s.proxy_tier.as_deref().is_some_and(|t| t != PROXY_TIERS[0]) {
        return Err(ServiceError::validation(
            "proxyTier",
            "the auto engine tries static, which runs direct, first (tier0 or unset); use the puppeteer engine for a fixed proxy tier",
        ));
    }
    recipient_field("emailNotifRecipient", &s.email_notif_recipient)?;
    recipient_field("digestRecipient", &s.digest_recipient)?;
    if let Some(p) = &s.digest_prompt {
        max_chars("digestPrompt", p, 10_000)?;
    }
    max_chars("banner", &s.banner, 2048)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cron_rules() {
        let utc = chrono_tz::UTC;
        let minute = Duration::from_secs(60);
        assert!(check_cron("*/5 * * * *", utc, minute).is_ok());
        assert!(check_cron("@hourly", utc, minute).is_ok());
        assert!(check_cron("0 9 * * MON-FRI", chrono_tz::Europe::Paris, minute).is_ok());
        assert!(check_cron("* * * * * *", utc, minute).is_err(), "every second is too often");
        assert!(check_cron("0 * * * * *", utc, minute).is_ok(), "six fields, once a minute");
        assert!(check_cron("*/10 * * * * *", utc, Duration::from_secs(10)).is_ok());
        assert!(check_cron("61 * * * *", utc, minute).is_err());
        assert!(check_cron("not a cron", utc, minute).is_err());
        assert!(check_cron("* * * * *", utc, Duration::from_secs(300)).is_err(), "too frequent");
        assert!(check_cron("0 0 30 2 *", utc, minute).is_err(), "never fires");
    }
}
