//! The browser's side of a web session: the contract's JWT travels in an
//! HttpOnly, SameSite=Lax cookie, and a state-changing request that relies on
//! that cookie must prove it comes from svc's own pages: a CSRF token bound
//! to the session (`AuthService::csrf_token`) and an `Origin` (or `Referer`)
//! naming svc itself. The REST adapter applies the same rule to cookie
//! callers (docs/decisions.md, Web app).

use axum::http::header::{COOKIE, HOST, ORIGIN, REFERER};
use axum::http::{HeaderMap, HeaderValue, Method};

/// The session JWT.
pub const SESSION_COOKIE: &str = "svc_session";
/// A random token that the sign-up and log-in forms echo (double submit),
/// as they have no session yet to bind a token to.
pub const FORM_COOKIE: &str = "svc_form";
/// The form field that carries the CSRF token.
pub const CSRF_FIELD: &str = "csrf";
/// The header that carries the CSRF token on script and REST requests.
pub const CSRF_HEADER: &str = "x-csrf-token";

/// The value of cookie `name`, if the request carries it.
pub fn cookie<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get_all(COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v.trim())
        .filter(|v| !v.is_empty())
}

/// Whether the cookies must be `Secure` (svc is served over https).
pub fn is_secure(public_url: &str) -> bool {
    public_url.to_ascii_lowercase().starts_with("https://")
}

fn set_cookie(name: &str, value: &str, max_age_secs: i64, secure: bool) -> HeaderValue {
    let secure = if secure { "; Secure" } else { "" };
    HeaderValue::from_str(&format!("{name}={value}; Path=/; Max-Age={max_age_secs}; HttpOnly; SameSite=Lax{secure}"))
        .expect("cookie values are ASCII tokens")
}

/// `Set-Cookie` for a new session.
pub fn session_cookie(token: &str, max_age_secs: i64, secure: bool) -> HeaderValue {
    set_cookie(SESSION_COOKIE, token, max_age_secs, secure)
}

/// `Set-Cookie` that ends the session in the browser.
pub fn clear_session_cookie(secure: bool) -> HeaderValue {
    set_cookie(SESSION_COOKIE, "", 0, secure)
}

/// `Set-Cookie` for the sign-up and log-in forms' token (one hour).
pub fn form_cookie(token: &str, secure: bool) -> HeaderValue {
    set_cookie(FORM_COOKIE, token, 3600, secure)
}

/// Methods that change nothing and need no CSRF proof.
pub fn is_safe(method: &Method) -> bool {
    matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS)
}

/// `scheme://host[:port]` of an absolute URL, lowercased, default ports dropped.
fn origin_of(url: &str) -> Option<String> {
    let parsed = url::Url::parse(url).ok()?;
    match parsed.origin() {
        url::Origin::Tuple(..) => Some(parsed.origin().ascii_serialization()),
        url::Origin::Opaque(_) => None,
    }
}

/// Whether a state-changing request names svc as its origin: its `Origin`
/// header (or, without one, its `Referer`) is svc's public URL's origin, or
/// the origin of the `Host` it was sent to (svc behind a proxy that keeps the
/// host). A request with neither header, or `Origin: null`, is refused.
pub fn same_origin(headers: &HeaderMap, public_url: &str) -> bool {
    let header = |name| headers.get(name).and_then(|v: &HeaderValue| v.to_str().ok());
    let Some(claimed) = header(ORIGIN).or_else(|| header(REFERER)).and_then(origin_of) else {
        return false;
    };
    if origin_of(public_url).is_some_and(|own| own == claimed) {
        return true;
    }
    header(HOST).is_some_and(|host| {
        ["http", "https"].iter().any(|scheme| origin_of(&format!("{scheme}://{host}/")).is_some_and(|o| o == claimed))
    })
}

/// A path of svc's own to go to after logging in; anything else (another
/// site, `//host`, a scheme) becomes `/`.
pub fn local_path(next: Option<&str>) -> String {
    match next {
        Some(p) if p.starts_with('/') && !p.starts_with("//") && !p.starts_with("/\\") && !p.contains(['\r', '\n']) => {
            p.to_string()
        }
        _ => "/".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(*k, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    #[test]
    fn cookies_are_found_among_others() {
        let h = headers(&[("cookie", "a=1; svc_session=tok.en.x; b=2"), ("cookie", "svc_form=f")]);
        assert_eq!(cookie(&h, SESSION_COOKIE), Some("tok.en.x"));
        assert_eq!(cookie(&h, FORM_COOKIE), Some("f"));
        assert_eq!(cookie(&h, "missing"), None);
        assert_eq!(cookie(&headers(&[("cookie", "svc_session=")]), SESSION_COOKIE), None);
    }

    #[test]
    fn session_cookie_is_http_only_lax_and_secure_on_https() {
        let plain = session_cookie("t", 60, false);
        assert_eq!(plain, "svc_session=t; Path=/; Max-Age=60; HttpOnly; SameSite=Lax");
        assert!(session_cookie("t", 60, is_secure("https://svc.example")).to_str().unwrap().ends_with("; Secure"));
        assert!(clear_session_cookie(false).to_str().unwrap().contains("Max-Age=0"));
    }

    #[test]
    fn origin_must_name_svc() {
        let own = "http://127.0.0.1:8080";
        assert!(same_origin(&headers(&[("origin", "http://127.0.0.1:8080")]), own));
        assert!(same_origin(&headers(&[("referer", "http://127.0.0.1:8080/scraps/new")]), own));
        assert!(!same_origin(&headers(&[("origin", "http://evil.example")]), own));
        assert!(!same_origin(&headers(&[("origin", "null")]), own));
        assert!(!same_origin(&HeaderMap::new(), own));
        // Origin wins over a matching Referer.
        assert!(!same_origin(&headers(&[("origin", "http://evil.example"), ("referer", own)]), own));
        // Behind a proxy that keeps the Host header.
        let proxied = headers(&[("origin", "https://svc.example"), ("host", "svc.example")]);
        assert!(same_origin(&proxied, own));
        let spoof = headers(&[("origin", "https://evil.example"), ("host", "svc.example")]);
        assert!(!same_origin(&spoof, own));
        assert!(same_origin(&headers(&[("origin", "https://svc.example")]), "https://svc.example:443/"));
    }

    #[test]
    fn next_stays_on_svc() {
        assert_eq!(local_path(Some("/scraps/1?x=2")), "/scraps/1?x=2");
        for bad in ["//evil.example", "https://evil.example", "/\\evil", "", "scraps"] {
            assert_eq!(local_path(Some(bad)), "/", "{bad}");
        }
        assert_eq!(local_path(None), "/");
    }
}
