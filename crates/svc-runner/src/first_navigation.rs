//! A confined run's first navigation (AI Fix's candidates,
//! `RunJob::confined_to`): the main document's redirects on the way from
//! the job's URL add their sites to the run's (`svc_engine::Confinement`),
//! and nothing after does.
//!
//! The run's own egress proxy refuses every host outside the run's sites,
//! so a redirect's target must be admitted before Chromium connects to it,
//! and nothing else may be. The request guard (`chromium.rs`) pauses every
//! request with the DevTools `Fetch` domain, and Chromium pauses the main
//! frame's document request again at each redirect, with the same
//! `networkId`. When a hop of the run's first navigation pauses, and the
//! guard lets it go, its host's site is admitted
//! ([`FirstNavigation::on_document_request`]) before the guard continues it:
//! the proxy knows the site before the browser can ask for it. The first
//! request of the navigation must be for the job's URL; the navigation's
//! first answer that is not a redirect, or a failed one, ends it
//! ([`FirstNavigation::on_document_answer`]), as does the run's navigation
//! returning ([`FirstNavigation::end`]). What comes later (navigations the
//! page or the script starts, subresources, `fetch`, and their redirects)
//! is held to the sites so far.

use svc_engine::Confinement;
use url::Url;

/// Where a confined run's first navigation is.
#[derive(Debug)]
pub struct FirstNavigation {
    confinement: Confinement,
    /// The job's URL, without its fragment (which no request carries).
    target: Option<Url>,
    /// The `networkId` of the navigation's document request, once it paused.
    network_id: Option<String>,
    over: bool,
}

/// What a paused main-frame document request was to the first navigation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hop {
    /// Its request for the job's URL.
    Start,
    /// One of its redirects; `widened` when its site was new to the run.
    Redirect { widened: bool },
    /// Not part of it (it is over, or this request ended it).
    Other,
}

impl FirstNavigation {
    /// Before the run navigates to `job_url`, with the run's sites (which
    /// the run's egress proxy shares).
    pub fn new(confinement: Confinement, job_url: &str) -> FirstNavigation {
        let target = Url::parse(job_url).ok().map(without_fragment);
        FirstNavigation { confinement, target, network_id: None, over: false }
    }

    /// The main frame's document request for `url`, with `network_id`,
    /// paused and about to go on: a redirect of the first navigation has
    /// its host's site admitted. Any other request ends the navigation.
    pub fn on_document_request(&mut self, network_id: Option<&str>, url: &str) -> Hop {
        if self.over {
            return Hop::Other;
        }
        let url = Url::parse(url).ok().map(without_fragment);
        let hop = match (&self.network_id, network_id, url) {
            (None, Some(id), Some(url)) if Some(&url) == self.target.as_ref() => {
                self.network_id = Some(id.to_string());
                Hop::Start
            }
            (Some(first), Some(id), Some(url)) if first == id => match url.host_str() {
                Some(host) => Hop::Redirect { widened: self.confinement.admit_redirect(host) },
                None => Hop::Other,
            },
            _ => Hop::Other,
        };
        self.over = hop == Hop::Other;
        hop
    }

    /// The main frame's document answered: a redirect goes on with the
    /// navigation; anything else (a document, none, or a failure) ends it.
    pub fn on_document_answer(&mut self, redirect: bool) {
        if !redirect && self.network_id.is_some() {
            self.over = true;
        }
    }

    /// The run's navigation returned: nothing widens the run's sites now.
    pub fn end(&mut self) {
        self.over = true;
    }
}

fn without_fragment(mut url: Url) -> Url {
    url.set_fragment(None);
    url
}

#[cfg(test)]
mod tests {
    use svc_engine::Site;

    use super::*;

    fn held() -> (Confinement, FirstNavigation) {
        let confinement = Confinement::new(Site::of_host("127.0.0.1"));
        let first = FirstNavigation::new(confinement.clone(), "http://127.0.0.1:4000/go#top");
        (confinement, first)
    }

    #[test]
    fn the_redirects_of_the_first_navigation_widen_the_sites() {
        let (confinement, mut first) = held();
        assert_eq!(first.on_document_request(Some("N1"), "http://127.0.0.1:4000/go"), Hop::Start);
        first.on_document_answer(true);
        assert_eq!(first.on_document_request(Some("N1"), "http://localhost:4000/a"), Hop::Redirect { widened: true });
        first.on_document_answer(true);
        assert_eq!(first.on_document_request(Some("N1"), "https://www.example.org/b"), Hop::Redirect { widened: true });
        first.on_document_answer(true);
        assert_eq!(first.on_document_request(Some("N1"), "http://localhost:4000/c"), Hop::Redirect { widened: false });
        first.on_document_answer(false);
        // Committed: the page's own navigation, even a redirect of it, widens nothing.
        assert_eq!(first.on_document_request(Some("N2"), "http://127.0.0.2/"), Hop::Other);
        assert_eq!(first.on_document_request(Some("N1"), "http://127.0.0.3/"), Hop::Other);
        let sites: Vec<String> = confinement.sites().iter().map(Site::to_string).collect();
        assert_eq!(sites, ["127.0.0.1", "localhost", "example.org"]);
        assert!(!confinement.contains("127.0.0.2") && !confinement.contains("127.0.0.3"));
    }

    #[test]
    fn nothing_else_widens_the_sites() {
        // A first request for another URL than the job's: no first navigation.
        let (confinement, mut first) = held();
        assert_eq!(first.on_document_request(Some("N1"), "http://127.0.0.1:4000/other"), Hop::Other);
        assert_eq!(first.on_document_request(Some("N1"), "http://localhost:4000/"), Hop::Other);
        // Another navigation before the first committed ends it.
        let (_, mut second) = held();
        assert_eq!(second.on_document_request(Some("N1"), "http://127.0.0.1:4000/go"), Hop::Start);
        assert_eq!(second.on_document_request(Some("N2"), "http://localhost:4000/"), Hop::Other);
        assert_eq!(second.on_document_request(Some("N1"), "http://localhost:4000/"), Hop::Other);
        // The run's navigation returned.
        let (_, mut third) = held();
        third.end();
        assert_eq!(third.on_document_request(Some("N1"), "http://127.0.0.1:4000/go"), Hop::Other);
        // A request without a network id.
        let (_, mut fourth) = held();
        assert_eq!(fourth.on_document_request(None, "http://127.0.0.1:4000/go"), Hop::Other);
        assert_eq!(confinement.sites(), [Site::of_host("127.0.0.1")]);
    }
}
