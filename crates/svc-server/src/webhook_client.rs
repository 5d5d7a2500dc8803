//! The HTTP client that sends webhook deliveries.
//!
//! Unless private networks are allowed it only dials public addresses: a
//! literal address in the URL is checked before the request, and a host
//! name goes through [`PublicOnlyResolver`], which hands the connector only
//! vetted addresses, so the address checked is the address dialled (no
//! DNS-rebinding window). Redirects are not followed; each attempt has a
//! timeout; the answer's body is kept up to 1 KiB.

use std::collections::HashMap;
use std::net::IpAddr;
use std::time::Duration;

use async_trait::async_trait;
use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use svc_domain::net::is_public_ip;
use svc_engine::host_vetting::{PrivateNetworks, Resolver, bare_host, vetted_addresses};
use svc_service::outbox::dispatcher::{ReceiverResponse, WebhookTransport};

const BODY_KEPT: usize = 1024;

/// Resolves a name and refuses it if any of its addresses is not public
/// (the same vetting as the browser's egress proxy).
#[derive(Clone, Default)]
pub struct PublicOnlyResolver {
    resolver: Resolver,
    /// The ranges `SVC_ALLOW_PRIVATE_NETWORKS` lists, if it lists some.
    allow: PrivateNetworks,
}

impl PublicOnlyResolver {
    /// With fixed answers instead of the system resolver: `name -> addresses`
    /// (tests stand in for DNS with these; the vetting is the same).
    pub fn fixed(answers: HashMap<String, Vec<IpAddr>>) -> Self {
        PublicOnlyResolver { resolver: Resolver::fixed(answers), allow: PrivateNetworks::None }
    }
}

impl Resolve for PublicOnlyResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let (resolver, allow) = (self.resolver.clone(), self.allow.clone());
        Box::pin(async move {
            let addrs = vetted_addresses(name.as_str(), 0, &allow, &resolver).await?;
            Ok(Box::new(addrs.into_iter()) as Addrs)
        })
    }
}

pub struct HttpWebhookClient {
    client: reqwest::Client,
    allow_private: PrivateNetworks,
    user_agent: String,
}

/// `svc-webhooks/<version>`, and `(+<public URL>)` when the sender's address is known.
fn user_agent(public_url: Option<&str>) -> String {
    let product = concat!("svc-webhooks/", env!("CARGO_PKG_VERSION"));
    match public_url {
        Some(url) => format!("{product} (+{url})"),
        None => product.to_string(),
    }
}

impl HttpWebhookClient {
    pub fn new(timeout: Duration, allow_private: PrivateNetworks) -> Self {
        Self::with_resolver(timeout, allow_private, PublicOnlyResolver::default())
    }

    /// With `resolver` vetting host names (unless every private network is allowed).
    pub fn with_resolver(timeout: Duration, allow_private: PrivateNetworks, resolver: PublicOnlyResolver) -> Self {
        let mut builder = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(timeout)
            .pool_max_idle_per_host(64);
        if !allow_private.all() {
            builder = builder.dns_resolver(PublicOnlyResolver { allow: allow_private.clone(), ..resolver });
        }
        HttpWebhookClient {
            client: builder.build().expect("HTTP client builds"),
            allow_private,
            user_agent: user_agent(None),
        }
    }

    /// Names the service's public URL (`SVC_PUBLIC_URL`) in the `User-Agent`
    /// of every delivery, so that receivers can tell which svc sends.
    pub fn sent_from(mut self, public_url: &str) -> Self {
        self.user_agent = user_agent(Some(public_url));
        self
    }

    /// The scheme and literal-address rules, checked before each request.
    fn check_url(&self, url: &reqwest::Url) -> Result<(), String> {
        match url.scheme() {
            "https" => {}
            "http" if self.allow_private.any() => {}
            other => return Err(format!("refused: only https receivers, not `{other}`")),
        }
        if self.allow_private.all() {
            return Ok(());
        }
        match bare_host(url.host_str().unwrap_or_default()).parse::<IpAddr>() {
            Ok(ip) if !is_public_ip(ip) && !self.allow_private.allows(ip) => {
                Err(format!("refused: {ip} is not a public address"))
            }
            _ => Ok(()),
        }
    }
}

/// The message of an error and its causes (reqwest's own is terse).
fn describe(e: &reqwest::Error) -> String {
    if e.is_timeout() {
        return "timed out".into();
    }
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

#[async_trait]
impl WebhookTransport for HttpWebhookClient {
    async fn post(
        &self,
        url: &str,
        headers: &[(&'static str, String)],
        body: Vec<u8>,
    ) -> Result<ReceiverResponse, String> {
        let parsed = reqwest::Url::parse(url).map_err(|e| format!("invalid URL: {e}"))?;
        self.check_url(&parsed)?;
        let mut request = self.client.post(parsed).header(reqwest::header::USER_AGENT, &self.user_agent).body(body);
        for (name, value) in headers {
            request = request.header(*name, value);
        }
        let mut response = request.send().await.map_err(|e| describe(&e))?;
        let status = response.status().as_u16();
        let mut kept = Vec::new();
        while kept.len() < BODY_KEPT {
            match response.chunk().await {
                Ok(Some(chunk)) => kept.extend_from_slice(&chunk[..chunk.len().min(BODY_KEPT - kept.len())]),
                _ => break,
            }
        }
        Ok(ReceiverResponse { status, body: String::from_utf8_lossy(&kept).into_owned() })
    }
}
