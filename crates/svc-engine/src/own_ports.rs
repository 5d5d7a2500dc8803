//! The loopback ports svc's own parts listen on (each browser's DevTools
//! port, each egress proxy): no page, script or fetch may reach them,
//! whatever `SVC_ALLOW_PRIVATE_NETWORKS` allows. A page that reached the
//! DevTools port would drive the browser, and with it every other run's
//! pages; one that reached an egress proxy would send its traffic out
//! through a path meant for another tier.
//!
//! Process-wide: a part claims the address it listens on when it starts
//! listening and the claim ends when the [`OwnPort`] is dropped (so that a
//! port the kernel later gives to someone else is not refused). [`is_own`]
//! is consulted by `host_vetting::vetted_addresses`, which every outgoing
//! path calls.
//!
//! A claim is on the address, not only the port: a listener bound to
//! `127.0.0.1:P` is not reached by a connection to `127.0.0.10:P`, a
//! different socket another program (a local site, in the fleet benchmark)
//! may hold. A listener bound to an unspecified address is reached on every
//! loopback address, and a connection to an unspecified address reaches the
//! local host's listeners whatever they are bound to.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Mutex, MutexGuard};

/// Claims on each address (two parts may, in tests, claim the same one).
static CLAIMED: Mutex<Option<HashMap<SocketAddr, usize>>> = Mutex::new(None);

fn claimed() -> MutexGuard<'static, Option<HashMap<SocketAddr, usize>>> {
    CLAIMED.lock().unwrap_or_else(|e| e.into_inner())
}

/// A claim on a loopback address of svc's own; released when dropped.
#[derive(Debug)]
pub struct OwnPort(SocketAddr);

impl OwnPort {
    /// Claims `addr`, on which a part of svc listens.
    pub fn claim(addr: SocketAddr) -> OwnPort {
        let addr = SocketAddr::new(canonical(addr.ip()), addr.port());
        *claimed().get_or_insert_with(HashMap::new).entry(addr).or_insert(0) += 1;
        OwnPort(addr)
    }

    pub fn port(&self) -> u16 {
        self.0.port()
    }
}

impl Drop for OwnPort {
    fn drop(&mut self) {
        let mut claimed = claimed();
        if let Some(claims) = claimed.as_mut()
            && let Some(count) = claims.get_mut(&self.0)
        {
            *count -= 1;
            if *count == 0 {
                claims.remove(&self.0);
            }
        }
    }
}

/// An IPv4-mapped IPv6 address as the IPv4 address it stands for.
fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map(IpAddr::V4).unwrap_or(IpAddr::V6(v6)),
        v4 => v4,
    }
}

/// Whether connecting to `addr` would reach one of svc's own listeners: a
/// claimed address itself, any address on a claimed port when one of the
/// two is unspecified (Linux connects `0.0.0.0` to the local host; a
/// listener on `0.0.0.0` takes every local address), IPv4-mapped IPv6
/// included. Only loopback and unspecified targets can be own.
pub fn is_own(addr: SocketAddr) -> bool {
    let ip = canonical(addr.ip());
    if !(ip.is_loopback() || ip.is_unspecified()) {
        return false;
    }
    claimed().as_ref().is_some_and(|claims| {
        claims.keys().any(|own| {
            own.port() == addr.port() && (own.ip() == ip || own.ip().is_unspecified() || ip.is_unspecified())
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> SocketAddr {
        text.parse().unwrap()
    }

    #[test]
    fn a_claimed_loopback_address_is_own_until_released() {
        // Port numbers no other test of this crate claims.
        assert!(!is_own(at("127.0.0.1:1")));
        let claim = OwnPort::claim(at("127.0.0.1:1"));
        let second = OwnPort::claim(at("127.0.0.1:1"));
        for own in ["127.0.0.1:1", "0.0.0.0:1", "[::]:1", "[::ffff:127.0.0.1]:1"] {
            assert!(is_own(at(own)), "{own}");
        }
        // Another loopback address on the same port is another socket.
        for other in ["127.3.4.5:1", "[::1]:1", "127.0.0.1:2", "10.0.0.1:1", "93.184.216.34:1", "[2001:db8::1]:1"] {
            assert!(!is_own(at(other)), "{other}");
        }
        drop(claim);
        assert!(is_own(at("127.0.0.1:1")), "still claimed once");
        drop(second);
        assert!(!is_own(at("127.0.0.1:1")), "released");
    }

    #[test]
    fn a_listener_on_every_address_is_reached_on_any_loopback_address() {
        let claim = OwnPort::claim(at("0.0.0.0:3"));
        for own in ["127.0.0.1:3", "127.3.4.5:3", "0.0.0.0:3", "[::ffff:127.0.0.9]:3"] {
            assert!(is_own(at(own)), "{own}");
        }
        for other in ["127.0.0.1:4", "93.184.216.34:3"] {
            assert!(!is_own(at(other)), "{other}");
        }
        drop(claim);
        let v6 = OwnPort::claim(at("[::1]:5"));
        assert!(is_own(at("[::1]:5")));
        assert!(is_own(at("[::]:5")));
        assert!(!is_own(at("127.0.0.1:5")));
        drop(v6);
    }
}
