//! Which URLs a run may load: http(s) only, and (unless private networks
//! are allowed) only hosts that pass [`svc_engine::host_vetting`], which
//! the egress proxy applies again to the hosts it dials.

use svc_engine::host_vetting::{PrivateNetworks, Refusal, Resolver, vetted_addresses};
use url::Url;

/// Checks scheme and host. With every private network allowed, only the
/// scheme is checked.
pub async fn check(url: &str, allow_private: &PrivateNetworks) -> Result<(), Refusal> {
    let parsed = Url::parse(url).map_err(|_| Refusal::NoHost)?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(Refusal::Scheme(parsed.scheme().to_string()));
    }
    if allow_private.all() {
        return Ok(());
    }
    let host = parsed.host_str().ok_or(Refusal::NoHost)?;
    let port = parsed.port_or_known_default().unwrap_or(80);
    vetted_addresses(host, port, allow_private, &Resolver::default()).await.map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn schemes_and_hosts() {
        let (all, none) = (PrivateNetworks::All, PrivateNetworks::None);
        assert!(matches!(check("file:///etc/passwd", &all).await, Err(Refusal::Scheme(_))));
        assert!(matches!(check("chrome://settings", &all).await, Err(Refusal::Scheme(_))));
        assert!(matches!(check("javascript:alert(1)", &all).await, Err(Refusal::Scheme(_))));
        assert!(check("http://127.0.0.1:8080/", &all).await.is_ok());
        assert!(matches!(check("http://127.0.0.1:8080/", &none).await, Err(Refusal::Private { .. })));
        assert!(matches!(check("http://169.254.169.254/latest/meta-data", &none).await, Err(Refusal::Private { .. })));
        assert!(matches!(check("http://[::1]/", &none).await, Err(Refusal::Private { .. })));
        assert!(matches!(check("http://localhost/", &none).await, Err(Refusal::Private { .. })));
        // A list opens its ranges only: not the metadata address, not loopback.
        let intranet = PrivateNetworks::parse("10.0.0.0/8, 192.168.1.7").unwrap();
        assert!(check("http://10.20.30.40/", &intranet).await.is_ok());
        assert!(check("http://192.168.1.7:8080/", &intranet).await.is_ok());
        assert!(matches!(check("http://192.168.1.8/", &intranet).await, Err(Refusal::Private { .. })));
        assert!(matches!(check("http://169.254.169.254/", &intranet).await, Err(Refusal::Private { .. })));
        assert!(matches!(check("http://127.0.0.1/", &intranet).await, Err(Refusal::Private { .. })));
    }
}
