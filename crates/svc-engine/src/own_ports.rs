//! The loopback ports svc's own parts listen on (each browser's DevTools
//! port, each egress proxy): no page, script or fetch may reach them,
//! whatever `SVC_ALLOW_PRIVATE_NETWORKS` allows. A page that reached the
//! DevTools port would drive the browser, and with it every other run's
//! pages; one that reached an egress proxy would send its traffic out
//! through a path meant for another tier.
//!
//! Process-wide: a part claims its port when it starts listening and the
//! claim ends when the [`OwnPort`] is dropped (so that a port the kernel
//! later gives to someone else is not refused). [`is_own`] is consulted by
//! `host_vetting::vetted_addresses`, which every outgoing path calls.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Mutex, MutexGuard};

/// Claims on each port (two parts may, in tests, claim the same number).
static CLAIMED: Mutex<Option<HashMap<u16, usize>>> = Mutex::new(None);

fn claimed() -> MutexGuard<'static, Option<HashMap<u16, usize>>> {
    CLAIMED.lock().unwrap_or_else(|e| e.into_inner())
}

/// A claim on a loopback port of svc's own; released when dropped.
#[derive(Debug)]
pub struct OwnPort(u16);

impl OwnPort {
    /// Claims `port`, on which a part of svc listens on loopback.
    pub fn claim(port: u16) -> OwnPort {
        *claimed().get_or_insert_with(HashMap::new).entry(port).or_insert(0) += 1;
        OwnPort(port)
    }

    pub fn port(&self) -> u16 {
        self.0
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

/// Whether connecting to `addr` would reach one of svc's own listeners:
/// a claimed port on a loopback or unspecified address (Linux connects
/// `0.0.0.0` to the local host), IPv4-mapped IPv6 included.
pub fn is_own(addr: SocketAddr) -> bool {
    let ip = match addr.ip() {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map(IpAddr::V4).unwrap_or(IpAddr::V6(v6)),
        v4 => v4,
    };
    if !(ip.is_loopback() || ip.is_unspecified()) {
        return false;
    }
    claimed().as_ref().is_some_and(|claims| claims.contains_key(&addr.port()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_claimed_loopback_port_is_own_until_released() {
        // A port number no other test of this crate claims.
        let port = 1;
        let at = |text: &str| -> SocketAddr { text.parse().unwrap() };
        assert!(!is_own(at("127.0.0.1:1")));
        let claim = OwnPort::claim(port);
        let second = OwnPort::claim(port);
        for own in ["127.0.0.1:1", "127.3.4.5:1", "[::1]:1", "0.0.0.0:1", "[::]:1", "[::ffff:127.0.0.1]:1"] {
            assert!(is_own(at(own)), "{own}");
        }
        for other in ["127.0.0.1:2", "10.0.0.1:1", "93.184.216.34:1", "[2001:db8::1]:1"] {
            assert!(!is_own(at(other)), "{other}");
        }
        drop(claim);
        assert!(is_own(at("127.0.0.1:1")), "still claimed once");
        drop(second);
        assert!(!is_own(at("127.0.0.1:1")), "released");
    }
}
