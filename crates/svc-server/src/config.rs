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
    /// Generated once and kept in the database when unset.
    pub jwt_secret: Option<Secret>,
    pub chromium: Option<String>,
    pub allow_private_networks: bool,
    pub webhook_retry_delays: Vec<Duration>,
    pub webhook_sweep_interval: Duration,
    pub webhook_timeout: Duration,
    pub cron_min_interval: Duration,
    pub run_timeout: Duration,
    pub worker_concurrency: usize,
    pub free_grant: i64,
    pub growth_weekly: i64,
    pub pro_weekly: i64,
    pub key_cache_ttl: Duration,
    /// Whether `svc server` runs a worker for the `default` container.
    pub embedded_worker: bool,
    /// Whether `svc server` runs the cron scheduler.
    pub scheduler: bool,
    /// Whether `svc server` (and `svc worker`) send webhook deliveries.
    pub webhook_dispatcher: bool,
    /// Proxies (addresses or CIDR ranges) whose `X-Forwarded-For` is believed.
    pub trusted_proxies: Vec<ipnet::IpNet>,
    /// How old a tick missed during downtime may be and still run once.
    pub cron_catchup_grace: Duration,
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

/// `90`, `90s`, `1500ms`, `5m`, `2h`.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let (digits, unit) = s.split_at(s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len()));
    let n: u64 = digits.parse().map_err(|_| "expected a duration such as 60s, 500ms, 5m or 2h".to_string())?;
    match unit {
        "" | "s" => Ok(Duration::from_secs(n)),
        "ms" => Ok(Duration::from_millis(n)),
        "m" => Ok(Duration::from_secs(n * 60)),
        "h" => Ok(Duration::from_secs(n * 3600)),
        other => Err(format!("unknown unit `{other}` (use ms, s, m or h)")),
    }
}

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
        self.asked.borrow_mut().insert(name);
        match self.values.get(name).map(|(value, _)| value) {
            None => Ok(default),
            Some(value) => parse(value).map_err(|reason| ConfigError::Invalid {
                name: format!("SVC_{name}"),
                value: if name == "JWT_SECRET" { "<redacted>".into() } else { value.clone() },
                reason,
            }),
        }
    }
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

    /// Once the server has bound `bound` (the port may have been 0): the
    /// public URL defaults to that address rather than the requested one.
    pub fn listening_on(mut self, bound: SocketAddr) -> Self {
        self.listen = bound;
        self
    }

    /// Reads the file named by `file` (if any), then the `SVC_*` variables of `env`.
    pub fn load(file: Option<&Path>, env: impl IntoIterator<Item = (String, String)>) -> Result<Self, ConfigError> {
        let mut raw = Raw::default();
        if let Some(path) = file {
            let text = std::fs::read_to_string(path)
                .map_err(|e| ConfigError::File { path: path.display().to_string(), reason: e.to_string() })?;
            let table: toml::Table = text.parse().map_err(|e: toml::de::Error| ConfigError::File {
                path: path.display().to_string(),
                reason: e.to_string(),
            })?;
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
        let chromium = raw.get("CHROMIUM", None, |s| Ok(Some(s.trim().to_string()).filter(|s| !s.is_empty())))?;
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
            chromium,
            allow_private_networks: raw.get("ALLOW_PRIVATE_NETWORKS", false, parse_bool)?,
            webhook_retry_delays,
            webhook_sweep_interval: raw.get("WEBHOOK_SWEEP_INTERVAL", Duration::from_secs(60), positive_duration)?,
            webhook_timeout: raw.get("WEBHOOK_TIMEOUT", Duration::from_secs(10), positive_duration)?,
            cron_min_interval: raw.get("CRON_MIN_INTERVAL", Duration::from_secs(60), positive_duration)?,
            run_timeout: raw.get("RUN_TIMEOUT", Duration::from_secs(60), positive_duration)?,
            worker_concurrency: raw.get("WORKER_CONCURRENCY", 4, positive_int::<usize>)?,
            free_grant: raw.get("FREE_GRANT", 1_000, non_negative)?,
            growth_weekly: raw.get("GROWTH_WEEKLY", 10_000, non_negative)?,
            pro_weekly: raw.get("PRO_WEEKLY", 100_000, non_negative)?,
            key_cache_ttl: raw.get("KEY_CACHE_TTL", Duration::from_secs(5), parse_duration)?,
            embedded_worker: raw.get("EMBEDDED_WORKER", true, parse_bool)?,
            scheduler: raw.get("SCHEDULER", true, parse_bool)?,
            webhook_dispatcher: raw.get("WEBHOOK_DISPATCHER", true, parse_bool)?,
            trusted_proxies: raw.get("TRUSTED_PROXIES", vec![], parse_networks)?,
            cron_catchup_grace: raw.get("CRON_CATCHUP_GRACE", Duration::from_secs(15 * 60), parse_duration)?,
        })
    }
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
        assert_eq!(c.free_grant, 1000);
        assert!(!c.allow_private_networks);
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
        std::fs::write(&file, "public_url = \"https://svc.example.com\"\ncron_catchup_grace = \"1m\"\n").unwrap();
        let c = Config::load(Some(&file), env(&[])).unwrap();
        assert_eq!((c.public_url(), c.cron_catchup_grace), ("https://svc.example.com".into(), Duration::from_secs(60)));
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
    fn durations() {
        assert_eq!(parse_duration("90").unwrap(), Duration::from_secs(90));
        assert_eq!(parse_duration("1500ms").unwrap(), Duration::from_millis(1500));
        assert_eq!(parse_duration("5m").unwrap(), Duration::from_secs(300));
        assert!(parse_duration("5 parsecs").is_err());
        assert!(parse_duration("").is_err());
    }
}
