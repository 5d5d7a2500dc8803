//! A host's site, for runs confined to one (AI Fix's candidate scripts):
//! its registrable domain by Mozilla's public suffix list (`psl`), so that
//! `shop.example.co.uk` and `cdn.example.co.uk` are one site and
//! `evil.co.uk` is another. An address is its own site; so is a name the
//! list has no registrable domain for (`localhost`, or a public suffix
//! itself).

use std::net::IpAddr;

use crate::host_vetting::bare_host;

/// A registrable domain, an address, or a name that is neither.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Site(String);

impl Site {
    /// The site of `host` (a name, or an address with or without brackets).
    pub fn of_host(host: &str) -> Site {
        let bare = bare_host(host).trim_end_matches('.').to_ascii_lowercase();
        if let Ok(ip) = bare.parse::<IpAddr>() {
            return Site(ip.to_string());
        }
        match psl::domain_str(&bare) {
            Some(domain) => Site(domain.to_string()),
            None => Site(bare),
        }
    }

    /// The site of `url`'s host; `None` for a URL without one.
    pub fn of_url(url: &str) -> Option<Site> {
        let parsed = url::Url::parse(url).ok()?;
        Some(Site::of_host(parsed.host_str()?))
    }

    /// Whether `host` belongs to this site.
    pub fn contains(&self, host: &str) -> bool {
        Site::of_host(host) == *self
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for Site {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_site_is_the_registrable_domain() {
        let shop = Site::of_url("https://shop.example.co.uk:8443/items?page=2").unwrap();
        assert_eq!(shop.as_str(), "example.co.uk");
        for same in ["example.co.uk", "cdn.example.co.uk", "WWW.Example.CO.UK."] {
            assert!(shop.contains(same), "{same}");
        }
        for other in ["evil.co.uk", "co.uk", "example.com", "example.co.uk.evil.com", "127.0.0.1"] {
            assert!(!shop.contains(other), "{other}");
        }
        let github = Site::of_host("someone.github.io");
        assert!(!github.contains("other.github.io"), "a private suffix of the list separates its users");
    }

    #[test]
    fn an_address_or_a_bare_name_is_its_own_site() {
        let local = Site::of_url("http://127.0.0.1:4000/page").unwrap();
        assert!(local.contains("127.0.0.1") && !local.contains("127.0.0.2") && !local.contains("localhost"));
        let v6 = Site::of_host("[::1]");
        assert!(v6.contains("::1") && v6.contains("[0:0:0:0:0:0:0:1]"));
        let name = Site::of_url("http://localhost:3000/").unwrap();
        assert!(name.contains("localhost") && !name.contains("127.0.0.1"));
        assert_eq!(Site::of_url("data:text/html,x"), None);
    }
}
