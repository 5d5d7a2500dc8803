//! Which URLs a run may load: http(s) only, and (unless private networks
//! are allowed) only hosts that pass [`svc_engine::host_vetting`], which
//! the egress proxy applies again to the hosts it dials.

use svc_engine::host_vetting::{Refusal, Resolver, vetted_addresses};
use url::Url;

/// Checks scheme and host. With `allow_private`, only the scheme is checked.
pub async fn check(url: &str, allow_private: bool) -> Result<(), Refusal> {
    let parsed = Url::parse(url).map_err(|_| Refusal::NoHost)?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(Refusal::Scheme(parsed.scheme().to_string()));
    }
    if allow_private {
        return Ok(());
    }
    let host = parsed.host_str().ok_or(Refusal::NoHost)?;
    let port = parsed.port_or_known_default().unwrap_or(80);
    vetted_addresses(host, port, false, &Resolver::default()).await.map(|_| ())
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
