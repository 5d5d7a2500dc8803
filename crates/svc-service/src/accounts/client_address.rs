//! The client's IP address, for per-IP limits: the socket peer, unless the
//! peer is a trusted proxy (`SVC_TRUSTED_PROXIES`), in which case the
//! right-most `X-Forwarded-For` address that is not itself a trusted proxy.
//! Pure; the HTTP adapters hand in the header values.
//!
//! Per-address limits count a client by [`limit_key`]: its IPv4 address, or
//! the /64 network of its IPv6 address (one subscriber's share, and as many
//! addresses as anyone could want).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

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

/// The network a per-address limit counts `ip` in: an IPv4 address itself
/// (an IPv4-mapped IPv6 address too), an IPv6 address's /64.
pub fn limited_network(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(v4) => IpAddr::V4(v4),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6(Ipv6Addr::from(u128::from(v6) & !((1u128 << 64) - 1))),
        },
    }
}

/// The text naming [`limited_network`] in a bucket: `203.0.113.9`,
/// `2001:db8:1:2::/64`.
pub fn limit_key(ip: IpAddr) -> String {
    match limited_network(ip) {
        IpAddr::V4(v4) => v4.to_string(),
        IpAddr::V6(v6) => format!("{v6}/64"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ipv6_clients_are_counted_by_their_64() {
        let key = |s: &str| limit_key(s.parse().unwrap());
        assert_eq!(key("203.0.113.9"), "203.0.113.9");
        assert_eq!(key("::ffff:203.0.113.9"), "203.0.113.9", "IPv4-mapped");
        assert_eq!(key("2001:db8:1:2::1"), "2001:db8:1:2::/64");
        assert_eq!(key("2001:db8:1:2:ffff:ffff:ffff:ffff"), "2001:db8:1:2::/64", "one /64, one key");
        assert_ne!(key("2001:db8:1:3::1"), key("2001:db8:1:2::1"), "the next /64 is another client");
        assert_eq!(key("::1"), "::/64");
    }

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
