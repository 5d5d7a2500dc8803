//! Which hosts svc may connect to: unless private networks are allowed, only
//! hosts whose every address is public. Run targets (the request guard and
//! the browser's egress proxy), webhook receivers when they are saved, and
//! the webhook client when it connects all vet hosts here.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use svc_domain::net::is_public_ip;

/// Why a URL may not be loaded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("only http and https URLs are loaded, not `{0}:`")]
    Scheme(String),
    #[error("the URL has no host")]
    NoHost,
    #[error(
        "`{host}` resolves to the non-public address {ip}; SVC_ALLOW_PRIVATE_NETWORKS (true, or a list of ranges) can allow it"
    )]
    Private { host: String, ip: IpAddr },
    #[error("`{0}` does not resolve")]
    Unresolved(String),
    #[error(
        "`{host}` port {port} is one of svc's own (a browser's DevTools or an egress proxy): nothing svc runs may reach it"
    )]
    OwnPort { host: String, port: u16 },
    /// `sites`: the confined run's (the job URL's, and those its first
    /// navigation was redirected to).
    #[error("`{host}` is outside {}", crate::confinement::held_to(.sites))]
    OutsideSite { host: String, sites: Vec<String> },
}

/// Which non-public addresses svc may connect to (`SVC_ALLOW_PRIVATE_NETWORKS`):
/// none (the default), all of them, or only those in a list of ranges, so
/// that an operator can open an intranet range without opening the cloud
/// metadata address or loopback. svc's own ports are refused whatever this
/// says (`own_ports`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum PrivateNetworks {
    #[default]
    None,
    All,
    Only(Vec<ipnet::IpNet>),
}

impl PrivateNetworks {
    /// `true`/`false` (and their usual spellings), or a comma-separated list
    /// of ranges such as `10.0.0.0/8, 192.168.1.0/24, fd00::/8` (an address
    /// alone is its own range).
    pub fn parse(text: &str) -> Result<PrivateNetworks, String> {
        match text.trim().to_ascii_lowercase().as_str() {
            "1" | "true" | "yes" | "on" => return Ok(PrivateNetworks::All),
            "0" | "false" | "no" | "off" | "" => return Ok(PrivateNetworks::None),
            _ => {}
        }
        let mut ranges = Vec::new();
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let range = part
                .parse::<ipnet::IpNet>()
                .or_else(|_| part.parse::<IpAddr>().map(ipnet::IpNet::from))
                .map_err(|_| format!("expected true, false or a list of ranges such as 10.0.0.0/8, not `{part}`"))?;
            ranges.push(range.trunc());
        }
        Ok(PrivateNetworks::Only(ranges))
    }

    /// Whether the non-public `ip` may be reached.
    pub fn allows(&self, ip: IpAddr) -> bool {
        match self {
            PrivateNetworks::None => false,
            PrivateNetworks::All => true,
            PrivateNetworks::Only(ranges) => ranges.iter().any(|range| range.contains(&ip)),
        }
    }

    /// Whether every address is allowed (checks of the address can be skipped).
    pub fn all(&self) -> bool {
        matches!(self, PrivateNetworks::All)
    }

    /// Whether some non-public address is allowed (plain `http` receivers, say).
    pub fn any(&self) -> bool {
        !matches!(self, PrivateNetworks::None)
    }
}

impl From<bool> for PrivateNetworks {
    fn from(all: bool) -> Self {
        if all { PrivateNetworks::All } else { PrivateNetworks::None }
    }
}

/// Where host names are resolved: the system resolver, or fixed answers
/// (tests stand in for DNS with these; the vetting is the same).
#[derive(Clone, Default)]
pub struct Resolver {
    fixed: Option<Arc<HashMap<String, Vec<IpAddr>>>>,
}

impl std::fmt::Debug for Resolver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.fixed.is_some() { "Resolver(fixed answers)" } else { "Resolver(system)" })
    }
}

impl Resolver {
    /// With fixed answers: `name -> addresses`.
    pub fn fixed(answers: HashMap<String, Vec<IpAddr>>) -> Self {
        Resolver { fixed: Some(Arc::new(answers)) }
    }

    async fn lookup(&self, host: &str, port: u16) -> Vec<SocketAddr> {
        match &self.fixed {
            Some(answers) => answers.get(host).into_iter().flatten().map(|ip| SocketAddr::new(*ip, port)).collect(),
            None => match tokio::net::lookup_host((host, port)).await {
                Ok(addrs) => addrs.collect(),
                Err(_) => Vec::new(),
            },
        }
    }
}

/// The addresses of `host` (a name, or a literal address with or without
/// brackets), refused unless every one is public or `allow_private`, and
/// refused whatever the setting when one is a port of svc's own
/// (`own_ports`).
pub async fn vetted_addresses(
    host: &str,
    port: u16,
    allow_private: &PrivateNetworks,
    resolver: &Resolver,
) -> Result<Vec<SocketAddr>, Refusal> {
    let bare = bare_host(host);
    let addrs = match bare.parse::<IpAddr>() {
        Ok(ip) => vec![SocketAddr::new(ip, port)],
        Err(_) => resolver.lookup(bare, port).await,
    };
    if addrs.is_empty() {
        return Err(Refusal::Unresolved(bare.to_string()));
    }
    // Whatever private networks allow: svc's own listeners are never a target.
    if let Some(own) = addrs.iter().find(|a| crate::own_ports::is_own(**a)) {
        return Err(Refusal::OwnPort { host: bare.to_string(), port: own.port() });
    }
    if let Some(bad) = addrs.iter().find(|a| !is_public_ip(a.ip()) && !allow_private.allows(a.ip())) {
        return Err(Refusal::Private { host: bare.to_string(), ip: bad.ip() });
    }
    Ok(addrs)
}

/// Refuses `host` when a confined run asks for it outside its sites (AI
/// Fix's candidates; `None`: any site).
pub fn within(confinement: Option<&crate::Confinement>, host: &str) -> Result<(), Refusal> {
    match confinement {
        Some(confinement) => confinement.check(host),
        None => Ok(()),
    }
}

/// A host as written in a URL, without the brackets of an IPv6 literal.
pub fn bare_host(host: &str) -> &str {
    host.trim_start_matches('[').trim_end_matches(']')
}
