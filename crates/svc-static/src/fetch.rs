//! The page request: one GET, redirects followed by hand (at most
//! [`MAX_REDIRECTS`], each target vetted again), the body read up to a cap.
//!
//! Every connection goes to an address `host_vetting::vetted_addresses`
//! accepted: host names are resolved by [`VettingResolver`], which hands the
//! connector only vetted addresses (the address checked is the address
//! dialled, no DNS-rebinding window), and literal addresses, which are never
//! resolved, are vetted before the request. No system proxy is used.

use std::net::IpAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use reqwest::header::{ACCEPT, ACCEPT_LANGUAGE, CONTENT_TYPE, LOCATION};
use svc_service::host_vetting::{Refusal, Resolver, bare_host, vetted_addresses};
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
    allow_private: bool,
    resolver: Resolver,
}

impl Resolve for VettingResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let (allow_private, resolver) = (self.allow_private, self.resolver.clone());
        Box::pin(async move {
            let addrs = vetted_addresses(name.as_str(), 0, allow_private, &resolver).await?;
            Ok(Box::new(addrs.into_iter()) as Addrs)
        })
    }
}

/// The main document as it arrived.
#[derive(Debug)]
pub struct Fetched {
    /// Where the document came from, after redirects.
    pub url: Url,
    pub status: u16,
    pub content_type: Option<String>,
    /// At most the cap; for a status of 400 or more, cut at the cap rather than refused.
    pub body: Vec<u8>,
}

pub struct Fetcher {
    client: reqwest::Client,
    allow_private: bool,
    resolver: Resolver,
    max_body: usize,
}

impl Fetcher {
    pub fn new(allow_private: bool, resolver: Resolver, max_body: usize) -> Fetcher {
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .dns_resolver(Arc::new(VettingResolver { allow_private, resolver: resolver.clone() }))
            .user_agent(USER_AGENT)
            .pool_max_idle_per_host(16)
            .build()
            .expect("the HTTP client builds");
        Fetcher { client, allow_private, resolver, max_body }
    }

    /// The scheme and literal-address rules (names are vetted as they are resolved).
    async fn check(&self, url: &Url) -> Result<(), Refusal> {
        match url.scheme() {
            "http" | "https" => {}
            other => return Err(Refusal::Scheme(other.to_string())),
        }
        let host = url.host_str().ok_or(Refusal::NoHost)?;
        if bare_host(host).parse::<IpAddr>().is_ok() {
            let port = url.port_or_known_default().unwrap_or(80);
            vetted_addresses(host, port, self.allow_private, &self.resolver).await?;
        }
        Ok(())
    }

    /// Loads `url`, following redirects. `received` counts the body bytes as
    /// they arrive (a body cut off by the run timeout still counts).
    pub async fn fetch(&self, url: &str, received: &AtomicU64) -> Result<Fetched, StaticError> {
        let mut url = Url::parse(url).map_err(|e| StaticError::Navigation(format!("invalid URL `{url}`: {e}")))?;
        let mut hops = 0;
        loop {
            let refused = |why: Refusal, url: &Url| match hops {
                0 => StaticError::TargetRefused(why),
                _ => StaticError::RedirectRefused { url: url.to_string(), why: why.to_string() },
            };
            if let Err(why) = self.check(&url).await {
                return Err(refused(why, &url));
            }
            let sent = self
                .client
                .get(url.clone())
                .header(ACCEPT, ACCEPT_HTML)
                .header(ACCEPT_LANGUAGE, "en-US,en;q=0.9")
                .send();
            let mut response = match sent.await {
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
                hops += 1;
                url = next;
                continue;
            }
            let content_type = response.headers().get(CONTENT_TYPE).and_then(|v| v.to_str().ok()).map(str::to_string);
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
            return Ok(Fetched { url, status, content_type, body });
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
