//! Which URLs a run may load: http(s) only, and (unless private networks are
//! allowed) only hosts whose every address is public.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use url::Url;

/// True for addresses on the public internet.
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => is_public_v4(v4),
            None => is_public_v6(v6),
        },
    }
}

fn is_public_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    !(ip.is_unspecified()
        || ip.is_loopback()
        || ip.is_private()
        || ip.is_link_local()
        || ip.is_broadcast()
        || ip.is_multicast()
        || ip.is_documentation()
        || a == 0
        || (a == 100 && (64..128).contains(&b)) // shared address space (CGNAT)
        || (a == 192 && b == 0 && c == 0) // IETF protocol assignments
        || (a == 198 && (b == 18 || b == 19)) // benchmarking
        || a >= 240) // reserved
}

fn is_public_v6(ip: Ipv6Addr) -> bool {
    let first = ip.segments()[0];
    !(ip.is_unspecified()
        || ip.is_loopback()
        || ip.is_multicast()
        || (first & 0xfe00) == 0xfc00 // unique local
        || (first & 0xffc0) == 0xfe80 // link-local
        || first == 0x2001 && ip.segments()[1] == 0x0db8) // documentation
}

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
    match ips.into_iter().find(|ip| !is_public(*ip)) {
        Some(ip) => Err(Refusal::Private { host: host.to_string(), ip }),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn private_and_special_addresses_are_not_public() {
        for ip in [
            "127.0.0.1", "10.1.2.3", "172.16.0.1", "192.168.1.1", "169.254.169.254", "0.0.0.0", "100.64.0.1",
            "255.255.255.255", "224.0.0.1", "::1", "::", "fc00::1", "fd12::1", "fe80::1", "::ffff:127.0.0.1",
            "::ffff:169.254.169.254",
        ] {
            assert!(!is_public(ip.parse().unwrap()), "{ip}");
        }
        for ip in ["93.184.216.34", "1.1.1.1", "2606:4700:4700::1111", "::ffff:8.8.8.8"] {
            assert!(is_public(ip.parse().unwrap()), "{ip}");
        }
    }

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
