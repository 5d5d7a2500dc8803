//! Every spelling of a loopback, private or otherwise non-public address is
//! refused when private networks are not allowed: IPv4 in one to four
//! parts, each decimal, octal or hex, with a trailing dot, percent-encoded
//! or in full-width characters; IPv6 compressed or not, in either case,
//! with an embedded dotted quad, and the IPv6 forms that embed an IPv4
//! address (mapped, compatible, translated, NAT64, 6to4). Each is put in a
//! URL of one of the shapes browsers accept; when the URL parses, its host
//! is the address meant, and the vetting, the run guard and the webhook
//! receiver check all refuse it.

#![no_main]

use std::collections::HashMap;
use std::fmt::Write;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use svc_domain::net::is_public_ip;
use svc_engine::host_vetting::{Refusal, Resolver, vetted_addresses};
use svc_fuzz::{literal, ready};
use url::Url;

/// Non-public IPv4 ranges: (network, prefix length).
const V4: &[([u8; 4], u32)] = &[
    ([127, 0, 0, 0], 8),
    ([10, 0, 0, 0], 8),
    ([172, 16, 0, 0], 12),
    ([192, 168, 0, 0], 16),
    ([169, 254, 0, 0], 16),
    ([100, 64, 0, 0], 10),
    ([0, 0, 0, 0], 8),
    ([224, 0, 0, 0], 4),
    ([240, 0, 0, 0], 4),
    ([192, 0, 0, 0], 24),
    ([198, 18, 0, 0], 15),
    ([192, 0, 2, 0], 24),
    ([198, 51, 100, 0], 24),
    ([203, 0, 113, 0], 24),
];

/// Non-public IPv6 ranges that embed no IPv4 address.
const V6: &[(u128, u32)] = &[
    (1, 128),                                   // ::1
    (0, 128),                                   // ::
    (0xfc00 << 112, 7),                         // unique local
    (0xfe80 << 112, 10),                        // link-local
    (0xfec0 << 112, 10),                        // site-local
    (0xff00 << 112, 8),                         // multicast
    (0x2001_0db8 << 96, 32),                    // documentation
    (0x0100 << 112, 64),                        // discard-only
    ((0x0064_ff9b_u128 << 96) | (1 << 80), 48), // local-use NAT64
];

#[derive(Arbitrary, Debug)]
enum Address {
    V4 {
        range: u8,
        bits: u32,
    },
    V6 {
        range: u8,
        bits: u128,
    },
    /// A non-public IPv4 address inside an IPv6 one.
    Embedded {
        range: u8,
        bits: u32,
        form: u8,
        rest: u64,
    },
}

#[derive(Arbitrary, Debug)]
struct Input {
    address: Address,
    /// How to spell it (read bit by bit).
    spelling: u64,
    scheme: u8,
    userinfo: u8,
    port: Option<u16>,
    path: u8,
}

fn in_range(network: u128, prefix: u32, bits: u128, width: u32) -> u128 {
    let host_mask = if prefix >= width { 0 } else { (!0u128 >> (128 - width + prefix)) & (!0u128 >> (128 - width)) };
    (network & !host_mask) | (bits & host_mask)
}

fn v4(range: u8, bits: u32) -> Ipv4Addr {
    let (network, prefix) = V4[usize::from(range) % V4.len()];
    Ipv4Addr::from(in_range(u128::from(u32::from(Ipv4Addr::from(network))), prefix, u128::from(bits), 32) as u32)
}

fn address(a: &Address) -> IpAddr {
    match *a {
        Address::V4 { range, bits } => IpAddr::V4(v4(range, bits)),
        Address::V6 { range, bits } => {
            let (network, prefix) = V6[usize::from(range) % V6.len()];
            IpAddr::V6(Ipv6Addr::from(in_range(network, prefix, bits, 128)))
        }
        Address::Embedded { range, bits, form, rest } => {
            let ip = u128::from(u32::from(v4(range, bits)));
            IpAddr::V6(Ipv6Addr::from(match form % 5 {
                0 => (0xffff << 32) | ip,                                                // ::ffff:a.b.c.d
                1 => ip.max(2),                                                          // ::a.b.c.d (not :: or ::1)
                2 => (0xffff << 48) | ip,                                                // ::ffff:0:a.b.c.d
                3 => (0x0064_ff9b << 96) | ip,                                           // 64:ff9b::a.b.c.d
                _ => (0x2002 << 112) | (ip << 80) | u128::from(rest & 0xffff_ffff_ffff), // 2002:AABB:CCDD::/48
            }))
        }
    }
}

/// Reads the spelling choices a few bits at a time.
struct Bits(u64);

impl Bits {
    fn take(&mut self, n: u32) -> u64 {
        let v = self.0 & ((1 << n) - 1);
        self.0 = self.0.rotate_right(n);
        v
    }
    fn flag(&mut self) -> bool {
        self.take(1) == 1
    }
}

/// One part of a WHATWG IPv4 address: decimal, octal (leading 0) or hex (0x).
fn v4_part(n: u32, bits: &mut Bits) -> String {
    match bits.take(2) {
        0 | 1 => n.to_string(),
        2 => format!("0{n:o}"),
        _ => {
            let x = if bits.flag() { "0X" } else { "0x" };
            let zeros = "0".repeat(bits.take(2) as usize);
            if bits.flag() { format!("{x}{zeros}{n:X}") } else { format!("{x}{zeros}{n:x}") }
        }
    }
}

fn spell_v4(ip: Ipv4Addr, bits: &mut Bits) -> String {
    let [a, b, c, d] = ip.octets().map(u32::from);
    let parts = match bits.take(2) {
        0 => vec![u32::from(ip)],
        1 => vec![a, (b << 16) | (c << 8) | d],
        2 => vec![a, b, (c << 8) | d],
        _ => vec![a, b, c, d],
    };
    let mut s = parts.iter().map(|&n| v4_part(n, bits)).collect::<Vec<_>>().join(".");
    if bits.flag() {
        s.push('.');
    }
    s
}

fn spell_v6(ip: Ipv6Addr, bits: &mut Bits) -> String {
    let groups = ip.segments();
    let s = match bits.take(2) {
        0 => ip.to_string(),
        1 => groups.iter().map(|g| format!("{g:04x}")).collect::<Vec<_>>().join(":"),
        2 => {
            // Six groups and the last 32 bits as a dotted quad.
            let [.., c, d, e, f] = ip.octets();
            let head = groups[..6].iter().map(|g| format!("{g:x}")).collect::<Vec<_>>().join(":");
            format!("{head}:{c}.{d}.{e}.{f}")
        }
        _ => {
            // One run of zero groups (any, not only the longest) as `::`.
            let zeros: Vec<usize> = (0..8).filter(|&i| groups[i] == 0).collect();
            if zeros.is_empty() {
                groups.iter().map(|g| format!("{g:x}")).collect::<Vec<_>>().join(":")
            } else {
                let start = zeros[bits.take(3) as usize % zeros.len()];
                let end = (start..8).take_while(|&i| groups[i] == 0).last().unwrap() + 1;
                let part = |r: &[u16]| r.iter().map(|g| format!("{g:x}")).collect::<Vec<_>>().join(":");
                format!("{}::{}", part(&groups[..start]), part(&groups[end..]))
            }
        }
    };
    if bits.flag() { s.to_uppercase() } else { s }
}

/// Percent-encodes some characters, or writes some in full width (which
/// IDNA maps back), as a browser's host parser undoes both.
fn disguise(s: &str, bits: &mut Bits) -> String {
    let mode = bits.take(2);
    let mut out = String::new();
    for c in s.chars() {
        let pick = bits.flag();
        match (mode, pick) {
            (1, true) => {
                let mut buf = [0; 4];
                for b in c.encode_utf8(&mut buf).bytes() {
                    write!(out, "%{b:02X}").unwrap();
                }
            }
            (2, true) => out.push(match c {
                '0'..='9' | 'a'..='z' | 'A'..='Z' => char::from_u32(u32::from(c) - 0x21 + 0xFF01).unwrap(),
                '.' => ['。', '．', '｡'][bits.take(1) as usize + usize::from(bits.flag())],
                other => other,
            }),
            _ => out.push(c),
        }
    }
    out
}

fuzz_target!(|input: Input| {
    let ip = address(&input.address);
    assert!(!is_public_ip(ip), "{ip} is in a non-public range");
    let mut bits = Bits(input.spelling);

    let host = match ip {
        IpAddr::V4(v4) => disguise(&spell_v4(v4, &mut bits), &mut bits),
        IpAddr::V6(v6) => format!("[{}]", spell_v6(v6, &mut bits)),
    };
    let port = input.port.unwrap_or(80);
    let no_dns = Resolver::fixed(HashMap::new());

    // The host as a CONNECT request or a resolver would get it.
    match ready(vetted_addresses(&host, port, &Default::default(), &no_dns)) {
        Err(Refusal::Private { .. } | Refusal::Unresolved(_)) => {}
        other => panic!("{host} ({ip}) was not refused: {other:?}"),
    }

    let scheme = ["http://", "https://", "HTTP://", "hTTpS://", "http:\\\\", "https:/", "http:", "https:\\/"]
        [usize::from(input.scheme) % 8];
    let userinfo = ["", "", "user@", "user:pass@", "@", ":@", "a%40b@"][usize::from(input.userinfo) % 7];
    let port_text = match input.port {
        Some(p) => format!(":{p}"),
        None => String::new(),
    };
    let path = ["/", "", "/x?y#z", "#f", "?q", "\\a", "/..%2f"][usize::from(input.path) % 7];
    let text = format!("{scheme}{userinfo}{host}{port_text}{path}");
    let Ok(url) = Url::parse(&text) else { return };

    let parsed = literal(&url);
    assert_eq!(parsed, Some(ip), "{text:?} is read as {:?}, not as {ip}", url.host());
    let url_port = url.port_or_known_default().unwrap_or(80);
    match ready(vetted_addresses(url.host_str().unwrap(), url_port, &Default::default(), &no_dns)) {
        Err(Refusal::Private { ip: refused, .. }) => assert_eq!(refused, ip),
        other => panic!("{text:?} ({ip}) was not refused: {other:?}"),
    }
    assert!(
        ready(vetted_addresses(
            url.host_str().unwrap(),
            url_port,
            &svc_engine::host_vetting::PrivateNetworks::All,
            &no_dns
        ))
        .is_ok()
    );
    // The real guards (an address literal: they resolve nothing).
    let run = ready(svc_runner::net_guard::check(&text, &Default::default()));
    assert!(matches!(run, Err(Refusal::Private { .. })), "the run guard let {text:?} ({ip}) through: {run:?}");
    assert!(
        ready(svc_service::outbox::webhooks::check_webhook_url(&text, &Default::default())).is_err(),
        "receiver {text:?} accepted"
    );
});
