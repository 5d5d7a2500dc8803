//! URL and host vetting of arbitrary text (svc_engine::host_vetting, the
//! run guard svc_runner::net_guard, webhook receivers'
//! svc_service::outbox::webhooks::check_webhook_url): no panic, and nothing
//! non-public is let through unless private networks are allowed.
//!
//! Names resolve through fixed answers (no DNS); the guards that use the
//! system resolver are only given URLs whose host is an address literal,
//! or that they refuse before resolving.

#![no_main]

use std::collections::HashMap;
use std::net::IpAddr;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use svc_domain::net::is_public_ip;
use svc_engine::host_vetting::{PrivateNetworks, Refusal, Resolver, bare_host, vetted_addresses};
use svc_fuzz::{literal, ready};
use url::Url;

#[derive(Arbitrary, Debug)]
struct Input {
    text: String,
    port: u16,
    allow_private: bool,
}

fn resolver() -> Resolver {
    let ip = |s: &str| s.parse::<IpAddr>().unwrap();
    Resolver::fixed(HashMap::from([
        ("public.example".to_string(), vec![ip("93.184.216.34")]),
        ("private.example".to_string(), vec![ip("10.0.0.1")]),
        ("mixed.example".to_string(), vec![ip("93.184.216.34"), ip("127.0.0.1")]),
        ("v6.example".to_string(), vec![ip("2606:4700:4700::1111"), ip("::ffff:169.254.169.254")]),
        ("localhost".to_string(), vec![ip("127.0.0.1"), ip("::1")]),
    ]))
}

/// The vetting of `host` keeps its promises.
fn vet(host: &str, port: u16, allow_private: bool, resolver: &Resolver) {
    let bare = bare_host(host);
    assert!(host.contains(bare));
    let result = ready(vetted_addresses(host, port, &allow_private.into(), resolver));
    match &result {
        Ok(addrs) => {
            assert!(!addrs.is_empty());
            assert!(addrs.iter().all(|a| a.port() == port));
            if !allow_private {
                assert!(addrs.iter().all(|a| is_public_ip(a.ip())), "{host:?} let through: {addrs:?}");
            }
        }
        Err(Refusal::Private { ip, .. }) => assert!(!allow_private && !is_public_ip(*ip)),
        Err(Refusal::Unresolved(_)) => {}
        Err(other) => panic!("vetting refused {host:?} with {other:?}"),
    }
    if let Ok(ip) = bare.parse::<IpAddr>() {
        let expected_ok = allow_private || is_public_ip(ip);
        assert_eq!(result.is_ok(), expected_ok, "{host:?} as {ip}: {result:?}");
        if let Ok(addrs) = &result {
            assert_eq!(addrs.len(), 1);
            assert_eq!(addrs[0].ip(), ip);
        }
    }
}

fuzz_target!(|input: Input| {
    let resolver = resolver();
    let text = input.text.as_str();
    vet(text, input.port, input.allow_private, &resolver);

    // The run guard (it parses the text as it is).
    let parsed = Url::parse(text).ok();
    if let Some(host) = parsed.as_ref().and_then(|u| u.host_str()) {
        let port = parsed.as_ref().and_then(|u| u.port_or_known_default()).unwrap_or(80);
        vet(host, port, false, &resolver);
        vet(host, port, true, &resolver);
    }
    let http = |u: &Url| matches!(u.scheme(), "http" | "https");
    // With private networks allowed, nothing is resolved: the scheme decides.
    let run = ready(svc_runner::net_guard::check(text, &PrivateNetworks::All));
    assert_eq!(run.is_ok(), parsed.as_ref().is_some_and(http), "{text:?}: {run:?}");
    // Without, only what needs no DNS: not a URL, not http(s), or an address literal.
    let run_literal = parsed.as_ref().and_then(literal);
    if parsed.as_ref().is_none_or(|u| !http(u) || run_literal.is_some()) {
        let run = ready(svc_runner::net_guard::check(text, &PrivateNetworks::None));
        let expected = parsed.as_ref().is_some_and(http) && run_literal.is_some_and(is_public_ip);
        assert_eq!(run.is_ok(), expected, "the run guard on {text:?} ({run_literal:?}): {run:?}");
    }

    // Webhook receivers (the text is trimmed first).
    let hook_url = Url::parse(text.trim()).ok();
    let webhook = ready(svc_service::outbox::webhooks::check_webhook_url(text, &PrivateNetworks::All));
    if webhook.is_ok() {
        let u = hook_url.as_ref().expect("an accepted receiver is a URL");
        assert!(
            http(u) && u.host_str().is_some_and(|h| !h.is_empty()) && u.username().is_empty() && u.password().is_none()
        );
    }
    let Some(u) = hook_url else { return };
    let hook_literal = literal(&u);
    let host_empty = u.host_str().is_none_or(str::is_empty);
    let credentials = !u.username().is_empty() || u.password().is_some();
    if u.scheme() != "https" || hook_literal.is_some() || host_empty || credentials {
        let webhook = ready(svc_service::outbox::webhooks::check_webhook_url(text, &PrivateNetworks::None));
        let expected = u.scheme() == "https" && !credentials && hook_literal.is_some_and(is_public_ip);
        assert_eq!(webhook.is_ok(), expected, "the receiver {text:?} ({hook_literal:?}): {webhook:?}");
    }
});
