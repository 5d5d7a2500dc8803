//! The sites a confined run may reach (AI Fix's candidates,
//! `RunJob::confined_to`). A run starts held to its job URL's site; while
//! the engine follows the run's first navigation to the job's URL, each
//! redirect of that main document adds its target's site
//! ([`Confinement::admit_redirect`]), so that a scrap whose URL redirects to
//! another registrable domain (`http://example.com` to
//! `https://www.example.org/`) runs where it lands. Nothing else widens it:
//! what the page or the script asks for afterwards (a navigation, a `fetch`,
//! a subresource, or a redirect of any of these) must be within the sites so
//! far ([`Confinement::check`]).
//!
//! A value is shared by its clones: the browser engine's run-own egress
//! proxy refuses by the same set its request guard widens, and the widening
//! is seen at once.

use std::sync::{Arc, RwLock};

use crate::host_vetting::{Refusal, bare_host};
use crate::site::Site;

/// The job URL's site and the sites its first navigation was redirected to,
/// in that order (no site twice).
#[derive(Clone, Debug)]
pub struct Confinement {
    sites: Arc<RwLock<Vec<Site>>>,
}

impl Confinement {
    /// Held to `site` (the job URL's).
    pub fn new(site: Site) -> Confinement {
        Confinement { sites: Arc::new(RwLock::new(vec![site])) }
    }

    /// The sites so far, the job URL's first.
    pub fn sites(&self) -> Vec<Site> {
        self.sites.read().expect("confinement lock").clone()
    }

    /// Whether `host` (a name, or an address with or without brackets) is
    /// within one of the sites.
    pub fn contains(&self, host: &str) -> bool {
        let site = Site::of_host(host);
        self.sites.read().expect("confinement lock").contains(&site)
    }

    /// Refuses `host` unless it is within one of the sites.
    pub fn check(&self, host: &str) -> Result<(), Refusal> {
        let site = Site::of_host(host);
        let sites = self.sites.read().expect("confinement lock");
        match sites.contains(&site) {
            true => Ok(()),
            false => Err(Refusal::OutsideSite {
                host: bare_host(host).to_string(),
                sites: sites.iter().map(Site::to_string).collect(),
            }),
        }
    }

    /// Adds `host`'s site: only for the target of a redirect of the main
    /// document on the run's first navigation to the job's URL, before the
    /// engine follows it. Whether the site is new.
    pub fn admit_redirect(&self, host: &str) -> bool {
        let site = Site::of_host(host);
        let mut sites = self.sites.write().expect("confinement lock");
        if sites.contains(&site) {
            return false;
        }
        sites.push(site);
        true
    }
}

/// How the refusal names the sites a run is held to: "the site this run is
/// held to (example.com)", or "the sites this run is held to (example.com,
/// example.org)" once a redirect widened them.
pub(crate) fn held_to(sites: &[String]) -> String {
    match sites {
        [site] => format!("the site this run is held to ({site})"),
        _ => format!("the sites this run is held to ({})", sites.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_redirect_of_the_first_navigation_widens_every_clone() {
        let held = Confinement::new(Site::of_host("127.0.0.1"));
        let proxy_side = held.clone();
        assert!(held.check("127.0.0.1").is_ok() && held.check("[127.0.0.1]").is_ok());
        let refused = held.check("localhost").unwrap_err();
        assert_eq!(refused.to_string(), "`localhost` is outside the site this run is held to (127.0.0.1)");

        assert!(held.admit_redirect("www.example.org"));
        assert!(held.admit_redirect("localhost"));
        assert!(!held.admit_redirect("LOCALHOST."), "a site is admitted once");
        assert!(!held.admit_redirect("cdn.example.org"), "same registrable domain as a site admitted");
        for host in ["127.0.0.1", "localhost", "example.org", "shop.example.org"] {
            assert!(proxy_side.contains(host) && proxy_side.check(host).is_ok(), "{host}");
        }
        let refused = proxy_side.check("127.0.0.2").unwrap_err();
        assert_eq!(
            refused.to_string(),
            "`127.0.0.2` is outside the sites this run is held to (127.0.0.1, example.org, localhost)"
        );
        let sites: Vec<String> = held.sites().iter().map(Site::to_string).collect();
        assert_eq!(sites, ["127.0.0.1", "example.org", "localhost"]);
    }
}
