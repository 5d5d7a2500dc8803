//! Properties of the pure parts that take untrusted input, checked on
//! generated input (proptest, bounded so that the normal test run stays
//! quick): no panics, and the invariants each promises.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use chrono::{DateTime, TimeZone, Utc};
use proptest::prelude::*;

use crate::outbox::data_export::csv;
use crate::outbox::webhook_signing::{hex_signature, standard_signature, verify_hex, verify_standard};
use crate::schedule::cron::{next_fire, parse};
use svc_engine::host_vetting::{Resolver, vetted_addresses};

fn config() -> ProptestConfig {
    ProptestConfig { cases: 128, ..ProptestConfig::default() }
}

/// Cron fields the way people write them.
fn cron_field(max: u32, min: u32) -> impl Strategy<Value = String> {
    prop_oneof![
        Just("*".to_string()),
        (min..=max).prop_map(|n| n.to_string()),
        (1..=max.max(2)).prop_map(|n| format!("*/{n}")),
        (min..=max, min..=max).prop_map(|(a, b)| format!("{}-{}", a.min(b), a.max(b))),
        prop::collection::vec(min..=max, 1..4).prop_map(|v| v.iter().map(u32::to_string).collect::<Vec<_>>().join(",")),
    ]
}

fn cron_expr() -> impl Strategy<Value = String> {
    (cron_field(59, 0), cron_field(23, 0), cron_field(28, 1), cron_field(12, 1), cron_field(6, 0))
        .prop_map(|(m, h, d, mo, w)| format!("{m} {h} {d} {mo} {w}"))
}

fn instant() -> impl Strategy<Value = DateTime<Utc>> {
    // 1971 to 2099.
    (31_536_000i64..4_102_444_800).prop_map(|s| Utc.timestamp_opt(s, 0).single().expect("in range"))
}

fn zone() -> impl Strategy<Value = chrono_tz::Tz> {
    (0..chrono_tz::TZ_VARIANTS.len()).prop_map(|i| chrono_tz::TZ_VARIANTS[i])
}

/// A private, loopback, link-local or otherwise non-public IPv4 address.
fn private_v4() -> impl Strategy<Value = Ipv4Addr> {
    prop_oneof![
        any::<[u8; 3]>().prop_map(|[a, b, c]| Ipv4Addr::new(127, a, b, c)),
        any::<[u8; 3]>().prop_map(|[a, b, c]| Ipv4Addr::new(10, a, b, c)),
        (16u8..32, any::<[u8; 2]>()).prop_map(|(a, [b, c])| Ipv4Addr::new(172, a, b, c)),
        any::<[u8; 2]>().prop_map(|[b, c]| Ipv4Addr::new(192, 168, b, c)),
        any::<[u8; 2]>().prop_map(|[b, c]| Ipv4Addr::new(169, 254, b, c)),
        (64u8..128, any::<[u8; 2]>()).prop_map(|(a, [b, c])| Ipv4Addr::new(100, a, b, c)),
        any::<[u8; 3]>().prop_map(|[a, b, c]| Ipv4Addr::new(0, a, b, c)),
    ]
}

/// The ways a URL may spell an IPv4 address (the URL parser normalizes them).
fn spellings(ip: Ipv4Addr) -> Vec<String> {
    let [a, b, c, d] = ip.octets();
    let n = u32::from(ip);
    vec![
        ip.to_string(),
        n.to_string(),
        format!("0x{n:x}"),
        format!("0{n:o}"),
        format!("0x{a:x}.0x{b:x}.0x{c:x}.0x{d:x}"),
        format!("{a}.{}", (u32::from(b) << 16) | (u32::from(c) << 8) | u32::from(d)),
        format!("[::ffff:{ip}]"),
        format!("[{}]", ip.to_ipv6_mapped()),
    ]
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn the_next_firing_is_always_after_now(expr in cron_expr(), tz in zone(), after in instant()) {
        let cron = parse(&expr).expect("generated expressions are valid");
        if let Some(next) = next_fire(&cron, tz, after) {
            prop_assert!(next > after, "{expr} in {tz}: {next} is not after {after}");
            if let Some(again) = next_fire(&cron, tz, next) {
                prop_assert!(again > next);
            }
        }
    }

    #[test]
    fn any_text_is_parsed_or_refused_without_panic(text in "\\PC{0,60}") {
        let _ = parse(&text);
    }

    #[test]
    fn every_spelling_of_a_private_address_is_refused(ip in private_v4(), port in 1u16..) {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let resolver = Resolver::fixed(HashMap::new());
        let mut checked = 0;
        for spelling in spellings(ip) {
            let Ok(url) = url::Url::parse(&format!("http://{spelling}:{port}/")) else { continue };
            checked += 1;
            let host = url.host_str().expect("an address").to_string();
            let refused = runtime.block_on(vetted_addresses(&host, port, &Default::default(), &resolver));
            prop_assert!(refused.is_err(), "{spelling} (as {host}) was let through");
        }
        prop_assert!(checked >= 6, "most spellings are URLs: {checked}");
        let v6 = IpAddr::V6(ip.to_ipv6_mapped());
        prop_assert!(!svc_domain::net::is_public_ip(v6));
    }

    #[test]
    fn private_v6_ranges_are_refused(bits in any::<u128>()) {
        let loopback = Ipv6Addr::LOCALHOST;
        let unique_local = Ipv6Addr::from((0xfc00u128 << 112) | (bits >> 7));
        let link_local = Ipv6Addr::from((0xfe80u128 << 112) | (bits >> 10));
        for ip in [loopback, unique_local, link_local] {
            prop_assert!(!svc_domain::net::is_public_ip(IpAddr::V6(ip)), "{ip}");
        }
    }

    #[test]
    fn a_flipped_byte_breaks_a_webhook_signature(
        secret in "whsec_[A-Za-z0-9]{8,40}",
        body in prop::collection::vec(any::<u8>(), 1..512),
        at in any::<prop::sample::Index>(),
        bit in 0u8..8,
    ) {
        let hex = hex_signature(&secret, &body);
        prop_assert!(verify_hex(&secret, &body, &hex));
        let mut altered = body.clone();
        let i = at.index(altered.len());
        altered[i] ^= 1 << bit;
        prop_assert!(!verify_hex(&secret, &altered, &hex));
        let now = 1_800_000_000;
        let standard = standard_signature(&secret, "msg_1", now, &body);
        prop_assert!(verify_standard(&secret, "msg_1", now, &body, &standard, now));
        prop_assert!(!verify_standard(&secret, "msg_1", now, &altered, &standard, now));
        prop_assert!(!verify_standard(&secret, "msg_2", now, &body, &standard, now), "the id is signed");
        let mut sig = hex.into_bytes();
        let j = at.index(sig.len());
        sig[j] = if sig[j] == b'0' { b'1' } else { b'0' };
        prop_assert!(!verify_hex(&secret, &body, &String::from_utf8(sig).unwrap()));
    }

    #[test]
    fn csv_of_any_data_is_well_formed(items in prop::collection::vec(
        prop::collection::hash_map("[a-z\",\\r\\n ]{0,6}", "\\PC{0,12}|[\",\\r\\n]{0,4}", 0..5), 0..8)
    ) {
        let json = serde_json::to_string(&items).unwrap();
        let out = csv::from_json(&json).expect("an array of objects");
        if !out.is_empty() {
            prop_assert!(out.ends_with("\r\n"), "every record ends with CRLF");
            // Quotes balance: every field that holds a quote, comma or line break is quoted.
            prop_assert_eq!(out.matches('"').count() % 2, 0);
        }
    }

    #[test]
    fn csv_of_any_json_text_is_data_or_an_error(text in "\\PC{0,80}") {
        let _ = csv::from_json(&text);
    }
}
