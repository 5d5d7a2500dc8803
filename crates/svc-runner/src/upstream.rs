//! Upstream proxies: the operator's proxies a run on tier 1 to 4 leaves
//! through, after svc's egress proxy has vetted the target.
//!
//! One is written `http://user:password@host:port` (credentials
//! percent-encoded, both optional). Only plain `http://` proxies are
//! supported: the egress proxy speaks HTTP/1.1 to them (`CONNECT` for
//! tunnels, absolute-form requests for `http://` pages). A password never
//! leaves this type except as the `Proxy-Authorization` header sent to that
//! proxy: `Debug` and `Display` show `http://user:***@host:port`, and parse
//! errors never repeat the text they were given.

use std::fmt;
use std::str::FromStr;

use base64::Engine as _;
use hyper::header::HeaderValue;

/// The number of proxy tiers above tier 0 (direct).
pub const TIERS: u8 = 4;

/// One upstream HTTP proxy.
#[derive(Clone, PartialEq, Eq)]
pub struct UpstreamProxy {
    /// A name or an IP address (an IPv6 address without brackets).
    pub host: String,
    pub port: u16,
    auth: Option<Credentials>,
}

#[derive(Clone, PartialEq, Eq)]
struct Credentials {
    user: String,
    password: String,
}

/// Why a proxy URL was refused. The messages never include the URL itself
/// (it may hold a password).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum UpstreamError {
    #[error("an upstream proxy is not a valid URL (expected http://user:password@host:port)")]
    NotAUrl,
    #[error(
        "upstream proxies of scheme `{0}` are not supported: use an http:// proxy (socks5 and https proxies are not \
         supported yet)"
    )]
    Scheme(String),
    #[error("an upstream proxy URL has no host")]
    NoHost,
    #[error("an upstream proxy URL has no port (expected http://host:port)")]
    NoPort,
    #[error("an upstream proxy URL has a path, query or fragment: only http://user:password@host:port is expected")]
    Path,
    #[error("an upstream proxy URL has a password but no user name")]
    PasswordWithoutUser,
    #[error("an upstream proxy's user name or password is not valid UTF-8 once percent-decoded")]
    Encoding,
    #[error("a proxy tier lists no upstream proxy")]
    Empty,
}

impl UpstreamProxy {
    /// A proxy without credentials, or with them (sent as `Basic`).
    pub fn new(host: impl Into<String>, port: u16, auth: Option<(String, String)>) -> UpstreamProxy {
        let host = host.into();
        let host = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')).map(str::to_string).unwrap_or(host);
        UpstreamProxy { host, port, auth: auth.map(|(user, password)| Credentials { user, password }) }
    }

    /// Parses `http://user:password@host:port`.
    pub fn parse(text: &str) -> Result<UpstreamProxy, UpstreamError> {
        let text = text.trim();
        if !text.contains("://") {
            return Err(UpstreamError::NotAUrl);
        }
        let url = url::Url::parse(text).map_err(|_| UpstreamError::NotAUrl)?;
        if url.scheme() != "http" {
            return Err(UpstreamError::Scheme(url.scheme().to_string()));
        }
        let host = match url.host() {
            Some(url::Host::Domain(name)) if !name.is_empty() => name.to_string(),
            Some(url::Host::Ipv4(ip)) => ip.to_string(),
            Some(url::Host::Ipv6(ip)) => ip.to_string(),
            _ => return Err(UpstreamError::NoHost),
        };
        // `url` hides a port that is the scheme's default: look for it in the text.
        let port = match url.port() {
            Some(port) => port,
            None if authority(text).ends_with(":80") => 80,
            None => return Err(UpstreamError::NoPort),
        };
        if !matches!(url.path(), "" | "/") || url.query().is_some() || url.fragment().is_some() {
            return Err(UpstreamError::Path);
        }
        let auth = match (url.username(), url.password()) {
            ("", None) => None,
            ("", Some(_)) => return Err(UpstreamError::PasswordWithoutUser),
            (user, password) => {
                Some(Credentials { user: percent_decode(user)?, password: percent_decode(password.unwrap_or(""))? })
            }
        };
        Ok(UpstreamProxy { host, port, auth })
    }

    /// Parses a comma-separated list (`SVC_PROXY_TIER1`'s form). Blank
    /// items are skipped; a list with no proxy at all is an error.
    pub fn parse_list(text: &str) -> Result<Vec<UpstreamProxy>, UpstreamError> {
        let proxies = text
            .split(',')
            .filter(|item| !item.trim().is_empty())
            .map(UpstreamProxy::parse)
            .collect::<Result<Vec<_>, _>>()?;
        if proxies.is_empty() {
            return Err(UpstreamError::Empty);
        }
        Ok(proxies)
    }

    /// The user name, if the proxy has credentials.
    pub fn user(&self) -> Option<&str> {
        self.auth.as_ref().map(|auth| auth.user.as_str())
    }

    /// `host:port`, with brackets around an IPv6 address: what failure
    /// messages name (never the credentials).
    pub fn address(&self) -> String {
        if self.host.contains(':') {
            format!("[{}]:{}", self.host, self.port)
        } else {
            format!("{}:{}", self.host, self.port)
        }
    }

    /// The `Proxy-Authorization` header for this proxy (marked sensitive,
    /// so hyper's `Debug` hides it).
    pub(crate) fn authorization(&self) -> Option<HeaderValue> {
        let auth = self.auth.as_ref()?;
        let token = base64::engine::general_purpose::STANDARD.encode(format!("{}:{}", auth.user, auth.password));
        let mut value = HeaderValue::from_str(&format!("Basic {token}")).ok()?;
        value.set_sensitive(true);
        Some(value)
    }
}

impl FromStr for UpstreamProxy {
    type Err = UpstreamError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        UpstreamProxy::parse(text)
    }
}

impl fmt::Display for UpstreamProxy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.auth {
            Some(auth) => write!(f, "http://{}:***@{}", encode_user(&auth.user), self.address()),
            None => write!(f, "http://{}", self.address()),
        }
    }
}

impl fmt::Debug for UpstreamProxy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "UpstreamProxy({self})")
    }
}

/// The authority part of a URL's text: after `scheme://` and any
/// credentials, before the path.
fn authority(text: &str) -> &str {
    let rest = text.split_once("://").map_or(text, |(_, rest)| rest);
    let rest = rest.split(['/', '?', '#']).next().unwrap_or("");
    rest.rsplit('@').next().unwrap_or(rest)
}

fn percent_decode(text: &str) -> Result<String, UpstreamError> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let (Some(hi), Some(lo)) = (hex(bytes[i + 1]), hex(bytes[i + 2]))
        {
            out.push((hi * 16 + lo) as u8);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| UpstreamError::Encoding)
}

/// A user name as it would be written in a URL (so that `Display` reads
/// back as the same proxy, password aside).
fn encode_user(user: &str) -> String {
    user.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn good_urls() {
        let proxy = UpstreamProxy::parse("http://alice:s3cret@proxy.example:3128").unwrap();
        assert_eq!((proxy.host.as_str(), proxy.port, proxy.user()), ("proxy.example", 3128, Some("alice")));
        let expected = format!("Basic {}", base64::engine::general_purpose::STANDARD.encode("alice:s3cret"));
        assert_eq!(proxy.authorization().unwrap(), expected.as_str());
        assert!(proxy.authorization().unwrap().is_sensitive());

        // Percent-encoded credentials are decoded before they are sent.
        let proxy = UpstreamProxy::parse("http://us%40er:p%3Ass%2Cw%25rd%20x@10.0.0.1:8080/").unwrap();
        let expected = format!("Basic {}", base64::engine::general_purpose::STANDARD.encode("us@er:p:ss,w%rd x"));
        assert_eq!(proxy.authorization().unwrap(), expected.as_str());
        assert_eq!(proxy.user(), Some("us@er"));
        assert_eq!(proxy.address(), "10.0.0.1:8080");

        let proxy = UpstreamProxy::parse(" http://[::1]:9000 ").unwrap();
        assert_eq!((proxy.host.as_str(), proxy.port), ("::1", 9000));
        assert_eq!(proxy.address(), "[::1]:9000");
        assert!(proxy.authorization().is_none());
        assert_eq!(proxy.to_string(), "http://[::1]:9000");

        // The scheme's own port, written out, is a port.
        assert_eq!(UpstreamProxy::parse("http://u:p@proxy.example:80").unwrap().port, 80);
        // A user without a password.
        let proxy = UpstreamProxy::parse("http://token@proxy.example:1").unwrap();
        let expected = format!("Basic {}", base64::engine::general_purpose::STANDARD.encode("token:"));
        assert_eq!(proxy.authorization().unwrap(), expected.as_str());

        let list = UpstreamProxy::parse_list("http://a:b@one.example:1, http://two.example:2,").unwrap();
        assert_eq!(list.iter().map(UpstreamProxy::address).collect::<Vec<_>>(), ["one.example:1", "two.example:2"]);
        assert_eq!(UpstreamProxy::new("[::1]", 5, None), UpstreamProxy::parse("http://[::1]:5").unwrap());
    }

    #[test]
    fn bad_urls_are_refused_without_repeating_them() {
        let cases = [
            ("proxy.example:3128", UpstreamError::NotAUrl),
            ("user:hunter2@proxy.example:3128", UpstreamError::NotAUrl),
            ("not a url", UpstreamError::NotAUrl),
            ("socks5://user:hunter2@proxy.example:1080", UpstreamError::Scheme("socks5".into())),
            ("https://user:hunter2@proxy.example:443", UpstreamError::Scheme("https".into())),
            ("http://user:hunter2@proxy.example", UpstreamError::NoPort),
            ("http://user:hunter2@proxy.example:3128/path", UpstreamError::Path),
            ("http://user:hunter2@proxy.example:3128?x=1", UpstreamError::Path),
            ("http://:hunter2@proxy.example:3128", UpstreamError::PasswordWithoutUser),
            ("http://user:hunter2%FF@proxy.example:3128", UpstreamError::Encoding),
            ("http://user:hunter2@:3128", UpstreamError::NotAUrl),
        ];
        for (text, expected) in cases {
            let error = UpstreamProxy::parse(text).unwrap_err();
            assert_eq!(error, expected, "{text}");
            assert!(!error.to_string().contains("hunter2"), "{error}");
        }
        assert_eq!(UpstreamProxy::parse_list(" , "), Err(UpstreamError::Empty));
        assert_eq!(
            UpstreamProxy::parse_list("http://a:b@one.example:1,ftp://x:hunter2@two.example:2"),
            Err(UpstreamError::Scheme("ftp".into()))
        );
    }

    #[test]
    fn the_password_is_never_shown() {
        let proxy = UpstreamProxy::parse("http://alice:hunter2@proxy.example:3128").unwrap();
        assert_eq!(proxy.to_string(), "http://alice:***@proxy.example:3128");
        assert_eq!(format!("{proxy:?}"), "UpstreamProxy(http://alice:***@proxy.example:3128)");
        let tiers: [Vec<UpstreamProxy>; 4] = [vec![proxy.clone()], vec![], vec![proxy.clone(), proxy.clone()], vec![]];
        let shown = format!("{tiers:?} {tiers:#?}");
        assert!(!shown.contains("hunter2") && shown.contains("alice:***@"), "{shown}");
        let header = format!("{:?}", proxy.authorization().unwrap());
        assert!(!header.contains("hunter2") && header.contains("Sensitive"), "{header}");
        let odd = UpstreamProxy::parse("http://a%20b%40c:hunter2@proxy.example:3128").unwrap();
        assert_eq!(odd.to_string(), "http://a%20b%40c:***@proxy.example:3128");
    }
}
