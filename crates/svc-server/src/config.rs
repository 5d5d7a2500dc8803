//! Configuration: defaults, then an optional TOML file, then `SVC_*`
//! environment variables; every value is validated before anything starts.
//!
//! File keys are the variable names without `SVC_`, lowercased
//! (`database_url = "postgres://..."`). Unknown file keys are an error;
//! unknown `SVC_*` variables are left alone (the CLI client reads some).
//!
//! Each setting is declared once, in [`Config::from_raw`]: its name, its
//! default and its parser on one line. What a file may contain is what
//! `from_raw` asks for, so there is no second list of names to keep in step.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;
use svc_engine::host_vetting::PrivateNetworks;
use svc_service::outbox::channel_message::ChannelEndpoints;

use lettre::Address;
use lettre::message::Mailbox;

/// A value that must never be printed.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(s: impl Into<String>) -> Self {
        Secret(s.into())
    }
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(<redacted>)")
    }
}

#[derive(Clone, Debug)]
pub struct Config {
    /// May carry a password (`postgres://user:password@host/db`).
    pub database_url: Secret,
    pub listen: SocketAddr,
    /// `SVC_PUBLIC_URL` when set; else [`Config::public_url`] derives it
    /// from the address the server listens on.
    pub public_url: Option<String>,
    /// Generated once and kept in the database (sealed) when unset.
    pub jwt_secret: Option<Secret>,
    /// `SVC_SECRET_KEY`: the master key that seals the secrets svc stores
    /// (base64 of 32 bytes, checked here). Wins over the key file.
    pub secret_key: Option<Secret>,
    /// `SVC_SECRET_KEY_FILE`: where the master key is kept when
    /// `SVC_SECRET_KEY` is unset; default `secret.key` beside a SQLite
    /// database, `svc-data/secret.key` for PostgreSQL (see `secret_key`).
    pub secret_key_file: Option<std::path::PathBuf>,
    /// `SVC_SECRET_KEY_PREVIOUS`: a key that secrets may still be sealed
    /// with (read only; the start-up pass re-seals them with the current key).
    pub secret_key_previous: Option<Secret>,
    /// `SVC_AI_BASE_URL`: an OpenAI-compatible Chat Completions server
    /// (`…/v1`); unset, AI features are off.
    pub ai_base_url: Option<String>,
    /// `SVC_AI_API_KEY`, sent as `Authorization: Bearer`.
    pub ai_api_key: Option<Secret>,
    pub ai_model: String,
    /// USD per million input and output tokens, for `costs`.
    pub ai_price_input: f64,
    pub ai_price_output: f64,
    /// One model call.
    pub ai_timeout: Duration,
    /// `SVC_AI_FIX_DAILY`: AI Fix repairs per organization per UTC day (0 turns AI Fix off).
    pub ai_fix_daily: i64,
    /// `SVC_CRAWL_MAX_PAGES` and `SVC_CRAWL_TIMEOUT`: the most pages one run
    /// of a crawl visits, and how long it may take in all.
    pub crawl: svc_service::runs::crawl::CrawlSettings,
    /// `SVC_SIGNUP`: `open` (anyone may sign up), `invite` (only invited
    /// addresses) or `closed`.
    pub signup: svc_service::accounts::SignupMode,
    pub chromium: Option<String>,
    /// `SVC_BROWSER_USER`: the user Chromium runs as when svc runs as root
    /// (default `nobody`; `root` keeps it root, without its sandbox).
    pub browser_user: String,
    /// `SVC_BROWSER_SANDBOX`: `on` (default) requires Chromium's sandbox;
    /// `off` runs pages without it.
    pub browser_sandbox: svc_runner::sandbox::SandboxSetting,
    /// `SVC_ALLOW_PRIVATE_NETWORKS`: `true`, `false`, or a list of ranges.
    pub allow_private_networks: PrivateNetworks,
    pub webhook_retry_delays: Vec<Duration>,
    pub webhook_sweep_interval: Duration,
    pub webhook_timeout: Duration,
    /// `SVC_CHANNEL_API_URLS`: where the chat services whose channel URL
    /// names no host (Slack, Discord, Telegram; Teams too) are reached, as
    /// `slack=URL,discord=URL,telegram=URL,teams=URL`; the public APIs by default.
    pub channel_endpoints: ChannelEndpoints,
    pub cron_min_interval: Duration,
    pub run_timeout: Duration,
    pub worker_concurrency: usize,
    /// `SVC_WARM_PAGES`: emptied pages of finished runs the browser engine
    /// keeps for their scrap's next run (default: `SVC_WORKER_CONCURRENCY`;
    /// 0: a new browser context for every run).
    pub warm_pages: usize,
    /// `SVC_SPARE_PAGES`: new pages the browser engine keeps ready, each in
    /// a context of its own, so that a run without a warm page does not
    /// wait for a renderer to start (default: `SVC_WORKER_CONCURRENCY`, at
    /// most 4; 0: none).
    pub spare_pages: usize,
    /// `SVC_WARM_PAGES_SHARED`: a warm page also serves the runs of the
    /// other scraps of its organization on the origin it shows (default on).
    pub warm_pages_shared: bool,
    /// `SVC_CLAIM_AFFINITY`: the worker first claims the queued runs that
    /// fit a warm page (default on).
    pub claim_affinity: bool,
    pub free_grant: i64,
    /// `SVC_GROWTH_WEEKLY`, `SVC_PRO_WEEKLY`: the balances Growth and Pro are
    /// topped up to every Monday 00:00 UTC (the scheduler's weekly renewal).
    pub growth_weekly: i64,
    pub pro_weekly: i64,
    /// `SVC_PROXY_TIER1`..`4`: each tier's upstream proxies (their `Debug`
    /// hides the credentials), rotated; empty when the tier is not configured.
    pub proxy_tiers: [Vec<svc_runner::upstream::UpstreamProxy>; 4],
    /// `SVC_PROXY_TIER1_PRICE`..: USD per GB through the tier (`None`: not priced).
    pub proxy_tier_prices: [Option<f64>; 4],
    /// `SVC_PROXY_TIER1_MULTIPLIER`..: compute units of a run on the tier = base × this.
    pub proxy_tier_multipliers: [i64; 4],
    pub key_cache_ttl: Duration,
    /// Whether `svc server` runs a worker for the `default` container.
    pub embedded_worker: bool,
    /// Whether `svc server` runs the cron scheduler.
    pub scheduler: bool,
    /// Whether `svc server` (and `svc worker`) send webhook deliveries.
    pub webhook_dispatcher: bool,
    /// Whether `svc server` (and `svc worker`) send queued email (when
    /// `SVC_SMTP_URL` is set).
    pub mailer: bool,
    /// Proxies (addresses or CIDR ranges) whose `X-Forwarded-For` is believed.
    pub trusted_proxies: Vec<ipnet::IpNet>,
    /// How old a tick missed during downtime may be and still run once.
    pub cron_catchup_grace: Duration,
    /// `SVC_RETAIN_*`: how long housekeeping keeps each kind of row.
    pub retention: svc_service::schedule::housekeeping::Retention,
    /// `SVC_SMTP_URL`: the relay email leaves through; unset, email is off
    /// (see [`Config::mail`]).
    pub smtp_url: Option<SmtpUrl>,
    /// `SVC_MAIL_FROM` when set; else [`Config::mail`] derives it from the
    /// public URL's host.
    pub mail_from: Option<Mailbox>,
    /// Emails handed to the relay per second, at most.
    pub mail_rate: u32,
    /// One attempt to hand an email to the relay, connection included.
    pub mail_timeout: Duration,
    /// `SVC_DATABASE_TIMEOUT`: the longest a statement waits for a database
    /// connection (the database unreachable, or every connection busy);
    /// then the request answers 503 `UNAVAILABLE`.
    pub database_timeout: Duration,
    /// `SVC_SHUTDOWN_GRACE`: after SIGTERM, how long in-flight requests and
    /// runs may take to finish; runs still going then are released for
    /// another worker.
    pub shutdown_grace: Duration,
    /// `SVC_METRICS_TOKEN`: the bearer token `GET /metrics` asks for on the
    /// main listener. Unset, the main listener has no `/metrics` (404).
    pub metrics_token: Option<Secret>,
    /// `SVC_METRICS_LISTEN`: a second address that serves `GET /metrics`
    /// only, without a token (keep it private: loopback or an internal network).
    pub metrics_listen: Option<SocketAddr>,
    /// `SVC_LOG_FORMAT`: `text` (default) or `json` (one object a line).
    pub log_format: LogFormat,
    /// `SVC_REQUEST_TIMEOUT`: the longest a request may take, body upload
    /// included, before it is answered 408 (body still arriving) or 503;
    /// a long poll (`?wait=`, MCP) gets its wait on top. Default: the run
    /// timeout plus 30 s (a test run in the web app takes up to a run timeout).
    pub request_timeout: Duration,
    /// `SVC_HEADER_READ_TIMEOUT`: how long a client has to send a request's
    /// headers (and how long an idle keep-alive connection is kept).
    pub header_read_timeout: Duration,
}

/// How log lines are written (`SVC_LOG_FORMAT`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LogFormat {
    /// For people: one line of text per event.
    #[default]
    Text,
    /// For log collectors: one JSON object per line, with the span fields
    /// (such as the request's `request_id`).
    Json,
}

/// How svc talks to its SMTP relay (`SVC_SMTP_URL`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SmtpSecurity {
    /// `smtp://HOST[:587]`: plain connection upgraded with STARTTLS, which
    /// must succeed (no fallback to clear text).
    StartTls,
    /// `smtps://HOST[:465]`: TLS from the first byte.
    ImplicitTls,
    /// `smtp://HOST[:25]?tls=none`: clear text, for a relay on the same
    /// machine or network. Credentials are refused in this mode.
    None,
}

/// `SVC_SMTP_URL`, parsed: `smtp://USER:PASS@HOST:587` (STARTTLS),
/// `smtps://USER:PASS@HOST:465` (implicit TLS) or `smtp://HOST:25?tls=none`.
/// Its `Debug` and [`SmtpUrl::redacted`] never show the credentials.
#[derive(Clone, PartialEq, Eq)]
pub struct SmtpUrl {
    pub security: SmtpSecurity,
    /// A name or an IP address (without brackets).
    pub host: String,
    pub port: u16,
    /// User name and password, percent-decoded.
    pub credentials: Option<(String, Secret)>,
}

const SMTP_URL_FORMS: &str =
    "expected smtp://USER:PASS@HOST:587 (STARTTLS), smtps://USER:PASS@HOST:465 (TLS) or smtp://HOST:25?tls=none";

impl SmtpUrl {
    /// Parses an `SVC_SMTP_URL` value. The reasons never quote the value
    /// (it may hold a password).
    pub fn parse(s: &str) -> Result<SmtpUrl, String> {
        let url = url::Url::parse(s.trim()).map_err(|_| SMTP_URL_FORMS.to_string())?;
        let mut tls = None;
        for (key, value) in url.query_pairs() {
            match key.as_ref() {
                "tls" if tls.is_none() => tls = Some(value.into_owned()),
                "tls" => return Err("`tls` is given twice".into()),
                other => return Err(format!("unknown parameter `{other}` (only `tls=none` is known)")),
            }
        }
        let security = match (url.scheme(), tls.as_deref()) {
            ("smtp", None | Some("required" | "starttls")) => SmtpSecurity::StartTls,
            ("smtp", Some("none")) => SmtpSecurity::None,
            ("smtps", None) => SmtpSecurity::ImplicitTls,
            ("smtps", Some(_)) => return Err("smtps:// is always TLS: drop the `tls` parameter".into()),
            ("smtp", Some(other)) => return Err(format!("unknown `tls={other}` (use tls=none for clear text)")),
            (other, _) => return Err(format!("unknown scheme `{other}`: {SMTP_URL_FORMS}")),
        };
        let host = match url.host() {
            Some(url::Host::Domain(name)) if !name.is_empty() => name.to_string(),
            Some(url::Host::Ipv4(ip)) => ip.to_string(),
            Some(url::Host::Ipv6(ip)) => ip.to_string(),
            _ => return Err(format!("no host: {SMTP_URL_FORMS}")),
        };
        if !matches!(url.path(), "" | "/") || url.fragment().is_some() {
            return Err(format!("unexpected path or fragment: {SMTP_URL_FORMS}"));
        }
        let port = url.port().unwrap_or(match security {
            SmtpSecurity::StartTls => 587,
            SmtpSecurity::ImplicitTls => 465,
            SmtpSecurity::None => 25,
        });
        let decode = |part: &str| {
            percent_encoding::percent_decode_str(part)
                .decode_utf8()
                .map(|s| s.into_owned())
                .map_err(|_| "the user name and password must be UTF-8 once percent-decoded".to_string())
        };
        let credentials = match (url.username(), url.password()) {
            ("", None) => None,
            (user, Some(password)) if !user.is_empty() => Some((decode(user)?, Secret::new(decode(password)?))),
            _ => return Err("credentials need both a user name and a password (USER:PASS@HOST)".into()),
        };
        if credentials.is_some() && security == SmtpSecurity::None {
            return Err("credentials with tls=none would cross the network in clear text: use smtps:// or \
                        smtp:// (STARTTLS)"
                .into());
        }
        Ok(SmtpUrl { security, host, port, credentials })
    }

    /// The URL without its credentials, for logs: `smtp://HOST:587`,
    /// `smtps://HOST:465`, `smtp://HOST:25?tls=none`.
    pub fn redacted(&self) -> String {
        let host = if self.host.contains(':') { format!("[{}]", self.host) } else { self.host.clone() };
        match self.security {
            SmtpSecurity::StartTls => format!("smtp://{host}:{}", self.port),
            SmtpSecurity::ImplicitTls => format!("smtps://{host}:{}", self.port),
            SmtpSecurity::None => format!("smtp://{host}:{}?tls=none", self.port),
        }
    }
}

impl fmt::Debug for SmtpUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SmtpUrl")
            .field("security", &self.security)
            .field("host", &self.host)
            .field("port", &self.port)
            .field("credentials", &self.credentials.as_ref().map(|_| "<redacted>"))
            .finish()
    }
}

/// Everything the model client needs, from [`Config::ai`].
#[derive(Clone, Debug)]
pub struct AiSettings {
    pub base_url: String,
    pub api_key: Option<Secret>,
    pub timeout: Duration,
    pub pricing: svc_service::ai::model::AiPricing,
}

/// Everything the SMTP client needs, from [`Config::mail`].
#[derive(Clone, Debug)]
pub struct MailSettings {
    pub smtp: SmtpUrl,
    /// The `From` of every email (and the envelope sender).
    pub from: Mailbox,
    /// Emails handed to the relay per second, at most (`SVC_MAIL_RATE`).
    pub rate: u32,
    /// One attempt, connection included (`SVC_MAIL_TIMEOUT`).
    pub timeout: Duration,
}

impl MailSettings {
    /// The least time between two emails at `rate`.
    pub fn interval(&self) -> Duration {
        Duration::from_secs(1) / self.rate.max(1)
    }
}

/// `svc <noreply@HOST>` for the public URL's host (`[IP]` for an address).
fn default_sender(public_url: &str) -> Mailbox {
    let host = url::Url::parse(public_url).ok().and_then(|u| u.host().map(|h| h.to_owned()));
    // An address literal (`noreply@[127.0.0.1]`) makes an envelope lettre
    // refuses: a server named by its IP address sends as `localhost`.
    let domain = match host {
        Some(url::Host::Domain(name)) => name,
        Some(url::Host::Ipv4(_) | url::Host::Ipv6(_)) | None => "localhost".into(),
    };
    let address = Address::new("noreply", &domain).or_else(|_| Address::new("noreply", "localhost"));
    Mailbox::new(Some("svc".into()), address.expect("noreply@localhost is an address"))
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("invalid {name}=`{value}`: {reason}")]
    Invalid { name: String, value: String, reason: String },
    #[error("cannot read config file {path}: {reason}")]
    File { path: String, reason: String },
    #[error("unknown key `{0}` in the config file")]
    UnknownKey(String),
}

/// The retention settings (`SVC_RETAIN_*`), each a duration at least its
/// minimum (`Retention::MIN*`).
fn retention(raw: &Raw) -> Result<svc_service::schedule::housekeeping::Retention, ConfigError> {
    use svc_service::schedule::housekeeping::Retention;
    let d = Retention::default();
    let at_least = |min: Duration| {
        move |s: &str| {
            let v = parse_duration(s)?;
            if v < min {
                return Err(format!("must be at least {}h", min.as_secs() / 3600));
            }
            Ok(v)
        }
    };
    Ok(Retention {
        webhook_deliveries: raw.get("RETAIN_WEBHOOK_DELIVERIES", d.webhook_deliveries, at_least(Retention::MIN))?,
        emails: raw.get("RETAIN_EMAILS", d.emails, at_least(Retention::MIN))?,
        ai_tasks: raw.get("RETAIN_AI_TASKS", d.ai_tasks, at_least(Retention::MIN))?,
        activities: raw.get("RETAIN_ACTIVITIES", d.activities, at_least(Retention::MIN))?,
        audit: raw.get("RETAIN_AUDIT", d.audit, at_least(Retention::MIN))?,
        rate_limits: raw.get("RETAIN_RATE_LIMITS", d.rate_limits, at_least(Retention::MIN_RATE_LIMITS))?,
        renewals: raw.get("RETAIN_RENEWALS", d.renewals, at_least(Retention::MIN_RENEWALS))?,
    })
}

/// `90`, `90s`, `1500ms`, `5m`, `2h`, `30d`.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let (digits, unit) = s.split_at(s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len()));
    let n: u64 = digits.parse().map_err(|_| "expected a duration such as 60s, 500ms, 5m or 2h".to_string())?;
    let too_long = || format!("too long (at most {} days)", MAX_DURATION.as_secs() / 86_400);
    let secs = |per_unit: u64| n.checked_mul(per_unit).map(Duration::from_secs).ok_or_else(too_long);
    let duration = match unit {
        "" | "s" => Ok(Duration::from_secs(n)),
        "ms" => Ok(Duration::from_millis(n)),
        "m" => secs(60),
        "h" => secs(3600),
        "d" => secs(86_400),
        other => Err(format!("unknown unit `{other}` (use ms, s, m, h or d)")),
    }?;
    // The services add these to clock times and to one another: a bound
    // far above any sensible setting keeps every such sum in range.
    if duration > MAX_DURATION {
        return Err(too_long());
    }
    Ok(duration)
}

/// The longest duration a setting may have.
const MAX_DURATION: Duration = Duration::from_secs(365 * 86_400);

fn parse_bool(s: &str) -> Result<bool, String> {
    match s.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Ok(true),
        "0" | "false" | "no" | "off" | "" => Ok(false),
        _ => Err("expected true or false".into()),
    }
}

/// Where a raw value came from.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Source {
    File,
    Env,
}

/// The raw values by name (without `SVC_`, upper case), and the names
/// asked for so far.
#[derive(Default)]
struct Raw {
    values: BTreeMap<String, (String, Source)>,
    asked: RefCell<BTreeSet<&'static str>>,
}

impl Raw {
    fn get<T>(
        &self,
        name: &'static str,
        default: T,
        parse: impl Fn(&str) -> Result<T, String>,
    ) -> Result<T, ConfigError> {
        debug_assert!(SETTINGS.contains(&name), "SVC_{name} is read but missing from SETTINGS");
        self.asked.borrow_mut().insert(name);
        match self.values.get(name).map(|(value, _)| value) {
            None => Ok(default),
            Some(value) => parse(value).map_err(|reason| ConfigError::Invalid {
                name: format!("SVC_{name}"),
                value: if SECRET_SETTINGS.contains(&name) { "<redacted>".into() } else { value.clone() },
                reason,
            }),
        }
    }
}

/// Every setting, without `SVC_`: what [`Config::load`] reads, each as an
/// environment variable (`SVC_NAME`) or a key of the file (`name`). Reading
/// a name missing here is a bug that debug builds catch at once (`Raw::get`);
/// the `config` fuzz target and the unit tests take their names from here.
pub const SETTINGS: &[&str] = &[
    "DATABASE_URL",
    "LISTEN",
    "PUBLIC_URL",
    "JWT_SECRET",
    "SECRET_KEY",
    "SECRET_KEY_FILE",
    "SECRET_KEY_PREVIOUS",
    "AI_BASE_URL",
    "AI_API_KEY",
    "AI_MODEL",
    "AI_PRICE_INPUT",
    "AI_PRICE_OUTPUT",
    "AI_TIMEOUT",
    "AI_FIX_DAILY",
    "SIGNUP",
    "CHROMIUM",
    "BROWSER_USER",
    "ALLOW_PRIVATE_NETWORKS",
    "RUN_TIMEOUT",
    "REQUEST_TIMEOUT",
    "WEBHOOK_RETRY_DELAYS",
    "WEBHOOK_SWEEP_INTERVAL",
    "WEBHOOK_TIMEOUT",
    "CRON_MIN_INTERVAL",
    "WORKER_CONCURRENCY",
    "FREE_GRANT",
    "GROWTH_WEEKLY",
    "PRO_WEEKLY",
    "PROXY_TIER1",
    "PROXY_TIER2",
    "PROXY_TIER3",
    "PROXY_TIER4",
    "PROXY_TIER1_PRICE",
    "PROXY_TIER2_PRICE",
    "PROXY_TIER3_PRICE",
    "PROXY_TIER4_PRICE",
    "PROXY_TIER1_MULTIPLIER",
    "PROXY_TIER2_MULTIPLIER",
    "PROXY_TIER3_MULTIPLIER",
    "PROXY_TIER4_MULTIPLIER",
    "KEY_CACHE_TTL",
    "EMBEDDED_WORKER",
    "SCHEDULER",
    "WEBHOOK_DISPATCHER",
    "MAILER",
    "TRUSTED_PROXIES",
    "CRON_CATCHUP_GRACE",
    "SMTP_URL",
    "MAIL_FROM",
    "MAIL_RATE",
    "MAIL_TIMEOUT",
    "DATABASE_TIMEOUT",
    "SHUTDOWN_GRACE",
    "METRICS_TOKEN",
    "METRICS_LISTEN",
    "LOG_FORMAT",
    "HEADER_READ_TIMEOUT",
    "BROWSER_SANDBOX",
    "CHANNEL_API_URLS",
    "CLAIM_AFFINITY",
    "CRAWL_MAX_PAGES",
    "CRAWL_TIMEOUT",
    "WARM_PAGES",
    "WARM_PAGES_SHARED",
    "SPARE_PAGES",
    "RETAIN_WEBHOOK_DELIVERIES",
    "RETAIN_EMAILS",
    "RETAIN_AI_TASKS",
    "RETAIN_ACTIVITIES",
    "RETAIN_AUDIT",
    "RETAIN_RATE_LIMITS",
    "RETAIN_RENEWALS",
];

/// Settings whose values are never echoed in an error.
const SECRET_SETTINGS: [&str; 9] = [
    "JWT_SECRET",
    "METRICS_TOKEN",
    "SECRET_KEY",
    "SECRET_KEY_PREVIOUS",
    "SMTP_URL",
    "PROXY_TIER1",
    "PROXY_TIER2",
    "PROXY_TIER3",
    "PROXY_TIER4",
];

/// A master key: base64 of 32 bytes (the reason never quotes the value);
/// empty is unset.
fn master_key(s: &str) -> Result<Option<Secret>, String> {
    if s.trim().is_empty() {
        return Ok(None);
    }
    svc_storage::MasterKey::from_base64(s)
        .map(|_| Some(Secret::new(s.trim())))
        .map_err(|e| format!("{e}; generate one with `head -c 32 /dev/urandom | base64`"))
}
const PROXY_TIER_NAMES: [&str; 4] = ["PROXY_TIER1", "PROXY_TIER2", "PROXY_TIER3", "PROXY_TIER4"];
const PROXY_PRICE_NAMES: [&str; 4] =
    ["PROXY_TIER1_PRICE", "PROXY_TIER2_PRICE", "PROXY_TIER3_PRICE", "PROXY_TIER4_PRICE"];
const PROXY_MULTIPLIER_NAMES: [&str; 4] =
    ["PROXY_TIER1_MULTIPLIER", "PROXY_TIER2_MULTIPLIER", "PROXY_TIER3_MULTIPLIER", "PROXY_TIER4_MULTIPLIER"];

/// A tier's upstream proxies: comma-separated `http://[user:pass@]host:port`
/// URLs (the reason never quotes the value: it holds credentials).
fn proxy_urls(s: &str) -> Result<Vec<svc_runner::upstream::UpstreamProxy>, String> {
    if s.trim().is_empty() {
        return Ok(Vec::new());
    }
    svc_runner::upstream::UpstreamProxy::parse_list(s).map_err(|e| e.to_string())
}

fn positive_int<T: std::str::FromStr + PartialOrd + Default>(s: &str) -> Result<T, String> {
    match s.trim().parse::<T>() {
        Ok(n) if n > T::default() => Ok(n),
        _ => Err("expected a positive integer".into()),
    }
}

fn non_negative(s: &str) -> Result<i64, String> {
    match s.trim().parse::<i64>() {
        Ok(n) if n >= 0 => Ok(n),
        _ => Err("expected an integer >= 0".into()),
    }
}

/// `10.0.0.1, 192.168.0.0/16, ::1`: addresses or CIDR ranges.
fn parse_networks(s: &str) -> Result<Vec<ipnet::IpNet>, String> {
    s.split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|p| {
            p.parse::<ipnet::IpNet>()
                .or_else(|_| p.parse::<std::net::IpAddr>().map(ipnet::IpNet::from))
                .map_err(|_| format!("`{p}` is not an IP address or CIDR range"))
        })
        .collect()
}

fn positive_duration(s: &str) -> Result<Duration, String> {
    let d = parse_duration(s)?;
    if d.is_zero() { Err("must be greater than zero".into()) } else { Ok(d) }
}

impl Config {
    /// The service's public base URL, without a trailing slash:
    /// `SVC_PUBLIC_URL`, else `http://<SVC_LISTEN>`.
    pub fn public_url(&self) -> String {
        self.public_url.clone().unwrap_or_else(|| format!("http://{}", self.listen))
    }

    /// The proxy tiers as the service layer knows them: which exist, their
    /// prices and multipliers (`tier0`: always, free, ×1).
    pub fn tier_settings(&self) -> svc_service::scraps::proxy_tiers::TierSettings {
        let mut settings = svc_service::scraps::proxy_tiers::TierSettings::default();
        for i in 0..4 {
            settings.configured[i + 1] = !self.proxy_tiers[i].is_empty();
            settings.price_per_gb[i + 1] = self.proxy_tier_prices[i];
            settings.multiplier[i + 1] = self.proxy_tier_multipliers[i];
        }
        settings
    }

    /// The model provider, or `None` when AI features are off (`SVC_AI_BASE_URL` unset).
    pub fn ai(&self) -> Option<AiSettings> {
        let base_url = self.ai_base_url.clone()?;
        let provider =
            url::Url::parse(&base_url).ok().and_then(|u| u.host_str().map(str::to_string)).unwrap_or_default();
        Some(AiSettings {
            base_url,
            api_key: self.ai_api_key.clone(),
            timeout: self.ai_timeout,
            pricing: svc_service::ai::model::AiPricing {
                provider,
                model: self.ai_model.clone(),
                input_per_million: self.ai_price_input,
                output_per_million: self.ai_price_output,
            },
        })
    }

    /// The email settings, or `None` when email is off (`SVC_SMTP_URL`
    /// unset). The sender defaults to `svc <noreply@HOST>`, HOST being the
    /// public URL's host, so call this after [`Config::listening_on`].
    pub fn mail(&self) -> Option<MailSettings> {
        let smtp = self.smtp_url.clone()?;
        Some(MailSettings {
            smtp,
            from: self.mail_from.clone().unwrap_or_else(|| default_sender(&self.public_url())),
            rate: self.mail_rate,
            timeout: self.mail_timeout,
        })
    }

    /// The database connection pool's settings.
    pub fn pool(&self) -> svc_storage::PoolSettings {
        svc_storage::PoolSettings { acquire_timeout: self.database_timeout }
    }

    /// Why email is off, when it is (for the start-up line).
    pub fn mail_off_reason(&self) -> Option<&'static str> {
        self.smtp_url.is_none().then_some("SVC_SMTP_URL is not set")
    }

    /// Once the server has bound `bound` (the port may have been 0): the
    /// public URL defaults to that address rather than the requested one.
    pub fn listening_on(mut self, bound: SocketAddr) -> Self {
        self.listen = bound;
        self
    }

    /// Reads the file named by `file` (if any), then the `SVC_*` variables of `env`.
    pub fn load(file: Option<&Path>, env: impl IntoIterator<Item = (String, String)>) -> Result<Self, ConfigError> {
        let file = match file {
            Some(path) => Some((
                path.display().to_string(),
                std::fs::read_to_string(path)
                    .map_err(|e| ConfigError::File { path: path.display().to_string(), reason: e.to_string() })?,
            )),
            None => None,
        };
        Self::load_text(file.as_ref().map(|(path, text)| (path.as_str(), text.as_str())), env)
    }

    /// [`Config::load`] with the file already read: `file` is its path (for
    /// errors) and its TOML text. Public for the fuzz targets (`fuzz/`).
    #[doc(hidden)]
    pub fn load_text(
        file: Option<(&str, &str)>,
        env: impl IntoIterator<Item = (String, String)>,
    ) -> Result<Self, ConfigError> {
        let mut raw = Raw::default();
        if let Some((path, text)) = file {
            let table: toml::Table = text
                .parse()
                .map_err(|e: toml::de::Error| ConfigError::File { path: path.to_string(), reason: e.to_string() })?;
            for (key, value) in table {
                let text = match value {
                    toml::Value::String(s) => s,
                    toml::Value::Array(items) => items
                        .iter()
                        .map(|v| v.as_str().map(str::to_string).unwrap_or_else(|| v.to_string()))
                        .collect::<Vec<_>>()
                        .join(","),
                    other => other.to_string(),
                };
                raw.values.insert(key.to_ascii_uppercase(), (text, Source::File));
            }
        }
        for (key, value) in env {
            if let Some(name) = key.strip_prefix("SVC_") {
                raw.values.insert(name.to_string(), (value, Source::Env));
            }
        }
        let config = Self::from_raw(&raw)?;
        let asked = raw.asked.borrow();
        let unknown =
            raw.values.iter().find(|(name, (_, source))| *source == Source::File && !asked.contains(name.as_str()));
        if let Some((name, _)) = unknown {
            return Err(ConfigError::UnknownKey(name.to_ascii_lowercase()));
        }
        Ok(config)
    }

    /// Defaults, then the process's environment (and `SVC_CONFIG` as the file when set).
    pub fn from_env(file: Option<&Path>) -> Result<Self, ConfigError> {
        let env_file = std::env::var("SVC_CONFIG").ok().filter(|s| !s.is_empty());
        let file = file.map(Path::to_path_buf).or(env_file.map(Into::into));
        Self::load(file.as_deref(), std::env::vars())
    }

    /// Every setting: its name (without `SVC_`), default and parser.
    fn from_raw(raw: &Raw) -> Result<Self, ConfigError> {
        let database_url = raw.get("DATABASE_URL", Secret::new("sqlite://svc-data/svc.db"), |s| {
            let s = s.trim();
            if s.starts_with("sqlite:") || s.starts_with("postgres://") || s.starts_with("postgresql://") {
                Ok(Secret::new(s))
            } else {
                Err("expected sqlite://PATH or postgres://...".into())
            }
        })?;
        let listen: SocketAddr = raw.get("LISTEN", "127.0.0.1:8080".parse().expect("valid"), |s| {
            s.trim().parse().map_err(|_| "expected HOST:PORT with an IP address, such as 127.0.0.1:8080".to_string())
        })?;
        let public_url = raw.get("PUBLIC_URL", None, |s| {
            let s = s.trim().trim_end_matches('/');
            match url::Url::parse(s) {
                Ok(u) if matches!(u.scheme(), "http" | "https") && u.host_str().is_some() => Ok(Some(s.to_string())),
                _ => Err("expected an absolute http(s) URL such as https://svc.example.com".into()),
            }
        })?;
        let jwt_secret = raw.get("JWT_SECRET", None, |s| {
            if s.len() < 32 { Err("must be at least 32 bytes".into()) } else { Ok(Some(Secret::new(s))) }
        })?;
        let secret_key = raw.get("SECRET_KEY", None, master_key)?;
        let secret_key_file = raw.get("SECRET_KEY_FILE", None, |s| {
            Ok(Some(s.trim()).filter(|s| !s.is_empty()).map(std::path::PathBuf::from))
        })?;
        let secret_key_previous = raw.get("SECRET_KEY_PREVIOUS", None, master_key)?;
        let ai_base_url = raw.get("AI_BASE_URL", None, |s| {
            let s = s.trim().trim_end_matches('/');
            if s.is_empty() {
                return Ok(None);
            }
            match url::Url::parse(s) {
                Ok(u) if matches!(u.scheme(), "http" | "https") && u.host_str().is_some() => Ok(Some(s.to_string())),
                _ => Err("expected the provider's base URL, such as https://api.openai.com/v1".into()),
            }
        })?;
        let price = |s: &str| -> Result<f64, String> {
            match s.trim().parse::<f64>() {
                Ok(p) if p.is_finite() && p >= 0.0 => Ok(p),
                _ => Err("expected USD per million tokens, such as 0.15".into()),
            }
        };
        let mut proxy_tiers: [Vec<svc_runner::upstream::UpstreamProxy>; 4] = Default::default();
        let mut proxy_tier_prices = [None; 4];
        let mut proxy_tier_multipliers = [2, 3, 4, 5];
        for i in 0..4 {
            proxy_tiers[i] = raw.get(PROXY_TIER_NAMES[i], Vec::new(), proxy_urls)?;
            proxy_tier_prices[i] = raw.get(PROXY_PRICE_NAMES[i], None, |s| match s.trim().parse::<f64>() {
                Ok(p) if p.is_finite() && p >= 0.0 => Ok(Some(p)),
                _ => Err("expected USD per GB, such as 3.5".into()),
            })?;
            proxy_tier_multipliers[i] = raw.get(PROXY_MULTIPLIER_NAMES[i], proxy_tier_multipliers[i], positive_int)?;
        }
        let chromium = raw.get("CHROMIUM", None, |s| Ok(Some(s.trim().to_string()).filter(|s| !s.is_empty())))?;
        let run_timeout = raw.get("RUN_TIMEOUT", Duration::from_secs(60), positive_duration)?;
        let worker_concurrency = raw.get("WORKER_CONCURRENCY", 4, positive_int::<usize>)?;
        let request_timeout = raw.get("REQUEST_TIMEOUT", None, |s| positive_duration(s).map(Some))?;
        let request_timeout = match request_timeout {
            None => run_timeout.saturating_add(Duration::from_secs(30)),
            Some(t) if t > run_timeout => t,
            Some(t) => {
                return Err(ConfigError::Invalid {
                    name: "SVC_REQUEST_TIMEOUT".into(),
                    value: format!("{}ms", t.as_millis()),
                    reason: format!(
                        "must be longer than SVC_RUN_TIMEOUT ({}ms): a test run in the web app takes up to a run timeout",
                        run_timeout.as_millis()
                    ),
                });
            }
        };
        let retry_default = vec![Duration::from_secs(60), Duration::from_secs(300)];
        let webhook_retry_delays = raw.get("WEBHOOK_RETRY_DELAYS", retry_default, |s| {
            let delays = s.split(',').map(parse_duration).collect::<Result<Vec<_>, _>>()?;
            if delays.len() == 2 { Ok(delays) } else { Err("expected two delays, such as 60s,300s".into()) }
        })?;
        Ok(Config {
            database_url,
            listen,
            public_url,
            jwt_secret,
            secret_key,
            secret_key_file,
            secret_key_previous,
            ai_base_url,
            ai_api_key: raw
                .get("AI_API_KEY", None, |s| Ok(Some(Secret::new(s.trim())).filter(|k| !k.expose().is_empty())))?,
            ai_model: raw.get("AI_MODEL", "gpt-4o-mini".to_string(), |s| {
                let s = s.trim();
                if s.is_empty() { Err("expected a model name".into()) } else { Ok(s.to_string()) }
            })?,
            ai_price_input: raw.get("AI_PRICE_INPUT", 0.0, price)?,
            ai_price_output: raw.get("AI_PRICE_OUTPUT", 0.0, price)?,
            ai_timeout: raw.get("AI_TIMEOUT", Duration::from_secs(60), positive_duration)?,
            ai_fix_daily: raw.get("AI_FIX_DAILY", svc_service::ai::fix::DEFAULT_FIX_DAILY, non_negative)?,
            crawl: svc_service::runs::crawl::CrawlSettings {
                max_pages: raw.get(
                    "CRAWL_MAX_PAGES",
                    svc_service::runs::crawl::DEFAULT_MAX_PAGES,
                    positive_int::<u32>,
                )?,
                timeout: raw.get("CRAWL_TIMEOUT", svc_service::runs::crawl::DEFAULT_TIMEOUT, positive_duration)?,
            },
            signup: raw.get("SIGNUP", svc_service::accounts::SignupMode::Open, |s| s.parse())?,
            chromium,
            browser_user: raw.get(
                "BROWSER_USER",
                svc_runner::sandbox::DEFAULT_BROWSER_USER.to_string(),
                |s| match s.trim() {
                    "" => Err("expected a user name, such as nobody".into()),
                    name => Ok(name.to_string()),
                },
            )?,
            browser_sandbox: raw.get("BROWSER_SANDBOX", Default::default(), |s| {
                match s.trim().to_ascii_lowercase().as_str() {
                    "on" => Ok(svc_runner::sandbox::SandboxSetting::Required),
                    "off" => Ok(svc_runner::sandbox::SandboxSetting::Off),
                    _ => Err("expected on or off (off runs pages without Chromium's sandbox)".into()),
                }
            })?,
            allow_private_networks: raw.get("ALLOW_PRIVATE_NETWORKS", PrivateNetworks::None, PrivateNetworks::parse)?,
            webhook_retry_delays,
            webhook_sweep_interval: raw.get("WEBHOOK_SWEEP_INTERVAL", Duration::from_secs(60), positive_duration)?,
            webhook_timeout: raw.get("WEBHOOK_TIMEOUT", Duration::from_secs(10), positive_duration)?,
            channel_endpoints: raw.get("CHANNEL_API_URLS", ChannelEndpoints::default(), parse_channel_endpoints)?,
            cron_min_interval: raw.get("CRON_MIN_INTERVAL", Duration::from_secs(60), positive_duration)?,
            run_timeout,
            worker_concurrency,
            warm_pages: raw.get("WARM_PAGES", worker_concurrency, |s| {
                s.trim().parse::<usize>().map_err(|_| "expected an integer >= 0".to_string())
            })?,
            spare_pages: raw.get("SPARE_PAGES", worker_concurrency.min(4), |s| {
                s.trim().parse::<usize>().map_err(|_| "expected an integer >= 0".to_string())
            })?,
            warm_pages_shared: raw.get("WARM_PAGES_SHARED", true, parse_bool)?,
            claim_affinity: raw.get("CLAIM_AFFINITY", true, parse_bool)?,
            free_grant: raw.get("FREE_GRANT", 1_000, non_negative)?,
            proxy_tiers,
            proxy_tier_prices,
            proxy_tier_multipliers,
            growth_weekly: raw.get("GROWTH_WEEKLY", 10_000, non_negative)?,
            pro_weekly: raw.get("PRO_WEEKLY", 100_000, non_negative)?,
            key_cache_ttl: raw.get("KEY_CACHE_TTL", Duration::from_secs(5), parse_duration)?,
            embedded_worker: raw.get("EMBEDDED_WORKER", true, parse_bool)?,
            scheduler: raw.get("SCHEDULER", true, parse_bool)?,
            webhook_dispatcher: raw.get("WEBHOOK_DISPATCHER", true, parse_bool)?,
            mailer: raw.get("MAILER", true, parse_bool)?,
            trusted_proxies: raw.get("TRUSTED_PROXIES", vec![], parse_networks)?,
            cron_catchup_grace: raw.get("CRON_CATCHUP_GRACE", Duration::from_secs(15 * 60), parse_duration)?,
            retention: retention(raw)?,
            smtp_url: raw
                .get("SMTP_URL", None, |s| if s.trim().is_empty() { Ok(None) } else { SmtpUrl::parse(s).map(Some) })?,
            mail_from: raw.get("MAIL_FROM", None, |s| {
                s.trim().parse::<Mailbox>().map(Some).map_err(|e| {
                    format!("expected an address such as noreply@example.com or `svc <noreply@example.com>` ({e})")
                })
            })?,
            mail_rate: raw.get("MAIL_RATE", 5, positive_int::<u32>)?,
            mail_timeout: raw.get("MAIL_TIMEOUT", Duration::from_secs(30), positive_duration)?,
            database_timeout: raw.get("DATABASE_TIMEOUT", svc_storage::DEFAULT_ACQUIRE_TIMEOUT, positive_duration)?,
            shutdown_grace: raw.get("SHUTDOWN_GRACE", Duration::from_secs(30), parse_duration)?,
            metrics_token: raw.get("METRICS_TOKEN", None, |s| {
                let s = s.trim();
                match s.len() {
                    0 => Ok(None),
                    1..16 => Err("must be at least 16 characters (generate one with `openssl rand -hex 32`)".into()),
                    _ if s.bytes().all(|b| b.is_ascii_graphic()) => Ok(Some(Secret::new(s))),
                    _ => Err("must be printable ASCII without spaces (it is sent as a bearer token)".into()),
                }
            })?,
            metrics_listen: raw.get("METRICS_LISTEN", None, |s| {
                let s = s.trim();
                if s.is_empty() {
                    return Ok(None);
                }
                s.parse().map(Some).map_err(|_| "expected HOST:PORT with an IP address, such as 127.0.0.1:9090".into())
            })?,
            log_format: raw.get("LOG_FORMAT", LogFormat::Text, |s| match s.trim().to_ascii_lowercase().as_str() {
                "" | "text" => Ok(LogFormat::Text),
                "json" => Ok(LogFormat::Json),
                _ => Err("expected text or json".into()),
            })?,
            request_timeout,
            header_read_timeout: raw.get("HEADER_READ_TIMEOUT", Duration::from_secs(30), positive_duration)?,
        })
    }
}

/// `SVC_CHANNEL_API_URLS`: `service=URL` pairs, comma-separated, each URL
/// an absolute http(s) base (no query).
fn parse_channel_endpoints(value: &str) -> Result<ChannelEndpoints, String> {
    let mut endpoints = ChannelEndpoints::default();
    for pair in value.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (service, url) = pair.split_once('=').ok_or_else(|| format!("`{pair}`: expected SERVICE=URL"))?;
        let parsed = url::Url::parse(url.trim()).map_err(|e| format!("`{url}`: {e}"))?;
        if !matches!(parsed.scheme(), "http" | "https") || parsed.query().is_some() {
            return Err(format!("`{url}`: expected an http(s) base URL without a query"));
        }
        let url = url.trim().trim_end_matches('/').to_string();
        match service.trim() {
            "slack" => endpoints.slack = url,
            "discord" => endpoints.discord = url,
            "telegram" => endpoints.telegram = url,
            "teams" => endpoints.teams = Some(url),
            other => return Err(format!("`{other}`: expected slack, discord, telegram or teams")),
        }
    }
    Ok(endpoints)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn defaults_match_the_contract() {
        let c = Config::load(None, env(&[])).unwrap();
        assert_eq!(c.database_url.expose(), "sqlite://svc-data/svc.db");
        assert_eq!(c.listen.to_string(), "127.0.0.1:8080");
        assert_eq!(c.public_url(), "http://127.0.0.1:8080");
        let bound = c.clone().listening_on("127.0.0.1:41234".parse().unwrap());
        assert_eq!(bound.public_url(), "http://127.0.0.1:41234", "derived from the bound address");
        let set = Config::load(None, env(&[("SVC_PUBLIC_URL", "https://svc.example.com/")])).unwrap();
        assert_eq!(set.listening_on("127.0.0.1:41234".parse().unwrap()).public_url(), "https://svc.example.com");
        assert!(Config::load(None, env(&[("SVC_PUBLIC_URL", "svc.example.com")])).is_err());
        assert_eq!(c.webhook_retry_delays, vec![Duration::from_secs(60), Duration::from_secs(300)]);
        assert_eq!(c.run_timeout, Duration::from_secs(60));
        assert_eq!(c.worker_concurrency, 4);
        assert_eq!(c.warm_pages, 4, "as many warm pages as runs at once");
        assert_eq!(c.free_grant, 1000);
        assert_eq!(c.allow_private_networks, PrivateNetworks::None);
        let listed = Config::load(None, env(&[("SVC_ALLOW_PRIVATE_NETWORKS", "10.0.0.0/8, 192.168.1.7")])).unwrap();
        let ranges = vec!["10.0.0.0/8".parse().unwrap(), "192.168.1.7/32".parse().unwrap()];
        assert_eq!(listed.allow_private_networks, PrivateNetworks::Only(ranges));
        let all = Config::load(None, env(&[("SVC_ALLOW_PRIVATE_NETWORKS", "true")])).unwrap();
        assert_eq!(all.allow_private_networks, PrivateNetworks::All);
        let e = Config::load(None, env(&[("SVC_ALLOW_PRIVATE_NETWORKS", "10.0.0.0/33")])).unwrap_err().to_string();
        assert!(e.contains("SVC_ALLOW_PRIVATE_NETWORKS") && e.contains("10.0.0.0/33"), "{e}");
        assert_eq!(c.browser_sandbox, svc_runner::sandbox::SandboxSetting::Required);
    }

    #[test]
    fn the_browser_sandbox_is_on_unless_turned_off_by_name() {
        let off = Config::load(None, env(&[("SVC_BROWSER_SANDBOX", "OFF")])).unwrap();
        assert_eq!(off.browser_sandbox, svc_runner::sandbox::SandboxSetting::Off);
        let on = Config::load(None, env(&[("SVC_BROWSER_SANDBOX", "on")])).unwrap();
        assert_eq!(on.browser_sandbox, svc_runner::sandbox::SandboxSetting::Required);
        for vague in ["false", "0", "no", ""] {
            let e = Config::load(None, env(&[("SVC_BROWSER_SANDBOX", vague)])).unwrap_err().to_string();
            assert!(e.contains("SVC_BROWSER_SANDBOX") && e.contains("expected on or off"), "{vague:?}: {e}");
        }
    }

    #[test]
    fn warm_pages_follow_the_concurrency_unless_set() {
        let c = Config::load(None, env(&[("SVC_WORKER_CONCURRENCY", "8")])).unwrap();
        assert_eq!((c.worker_concurrency, c.warm_pages), (8, 8));
        let c = Config::load(None, env(&[("SVC_WORKER_CONCURRENCY", "8"), ("SVC_WARM_PAGES", "0")])).unwrap();
        assert_eq!(c.warm_pages, 0, "0 turns warm pages off");
        let e = Config::load(None, env(&[("SVC_WARM_PAGES", "-1")])).unwrap_err().to_string();
        assert!(e.contains("SVC_WARM_PAGES"), "{e}");
    }

    #[test]
    fn environment_overrides_file_and_values_are_validated() {
        let dir = std::env::temp_dir().join(format!("svc-config-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("svc.toml");
        std::fs::write(
            &file,
            "listen = \"127.0.0.1:9000\"\nworker_concurrency = 2\nwebhook_retry_delays = [\"1s\", \"2s\"]\n",
        )
        .unwrap();
        let c = Config::load(Some(&file), env(&[("SVC_WORKER_CONCURRENCY", "8"), ("SVC_API_KEY", "ignored")])).unwrap();
        assert_eq!(c.listen.port(), 9000);
        assert_eq!(c.worker_concurrency, 8);
        assert_eq!(c.webhook_retry_delays, vec![Duration::from_secs(1), Duration::from_secs(2)]);

        let err = Config::load(None, env(&[("SVC_LISTEN", "nowhere")])).unwrap_err().to_string();
        assert!(err.contains("SVC_LISTEN"), "{err}");
        assert!(Config::load(None, env(&[("SVC_RUN_TIMEOUT", "0s")])).is_err());
        assert!(Config::load(None, env(&[("SVC_DATABASE_URL", "mysql://x")])).is_err());
        assert!(Config::load(None, env(&[("SVC_WORKER_CONCURRENCY", "-1")])).is_err());
        let secret_err = Config::load(None, env(&[("SVC_JWT_SECRET", "short")])).unwrap_err().to_string();
        assert!(!secret_err.contains("short"), "secrets are not echoed: {secret_err}");

        std::fs::write(&file, "databse_url = \"x\"\n").unwrap();
        let unknown = Config::load(Some(&file), env(&[])).unwrap_err();
        assert!(matches!(&unknown, ConfigError::UnknownKey(k) if k == "databse_url"), "{unknown}");
        // Every setting is a file key, the last declared one included.
        std::fs::write(&file, "public_url = \"https://svc.example.com\"\nshutdown_grace = \"1m\"\n").unwrap();
        let c = Config::load(Some(&file), env(&[])).unwrap();
        assert_eq!((c.public_url(), c.shutdown_grace), ("https://svc.example.com".into(), Duration::from_secs(60)));
    }

    #[test]
    fn database_timeout_and_shutdown_grace_are_validated() {
        let c = Config::load(None, env(&[])).unwrap();
        assert_eq!((c.database_timeout, c.shutdown_grace), (Duration::from_secs(5), Duration::from_secs(30)));
        assert_eq!(c.pool().acquire_timeout, Duration::from_secs(5));
        let c = Config::load(None, env(&[("SVC_DATABASE_TIMEOUT", "1500ms"), ("SVC_SHUTDOWN_GRACE", "0s")])).unwrap();
        assert_eq!((c.database_timeout, c.shutdown_grace), (Duration::from_millis(1500), Duration::ZERO));
        for (name, bad) in
            [("SVC_DATABASE_TIMEOUT", "0s"), ("SVC_DATABASE_TIMEOUT", "soon"), ("SVC_SHUTDOWN_GRACE", "-1s")]
        {
            let err = Config::load(None, env(&[(name, bad)])).unwrap_err().to_string();
            assert!(err.contains(name) && err.contains(bad), "{err}");
        }
    }

    #[test]
    fn secrets_are_redacted_in_debug() {
        let c = Config::load(
            None,
            env(&[
                ("SVC_JWT_SECRET", "a-very-long-secret-of-at-least-32-bytes!"),
                ("SVC_DATABASE_URL", "postgres://svc:db-password@db.example.com/svc"),
            ]),
        )
        .unwrap();
        let shown = format!("{c:?}");
        assert!(!shown.contains("a-very-long-secret") && !shown.contains("db-password"), "{shown}");
    }

    #[test]
    fn the_master_key_is_checked_and_never_echoed() {
        let key = svc_storage::MasterKey::generate().to_base64();
        let c = Config::load(
            None,
            env(&[("SVC_SECRET_KEY", &format!(" {key}\n")), ("SVC_SECRET_KEY_FILE", "/etc/svc/secret.key")]),
        )
        .unwrap();
        assert_eq!(c.secret_key.as_ref().map(Secret::expose), Some(key.as_str()), "trimmed");
        assert_eq!(c.secret_key_file.as_deref(), Some(Path::new("/etc/svc/secret.key")));
        assert!(!format!("{c:?}").contains(&key), "redacted in Debug");
        let unset = Config::load(None, env(&[("SVC_SECRET_KEY", ""), ("SVC_SECRET_KEY_FILE", " ")])).unwrap();
        assert!(unset.secret_key.is_none() && unset.secret_key_file.is_none(), "empty is unset");

        let short = base64_of(&[7u8; 16]);
        for (name, bad, why) in [
            ("SVC_SECRET_KEY", "not-base64-but-secret!", "not base64"),
            ("SVC_SECRET_KEY", short.as_str(), "16 bytes"),
            ("SVC_SECRET_KEY_PREVIOUS", "hunter2-hunter2-hunter2", "not base64"),
        ] {
            let err = Config::load(None, env(&[(name, bad)])).unwrap_err().to_string();
            assert!(err.contains(name) && err.contains(why), "{err}");
            assert!(!err.contains(bad), "the value is not echoed: {err}");
        }
    }

    fn base64_of(bytes: &[u8]) -> String {
        // A tiny encoder, so the test needs no base64 dependency.
        const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let mut out = String::new();
        for chunk in bytes.chunks(3) {
            let n = chunk.iter().enumerate().fold(0u32, |n, (i, b)| n | (u32::from(*b) << (16 - 8 * i)));
            for i in 0..4 {
                if i <= chunk.len() {
                    out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
                } else {
                    out.push('=');
                }
            }
        }
        out
    }

    #[test]
    fn smtp_urls_in_their_three_forms() {
        let mail = |url: &str| {
            Config::load(None, env(&[("SVC_SMTP_URL", url)]))
                .unwrap()
                .listening_on("127.0.0.1:41234".parse().unwrap())
                .mail()
                .expect("email is on")
        };
        let starttls = mail("smtp://mailer%40svc.example.com:p%40ss:word@smtp.example.com:587").smtp;
        assert_eq!(
            (starttls.security, starttls.host.as_str(), starttls.port),
            (SmtpSecurity::StartTls, "smtp.example.com", 587)
        );
        let (user, password) = starttls.credentials.as_ref().unwrap();
        assert_eq!((user.as_str(), password.expose()), ("mailer@svc.example.com", "p@ss:word"), "percent-decoded");
        assert_eq!(starttls.redacted(), "smtp://smtp.example.com:587");

        let implicit = mail("smtps://u:p@smtp.example.com").smtp;
        assert_eq!((implicit.security, implicit.port), (SmtpSecurity::ImplicitTls, 465), "465 by default");
        let plain = mail("smtp://127.0.0.1:2525?tls=none").smtp;
        assert_eq!((plain.security, plain.port, plain.credentials.is_none()), (SmtpSecurity::None, 2525, true));
        assert_eq!(plain.redacted(), "smtp://127.0.0.1:2525?tls=none");
        assert_eq!(mail("smtp://relay.internal").smtp.port, 587, "STARTTLS on the submission port by default");
        assert_eq!(mail("smtp://[::1]?tls=none").smtp.host, "::1");
    }

    #[test]
    fn a_bad_smtp_url_stops_start_up_naming_the_variable_not_the_password() {
        for bad in [
            "smtp.example.com:587",
            "http://smtp.example.com",
            "smtp://user:hunter2@smtp.example.com?tls=none",
            "smtps://user:hunter2@smtp.example.com?tls=none",
            "smtp://smtp.example.com?tls=maybe",
            "smtp://smtp.example.com?tsl=none",
            "smtp://user@smtp.example.com",
            "smtp://:hunter2@smtp.example.com",
            "smtp://hunter2@smtp.example.com/path",
            "smtp://",
        ] {
            let err = Config::load(None, env(&[("SVC_SMTP_URL", bad)])).unwrap_err().to_string();
            assert!(err.contains("SVC_SMTP_URL"), "{bad}: {err}");
            assert!(!err.contains("hunter2"), "the value is not echoed: {err}");
        }
        let c = Config::load(None, env(&[("SVC_SMTP_URL", "")])).unwrap();
        assert!(c.mail().is_none(), "an empty value is unset");
    }

    #[test]
    fn email_is_off_without_an_smtp_url_and_has_defaults_with_one() {
        let off = Config::load(None, env(&[])).unwrap();
        assert!(off.mail().is_none());
        assert_eq!(off.mail_off_reason(), Some("SVC_SMTP_URL is not set"));

        let on = Config::load(
            None,
            env(&[("SVC_SMTP_URL", "smtp://relay:25?tls=none"), ("SVC_PUBLIC_URL", "https://svc.example.com")]),
        )
        .unwrap();
        assert_eq!(on.mail_off_reason(), None);
        let mail = on.mail().unwrap();
        assert_eq!(mail.from.to_string(), "svc <noreply@svc.example.com>", "from the public URL's host");
        assert_eq!((mail.rate, mail.timeout), (5, Duration::from_secs(30)));
        assert_eq!(mail.interval(), Duration::from_millis(200));
        let bound = Config::load(None, env(&[("SVC_SMTP_URL", "smtp://relay:25?tls=none")]))
            .unwrap()
            .listening_on("127.0.0.1:41234".parse().unwrap());
        let from = bound.mail().unwrap().from;
        assert_eq!(from.to_string(), "svc <noreply@localhost>", "a server named by its IP address");
        let email = svc_domain::email::Email {
            id: svc_domain::ObjectId::new(),
            organization_id: svc_domain::OrgId::new(),
            kind: svc_domain::email::EmailKind::Result,
            to: "ada@example.com".into(),
            subject: "s".into(),
            text: "t".into(),
            html: None,
            attachment: None,
            unsubscribe_url: None,
            scrap_id: None,
            history_id: None,
            created_at: chrono::Utc::now(),
        };
        assert!(crate::mail_client::build_message(&from, &email).is_ok(), "the default sender makes a valid envelope");

        let set = Config::load(
            None,
            env(&[
                ("SVC_SMTP_URL", "smtp://relay:25?tls=none"),
                ("SVC_MAIL_FROM", "Alerts <alerts@example.org>"),
                ("SVC_MAIL_RATE", "2"),
                ("SVC_MAIL_TIMEOUT", "5s"),
            ]),
        )
        .unwrap()
        .mail()
        .unwrap();
        assert_eq!(set.from.to_string(), "Alerts <alerts@example.org>");
        assert_eq!((set.rate, set.timeout), (2, Duration::from_secs(5)));

        for (name, bad) in [("SVC_MAIL_FROM", "not an address"), ("SVC_MAIL_RATE", "0"), ("SVC_MAIL_TIMEOUT", "0s")] {
            let err = Config::load(None, env(&[(name, bad)])).unwrap_err().to_string();
            assert!(err.contains(name), "{err}");
        }
    }

    #[test]
    fn the_smtp_password_is_redacted_in_debug() {
        let c = Config::load(None, env(&[("SVC_SMTP_URL", "smtps://relay-login:hunter2@smtp.example.com")])).unwrap();
        let shown = format!("{c:?} {:?}", c.mail().unwrap());
        assert!(!shown.contains("hunter2") && !shown.contains("relay-login"), "{shown}");
        assert!(shown.contains("smtp.example.com"), "the relay itself is shown: {shown}");
    }

    #[test]
    fn operations_settings() {
        let c = Config::load(None, env(&[])).unwrap();
        assert_eq!((c.metrics_token.is_none(), c.metrics_listen), (true, None), "no /metrics unless asked");
        assert_eq!(c.log_format, LogFormat::Text);
        assert_eq!(c.request_timeout, Duration::from_secs(90), "the run timeout plus 30 s");
        assert_eq!(c.header_read_timeout, Duration::from_secs(30));
        let longer = Config::load(None, env(&[("SVC_RUN_TIMEOUT", "120s")])).unwrap();
        assert_eq!(longer.request_timeout, Duration::from_secs(150), "follows the run timeout");

        let token = "0123456789abcdef-metrics";
        let set = Config::load(
            None,
            env(&[
                ("SVC_METRICS_TOKEN", token),
                ("SVC_METRICS_LISTEN", "127.0.0.1:9090"),
                ("SVC_LOG_FORMAT", "JSON"),
                ("SVC_REQUEST_TIMEOUT", "2m"),
                ("SVC_HEADER_READ_TIMEOUT", "5s"),
            ]),
        )
        .unwrap();
        assert_eq!(set.metrics_token.as_ref().map(Secret::expose), Some(token));
        assert!(!format!("{set:?}").contains(token), "the token is redacted in Debug");
        assert_eq!(set.metrics_listen, Some("127.0.0.1:9090".parse().unwrap()));
        assert_eq!(set.log_format, LogFormat::Json);
        assert_eq!((set.request_timeout, set.header_read_timeout), (Duration::from_secs(120), Duration::from_secs(5)));

        for (name, bad) in [
            ("SVC_METRICS_TOKEN", "short-token"),
            ("SVC_METRICS_TOKEN", "has a space in it somewhere"),
            ("SVC_METRICS_LISTEN", "localhost"),
            ("SVC_LOG_FORMAT", "xml"),
            ("SVC_REQUEST_TIMEOUT", "0s"),
            ("SVC_REQUEST_TIMEOUT", "60s"),
            ("SVC_HEADER_READ_TIMEOUT", "0s"),
        ] {
            let err = Config::load(None, env(&[(name, bad)])).unwrap_err().to_string();
            assert!(err.contains(name), "{name}={bad}: {err}");
            if name == "SVC_METRICS_TOKEN" {
                assert!(!err.contains(bad), "the token is not echoed: {err}");
            }
        }
        let err = Config::load(None, env(&[("SVC_REQUEST_TIMEOUT", "60s")])).unwrap_err().to_string();
        assert!(err.contains("SVC_RUN_TIMEOUT"), "says why: {err}");
        let short = Config::load(None, env(&[("SVC_RUN_TIMEOUT", "500ms"), ("SVC_REQUEST_TIMEOUT", "1s")])).unwrap();
        assert_eq!(short.request_timeout, Duration::from_secs(1));
    }

    #[test]
    fn crawl_caps() {
        let defaults = Config::load(None, env(&[])).unwrap().crawl;
        assert_eq!(defaults, svc_service::runs::crawl::CrawlSettings::default());
        let set = Config::load(None, env(&[("SVC_CRAWL_MAX_PAGES", "20"), ("SVC_CRAWL_TIMEOUT", "90s")])).unwrap();
        assert_eq!((set.crawl.max_pages, set.crawl.timeout), (20, Duration::from_secs(90)));
        for (name, bad) in [("SVC_CRAWL_MAX_PAGES", "0"), ("SVC_CRAWL_MAX_PAGES", "lots"), ("SVC_CRAWL_TIMEOUT", "0s")]
        {
            let e = Config::load(None, env(&[(name, bad)])).unwrap_err().to_string();
            assert!(e.contains(name), "{e}");
        }
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("90").unwrap(), Duration::from_secs(90));
        assert_eq!(parse_duration("1500ms").unwrap(), Duration::from_millis(1500));
        assert_eq!(parse_duration("5m").unwrap(), Duration::from_secs(300));
        assert!(parse_duration("5 parsecs").is_err());
        assert!(parse_duration("").is_err());
    }

    #[test]
    fn durations_too_long_to_hold_are_refused_not_overflowed() {
        // `n * 60` and `n * 3600` overflowed u64 (a panic in debug builds).
        for value in ["18446744073709551615m", "18446744073709551615h", "307445734561825861m", "5124095576030432h"] {
            let reason = parse_duration(value).unwrap_err();
            assert!(reason.contains("too long"), "{value}: {reason}");
        }
        // Past a year, every unit: the services add settings to clock times.
        for value in ["307445734561825860m", "18446744073709551615s", "18446744073709551615ms", "8761h", "31536001"] {
            let reason = parse_duration(value).unwrap_err();
            assert!(reason.contains("too long (at most 365 days)"), "{value}: {reason}");
        }
        assert_eq!(parse_duration("8760h").unwrap(), Duration::from_secs(365 * 86_400), "a year is the most");
        assert!(parse_duration("18446744073709551616s").is_err(), "more than u64 seconds");
        let e = Config::load(None, env(&[("SVC_RUN_TIMEOUT", "18446744073709551615m")])).unwrap_err().to_string();
        assert!(e.contains("SVC_RUN_TIMEOUT") && e.contains("too long"), "{e}");
    }

    #[test]
    fn the_default_request_timeout_follows_the_longest_run_timeout() {
        // The run timeout plus 30 s overflowed `Duration` (a panic in every build): now the
        // longest run timeout is a year, and the default request timeout 30 s more.
        let c = Config::load(None, env(&[("SVC_RUN_TIMEOUT", "8760h")])).unwrap();
        assert_eq!(c.run_timeout, Duration::from_secs(365 * 86_400));
        assert_eq!(c.request_timeout, Duration::from_secs(365 * 86_400 + 30));
        let e = Config::load(None, env(&[("SVC_RUN_TIMEOUT", "8760h"), ("SVC_REQUEST_TIMEOUT", "8760h")])).unwrap_err();
        assert!(e.to_string().contains("must be longer than SVC_RUN_TIMEOUT"), "{e}");
    }

    #[test]
    fn a_config_text_is_read_like_a_file() {
        let c = Config::load_text(Some(("svc.toml", "run_timeout = \"90s\"\nsignup = \"closed\"")), []).unwrap();
        assert_eq!((c.run_timeout, c.signup), (Duration::from_secs(90), svc_service::accounts::SignupMode::Closed));
        let e = Config::load_text(Some(("svc.toml", "run_timeout = ")), []).unwrap_err().to_string();
        assert!(e.starts_with("cannot read config file svc.toml"), "{e}");
        let e = Config::load_text(Some(("svc.toml", "nope = 1")), []).unwrap_err().to_string();
        assert!(e.contains("unknown key `nope`"), "{e}");
    }

    /// Every setting, given any text, is read or refused with a message,
    /// never a panic; a refused secret is never echoed.
    mod any_value {
        use proptest::prelude::*;

        use super::*;

        proptest! {
            #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

            #[test]
            fn any_value_is_read_or_refused(name in 0..SETTINGS.len(), value in "\\PC{0,40}|[0-9a-z:/@.,%-]{0,30}") {
                let var = format!("SVC_{}", SETTINGS[name]);
                match Config::load(None, env(&[(var.as_str(), value.as_str())])) {
                    Ok(_) => {}
                    Err(e) => {
                        let message = e.to_string();
                        prop_assert!(message.contains(&var), "{message}");
                        let secret = SECRET_SETTINGS.contains(&SETTINGS[name]);
                        if secret && value.trim().len() > 3 {
                            prop_assert!(!message.contains(value.trim()), "a secret echoed: {message}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn retention_settings_have_bounded_defaults_and_minimums() {
        let c = Config::load(None, env(&[])).unwrap();
        assert_eq!(c.retention, svc_service::schedule::housekeeping::Retention::default());
        assert_eq!(c.retention.webhook_deliveries, Duration::from_secs(30 * 86_400));
        let set = Config::load(None, env(&[("SVC_RETAIN_AUDIT", "365d"), ("SVC_RETAIN_EMAILS", "48h")])).unwrap();
        assert_eq!(set.retention.audit, Duration::from_secs(365 * 86_400));
        assert_eq!(set.retention.emails, Duration::from_secs(48 * 3600));
        for (name, bad) in [
            ("SVC_RETAIN_AUDIT", "10m"),
            ("SVC_RETAIN_RENEWALS", "7d"),
            ("SVC_RETAIN_RATE_LIMITS", "30m"),
            ("SVC_RETAIN_ACTIVITIES", "soon"),
        ] {
            let err = Config::load(None, env(&[(name, bad)])).unwrap_err().to_string();
            assert!(err.contains(name) && err.contains("at least") || err.contains("expected"), "{name}={bad}: {err}");
        }
    }

    #[test]
    fn channel_api_urls_point_hostless_services_elsewhere() {
        let e = super::parse_channel_endpoints("slack=http://127.0.0.1:9/, telegram=https://tg.example/").unwrap();
        assert_eq!((e.slack.as_str(), e.telegram.as_str()), ("http://127.0.0.1:9", "https://tg.example"));
        assert_eq!(e.discord, "https://discord.com", "the others keep the public API");
        for bad in ["irc=http://x", "slack", "slack=ftp://x", "slack=https://x/?a=1"] {
            assert!(super::parse_channel_endpoints(bad).is_err(), "{bad}");
        }
    }
}
