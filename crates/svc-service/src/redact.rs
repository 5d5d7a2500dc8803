//! A best-effort secret redactor for text that leaves the service in
//! webhook previews: API keys, bearer tokens, webhook secrets, passwords in
//! URLs and JSON, and common cloud credential shapes become `[REDACTED]`.

use std::sync::LazyLock;

use regex::Regex;

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

#[cfg(test)]
mod tests {
    use super::*;

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
