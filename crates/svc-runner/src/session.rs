//! A scrap's browser session across runs (logged-in scraping), as JSON
//! text: `{"v": 1, "cookies": [<DevTools Network.Cookie>...], "origin":
//! "<target origin>", "localStorage": [[key, value]...]}`.
//!
//! Each run still gets a fresh browser context. Before the navigation the
//! engine restores a job's saved session into that context: its cookies
//! with `Storage.setCookies` for the context, and its `localStorage` with a
//! script evaluated at the start of every new main-frame document of the
//! target origin (removed once the navigation is done). After a run of a
//! job with a site login that returned items, it reads the context's cookies
//! (`Storage.getCookies` for the context) and the `localStorage` the script
//! saw when it called `returnData` (only for the target origin) and hands
//! them back as the run's session. Pure functions here; the DevTools calls
//! are in `chromium.rs`.

use chromiumoxide::cdp::browser_protocol::network::{Cookie, CookieParam};
use serde_json::{Map, Value, json};
use svc_domain::site_account::SessionState;

/// Largest session kept (bytes of JSON). Over it the `localStorage` is left
/// out; cookies alone over it (no real site) keep nothing.
pub const MAX_SESSION_BYTES: usize = 1024 * 1024;

/// The origin of a URL as `location.origin` writes it (`http://host:port`).
pub fn origin_of(url: &str) -> Option<String> {
    let url = url::Url::parse(url).ok()?;
    let origin = url.origin();
    origin.is_tuple().then(|| origin.ascii_serialization())
}

/// What a saved session puts back into a fresh context.
#[derive(Debug, Default, PartialEq)]
pub struct Restore {
    pub cookies: Vec<CookieParam>,
    /// The `localStorage` items of the target origin.
    pub local_storage: Vec<(String, String)>,
}

/// A saved cookie as the parameters that set it again (a session cookie
/// stays one).
fn cookie_param(cookie: &Value) -> Option<CookieParam> {
    let fields = cookie.as_object()?;
    let mut param = Map::new();
    for key in ["name", "value", "domain", "path", "secure", "httpOnly", "sameSite", "priority", "sourceScheme"] {
        if let Some(v) = fields.get(key).filter(|v| !v.is_null()) {
            param.insert(key.into(), v.clone());
        }
    }
    if let Some(port) = fields.get("sourcePort").and_then(Value::as_i64).filter(|p| *p > 0) {
        param.insert("sourcePort".into(), json!(port));
    }
    if let Some(key) = fields.get("partitionKey").filter(|v| v.is_object()) {
        param.insert("partitionKey".into(), key.clone());
    }
    let session = fields.get("session").and_then(Value::as_bool).unwrap_or(true);
    if let Some(expires) = fields.get("expires").and_then(Value::as_f64).filter(|e| !session && *e > 0.0) {
        param.insert("expires".into(), json!(expires));
    }
    serde_json::from_value(Value::Object(param)).ok()
}

/// The parameters that set `cookies` again, as they are.
pub fn cookie_params(cookies: &[Cookie]) -> Vec<CookieParam> {
    cookies.iter().filter_map(|c| serde_json::to_value(c).ok()).filter_map(|c| cookie_param(&c)).collect()
}

/// What `state` restores for a run of `target` (its `localStorage` only
/// when it was saved for the same origin). `None` for a session that is
/// not one (the run then starts logged out).
pub fn parse(state: &SessionState, target: &str) -> Option<Restore> {
    let value: Value = serde_json::from_str(state.as_str()).ok()?;
    let cookies = value["cookies"].as_array()?.iter().filter_map(cookie_param).collect();
    let same_origin = origin_of(target).is_some_and(|o| value["origin"].as_str() == Some(o.as_str()));
    let local_storage = match value["localStorage"].as_array() {
        Some(items) if same_origin => items
            .iter()
            .filter_map(|pair| Some((pair[0].as_str()?.to_string(), pair[1].as_str()?.to_string())))
            .collect(),
        _ => vec![],
    };
    Some(Restore { cookies, local_storage })
}

/// The script that puts `items` back into `origin`'s `localStorage`, run
/// at the start of every main-frame document before the page's own scripts.
pub fn storage_script(origin: &str, items: &[(String, String)]) -> String {
    let origin = serde_json::to_string(origin).expect("strings serialize");
    let items = serde_json::to_string(items).expect("strings serialize");
    format!(
        "(() => {{ try {{ if (window === window.top && location.origin === {origin}) {{ \
         for (const [k, v] of {items}) localStorage.setItem(k, v); }} }} catch (e) {{}} }})()"
    )
}

/// The session a run leaves: the context's `cookies` and the script's
/// `storage` (`{origin, items}`) when it is the target's origin; `None`
/// when even the cookies alone are over [`MAX_SESSION_BYTES`].
pub fn compose(cookies: &[Cookie], storage: Option<&Value>, target: &str) -> Option<SessionState> {
    let target = origin_of(target);
    let storage = storage.filter(|s| target.is_some() && s["origin"].as_str() == target.as_deref());
    let mut session = json!({ "v": 1, "cookies": cookies });
    if let (Some(storage), Some(origin)) = (storage, &target)
        && let Some(items) = storage["items"].as_array().filter(|items| !items.is_empty())
    {
        session["origin"] = json!(origin);
        session["localStorage"] = json!(items);
        let text = session.to_string();
        if text.len() <= MAX_SESSION_BYTES {
            return Some(SessionState::new(text));
        }
        let fields = session.as_object_mut().expect("an object");
        fields.remove("origin");
        fields.remove("localStorage");
    }
    let text = session.to_string();
    (text.len() <= MAX_SESSION_BYTES).then(|| SessionState::new(text))
}

#[cfg(test)]
mod tests {
    use chromiumoxide::cdp::browser_protocol::network::{CookiePriority, CookieSameSite, CookieSourceScheme};

    use super::*;

    fn cookie(name: &str, session: bool) -> Cookie {
        Cookie {
            name: name.into(),
            value: format!("{name}-value"),
            domain: "127.0.0.1".into(),
            path: "/".into(),
            expires: if session { -1.0 } else { 2_000_000_000.0 },
            size: 10,
            http_only: true,
            secure: false,
            session,
            same_site: Some(CookieSameSite::Lax),
            priority: CookiePriority::Medium,
            source_scheme: CookieSourceScheme::NonSecure,
            source_port: 8080,
            partition_key: None,
            partition_key_opaque: None,
        }
    }

    #[test]
    fn sessions_round_trip_cookies_and_the_target_origins_storage() {
        let storage = json!({"origin": "http://127.0.0.1:8080", "items": [["token", "t-1"], ["theme", "dark"]]});
        let state =
            compose(&[cookie("sid", true), cookie("remember", false)], Some(&storage), "http://127.0.0.1:8080/members")
                .unwrap();
        let restore = parse(&state, "http://127.0.0.1:8080/other").unwrap();
        assert_eq!(restore.cookies.len(), 2);
        let sid = &restore.cookies[0];
        assert_eq!((sid.name.as_str(), sid.value.as_str()), ("sid", "sid-value"));
        assert_eq!(sid.expires, None, "a session cookie stays one");
        assert_eq!((sid.http_only, sid.same_site.clone()), (Some(true), Some(CookieSameSite::Lax)));
        assert_eq!(sid.source_port, Some(8080));
        assert!(restore.cookies[1].expires.is_some());
        assert_eq!(restore.local_storage, vec![("token".into(), "t-1".into()), ("theme".into(), "dark".into())]);
        // Another origin gets the cookies (the browser scopes them) but not the storage.
        assert!(parse(&state, "http://127.0.0.1:9090/").unwrap().local_storage.is_empty());
        // Storage the script saw on another origin is not kept.
        let elsewhere = json!({"origin": "http://login.example", "items": [["k", "v"]]});
        let state = compose(&[], Some(&elsewhere), "http://127.0.0.1:8080/").unwrap();
        assert_eq!(state.as_str(), r#"{"cookies":[],"v":1}"#);
        assert_eq!(parse(&SessionState::new("not json"), "http://x/"), None);
    }

    #[test]
    fn oversized_storage_is_left_out() {
        let big = "x".repeat(MAX_SESSION_BYTES);
        let storage = json!({"origin": "https://example.com", "items": [["big", big]]});
        let state = compose(&[cookie("sid", true)], Some(&storage), "https://example.com/a").unwrap();
        assert!(state.as_str().contains("sid-value") && !state.as_str().contains("localStorage"));
    }

    #[test]
    fn the_storage_script_names_its_origin_and_items_as_json() {
        let script = storage_script("https://example.com", &[("k\"".into(), "</script>".into())]);
        assert!(script.contains(r#"location.origin === "https://example.com""#), "{script}");
        assert!(script.contains(r#"[["k\"","</script>"]]"#), "{script}");
        assert_eq!(origin_of("https://example.com:443/a?b"), Some("https://example.com".into()));
        assert_eq!(origin_of("http://127.0.0.1:8080/x"), Some("http://127.0.0.1:8080".into()));
    }
}
