//! Which URLs a run may load: http(s) only, and (unless private networks are
//! allowed) only hosts whose every address is public.

use std::net::IpAddr;

use url::Url;

use svc_domain::net::is_public_ip;

/// Why a URL may not be loaded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("only http and https URLs are loaded, not `{0}:`")]
    Scheme(String),
    #[error("the URL has no host")]
    NoHost,
    #[error("`{host}` resolves to the non-public address {ip}; set SVC_ALLOW_PRIVATE_NETWORKS=true to allow it")]
    Private { host: String, ip: IpAddr },
    #[error("`{0}` does not resolve")]
    Unresolved(String),
}

/// Checks scheme and host. With `allow_private`, only the scheme is checked.
pub async fn check(url: &str, allow_private: bool) -> Result<(), Refusal> {
    let parsed = Url::parse(url).map_err(|_| Refusal::NoHost)?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(Refusal::Scheme(parsed.scheme().to_string()));
    }
    if allow_private {
        return Ok(());
    }
    let host = parsed.host().ok_or(Refusal::NoHost)?;
    let ips: Vec<IpAddr> = match host {
        url::Host::Ipv4(ip) => vec![IpAddr::V4(ip)],
        url::Host::Ipv6(ip) => vec![IpAddr::V6(ip)],
        url::Host::Domain(name) => {
            let port = parsed.port_or_known_default().unwrap_or(80);
            tokio::net::lookup_host((name, port))
                .await
                .map_err(|_| Refusal::Unresolved(name.to_string()))?
                .map(|addr| addr.ip())
                .collect()
        }
    };
    if ips.is_empty() {
        return Err(Refusal::Unresolved(host.to_string()));
    }
    match ips.into_iter().find(|ip| !is_public_ip(*ip)) {
        Some(ip) => Err(Refusal::Private { host: host.to_string(), ip }),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn schemes_and_hosts() {
        assert!(matches!(check("file:///etc/passwd", true).await, Err(Refusal::Scheme(_))));
        assert!(matches!(check("chrome://settings", true).await, Err(Refusal::Scheme(_))));
        assert!(matches!(check("javascript:alert(1)", true).await, Err(Refusal::Scheme(_))));
        assert!(check("http://127.0.0.1:8080/", true).await.is_ok());
        assert!(matches!(check("http://127.0.0.1:8080/", false).await, Err(Refusal::Private { .. })));
        assert!(matches!(check("http://169.254.169.254/latest/meta-data", false).await, Err(Refusal::Private { .. })));
        assert!(matches!(check("http://[::1]/", false).await, Err(Refusal::Private { .. })));
        assert!(matches!(check("http://localhost/", false).await, Err(Refusal::Private { .. })));
    }
}
