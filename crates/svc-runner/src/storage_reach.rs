//! Where a run may have left storage, so that emptying its page for the
//! scrap's next run (chromium.rs, `empty`) clears all of it.
//!
//! Only documents keep storage (workers share their document's origin),
//! and Chromium keys it by storage key: a document's own origin when it is
//! the top-level page or same-site with it (cleared with
//! `Storage.clearDataForOrigin`), and origin plus top-level site for an
//! iframe of another site (partitioned storage, which that call leaves:
//! cleared with `Storage.clearDataForStorageKey`). A key is written as
//! Chromium serializes it: `<origin>/^0<top-level site>`, or
//! `<origin>/^31` for a frame whose ancestors cross sites on the way back
//! to its own.

use std::collections::BTreeSet;

/// The documents a run loaded: their origins, and the sites its top-level
/// documents could be on.
#[derive(Default, Debug)]
pub struct StorageReach {
    origins: BTreeSet<String>,
    top_level_sites: BTreeSet<String>,
    /// Whether any of the documents was an iframe's: without one nothing
    /// was partitioned.
    subframes: bool,
}

impl StorageReach {
    /// Notes a document the guard let through (`main_frame`: the page's own).
    pub fn note_document(&mut self, url: &url::Url, main_frame: bool) {
        if !matches!(url.scheme(), "http" | "https") {
            return;
        }
        self.origins.insert(url.origin().ascii_serialization());
        if main_frame {
            self.top_level_sites.extend(candidate_sites(url));
        } else {
            self.subframes = true;
        }
    }

    /// The origins whose own storage is to be cleared.
    pub fn origins(&self) -> impl Iterator<Item = &str> {
        self.origins.iter().map(String::as_str)
    }

    /// The partitioned storage keys to clear: every document origin under
    /// every site its top-level page may have been on, and with the
    /// cross-site ancestor bit. Keys that hold nothing cost one call each,
    /// so none when no iframe loaded a document (only an iframe's storage
    /// is partitioned, and its document came through the guard).
    pub fn partitioned_keys(&self) -> Vec<String> {
        let mut keys = Vec::new();
        if !self.subframes {
            return keys;
        }
        for origin in &self.origins {
            for site in &self.top_level_sites {
                if !origin.starts_with(&format!("{site}:")) && origin != site {
                    keys.push(format!("{origin}/^0{site}"));
                }
            }
            keys.push(format!("{origin}/^31"));
        }
        keys
    }

    pub fn is_empty(&self) -> bool {
        self.origins.is_empty()
    }

    /// Adds what `other` reached (a page's next run, before the previous
    /// run's storage was cleared the second time).
    pub fn absorb(&mut self, other: StorageReach) {
        self.origins.extend(other.origins);
        self.top_level_sites.extend(other.top_level_sites);
        self.subframes |= other.subframes;
    }
}

/// The sites `url` may belong to: its scheme and registrable domain,
/// which without the public suffix list is one of the host's suffixes of
/// two labels or more (or the host itself: an address, or a name of one
/// label such as `localhost`).
fn candidate_sites(url: &url::Url) -> Vec<String> {
    let scheme = url.scheme();
    match url.host() {
        Some(url::Host::Domain(domain)) => {
            let labels: Vec<&str> = domain.trim_end_matches('.').split('.').collect();
            if labels.len() < 2 {
                return vec![format!("{scheme}://{domain}")];
            }
            (0..=labels.len() - 2).map(|start| format!("{scheme}://{}", labels[start..].join("."))).collect()
        }
        Some(url::Host::Ipv4(ip)) => vec![format!("{scheme}://{ip}")],
        Some(url::Host::Ipv6(ip)) => vec![format!("{scheme}://[{ip}]")],
        None => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> url::Url {
        url::Url::parse(text).unwrap()
    }

    #[test]
    fn sites_are_the_hosts_suffixes_of_two_labels_or_more() {
        assert_eq!(
            candidate_sites(&url("https://www.shop.example.co.uk:8443/a")),
            ["https://www.shop.example.co.uk", "https://shop.example.co.uk", "https://example.co.uk", "https://co.uk"]
        );
        assert_eq!(candidate_sites(&url("http://127.0.0.1:3000/")), ["http://127.0.0.1"]);
        assert_eq!(candidate_sites(&url("http://localhost:3000/")), ["http://localhost"]);
        assert_eq!(candidate_sites(&url("http://[::1]:3000/")), ["http://[::1]"]);
    }

    #[test]
    fn an_iframe_of_another_site_is_cleared_under_the_top_level_site() {
        let mut reach = StorageReach::default();
        reach.note_document(&url("http://127.0.0.1:4000/state"), true);
        reach.note_document(&url("http://localhost:4000/state-frame"), false);
        reach.note_document(&url("data:text/html,x"), false);
        assert_eq!(reach.origins().collect::<Vec<_>>(), ["http://127.0.0.1:4000", "http://localhost:4000"]);
        assert_eq!(
            reach.partitioned_keys(),
            ["http://127.0.0.1:4000/^31", "http://localhost:4000/^0http://127.0.0.1", "http://localhost:4000/^31"]
        );
    }

    #[test]
    fn without_an_iframe_nothing_is_partitioned() {
        let mut reach = StorageReach::default();
        reach.note_document(&url("http://127.0.0.1:4000/state"), true);
        reach.note_document(&url("http://localhost:4000/other"), true);
        assert_eq!(reach.origins().count(), 2);
        assert!(reach.partitioned_keys().is_empty());
        // An iframe in a later run of the page, before the clearing.
        let mut later = StorageReach::default();
        later.note_document(&url("http://localhost:4000/state-frame"), false);
        reach.absorb(later);
        assert!(reach.partitioned_keys().contains(&"http://localhost:4000/^0http://127.0.0.1".to_string()));
        assert!(reach.partitioned_keys().contains(&"http://127.0.0.1:4000/^31".to_string()));
    }

    #[test]
    fn nothing_loaded_nothing_to_clear() {
        let reach = StorageReach::default();
        assert!(reach.is_empty());
        assert!(reach.partitioned_keys().is_empty());
    }
}
