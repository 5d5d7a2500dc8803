//! What the fuzz targets share.

use std::future::Future;
use std::net::IpAddr;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

/// Runs a future that never waits on anything (vetting with fixed answers
/// or an address literal, the checks built on it): one poll must finish it.
pub fn ready<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    match future.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(output) => output,
        Poll::Pending => panic!("the future waited on something: no DNS, no I/O is expected here"),
    }
}

/// The address a URL names literally, if its host is one.
pub fn literal(url: &url::Url) -> Option<IpAddr> {
    match url.host() {
        Some(url::Host::Ipv4(ip)) => Some(IpAddr::V4(ip)),
        Some(url::Host::Ipv6(ip)) => Some(IpAddr::V6(ip)),
        _ => None,
    }
}
