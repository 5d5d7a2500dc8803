//! The client's IP: the socket peer, unless the peer is a trusted proxy
//! (`SVC_TRUSTED_PROXIES`), in which case the right-most address of
//! `X-Forwarded-For` that is not itself a trusted proxy.

use std::net::{IpAddr, Ipv4Addr};

use axum::http::HeaderMap;
use ipnet::IpNet;

pub(crate) fn client_ip(peer: Option<IpAddr>, headers: &HeaderMap, trusted: &[IpNet]) -> IpAddr {
    let peer = peer.unwrap_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED));
    let is_trusted = |ip: &IpAddr| trusted.iter().any(|net| net.contains(ip));
    if !is_trusted(&peer) {
        return peer;
    }
    let forwarded: Vec<IpAddr> = headers
        .get_all("x-forwarded-for")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .filter_map(|s| s.trim().parse().ok())
        .collect();
    forwarded.into_iter().rev().find(|ip| !is_trusted(ip)).unwrap_or(peer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forwarded_for_is_believed_only_from_trusted_proxies() {
        let trusted: Vec<IpNet> = vec!["10.0.0.0/8".parse().unwrap()];
        let mut headers = HeaderMap::new();
        headers.insert("x-forwarded-for", "203.0.113.9, 198.51.100.7, 10.0.0.5".parse().unwrap());
        let proxy: IpAddr = "10.1.1.1".parse().unwrap();
        let stranger: IpAddr = "192.0.2.44".parse().unwrap();
        assert_eq!(client_ip(Some(proxy), &headers, &trusted), "198.51.100.7".parse::<IpAddr>().unwrap());
        assert_eq!(client_ip(Some(stranger), &headers, &trusted), stranger, "a spoofed header from anyone else");
        assert_eq!(client_ip(Some(proxy), &HeaderMap::new(), &trusted), proxy);
        assert_eq!(client_ip(Some(stranger), &headers, &[]), stranger);
    }
}
