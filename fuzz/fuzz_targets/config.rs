//! Configuration (svc_server::config): any TOML text and any `SVC_*`
//! variables are read or refused with a message, never a panic; a refusal
//! names the setting and does not echo a secret's value; what is read
//! holds together (the request timeout is longer than the run timeout, two
//! webhook retry delays), and the settings derived from it are computed
//! without a panic.

#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use svc_server::{Config, ConfigError};

/// Every setting (without `SVC_`), as the configuration lists them.
use svc_server::config::SETTINGS as NAMES;

/// Settings whose values are never echoed. Kept here on purpose rather than
/// taken from the configuration's own list: it is what the assertions below
/// hold the configuration to, so a setting dropped from that list is caught.
const SECRETS: &[&str] = &[
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

/// Values that are close to valid ones, so that more of them are read.
const SEEDS: &[&str] = &[
    "18446744073709551615m",
    "18446744073709551615h",
    "18446744073709551615s",
    "18446744073709551615ms",
    "0s",
    "1ms",
    "60s,300s",
    "true",
    "off",
    "open",
    "closed",
    "json",
    "127.0.0.1:0",
    "[::1]:9090",
    "https://svc.example.com",
    "sqlite://x.db",
    "postgres://u:p@h/db",
    "smtp://u:p@h:587",
    "smtps://h",
    "smtp://h:25?tls=none",
    "http://u:p@proxy:8080",
    "10.0.0.0/8, ::1",
    "noreply@example.com",
    "svc <a@b.c>",
    "0.15",
    "NaN",
    "-1",
    "9223372036854775807",
    "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
    "0123456789abcdef0123456789abcdef",
];

#[derive(Arbitrary, Debug)]
enum Key {
    Known(u8),
    Other(String),
}

#[derive(Arbitrary, Debug)]
enum Text {
    Seed(u8),
    SeedWith(u8, String),
    Any(String),
}

#[derive(Arbitrary, Debug)]
enum TomlValue {
    Text(Text),
    Int(i64),
    Float(f64),
    Bool(bool),
    Array(Vec<Text>),
}

#[derive(Arbitrary, Debug)]
enum File {
    Pairs(Vec<(Key, TomlValue)>),
    Raw(String),
}

#[derive(Arbitrary, Debug)]
struct Input {
    file: Option<File>,
    env: Vec<(Key, Text)>,
}

fn name(key: &Key) -> String {
    match key {
        Key::Known(i) => NAMES[usize::from(*i) % NAMES.len()].to_string(),
        Key::Other(s) => s.clone(),
    }
}

fn text(t: &Text) -> String {
    match t {
        Text::Seed(i) => SEEDS[usize::from(*i) % SEEDS.len()].to_string(),
        Text::SeedWith(i, s) => format!("{}{s}", SEEDS[usize::from(*i) % SEEDS.len()]),
        Text::Any(s) => s.clone(),
    }
}

fn toml_value(v: &TomlValue) -> toml::Value {
    match v {
        TomlValue::Text(t) => toml::Value::String(text(t)),
        TomlValue::Int(n) => toml::Value::Integer(*n),
        TomlValue::Float(f) => toml::Value::Float(*f),
        TomlValue::Bool(b) => toml::Value::Boolean(*b),
        TomlValue::Array(items) => toml::Value::Array(items.iter().map(|t| toml::Value::String(text(t))).collect()),
    }
}

fuzz_target!(|input: Input| {
    let file = input.file.as_ref().map(|f| match f {
        File::Pairs(pairs) => {
            let table: toml::Table = pairs.iter().map(|(k, v)| (name(k).to_ascii_lowercase(), toml_value(v))).collect();
            toml::to_string(&table).unwrap_or_default()
        }
        File::Raw(s) => s.clone(),
    });
    let env: Vec<(String, String)> = input.env.iter().map(|(k, v)| (format!("SVC_{}", name(k)), text(v))).collect();

    match Config::load_text(file.as_deref().map(|t| ("fuzz.toml", t)), env.clone()) {
        Ok(config) => {
            assert!(config.request_timeout > config.run_timeout);
            assert_eq!(config.webhook_retry_delays.len(), 2);
            let _ = config.public_url();
            let _ = config.tier_settings();
            let _ = config.ai();
            let _ = config.mail();
            let _ = config.pool();
            let _ = config.mail_off_reason();
            let shown = format!("{config:?}");
            for (key, value) in &env {
                let bare = key.trim_start_matches("SVC_");
                // Values that are secret as a whole, and URLs with credentials.
                let whole = ["JWT_SECRET", "METRICS_TOKEN", "SECRET_KEY", "SECRET_KEY_PREVIOUS", "AI_API_KEY"];
                let secret = whole.contains(&bare) || (SECRETS.contains(&bare) && value.contains('@'));
                if secret && value.trim().len() >= 16 && value.trim().is_ascii() {
                    // A secret's value appears only inside something else that was given.
                    let elsewhere = env.iter().any(|(k, v)| k != key && v.contains(value.trim()))
                        || file.as_deref().is_some_and(|f| f.contains(value.trim()));
                    assert!(elsewhere || !shown.contains(value.trim()), "{key} shown in {shown}");
                }
            }
        }
        Err(ConfigError::Invalid { name, value, reason }) => {
            assert!(name.starts_with("SVC_"), "{name}");
            let bare = &name["SVC_".len()..];
            assert!(NAMES.contains(&bare), "a refusal names a setting: {name}");
            if SECRETS.contains(&bare) {
                assert_eq!(value, "<redacted>", "{name} echoed");
                for (key, given) in &env {
                    let given = given.trim();
                    if key == &name && given.len() >= 16 && !given.contains(' ') {
                        assert!(!reason.contains(given), "{name}'s value in the reason: {reason}");
                    }
                }
            }
        }
        Err(ConfigError::File { path, .. }) => assert_eq!(path, "fuzz.toml"),
        Err(ConfigError::UnknownKey(key)) => assert!(file.is_some(), "an unknown key {key} without a file"),
    }
});
