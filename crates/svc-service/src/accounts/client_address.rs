//! The client's IP address, for per-IP limits: the socket peer, unless the
//! peer is a trusted proxy (`SVC_TRUSTED_PROXIES`), in which case the
//! right-most `X-Forwarded-For` address that is not itself a trusted proxy.
//! Pure; the HTTP adapters hand in the header values.

use std::net::{IpAddr, Ipv4Addr};

use ipnet::IpNet;

/// `forwarded_for`: every `X-Forwarded-For` header value, in order.
pub fn client_ip<'a>(
    peer: Option<IpAddr>,
    forwarded_for: impl IntoIterator<Item = &'a str>,
    trusted: &[IpNet],
) -> IpAddr {
    let peer = peer.unwrap_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED));
    let is_trusted = |ip: &IpAddr| trusted.iter().any(|net| net.contains(ip));
    if !is_trusted(&peer) {
        return peer;
    }
    let forwarded: Vec<IpAddr> =
        forwarded_for.into_iter().flat_map(|v| v.split(',')).filter_map(|s| s.trim().parse().ok()).collect();
    forwarded.into_iter().rev().find(|ip| !is_trusted(ip)).unwrap_or(peer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forwarded_for_is_believed_only_from_trusted_proxies() {
        let trusted: Vec<IpNet> = vec!["10.0.0.0/8".parse().unwrap()];
        let header = ["203.0.113.9, 198.51.100.7, 10.0.0.5"];
        let proxy: IpAddr = "10.1.1.1".parse().unwrap();
        let stranger: IpAddr = "192.0.2.44".parse().unwrap();
        assert_eq!(client_ip(Some(proxy), header, &trusted), "198.51.100.7".parse::<IpAddr>().unwrap());
        assert_eq!(client_ip(Some(stranger), header, &trusted), stranger, "a spoofed header from anyone else");
        assert_eq!(client_ip(Some(proxy), [], &trusted), proxy);
        assert_eq!(client_ip(Some(stranger), header, &[]), stranger);
        assert_eq!(client_ip(None, [], &[]), IpAddr::V4(Ipv4Addr::UNSPECIFIED));
    }
}
