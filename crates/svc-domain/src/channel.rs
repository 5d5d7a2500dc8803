//! Chat channels: where alerts and results go besides email. A recipient
//! field (`alert`, `emailNotifRecipient`, `digestRecipient`) holds an email
//! address, a channel URL in Apprise's syntax (`slack://A/B/C`,
//! `discord://ID/TOKEN`, `workflows://HOST/WORKFLOW/SIGNATURE`,
//! `tgram://BOT_TOKEN/CHAT_ID`, `ntfy://TOPIC`, `mmost://HOST/TOKEN`,
//! `json://HOST/PATH`, ...) or `channel:NAME`, a channel the organization
//! saved in its settings. Parsing and redaction only: how each service is
//! spoken to is the service layer's (`outbox::channel_message`).

use std::fmt;

use chrono::{DateTime, Utc};

use crate::{ObjectId, OrgId};

/// The longest channel URL accepted.
pub const MAX_URL_CHARS: usize = 2048;

/// What a recipient field names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Recipient {
    Email(String),
    /// A channel URL given in place.
    Url(ChannelUrl),
    /// `channel:NAME`: a saved channel of the organization.
    Saved(String),
}

/// Reads a recipient field's value. `Err` says what is wrong.
pub fn recipient(value: &str) -> Result<Recipient, String> {
    let value = value.trim();
    if let Some(name) = value.strip_prefix("channel:") {
        check_name(name)?;
        return Ok(Recipient::Saved(name.to_string()));
    }
    if value.contains("://") {
        return ChannelUrl::parse(value).map(Recipient::Url);
    }
    if crate::email::is_address(value) {
        return Ok(Recipient::Email(value.to_string()));
    }
    Err("must be an email address, a channel URL (slack://, discord://, workflows://, tgram://, ntfy://, \
         mmost://, json://, ...) or channel:NAME"
        .into())
}

/// Whether `value` names a channel (a URL or `channel:NAME`) rather than an
/// email address. The outbox tells its rows apart with it.
pub fn is_channel(value: &str) -> bool {
    let v = value.trim();
    v.starts_with("channel:") || v.contains("://")
}

/// A saved channel's name: 1-40 of `a-z 0-9 - _`.
pub fn check_name(name: &str) -> Result<(), String> {
    let ok = !name.is_empty()
        && name.len() <= 40
        && name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_');
    if ok { Ok(()) } else { Err(format!("`{name}` is not a channel name (1-40 of a-z 0-9 - _)")) }
}

/// The chat services svc speaks to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Service {
    Slack,
    Discord,
    /// Microsoft Teams through a Workflows (Power Automate) webhook.
    Teams,
    Telegram,
    Ntfy,
    Mattermost,
    Json,
}

impl Service {
    pub fn as_str(self) -> &'static str {
        match self {
            Service::Slack => "slack",
            Service::Discord => "discord",
            Service::Teams => "teams",
            Service::Telegram => "telegram",
            Service::Ntfy => "ntfy",
            Service::Mattermost => "mattermost",
            Service::Json => "json",
        }
    }

    pub const ALL: [Service; 7] = [
        Service::Slack,
        Service::Discord,
        Service::Teams,
        Service::Telegram,
        Service::Ntfy,
        Service::Mattermost,
        Service::Json,
    ];

    pub fn parse(s: &str) -> Option<Service> {
        Self::ALL.into_iter().find(|x| x.as_str() == s)
    }
}

/// A host, with its port when the URL gives one.
#[derive(Clone, PartialEq, Eq)]
pub struct Host {
    pub name: String,
    pub port: Option<u16>,
}

impl Host {
    /// `name[:port]`.
    pub fn authority(&self) -> String {
        match self.port {
            Some(p) => format!("{}:{p}", self.name),
            None => self.name.clone(),
        }
    }
}

/// A parsed channel URL: everything needed to send, secrets included
/// (`Debug` and [`ChannelUrl::redacted`] hide them).
#[derive(Clone, PartialEq, Eq)]
pub enum ChannelUrl {
    /// `slack://[BOTNAME@]TOKEN_A/TOKEN_B/TOKEN_C[/#CHANNEL]` or
    /// `https://hooks.slack.com/services/A/B/C`: an incoming webhook.
    Slack { tokens: [String; 3], botname: Option<String>, channel: Option<String> },
    /// `discord://[BOTNAME@]WEBHOOK_ID/WEBHOOK_TOKEN` or
    /// `https://discord.com/api/webhooks/ID/TOKEN`.
    Discord { id: String, token: String, botname: Option<String> },
    /// `workflows://HOST[:PORT]/WORKFLOW/SIGNATURE` (also `workflow://`).
    Teams { host: Host, workflow: String, signature: String },
    /// `tgram://BOT_TOKEN/CHAT_ID[/CHAT_ID...]`.
    Telegram { token: String, chats: Vec<String> },
    /// `ntfy://TOPIC` (ntfy.sh), `ntfy://[USER:PASS@]HOST[:PORT]/TOPIC`
    /// (`ntfys://` for HTTPS).
    Ntfy { secure: bool, host: Option<Host>, topic: String, auth: Option<(String, String)> },
    /// `mmost://[BOTNAME@]HOST[:PORT][/PATH]/TOKEN` (`mmosts://` for HTTPS).
    Mattermost { secure: bool, host: Host, path: String, token: String, botname: Option<String> },
    /// `json://[USER:PASS@]HOST[:PORT][/PATH]` (`jsons://` for HTTPS):
    /// Apprise's JSON body POSTed there.
    Json { secure: bool, host: Host, path: String, auth: Option<(String, String)> },
}

/// The parts of `scheme://rest`: optional `user[:pass]@`, the authority,
/// the path segments (non-empty ones) and the query.
struct Parts<'a> {
    user: Option<&'a str>,
    password: Option<&'a str>,
    authority: &'a str,
    segments: Vec<&'a str>,
    query: Vec<(&'a str, &'a str)>,
}

fn split(rest: &str) -> Parts<'_> {
    let (rest, query) = match rest.split_once('?') {
        Some((r, q)) => (r, q),
        None => (rest, ""),
    };
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (rest, ""),
    };
    let (userinfo, authority) = match authority.rsplit_once('@') {
        Some((u, a)) => (Some(u), a),
        None => (None, authority),
    };
    let (user, password) = match userinfo {
        Some(u) => match u.split_once(':') {
            Some((a, b)) => (Some(a), Some(b)),
            None => (Some(u), None),
        },
        None => (None, None),
    };
    Parts {
        user,
        password,
        authority,
        segments: path.split('/').filter(|s| !s.is_empty()).collect(),
        query: query.split('&').filter(|s| !s.is_empty()).map(|kv| kv.split_once('=').unwrap_or((kv, ""))).collect(),
    }
}

fn token_like(s: &str) -> bool {
    !s.is_empty() && s.len() <= 200 && s.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.~:".contains(&b))
}

fn host(authority: &str) -> Result<Host, String> {
    let (name, port) = if let Some(inner) = authority.strip_prefix('[') {
        let (ip, after) = inner.split_once(']').ok_or("an IPv6 host is written [ADDRESS]")?;
        (format!("[{ip}]"), after.strip_prefix(':'))
    } else {
        match authority.split_once(':') {
            Some((n, p)) => (n.to_string(), Some(p)),
            None => (authority.to_string(), None),
        }
    };
    let port = match port {
        Some(p) => Some(p.parse::<u16>().map_err(|_| format!("`{p}` is not a port"))?),
        None => None,
    };
    let plain = name.trim_start_matches('[').trim_end_matches(']');
    let ok = !plain.is_empty()
        && plain.len() <= 253
        && plain.bytes().all(|b| b.is_ascii_alphanumeric() || b"-.:".contains(&b));
    if !ok {
        return Err(format!("`{name}` is not a host name"));
    }
    Ok(Host { name: name.to_ascii_lowercase(), port })
}

fn need(ok: bool, what: &str) -> Result<(), String> {
    if ok { Ok(()) } else { Err(what.to_string()) }
}

fn auth(p: &Parts<'_>) -> Option<(String, String)> {
    p.user.map(|u| (u.to_string(), p.password.unwrap_or_default().to_string()))
}

impl ChannelUrl {
    /// Parses a channel URL in Apprise's syntax. `Err` says what is wrong.
    pub fn parse(url: &str) -> Result<ChannelUrl, String> {
        let url = url.trim();
        if url.chars().count() > MAX_URL_CHARS {
            return Err(format!("a channel URL has at most {MAX_URL_CHARS} characters"));
        }
        if url.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err("a channel URL has no spaces".into());
        }
        let (scheme, rest) = url.split_once("://").ok_or("a channel URL starts with SCHEME://")?;
        let scheme = scheme.to_ascii_lowercase();
        let p = split(rest);
        match scheme.as_str() {
            "slack" => {
                let s = &p.segments;
                need(s.len() == 2 || s.len() == 3, "slack://TOKEN_A/TOKEN_B/TOKEN_C[/#CHANNEL]")?;
                let tokens = [p.authority, s[0], s[1]];
                need(tokens.iter().all(|t| token_like(t)), "slack:// tokens are letters and digits")?;
                let tokens = tokens.map(str::to_string);
                let channel = s.get(2).map(|c| c.trim_start_matches("%23").trim_start_matches('#').to_string());
                Ok(ChannelUrl::Slack { tokens, botname: p.user.map(str::to_string), channel })
            }
            "discord" => {
                let s = &p.segments;
                need(
                    s.len() == 1 && token_like(p.authority) && token_like(s[0]),
                    "discord://WEBHOOK_ID/WEBHOOK_TOKEN",
                )?;
                Ok(ChannelUrl::Discord {
                    id: p.authority.to_string(),
                    token: s[0].to_string(),
                    botname: p.user.map(str::to_string),
                })
            }
            "workflow" | "workflows" => {
                let s = &p.segments;
                let sig = p.query.iter().find(|(k, _)| *k == "sig" || *k == "signature").map(|(_, v)| *v);
                let (workflow, signature) = match (s.as_slice(), sig) {
                    ([w, sig], None) => (*w, *sig),
                    ([w], Some(sig)) => (*w, sig),
                    _ => return Err("workflows://HOST/WORKFLOW/SIGNATURE".into()),
                };
                need(token_like(workflow) && token_like(signature), "workflows://HOST/WORKFLOW/SIGNATURE")?;
                Ok(ChannelUrl::Teams {
                    host: host(p.authority)?,
                    workflow: workflow.to_string(),
                    signature: signature.to_string(),
                })
            }
            "tgram" => {
                // The bot token holds a colon (`123456:ABC...`): the whole
                // authority is the token, with no user part.
                let token = p.authority;
                let ok = token.split_once(':').is_some_and(|(id, secret)| {
                    !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit()) && token_like(secret)
                });
                need(ok && p.user.is_none(), "tgram://BOT_TOKEN/CHAT_ID with a bot token such as 123456:ABC-DEF")?;
                need(!p.segments.is_empty(), "tgram://BOT_TOKEN/CHAT_ID: name at least one chat")?;
                let chats: Vec<String> = p.segments.iter().map(|c| c.to_string()).collect();
                let chat_ok = |c: &String| {
                    let c = c.strip_prefix('@').unwrap_or(c.strip_prefix('-').unwrap_or(c));
                    token_like(c) && !c.contains(':')
                };
                need(chats.iter().all(chat_ok), "a Telegram chat is a number or @channelname")?;
                Ok(ChannelUrl::Telegram { token: token.to_string(), chats })
            }
            "ntfy" | "ntfys" => {
                let secure = scheme == "ntfys";
                let topic_ok = |t: &str| token_like(t) && !t.contains(':') && t.len() <= 64;
                if p.segments.is_empty() {
                    need(p.user.is_none() && topic_ok(p.authority), "ntfy://TOPIC or ntfy://HOST/TOPIC")?;
                    return Ok(ChannelUrl::Ntfy {
                        secure: true,
                        host: None,
                        topic: p.authority.to_string(),
                        auth: None,
                    });
                }
                need(p.segments.len() == 1 && topic_ok(p.segments[0]), "ntfy://HOST/TOPIC (one topic)")?;
                Ok(ChannelUrl::Ntfy {
                    secure,
                    host: Some(host(p.authority)?),
                    topic: p.segments[0].to_string(),
                    auth: auth(&p),
                })
            }
            "mmost" | "mmosts" => {
                let (token, path) = p.segments.split_last().ok_or("mmost://HOST/TOKEN")?;
                need(token_like(token) && path.iter().all(|s| token_like(s)), "mmost://HOST[/PATH]/TOKEN")?;
                let path = path.iter().map(|s| format!("/{s}")).collect::<String>();
                Ok(ChannelUrl::Mattermost {
                    secure: scheme == "mmosts",
                    host: host(p.authority)?,
                    path,
                    token: token.to_string(),
                    botname: p.user.map(str::to_string),
                })
            }
            "json" | "jsons" => {
                need(p.segments.iter().all(|s| !s.contains(['\\', '#'])), "json://HOST[:PORT]/PATH")?;
                let path = p.segments.iter().map(|s| format!("/{s}")).collect::<String>();
                Ok(ChannelUrl::Json { secure: scheme == "jsons", host: host(p.authority)?, path, auth: auth(&p) })
            }
            "https" => {
                let h = p.authority.to_ascii_lowercase();
                let s = &p.segments;
                if h == "hooks.slack.com" && s.len() == 4 && s[0] == "services" {
                    return ChannelUrl::parse(&format!("slack://{}/{}/{}", s[1], s[2], s[3]));
                }
                if matches!(h.as_str(), "discord.com" | "discordapp.com")
                    && s.len() == 4
                    && s[0] == "api"
                    && s[1] == "webhooks"
                {
                    return ChannelUrl::parse(&format!("discord://{}/{}", s[2], s[3]));
                }
                if h == "ntfy.sh" && s.len() == 1 {
                    return ChannelUrl::parse(&format!("ntfy://{}", s[0]));
                }
                Err("an https:// channel URL is a Slack or Discord webhook URL or an ntfy.sh topic; for any other \
                     receiver use jsons://HOST/PATH (or a webhook)"
                    .into())
            }
            other => Err(format!(
                "`{other}://` is not a channel svc knows (slack, discord, workflows, tgram, ntfy, ntfys, mmost, \
                 mmosts, json, jsons)"
            )),
        }
    }

    pub fn service(&self) -> Service {
        match self {
            ChannelUrl::Slack { .. } => Service::Slack,
            ChannelUrl::Discord { .. } => Service::Discord,
            ChannelUrl::Teams { .. } => Service::Teams,
            ChannelUrl::Telegram { .. } => Service::Telegram,
            ChannelUrl::Ntfy { .. } => Service::Ntfy,
            ChannelUrl::Mattermost { .. } => Service::Mattermost,
            ChannelUrl::Json { .. } => Service::Json,
        }
    }

    /// The URL with every secret replaced by `…` except its last 4
    /// characters: what svc shows after a channel is saved.
    pub fn redacted(&self) -> String {
        let r = |s: &str| {
            let n = s.chars().count();
            if n <= 8 { "…".to_string() } else { format!("…{}", s.chars().skip(n - 4).collect::<String>()) }
        };
        let s = |secure: bool, plain: &str, tls: &str| if secure { tls.to_string() } else { plain.to_string() };
        match self {
            ChannelUrl::Slack { tokens, channel, .. } => {
                let ch = channel.as_ref().map(|c| format!("/#{c}")).unwrap_or_default();
                format!("slack://{}/{}/{}{ch}", tokens[0], tokens[1], r(&tokens[2]))
            }
            ChannelUrl::Discord { id, token, .. } => format!("discord://{id}/{}", r(token)),
            ChannelUrl::Teams { host, workflow, signature } => {
                format!("workflows://{}/{}/{}", host.authority(), r(workflow), r(signature))
            }
            ChannelUrl::Telegram { token, chats } => {
                let bot = token.split(':').next().unwrap_or_default();
                format!("tgram://{bot}:…/{}", chats.join("/"))
            }
            ChannelUrl::Ntfy { secure, host, topic, auth } => match host {
                None => format!("ntfy://{}", r(topic)),
                Some(h) => {
                    let who = auth.as_ref().map(|(u, _)| format!("{u}:…@")).unwrap_or_default();
                    format!("{}://{who}{}/{}", s(*secure, "ntfy", "ntfys"), h.authority(), r(topic))
                }
            },
            ChannelUrl::Mattermost { secure, host, path, token, .. } => {
                format!("{}://{}{path}/{}", s(*secure, "mmost", "mmosts"), host.authority(), r(token))
            }
            ChannelUrl::Json { secure, host, path, auth } => {
                let who = auth.as_ref().map(|(u, _)| format!("{u}:…@")).unwrap_or_default();
                format!("{}://{who}{}{path}", s(*secure, "json", "jsons"), host.authority())
            }
        }
    }
}

impl fmt::Debug for ChannelUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ChannelUrl({})", self.redacted())
    }
}

/// What a recipient field shows in logs: an email address as it is, a
/// channel URL redacted, `channel:NAME` as it is.
pub fn shown(value: &str) -> String {
    match recipient(value) {
        Ok(Recipient::Url(u)) => u.redacted(),
        Ok(_) => value.trim().to_string(),
        Err(_) if is_channel(value) => "(an invalid channel URL)".into(),
        Err(_) => value.to_string(),
    }
}

/// A channel an organization saved in its settings. `url` holds secrets:
/// sealed at rest, never shown whole after creation (nor by `Debug`).
#[derive(Clone, PartialEq)]
pub struct SavedChannel {
    pub id: ObjectId,
    pub organization_id: OrgId,
    /// Referred to as `channel:NAME`; unique in the organization.
    pub name: String,
    pub url: String,
    pub created_at: DateTime<Utc>,
}

impl SavedChannel {
    pub fn redacted_url(&self) -> String {
        ChannelUrl::parse(&self.url).map(|u| u.redacted()).unwrap_or_else(|_| "(invalid)".into())
    }

    pub fn service(&self) -> Option<Service> {
        ChannelUrl::parse(&self.url).ok().map(|u| u.service())
    }
}

impl fmt::Debug for SavedChannel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SavedChannel")
            .field("id", &self.id)
            .field("organization_id", &self.organization_id)
            .field("name", &self.name)
            .field("url", &self.redacted_url())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_service_parses_in_apprise_syntax() {
        let slack = ChannelUrl::parse("slack://T1AAA/B2BBB/abcdefghijkl/#ops").unwrap();
        assert_eq!(
            slack,
            ChannelUrl::Slack {
                tokens: ["T1AAA".into(), "B2BBB".into(), "abcdefghijkl".into()],
                botname: None,
                channel: Some("ops".into())
            }
        );
        assert_eq!(ChannelUrl::parse("https://hooks.slack.com/services/T1/B2/xyz").unwrap().service(), Service::Slack);
        let discord = ChannelUrl::parse("discord://svc@1234/tok-en").unwrap();
        assert!(
            matches!(discord, ChannelUrl::Discord { ref id, ref botname, .. } if id == "1234" && botname.as_deref() == Some("svc"))
        );
        let teams = ChannelUrl::parse("workflows://prod-01.westus.logic.azure.com:443/abc123/sig456").unwrap();
        assert!(matches!(teams, ChannelUrl::Teams { ref host, .. } if host.port == Some(443)));
        let tg = ChannelUrl::parse("tgram://123456:ABC-def_g/-1001234/@news").unwrap();
        assert_eq!(
            tg,
            ChannelUrl::Telegram { token: "123456:ABC-def_g".into(), chats: vec!["-1001234".into(), "@news".into()] }
        );
        assert!(matches!(ChannelUrl::parse("ntfy://alerts").unwrap(), ChannelUrl::Ntfy { host: None, .. }));
        let ntfy = ChannelUrl::parse("ntfys://u:p@ntfy.example.com/alerts").unwrap();
        assert!(matches!(ntfy, ChannelUrl::Ntfy { secure: true, auth: Some(_), .. }));
        let mm = ChannelUrl::parse("mmosts://chat.example.com:8065/sub/path/tok123").unwrap();
        assert!(
            matches!(mm, ChannelUrl::Mattermost { ref path, ref token, .. } if path == "/sub/path" && token == "tok123")
        );
        let json = ChannelUrl::parse("jsons://hooks.example.com/notify/me").unwrap();
        assert!(matches!(json, ChannelUrl::Json { secure: true, ref path, .. } if path == "/notify/me"));
    }

    #[test]
    fn malformed_and_unknown_urls_say_why() {
        for bad in [
            "foo://x",
            "slack://only/two",
            "discord://id",
            "tgram://notatoken/1",
            "tgram://123:abc",
            "ntfy://host/a/b",
            "workflows://host/onlyone",
            "json://bad host/",
            "https://example.com/hook",
            "mmost://host",
        ] {
            assert!(ChannelUrl::parse(bad).is_err(), "{bad}");
        }
        assert!(recipient("nope").is_err());
        assert!(recipient("channel:Bad Name").is_err());
        assert_eq!(recipient("channel:ops").unwrap(), Recipient::Saved("ops".into()));
        assert_eq!(recipient("a@b.c").unwrap(), Recipient::Email("a@b.c".into()));
        // A URL with an `@` is never taken for an address.
        assert!(recipient("slack://bot@a/b").is_err());
    }

    #[test]
    fn redaction_keeps_no_secret() {
        let url = "slack://T1AAA/B2BBB/abcdefghijklmnop";
        let shown = ChannelUrl::parse(url).unwrap().redacted();
        assert!(!shown.contains("abcdefghijkl") && shown.ends_with("mnop"), "{shown}");
        let tg = ChannelUrl::parse("tgram://123456:SECRETSECRET/42").unwrap();
        assert!(!tg.redacted().contains("SECRET") && !format!("{tg:?}").contains("SECRET"));
        let json = ChannelUrl::parse("jsons://user:hunter2@h.example/x").unwrap();
        assert!(!json.redacted().contains("hunter2"));
    }
}
