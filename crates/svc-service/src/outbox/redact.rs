//! Two redactors. [`redact`] is a best-effort one for text that leaves the
//! service in webhook previews: API keys, bearer tokens, webhook secrets,
//! passwords in URLs and JSON, and common cloud credential shapes become
//! `[REDACTED]`. [`KnownSecrets`] masks values svc knows exactly, a scrap's
//! site login, in what a run hands back (its data, error and failure
//! capture) before anything of it is stored, sent or shown.

use std::fmt;
use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;
use svc_domain::site_account::SiteAccount;

pub const MASK: &str = "[REDACTED]";

static RULES: LazyLock<Vec<(Regex, &'static str)>> = LazyLock::new(|| {
    let rules: &[(&str, &str)] = &[
        // Private key blocks (newlines may be escaped inside JSON strings).
        (r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----", MASK),
        // Passwords in URLs: scheme://user:password@host.
        (r#"(?i)\b([a-z][a-z0-9+.\-]*://[^/\s:@"']+):[^@\s/"']+@"#, "${1}:[REDACTED]@"),
        // Authorization values.
        (r"(?i)\b(bearer|basic|token)\s+[A-Za-z0-9\-._~+/]{8,}=*", "${1} [REDACTED]"),
        // Secret-looking JSON members and key=value pairs.
        (
            r#"(?i)("(?:password|passwd|pwd|secret|client_secret|api_?key|access_?token|refresh_?token|auth_?token|private_?key)"\s*:\s*")[^"]*(")"#,
            "${1}[REDACTED]${2}",
        ),
        (
            r#"(?i)\b(password|passwd|secret|api_?key|access_?token|aws_secret_access_key)=[^\s&"',;]+"#,
            "${1}=[REDACTED]",
        ),
        // svc API keys and webhook secrets.
        (r"svc_[A-Za-z0-9]{40}", MASK),
        (r"whsec_[A-Za-z0-9+/=]{16,}", MASK),
        // Cloud and SaaS credential shapes.
        (r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b", MASK),
        (r"\bgh[pousr]_[A-Za-z0-9]{30,}\b", MASK),
        (r"\bgithub_pat_[A-Za-z0-9_]{22,}\b", MASK),
        (r"\bxox[abprs]-[A-Za-z0-9-]{10,}", MASK),
        (r"\bAIza[0-9A-Za-z\-_]{35}\b", MASK),
        (r"\b[sr]k_(?:live|test)_[0-9A-Za-z]{16,}\b", MASK),
        (r"\bsk-[A-Za-z0-9_\-]{20,}\b", MASK),
        // JSON Web Tokens.
        (r"\beyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}", MASK),
    ];
    rules.iter().map(|(re, with)| (Regex::new(re).expect("valid redaction rule"), *with)).collect()
});

/// `text` with every recognised secret masked.
pub fn redact(text: &str) -> String {
    let mut out = text.to_string();
    for (re, with) in RULES.iter() {
        if re.is_match(&out) {
            out = re.replace_all(&out, *with).into_owned();
        }
    }
    out
}

/// What replaces a known secret.
pub const VALUE_MASK: &str = "***";
/// Values shorter than this (in characters) are not masked: they cannot be
/// told apart from ordinary text, and masking every `a` of a page would
/// leave nothing readable.
pub const MIN_MASKED_CHARS: usize = 3;

/// The exact values to mask in one run's output (its site login), in every
/// form a page or a script may write them: as typed, JSON-escaped,
/// HTML-escaped and form-encoded. `Debug` shows how many, never which.
#[derive(Clone, Default, PartialEq)]
pub struct KnownSecrets {
    /// Longest first, so a value that contains another is masked whole.
    needles: Vec<String>,
    /// The values as JSON-escaped inside a JSON string (a run's data).
    json_needles: Vec<String>,
    values: Vec<String>,
}

impl fmt::Debug for KnownSecrets {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "KnownSecrets(<{} values>)", self.values.len())
    }
}

fn json_escaped(value: &str) -> String {
    let quoted = serde_json::to_string(value).expect("strings serialize");
    quoted[1..quoted.len() - 1].to_string()
}

/// How a serializer of HTML (a page's `outerHTML`) writes `value`: in text
/// (`&`, `<`, `>` escaped) or in an attribute (`&` and `"`, and in newer
/// browsers `<` and `>` too).
fn html_escaped(value: &str) -> [String; 3] {
    let base = value.replace('&', "&amp;").replace('\u{a0}', "&nbsp;");
    let text = base.replace('<', "&lt;").replace('>', "&gt;");
    let attribute = base.replace('"', "&quot;");
    let attribute_all = text.replace('"', "&quot;");
    [text, attribute, attribute_all]
}

fn sorted(mut needles: Vec<String>) -> Vec<String> {
    needles.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
    needles.dedup();
    needles
}

impl KnownSecrets {
    /// The username and password of a run's login (none without one).
    pub fn of(account: Option<&SiteAccount>) -> KnownSecrets {
        let values: Vec<&str> = account.map(|a| vec![a.username.as_str(), a.password.as_str()]).unwrap_or_default();
        KnownSecrets::values(&values)
    }

    /// Masks `values` (those of at least [`MIN_MASKED_CHARS`] characters).
    pub fn values(values: &[&str]) -> KnownSecrets {
        let values: Vec<String> =
            values.iter().filter(|v| v.chars().count() >= MIN_MASKED_CHARS).map(|v| v.to_string()).collect();
        let mut needles = Vec::new();
        for value in &values {
            needles.push(value.clone());
            needles.push(json_escaped(value));
            needles.extend(html_escaped(value));
            needles.push(url::form_urlencoded::byte_serialize(value.as_bytes()).collect());
            needles.push(value.replace(' ', "%20"));
        }
        let json_needles = sorted(values.iter().map(|v| json_escaped(v)).collect());
        KnownSecrets { needles: sorted(needles), json_needles, values }
    }

    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Free text (an error message, a page's HTML) with every known value,
    /// in any of its forms, replaced by `***`.
    pub fn text(&self, text: &str) -> String {
        let mut out = None::<String>;
        for needle in &self.needles {
            let current = out.as_deref().unwrap_or(text);
            if current.contains(needle.as_str()) {
                out = Some(current.replace(needle.as_str(), VALUE_MASK));
            }
        }
        out.unwrap_or_else(|| text.to_string())
    }

    /// A run's data (the JSON text `returnData` produced) with the known
    /// values masked inside its strings (keys included). It stays valid
    /// JSON with its keys in their order; numbers are left alone.
    pub fn data(&self, json: &str) -> String {
        if !self.json_needles.iter().any(|n| json.contains(n.as_str())) {
            return json.to_string();
        }
        let mut out = String::with_capacity(json.len());
        let bytes = json.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            if bytes[i] != b'"' {
                let next = json[i..].find('"').map_or(json.len(), |n| i + n);
                out.push_str(&json[i..next]);
                i = next;
                continue;
            }
            // A string token: up to the next quote not escaped.
            let mut end = i + 1;
            while end < bytes.len() && bytes[end] != b'"' {
                end += if bytes[end] == b'\\' { 2 } else { 1 };
            }
            let end = (end + 1).min(bytes.len());
            let token = &json[i..end];
            match serde_json::from_str::<String>(token) {
                Ok(value) if self.json_needles.iter().any(|n| token.contains(n.as_str())) => {
                    out.push_str(&serde_json::to_string(&self.text(&value)).expect("strings serialize"));
                }
                _ => out.push_str(token),
            }
            i = end;
        }
        out
    }

    /// A failure capture (`{html, selector, screenshot}`) with its text
    /// masked. The screenshot is a picture and stays as it is.
    pub fn snapshot(&self, capture: Value) -> Value {
        match capture {
            Value::Object(fields) => Value::Object(
                fields
                    .into_iter()
                    .map(|(k, v)| match v {
                        Value::String(s) if k != "screenshot" => (k, Value::String(self.text(&s))),
                        other => (k, other),
                    })
                    .collect(),
            ),
            Value::String(s) => Value::String(self.text(&s)),
            other => other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn login() -> KnownSecrets {
        KnownSecrets::of(Some(&SiteAccount { username: "alice".into(), password: "p@ss \"w<o>rd\" & co".into() }))
    }

    #[test]
    fn known_values_are_masked_in_every_form() {
        let secrets = login();
        assert_eq!(secrets.text("login as alice failed"), "login as *** failed");
        assert_eq!(secrets.text("pw p@ss \"w<o>rd\" & co!"), "pw ***!");
        assert_eq!(secrets.text(r#"{"pw":"p@ss \"w<o>rd\" & co"}"#), r#"{"pw":"***"}"#, "JSON-escaped");
        assert_eq!(secrets.text("<p>p@ss \"w&lt;o&gt;rd\" &amp; co</p>"), "<p>***</p>", "HTML text");
        assert_eq!(
            secrets.text(r#"<input value="p@ss &quot;w<o>rd&quot; &amp; co">"#),
            r#"<input value="***">"#,
            "HTML attribute"
        );
        assert_eq!(
            secrets.text(r#"<input value="p@ss &quot;w&lt;o&gt;rd&quot; &amp; co">"#),
            r#"<input value="***">"#,
            "HTML attribute, as newer browsers escape it"
        );
        assert_eq!(secrets.text("password=p%40ss+%22w%3Co%3Erd%22+%26+co&x=1"), "password=***&x=1", "form-encoded");
        assert_eq!(secrets.text("nothing here"), "nothing here");
        assert_eq!(format!("{secrets:?}"), "KnownSecrets(<2 values>)");
        // Too short to mask: a one-letter username leaves the text readable.
        let short = KnownSecrets::of(Some(&SiteAccount { username: "a".into(), password: "xy".into() }));
        assert!(short.is_empty());
        assert_eq!(short.text("a banana"), "a banana");
        assert!(KnownSecrets::of(None).is_empty());
    }

    #[test]
    fn longer_values_are_masked_before_the_values_they_contain() {
        let secrets = KnownSecrets::values(&["alice", "alice-secret-1"]);
        assert_eq!(secrets.text("alice-secret-1 / alice"), "*** / ***");
    }

    #[test]
    fn data_stays_valid_json_in_its_order() {
        let secrets = login();
        let data = r#"[{"z":"alice","a":"x alice y","pw":"p@ss \"w<o>rd\" & co","n":12345,"alice":true},"\\",{"q":"\"alice\""}]"#;
        let masked = secrets.data(data);
        assert_eq!(masked, r#"[{"z":"***","a":"x *** y","pw":"***","n":12345,"***":true},"\\",{"q":"\"***\""}]"#);
        let _: Value = serde_json::from_str(&masked).unwrap();
        // A value that matches across JSON structure is never cut in the middle of it.
        let tricky = KnownSecrets::values(&["\",\""]);
        let data = r#"["a","b"]"#;
        assert_eq!(tricky.data(data), data);
        let untouched = r#"[{"title":"Item 1"}]"#;
        assert_eq!(secrets.data(untouched), untouched);
    }

    #[test]
    fn captures_mask_their_text_not_their_picture() {
        let secrets = login();
        let capture = serde_json::json!({"html": "<b>alice</b>", "selector": "#alice", "screenshot": "alice"});
        assert_eq!(
            secrets.snapshot(capture),
            serde_json::json!({"html": "<b>***</b>", "selector": "#***", "screenshot": "alice"})
        );
    }

    #[test]
    fn secrets_are_masked_and_ordinary_text_is_not() {
        let cases = [
            ("key svc_abcdefghijABCDEFGHIJ0123456789abcdefghij here", "key [REDACTED] here"),
            ("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.abc", "Authorization: Bearer [REDACTED]"),
            ("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "[REDACTED]"),
            ("postgres://admin:hunter2@db.internal:5432/app", "postgres://admin:[REDACTED]@db.internal:5432/app"),
            ("AKIAIOSFODNN7EXAMPLE", "[REDACTED]"),
            ("aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "aws_secret_access_key=[REDACTED]"),
            ("ghp_0123456789abcdefghijABCDEFGHIJ012345", "[REDACTED]"),
            ("xoxb-1234567890-abcdefghij", "[REDACTED]"),
            ("AIzaSyA-1234567890abcdefghijklmnopqrstu", "[REDACTED]"),
            ("sk_live_0123456789abcdefABCD", "[REDACTED]"),
            (r#"{"user":"bob","password":"s3cret!"}"#, r#"{"user":"bob","password":"[REDACTED]"}"#),
            ("-----BEGIN RSA PRIVATE KEY-----\\nMIIEow\\n-----END RSA PRIVATE KEY-----", "[REDACTED]"),
        ];
        for (input, expected) in cases {
            assert_eq!(redact(input), expected, "{input}");
        }
        for plain in [r#"[{"title":"Item 1","price":"9.99"}]"#, "https://example.com/a?b=c", "a token of thanks"] {
            assert_eq!(redact(plain), plain);
        }
    }
}
