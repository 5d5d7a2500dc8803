//! What svc sends to a chat channel, in each service's own format: Slack
//! (incoming webhook, Block Kit), Discord (webhook, an embed), Microsoft
//! Teams (Workflows webhook, an Adaptive Card), Telegram (`sendMessage`,
//! HTML parse mode), ntfy (plain body with `Title`/`Tags`/`Priority`/
//! `Click` headers), Mattermost (incoming webhook, markdown) and Apprise's
//! generic JSON (`version`, `title`, `message`, `attachments`, `type`).
//! Pure functions: a note and a channel URL in, HTTP requests out.

use base64::Engine as _;
use serde_json::{Value, json};
use svc_domain::channel::ChannelUrl;
use svc_domain::email::{Email, EmailKind};

/// The base URLs of the services whose channel URL names no host: the
/// public APIs unless `SVC_CHANNEL_API_URLS` points one elsewhere (an
/// egress gateway, a self-hosted Telegram Bot API server, a test's server).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChannelEndpoints {
    pub slack: String,
    pub discord: String,
    pub telegram: String,
    /// `None`: `https://` and the host the `workflows://` URL names.
    pub teams: Option<String>,
}

impl Default for ChannelEndpoints {
    fn default() -> Self {
        ChannelEndpoints {
            slack: "https://hooks.slack.com".into(),
            discord: "https://discord.com".into(),
            telegram: "https://api.telegram.org".into(),
            teams: None,
        }
    }
}

/// How a note reads: Apprise's notification types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    Info,
    Success,
    Warning,
    Failure,
}

impl Level {
    /// Apprise's `type` value.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Info => "info",
            Level::Success => "success",
            Level::Warning => "warning",
            Level::Failure => "failure",
        }
    }

    fn color(self) -> u32 {
        match self {
            Level::Info => 0x3b82f6,
            Level::Success => 0x16a34a,
            Level::Warning => 0xd97706,
            Level::Failure => 0xdc2626,
        }
    }

    fn emoji(self) -> &'static str {
        match self {
            Level::Info => "information_source",
            Level::Success => "white_check_mark",
            Level::Warning => "warning",
            Level::Failure => "rotating_light",
        }
    }
}

/// One message to a channel: a title, plain text, the run's link.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChannelNote {
    pub title: String,
    pub text: String,
    pub link: Option<String>,
    pub level: Level,
}

/// The line of a queued note's text that carries its link.
pub const LINK_PREFIX: &str = "Run: ";

impl ChannelNote {
    /// The note of a queued outbox row: the subject is the title, a final
    /// `Run: URL` line of the text the link.
    pub fn of_email(email: &Email) -> ChannelNote {
        let text = email.text.trim_end();
        let (text, link) = match text.rsplit_once('\n') {
            Some((before, last)) if last.starts_with(LINK_PREFIX) => {
                (before.trim_end().to_string(), Some(last[LINK_PREFIX.len()..].trim().to_string()))
            }
            _ => match text.strip_prefix(LINK_PREFIX) {
                Some(link) if !link.contains('\n') => (String::new(), Some(link.trim().to_string())),
                _ => (text.to_string(), None),
            },
        };
        let level = match email.kind {
            EmailKind::Alert => Level::Failure,
            EmailKind::Recovered => Level::Success,
            EmailKind::FixProposed => Level::Warning,
            _ => Level::Info,
        };
        ChannelNote { title: email.subject.clone(), text, link, level }
    }
}

/// One HTTP POST to make.
#[derive(Clone, Debug, PartialEq)]
pub struct ChannelRequest {
    pub url: String,
    pub headers: Vec<(&'static str, String)>,
    pub body: Vec<u8>,
}

impl ChannelRequest {
    fn json(url: String, body: &Value) -> ChannelRequest {
        ChannelRequest {
            url,
            headers: vec![("content-type", "application/json".into())],
            body: serde_json::to_vec(body).expect("JSON serializes"),
        }
    }

    pub fn body_json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or(Value::Null)
    }
}

/// At most `max` characters of `s`, with `…` when cut.
fn cut(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// Slack's mrkdwn escaping (`&`, `<`, `>`); Mattermost's markdown takes the same.
fn slack_escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// Telegram's HTML parse mode escaping.
fn html_escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

fn basic(user: &str, password: &str) -> String {
    format!("Basic {}", base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}")))
}

fn trim_base(base: &str) -> &str {
    base.trim_end_matches('/')
}

/// The requests that send `note` to `channel` (one per Telegram chat,
/// otherwise one).
pub fn requests(channel: &ChannelUrl, note: &ChannelNote, endpoints: &ChannelEndpoints) -> Vec<ChannelRequest> {
    let title = cut(&note.title, 150);
    match channel {
        ChannelUrl::Slack { tokens, botname, channel } => {
            let mut blocks = vec![
                json!({"type": "header", "text": {"type": "plain_text", "text": title, "emoji": true}}),
                json!({"type": "section", "text": {"type": "mrkdwn", "text": cut(&slack_escape(&note.text), 3000)}}),
            ];
            if let Some(link) = &note.link {
                blocks.push(json!({"type": "actions", "elements": [{
                    "type": "button",
                    "text": {"type": "plain_text", "text": "Open the run"},
                    "url": link,
                }]}));
            }
            let mut body = json!({
                "text": format!(":{}: {}", note.level.emoji(), slack_escape(&title)),
                "blocks": blocks,
            });
            if let Some(name) = botname {
                body["username"] = json!(name);
            }
            if let Some(ch) = channel {
                body["channel"] = json!(format!("#{ch}"));
            }
            let url = format!("{}/services/{}/{}/{}", trim_base(&endpoints.slack), tokens[0], tokens[1], tokens[2]);
            vec![ChannelRequest::json(url, &body)]
        }
        ChannelUrl::Discord { id, token, botname } => {
            let mut embed = json!({
                "title": cut(&note.title, 256),
                "description": cut(&note.text, 4096),
                "color": note.level.color(),
            });
            if let Some(link) = &note.link {
                embed["url"] = json!(link);
            }
            let mut body = json!({"embeds": [embed], "allowed_mentions": {"parse": []}});
            if let Some(name) = botname {
                body["username"] = json!(name);
            }
            let url = format!("{}/api/webhooks/{id}/{token}", trim_base(&endpoints.discord));
            vec![ChannelRequest::json(url, &body)]
        }
        ChannelUrl::Teams { host, workflow, signature } => {
            let mut card = json!({
                "$schema": "http://adaptivecards.io/schemas/adaptive-card.json",
                "type": "AdaptiveCard",
                "version": "1.4",
                "body": [
                    {"type": "TextBlock", "text": title, "style": "heading", "weight": "Bolder", "size": "Large", "wrap": true},
                    {"type": "TextBlock", "text": cut(&note.text, 1000), "wrap": true},
                ],
                "msteams": {"width": "full"},
            });
            if let Some(link) = &note.link {
                card["actions"] = json!([{"type": "Action.OpenUrl", "title": "Open the run", "url": link}]);
            }
            let body = json!({
                "type": "message",
                "attachments": [{
                    "contentType": "application/vnd.microsoft.card.adaptive",
                    "contentUrl": null,
                    "content": card,
                }],
            });
            let base = match &endpoints.teams {
                Some(base) => trim_base(base).to_string(),
                None => format!("https://{}", host.authority()),
            };
            let url = format!(
                "{base}/workflows/{workflow}/triggers/manual/paths/invoke?api-version=2016-06-01\
                 &sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig={signature}"
            );
            vec![ChannelRequest::json(url, &body)]
        }
        ChannelUrl::Telegram { token, chats } => {
            let mut text = format!("<b>{}</b>\n{}", html_escape(&title), html_escape(&note.text));
            if let Some(link) = &note.link {
                text.push_str(&format!("\n<a href=\"{}\">Open the run</a>", html_escape(link)));
            }
            let text = cut(&text, 4096);
            let url = format!("{}/bot{token}/sendMessage", trim_base(&endpoints.telegram));
            chats
                .iter()
                .map(|chat| {
                    let body = json!({
                        "chat_id": chat,
                        "text": text,
                        "parse_mode": "HTML",
                        "disable_web_page_preview": true,
                    });
                    ChannelRequest::json(url.clone(), &body)
                })
                .collect()
        }
        ChannelUrl::Ntfy { secure, host, topic, auth } => {
            let base = match host {
                None => "https://ntfy.sh".to_string(),
                Some(h) => format!("{}://{}", if *secure { "https" } else { "http" }, h.authority()),
            };
            // Header values are one line of visible ASCII: ntfy reads
            // RFC 2047 encoded words for anything else.
            let ascii_title: String =
                title.chars().map(|c| if c.is_ascii() && !c.is_ascii_control() { c } else { '?' }).collect();
            let mut headers = vec![
                ("content-type", "text/plain; charset=utf-8".to_string()),
                ("title", ascii_title),
                ("tags", note.level.emoji().to_string()),
                ("priority", if note.level == Level::Failure { "4" } else { "3" }.to_string()),
            ];
            if let Some(link) = &note.link {
                headers.push(("click", link.clone()));
            }
            if let Some((user, password)) = auth {
                headers.push(("authorization", basic(user, password)));
            }
            vec![ChannelRequest { url: format!("{base}/{topic}"), headers, body: cut(&note.text, 4000).into_bytes() }]
        }
        ChannelUrl::Mattermost { secure, host, path, token, botname } => {
            let mut text = format!("#### {}\n\n{}", slack_escape(&title), slack_escape(&note.text));
            if let Some(link) = &note.link {
                text.push_str(&format!("\n\n[Open the run]({link})"));
            }
            let mut body = json!({"text": cut(&text, 16_000)});
            if let Some(name) = botname {
                body["username"] = json!(name);
            }
            let scheme = if *secure { "https" } else { "http" };
            vec![ChannelRequest::json(format!("{scheme}://{}{path}/hooks/{token}", host.authority()), &body)]
        }
        ChannelUrl::Json { secure, host, path, auth } => {
            let mut message = note.text.clone();
            if let Some(link) = &note.link {
                message.push_str(&format!("\n\n{LINK_PREFIX}{link}"));
            }
            let body = json!({
                "version": "1.0",
                "title": note.title,
                "message": message,
                "attachments": [],
                "type": note.level.as_str(),
            });
            let scheme = if *secure { "https" } else { "http" };
            let mut request = ChannelRequest::json(format!("{scheme}://{}{path}", host.authority()), &body);
            if let Some((user, password)) = auth {
                request.headers.push(("authorization", basic(user, password)));
            }
            vec![request]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn note() -> ChannelNote {
        ChannelNote {
            title: "Prices is failing (error)".into(),
            text: "The run failed: <b> & co".into(),
            link: Some("https://svc.example/scraps/1/history/2".into()),
            level: Level::Failure,
        }
    }

    fn one(url: &str) -> ChannelRequest {
        let mut r = requests(&ChannelUrl::parse(url).unwrap(), &note(), &ChannelEndpoints::default());
        assert_eq!(r.len(), 1);
        r.remove(0)
    }

    #[test]
    fn slack_gets_blocks_with_escaped_mrkdwn_and_a_button() {
        let r = one("slack://T1/B2/xyz/#ops");
        assert_eq!(r.url, "https://hooks.slack.com/services/T1/B2/xyz");
        let b = r.body_json();
        assert_eq!(b["blocks"][0]["type"], "header");
        assert_eq!(b["blocks"][1]["text"]["text"], "The run failed: &lt;b&gt; &amp; co");
        assert_eq!(b["blocks"][2]["elements"][0]["url"], "https://svc.example/scraps/1/history/2");
        assert_eq!(b["channel"], "#ops");
    }

    #[test]
    fn telegram_escapes_html_and_sends_one_message_per_chat() {
        let r =
            requests(&ChannelUrl::parse("tgram://123:abc/42/@news").unwrap(), &note(), &ChannelEndpoints::default());
        assert_eq!(r.len(), 2);
        assert_eq!(r[0].url, "https://api.telegram.org/bot123:abc/sendMessage");
        let b = r[1].body_json();
        assert_eq!((b["chat_id"].as_str(), b["parse_mode"].as_str()), (Some("@news"), Some("HTML")));
        assert!(b["text"].as_str().unwrap().contains("The run failed: &lt;b&gt; &amp; co"));
    }

    #[test]
    fn json_is_apprises_body() {
        let r = one("jsons://user:pw@hooks.example.com/in");
        assert_eq!(r.url, "https://hooks.example.com/in");
        let b = r.body_json();
        assert_eq!(b["version"], "1.0");
        assert_eq!(b["type"], "failure");
        assert_eq!(b["title"], "Prices is failing (error)");
        assert!(r.headers.iter().any(|(k, v)| *k == "authorization" && v.starts_with("Basic ")));
    }

    #[test]
    fn a_queued_rows_last_run_line_is_the_link() {
        let email = Email {
            id: svc_domain::ObjectId::new(),
            organization_id: svc_domain::OrgId::new(),
            kind: EmailKind::Recovered,
            to: "channel:ops".into(),
            subject: "Prices recovered".into(),
            text: "Prices succeeded again.\n\nRun: https://svc.example/r\n".into(),
            html: None,
            attachment: None,
            unsubscribe_url: None,
            scrap_id: None,
            history_id: None,
            created_at: chrono::Utc::now(),
        };
        let n = ChannelNote::of_email(&email);
        assert_eq!((n.text.as_str(), n.link.as_deref()), ("Prices succeeded again.", Some("https://svc.example/r")));
        assert_eq!(n.level, Level::Success);
    }
}
