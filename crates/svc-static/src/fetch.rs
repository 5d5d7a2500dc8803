//! The page request: one GET, redirects followed by hand (at most
//! [`MAX_REDIRECTS`], each target vetted again), the body read up to a cap;
//! and the requests a script makes with `fetch` ([`Fetcher::script_fetch`]),
//! which go the same way.
//!
//! A confined run (AI Fix's candidates) is held to its job URL's site and
//! to the sites the page request's redirects lead to: each redirect of the
//! page request adds its target's site to the run's [`Confinement`] before
//! it is followed (and is vetted as any target is); the script's requests,
//! and their redirects, are refused outside the sites so far.
//!
//! Every connection goes to an address `host_vetting::vetted_addresses`
//! accepted: host names are resolved by [`VettingResolver`], which hands the
//! connector only vetted addresses (the address checked is the address
//! dialled, no DNS-rebinding window), and literal addresses, which are never
//! resolved, are vetted before the request. No system proxy is used.

use std::net::IpAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use reqwest::Method;
use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use reqwest::header::{ACCEPT, ACCEPT_LANGUAGE, CONTENT_TYPE, HeaderName, HeaderValue, LOCATION};
use svc_engine::host_vetting::{PrivateNetworks, Refusal, Resolver, bare_host, vetted_addresses, within};
use svc_engine::{Confinement, Site};
use url::Url;

use crate::error::StaticError;

/// Redirects followed before the run fails, as a browser gives up on a loop.
pub const MAX_REDIRECTS: usize = 5;

const USER_AGENT: &str = concat!("Mozilla/5.0 (compatible; svc-static/", env!("CARGO_PKG_VERSION"), ")");
const ACCEPT_HTML: &str = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

/// Resolves a host name and hands on its addresses only if they pass the
/// vetting (every one public, unless private networks are allowed).
#[derive(Clone)]
struct VettingResolver {
    allow_private: PrivateNetworks,
    resolver: Resolver,
}

impl Resolve for VettingResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let (allow_private, resolver) = (self.allow_private.clone(), self.resolver.clone());
        Box::pin(async move {
            let addrs = vetted_addresses(name.as_str(), 0, &allow_private, &resolver).await?;
            Ok(Box::new(addrs.into_iter()) as Addrs)
        })
    }
}

/// A request a script makes with `fetch`.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct ScriptRequest {
    pub method: String,
    /// Absolute (the prelude resolves it against the page).
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: Option<String>,
}

/// Methods a script's `fetch` may use.
const METHODS: &[&str] = &["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

/// Headers a script may not set, as in a browser (the forbidden request
/// headers): the client sets them, or they would carry what the page may not.
fn forbidden_header(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    name.starts_with("proxy-")
        || name.starts_with("sec-")
        || [
            "accept-charset",
            "accept-encoding",
            "connection",
            "content-length",
            "cookie",
            "cookie2",
            "date",
            "expect",
            "host",
            "keep-alive",
            "origin",
            "referer",
            "te",
            "trailer",
            "transfer-encoding",
            "upgrade",
            "via",
        ]
        .contains(&name.as_str())
}

/// A response (or the main document) as it arrived.
#[derive(Debug)]
pub struct Fetched {
    /// Where the document came from, after redirects.
    pub url: Url,
    pub status: u16,
    pub content_type: Option<String>,
    pub headers: Vec<(String, String)>,
    /// At most the cap; for a status of 400 or more, cut at the cap rather than refused.
    pub body: Vec<u8>,
}

#[derive(Clone)]
pub struct Fetcher {
    client: reqwest::Client,
    allow_private: PrivateNetworks,
    resolver: Resolver,
    max_body: usize,
    /// The only sites requests may go to (AI Fix's candidates), every
    /// redirect included; widened by the page request's redirects.
    confined_to: Option<Confinement>,
}

/// What a request's redirects may do to a confined run's sites.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Redirects {
    /// The page request's: each one's target site is added to them.
    Widen,
    /// A script's: each one is held to them.
    Held,
}

impl Fetcher {
    pub fn new(allow_private: PrivateNetworks, resolver: Resolver, max_body: usize) -> Fetcher {
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .dns_resolver(Arc::new(VettingResolver {
                allow_private: allow_private.clone(),
                resolver: resolver.clone(),
            }))
            .user_agent(USER_AGENT)
            .pool_max_idle_per_host(16)
            .build()
            .expect("the HTTP client builds");
        Fetcher { client, allow_private, resolver, max_body, confined_to: None }
    }

    /// This fetcher, held to `site` when there is one (the same client and
    /// vetting): for one run's page and its script's requests, a
    /// confinement of their own that the page request widens.
    pub fn confined(&self, site: Option<Site>) -> Fetcher {
        Fetcher { confined_to: site.map(Confinement::new), ..self.clone() }
    }

    /// The scheme and literal-address rules (names are vetted as they are
    /// resolved), and the run's sites when it is held to some; a redirect
    /// of the page request (`widen`) adds its site to them instead.
    async fn check(&self, url: &Url, widen: bool) -> Result<(), Refusal> {
        match url.scheme() {
            "http" | "https" => {}
            other => return Err(Refusal::Scheme(other.to_string())),
        }
        let host = url.host_str().ok_or(Refusal::NoHost)?;
        match (&self.confined_to, widen) {
            (Some(confinement), true) => {
                if confinement.admit_redirect(host) {
                    tracing::debug!(%url, "the page's redirect widens the run's confinement");
                }
            }
            (confinement, _) => within(confinement.as_ref(), host)?,
        }
        if bare_host(host).parse::<IpAddr>().is_ok() {
            let port = url.port_or_known_default().unwrap_or(80);
            vetted_addresses(host, port, &self.allow_private, &self.resolver).await?;
        }
        Ok(())
    }

    /// Loads `url`, following redirects: the run's page request, once per
    /// run (on a confined fetcher, its redirects widen the run's sites).
    /// `received` counts the body bytes as they arrive (a body cut off by
    /// the run timeout still counts).
    pub async fn fetch(&self, url: &str, received: &AtomicU64) -> Result<Fetched, StaticError> {
        let url = Url::parse(url).map_err(|e| StaticError::Navigation(format!("invalid URL `{url}`: {e}")))?;
        let headers = [
            (ACCEPT, HeaderValue::from_static(ACCEPT_HTML)),
            (ACCEPT_LANGUAGE, HeaderValue::from_static("en-US,en;q=0.9")),
        ];
        self.send(Method::GET, url, &headers, None, Redirects::Widen, received).await
    }

    /// What a script's `fetch` asks for, under the page's rules: the same
    /// vetting of every address, redirects and body cap. No cookies are
    /// sent (the engine keeps none).
    pub async fn script_fetch(&self, request: &ScriptRequest, received: &AtomicU64) -> Result<Fetched, StaticError> {
        let method = request.method.to_ascii_uppercase();
        if !METHODS.contains(&method.as_str()) {
            return Err(StaticError::Navigation(format!("the method `{}` is not allowed", request.method)));
        }
        let method = Method::from_bytes(method.as_bytes()).map_err(|e| StaticError::Navigation(e.to_string()))?;
        let url = Url::parse(&request.url)
            .map_err(|e| StaticError::Navigation(format!("invalid URL `{}`: {e}", request.url)))?;
        let mut headers = Vec::new();
        for (name, value) in request.headers.iter().filter(|(name, _)| !forbidden_header(name)) {
            let name = HeaderName::from_bytes(name.as_bytes())
                .map_err(|_| StaticError::Navigation(format!("invalid header name `{name}`")))?;
            let value = HeaderValue::from_str(value)
                .map_err(|_| StaticError::Navigation(format!("invalid value of header `{name}`")))?;
            headers.push((name, value));
        }
        if !headers.iter().any(|(name, _)| name == ACCEPT) {
            headers.push((ACCEPT, HeaderValue::from_static("*/*")));
        }
        self.send(method, url, &headers, request.body.clone(), Redirects::Held, received).await
    }

    /// One request and its redirects (303, and 301/302 after a POST, go on
    /// as GET without the body, as browsers do). The request itself is held
    /// to a confined run's sites; its redirects are too, or widen them
    /// (`redirects`).
    async fn send(
        &self,
        mut method: Method,
        mut url: Url,
        headers: &[(HeaderName, HeaderValue)],
        mut body: Option<String>,
        redirects: Redirects,
        received: &AtomicU64,
    ) -> Result<Fetched, StaticError> {
        let mut hops = 0;
        loop {
            let refused = |why: Refusal, url: &Url| match hops {
                0 => StaticError::TargetRefused(why),
                _ => StaticError::RedirectRefused { url: url.to_string(), why: why.to_string() },
            };
            let widen = hops > 0 && redirects == Redirects::Widen;
            if let Err(why) = self.check(&url, widen).await {
                return Err(refused(why, &url));
            }
            let mut request = self.client.request(method.clone(), url.clone());
            for (name, value) in headers {
                request = request.header(name, value);
            }
            if let Some(body) = &body {
                request = request.body(body.clone());
            }
            let mut response = match request.send().await {
                Ok(response) => response,
                Err(e) => {
                    return Err(match refusal_in(&e) {
                        Some(why) => refused(why, &url),
                        None => StaticError::Navigation(describe(&e)),
                    });
                }
            };
            let status = response.status().as_u16();
            let location = response.headers().get(LOCATION).and_then(|v| v.to_str().ok()).map(str::to_string);
            if let (300..=399, Some(location)) = (status, location) {
                let next = url
                    .join(&location)
                    .map_err(|e| StaticError::Navigation(format!("bad redirect to `{location}`: {e}")))?;
                if hops == MAX_REDIRECTS {
                    return Err(StaticError::TooManyRedirects(MAX_REDIRECTS));
                }
                if status == 303 || (matches!(status, 301 | 302) && method == Method::POST) {
                    (method, body) = (Method::GET, None);
                }
                hops += 1;
                url = next;
                continue;
            }
            let content_type = response.headers().get(CONTENT_TYPE).and_then(|v| v.to_str().ok()).map(str::to_string);
            let response_headers = response
                .headers()
                .iter()
                .filter_map(|(name, value)| Some((name.to_string(), value.to_str().ok()?.to_string())))
                .collect();
            let failed = status >= 400;
            if !failed && let Some(length) = response.content_length().filter(|l| *l > self.max_body as u64) {
                tracing::debug!(%url, length, "the page announces a body over the cap");
                return Err(StaticError::TooLarge(self.max_body));
            }
            let mut body = Vec::new();
            while let Some(chunk) = response.chunk().await.map_err(|e| StaticError::Navigation(describe(&e)))? {
                received.fetch_add(chunk.len() as u64, Ordering::Relaxed);
                if body.len() + chunk.len() > self.max_body {
                    if failed {
                        body.extend_from_slice(&chunk[..self.max_body - body.len()]);
                        break;
                    }
                    return Err(StaticError::TooLarge(self.max_body));
                }
                body.extend_from_slice(&chunk);
            }
            return Ok(Fetched { url, status, content_type, headers: response_headers, body });
        }
    }
}

/// The vetting's refusal behind a failed request, if that is why it failed.
fn refusal_in(e: &reqwest::Error) -> Option<Refusal> {
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        if let Some(refusal) = s.downcast_ref::<Refusal>() {
            return Some(refusal.clone());
        }
        source = s.source();
    }
    None
}

/// The message of an error and its causes (reqwest's own is terse).
fn describe(e: &reqwest::Error) -> String {
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}
