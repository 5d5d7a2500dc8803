//! A session's device as people name it ("Firefox on Linux"), from the
//! `User-Agent` the client sent when it logged in.

/// The longest raw `User-Agent` shown when it names nothing known.
const RAW_MAX: usize = 60;

/// "Chrome on macOS", "Safari on iPhone", "curl"; the raw text (cut) when
/// nothing in it is known; "Unknown device" when the client sent none.
pub fn device_name(user_agent: &str) -> String {
    let ua = user_agent.trim();
    if ua.is_empty() {
        return "Unknown device".into();
    }
    match (browser(ua), system(ua)) {
        (Some(b), Some(s)) => format!("{b} on {s}"),
        (Some(b), None) => b.to_string(),
        (None, Some(s)) => format!("A browser on {s}"),
        (None, None) if ua.chars().count() > RAW_MAX => format!("{}…", ua.chars().take(RAW_MAX).collect::<String>()),
        (None, None) => ua.to_string(),
    }
}

fn browser(ua: &str) -> Option<&'static str> {
    let has = |s: &str| ua.contains(s);
    let lower = ua.to_ascii_lowercase();
    Some(if has("Edg/") || has("EdgA/") || has("EdgiOS/") {
        "Edge"
    } else if has("OPR/") || has("Opera") {
        "Opera"
    } else if has("Firefox/") || has("FxiOS/") {
        "Firefox"
    } else if has("HeadlessChrome") {
        "Headless Chrome"
    } else if has("Chrome/") || has("CriOS/") || has("Chromium/") {
        "Chrome"
    } else if has("Safari/") && has("Version/") {
        "Safari"
    } else if lower.starts_with("curl/") {
        "curl"
    } else if lower.starts_with("svc/") || lower.starts_with("svc-cli") {
        "svc command line"
    } else if lower.starts_with("python") {
        "Python"
    } else if lower.starts_with("node") || lower.starts_with("undici") || lower.starts_with("axios") {
        "Node.js"
    } else {
        return None;
    })
}

fn system(ua: &str) -> Option<&'static str> {
    let has = |s: &str| ua.contains(s);
    Some(if has("iPhone") {
        "iPhone"
    } else if has("iPad") {
        "iPad"
    } else if has("Android") {
        "Android"
    } else if has("Windows") {
        "Windows"
    } else if has("CrOS") {
        "ChromeOS"
    } else if has("Macintosh") || has("Mac OS X") {
        "macOS"
    } else if has("Linux") || has("X11") {
        "Linux"
    } else {
        return None;
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn common_browsers_are_named_with_their_system() {
        let cases = [
            ("Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0", "Firefox on Linux"),
            (
                "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) \
                 Chrome/131.0.0.0 Safari/537.36",
                "Chrome on macOS",
            ),
            (
                "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) \
                 Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0",
                "Edge on Windows",
            ),
            (
                "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) \
                 Version/17.5 Mobile/15E148 Safari/604.1",
                "Safari on iPhone",
            ),
            (
                "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) \
                 Chrome/131.0.0.0 Mobile Safari/537.36",
                "Chrome on Android",
            ),
            (
                "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 HeadlessChrome/131.0 Safari/537.36",
                "Headless Chrome on Linux",
            ),
            ("curl/8.5.0", "curl"),
            ("python-requests/2.32", "Python"),
        ];
        for (ua, name) in cases {
            assert_eq!(device_name(ua), name, "{ua}");
        }
    }

    #[test]
    fn unknown_and_missing_agents_read_plainly() {
        assert_eq!(device_name(""), "Unknown device");
        assert_eq!(device_name("  "), "Unknown device");
        assert_eq!(device_name("Mozilla/5.0 (Windows NT 10.0)"), "A browser on Windows");
        assert_eq!(device_name("my-robot/1"), "my-robot/1");
        let long = "x".repeat(100);
        assert_eq!(device_name(&long), format!("{}…", "x".repeat(60)));
    }
}
