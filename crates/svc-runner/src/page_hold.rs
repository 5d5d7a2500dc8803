//! How a warm page goes from one run of its scrap to the next (docs/decisions.md,
//! "Warm pages"; chromium.rs, `empty` and `navigate`):
//!
//! 1. **Parked.** When a run ends, the guard refuses every request and the
//!    page's document is ended with `about:blank`: no task of it runs any
//!    more, in any world and its workers, and its unload handlers run then
//!    (what they ask for is refused). Its service workers are removed (one
//!    would answer the next document request) and the tab's history is
//!    cleared. The page stays in the renderer of the origin it showed.
//!    (Until 2026-11-29 the document was frozen instead and navigated
//!    frozen; that needs Chromium's `RenderDocument`, a new frame in the
//!    renderer per document, which browser.rs turns off: docs/decisions.md.)
//! 2. **Navigating.** The next run navigates the page and at the same time
//!    clears the context's cookies (a cookie the old document set just
//!    before it was ended may have reached the jar after any earlier
//!    clearing); the guard lets the document request go once that is done.
//!    When the main frame's document answers (not a redirect), the guard
//!    reads the cookie jar (what this navigation's answers set) before that
//!    document commits. Until the clearings are done the guard lets nothing
//!    else go at once: what the new document's preload scanner asks for
//!    waits for them ([`waits_for_the_hold`]), anything else is refused.
//!    While the page is parked, only the main document's request goes.
//! 3. **Held.** The new document's first script (this module's
//!    [`Hold::script`], put on the page's documents when it is first parked)
//!    asks for [`Hold::path`] synchronously: the guard holds that request
//!    while the run clears the storage of every origin the earlier runs
//!    reached (partitioned storage included) and sets the cookie jar back to
//!    what it read, then answers [`CLEARED`]; the script empties the
//!    document's `localStorage` and `sessionStorage` (the renderer may have
//!    cached them) and `window.name` before any of the page's own scripts
//!    start. (DevTools commands that the renderer must run, such as
//!    `Emulation`, would wait for the held thread: only browser-side ones
//!    are sent while it is held.)
//!
//! A document that is never held (no commit: `about:blank` is still there)
//! is ended with `about:blank` again and the page emptied as a whole before
//! the run reads it (`Phase::Ending` meanwhile: nothing loads). The parked
//! page shows no document of an earlier run, so any URL (another origin's,
//! one with a fragment) is navigated to the same way. A document that commits
//! but whose hold script cannot make its request says so ([`UNHELD`]): it
//! was not emptied, so the run starts again in a context of its own, and
//! so do the scrap's later runs. Pages bypass Content-Security-Policy
//! (`Page.setBypassCSP`, every page, warm or not, so that a scrap's first
//! run sees what its later runs see): a policy's `connect-src` would
//! otherwise refuse the held request; a top-level document's
//! `Permissions-Policy: sync-xhr=()` is dropped from its answer for the
//! same reason ([`without_sync_xhr_ban`]).
//!
//! The phases and every change between them are [`crate::handover`]'s.

use chromiumoxide::cdp::browser_protocol::fetch::HeaderEntry;
use chromiumoxide::cdp::browser_protocol::network::ResourceType;

/// The hold's answer when the run cleared what the old document left: the
/// script then empties the storage the renderer may still cache.
pub const CLEARED: i64 = 205;
/// The hold's answer when there was nothing to clear (a document loaded
/// during a run, or a fresh page's).
pub const NOTHING: i64 = 204;

/// Whether a request made while a warm page's next document commits
/// (`Phase::Navigating`) or is held waits until the clearings are done, rather than
/// being refused. Both documents may ask then: the new one's preload
/// scanner, which fetches scripts, stylesheets, images, fonts and media
/// (and `<link rel=preload>`s) before any script of it runs, and the old
/// one's unload handlers, whose requests that outlive their document are
/// beacons (`Ping`) and `keepalive` fetches: refused. An old document's
/// other requests are cancelled with it before they would go.
pub fn waits_for_the_hold(kind: &ResourceType, link_preload: bool) -> bool {
    match kind {
        ResourceType::Script
        | ResourceType::Stylesheet
        | ResourceType::Image
        | ResourceType::Font
        | ResourceType::Media
        | ResourceType::TextTrack => true,
        ResourceType::Fetch => link_preload,
        _ => false,
    }
}

/// The path a page's new documents ask for, unique to this engine, so that
/// it is no site's own.
#[derive(Clone, Debug)]
pub struct Hold {
    pub path: String,
}

impl Default for Hold {
    /// A path of its own (random).
    fn default() -> Hold {
        Hold { path: format!("/.well-known/svc-hold-{:016x}", rand::random::<u64>()) }
    }
}

impl Hold {
    /// Whether `url` is the hold's request (or its [`UNHELD`] signal).
    pub fn is_hold(&self, url: &url::Url) -> bool {
        url.path() == self.path
    }

    /// The script that holds a page's new top-level documents: first in
    /// every document, in the page's own world.
    pub fn script(&self) -> String {
        format!(
            "(() => {{ if (window !== window.top || !location.protocol.startsWith('http')) return; \
             const hold = new XMLHttpRequest(); \
             try {{ hold.open('GET', {path:?}, false); hold.send(); }} \
             catch (e) {{ try {{ navigator.sendBeacon({path:?} + '?{UNHELD}'); }} catch (e) {{}} return; }} \
             if (hold.status !== {CLEARED}) return; \
             window.name = ''; \
             try {{ localStorage.clear(); }} catch (e) {{}} \
             try {{ sessionStorage.clear(); }} catch (e) {{}} }})()",
            path = self.path,
        )
    }
}

/// The query of the request the hold script sends when its synchronous
/// request failed (the document could not be held): the run fails rather
/// than read a document that was not emptied.
pub const UNHELD: &str = "unheld";

/// Whether `url` is the hold script's [`UNHELD`] signal.
pub fn is_unheld_signal(url: &url::Url) -> bool {
    url.query() == Some(UNHELD)
}

/// A document's response header that forbids synchronous requests, which
/// the hold needs, rewritten without that member: `Permissions-Policy:
/// sync-xhr=()` (or the older `Feature-Policy: sync-xhr 'none'`) would
/// make every warm run's new document impossible to hold. `None` when the
/// header is another one or forbids nothing the hold needs. The rest of
/// the policy is kept.
pub fn without_sync_xhr_ban(name: &str, value: &str) -> Option<String> {
    let separator = match name.to_ascii_lowercase().as_str() {
        "permissions-policy" => ',',
        "feature-policy" => ';',
        _ => return None,
    };
    let is_sync_xhr = |member: &str| {
        let feature = member.trim().split(['=', ' ']).next().unwrap_or_default();
        feature.eq_ignore_ascii_case("sync-xhr")
    };
    let members: Vec<&str> = value.split(separator).collect();
    if !members.iter().any(|m| is_sync_xhr(m)) {
        return None;
    }
    let kept: Vec<&str> = members.into_iter().filter(|m| !is_sync_xhr(m) && !m.trim().is_empty()).collect();
    Some(kept.iter().map(|m| m.trim()).collect::<Vec<_>>().join(if separator == ',' { ", " } else { "; " }))
}

/// A top-level document's response headers with [`without_sync_xhr_ban`]
/// applied (a policy left empty goes), or `None` when none forbids what
/// the hold needs.
pub fn headers_without_sync_xhr_ban(headers: &[HeaderEntry]) -> Option<Vec<HeaderEntry>> {
    let mut lifted = false;
    let kept = headers
        .iter()
        .filter_map(|h| match without_sync_xhr_ban(&h.name, &h.value) {
            None => Some(h.clone()),
            Some(kept) => {
                lifted = true;
                (!kept.is_empty()).then(|| HeaderEntry::new(h.name.clone(), kept))
            }
        })
        .collect();
    lifted.then_some(kept)
}

/// Whether a main-frame answer with `status` has no document to show: the
/// browser keeps the page it had (HTTP 204 No Content, 205 Reset Content).
pub fn has_no_document(status: i64) -> bool {
    matches!(status, 204 | 205)
}

/// Whether a paused response is a redirect: the document that follows it
/// is the one that commits, so scripts stay off until then.
pub fn is_redirect(status: i64) -> bool {
    matches!(status, 301 | 302 | 303 | 307 | 308)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_engine_has_its_own_hold_path_and_knows_it() {
        let (a, b) = (Hold::default(), Hold::default());
        assert_ne!(a.path, b.path);
        let url = url::Url::parse(&format!("https://example.com{}", a.path)).unwrap();
        assert!(a.is_hold(&url));
        assert!(!b.is_hold(&url));
        assert!(!a.is_hold(&url::Url::parse("https://example.com/.well-known/other").unwrap()));
    }

    #[test]
    fn the_script_asks_for_the_path_and_clears_only_when_told() {
        let hold = Hold::default();
        let script = hold.script();
        assert!(script.contains(&format!("{:?}", hold.path)));
        assert!(script.contains("hold.status !== 205"));
        assert!(script.contains("window !== window.top"), "iframes are not held");
    }

    #[test]
    fn what_a_new_document_preloads_waits_and_beacons_are_refused() {
        for kind in [ResourceType::Script, ResourceType::Stylesheet, ResourceType::Image, ResourceType::Font] {
            assert!(waits_for_the_hold(&kind, false), "{kind:?}");
        }
        assert!(waits_for_the_hold(&ResourceType::Fetch, true), "<link rel=preload as=fetch>");
        for kind in [ResourceType::Ping, ResourceType::Fetch, ResourceType::Xhr, ResourceType::EventSource] {
            assert!(!waits_for_the_hold(&kind, false), "{kind:?}");
        }
        assert!(!waits_for_the_hold(&ResourceType::Document, false), "an iframe is no preload");
    }

    #[test]
    fn a_ban_on_synchronous_requests_is_lifted_and_nothing_else() {
        let lifted = without_sync_xhr_ban("Permissions-Policy", "geolocation=(self), sync-xhr=(), camera=()");
        assert_eq!(lifted.as_deref(), Some("geolocation=(self), camera=()"));
        assert_eq!(without_sync_xhr_ban("permissions-policy", "sync-xhr=()").as_deref(), Some(""));
        let older = without_sync_xhr_ban("Feature-Policy", "sync-xhr 'none'; microphone 'none'");
        assert_eq!(older.as_deref(), Some("microphone 'none'"));
        assert_eq!(without_sync_xhr_ban("Permissions-Policy", "geolocation=(self)"), None);
        assert_eq!(without_sync_xhr_ban("Permissions-Policy", "sync-xhr-like=()"), None);
        assert_eq!(without_sync_xhr_ban("Content-Security-Policy", "sync-xhr=()"), None);
    }

    #[test]
    fn headers_keep_all_but_the_ban() {
        let header = |name: &str, value: &str| HeaderEntry::new(name, value);
        let names = |headers: Vec<HeaderEntry>| headers.into_iter().map(|h| (h.name, h.value)).collect::<Vec<_>>();
        let plain = [header("content-type", "text/html"), header("permissions-policy", "camera=()")];
        assert!(headers_without_sync_xhr_ban(&plain).is_none());
        let banned = [header("content-type", "text/html"), header("Permissions-Policy", "sync-xhr=(), camera=()")];
        let lifted = names(headers_without_sync_xhr_ban(&banned).unwrap());
        assert_eq!(
            lifted,
            [("content-type".into(), "text/html".into()), ("Permissions-Policy".into(), "camera=()".into())]
        );
        let only = [header("content-type", "text/html"), header("feature-policy", "sync-xhr 'none'")];
        let lifted = names(headers_without_sync_xhr_ban(&only).unwrap());
        assert_eq!(lifted, [("content-type".to_string(), "text/html".to_string())], "an empty policy goes");
    }

    #[test]
    fn the_unheld_signal_is_told_apart_from_the_hold() {
        let hold = Hold::default();
        let signal = url::Url::parse(&format!("https://example.com{}?{UNHELD}", hold.path)).unwrap();
        assert!(hold.is_hold(&signal) && is_unheld_signal(&signal));
        let request = url::Url::parse(&format!("https://example.com{}", hold.path)).unwrap();
        assert!(hold.is_hold(&request) && !is_unheld_signal(&request));
        assert!(hold.script().contains("sendBeacon"));
    }

    #[test]
    fn redirects_keep_scripts_off() {
        for status in [301, 302, 303, 307, 308] {
            assert!(is_redirect(status));
        }
        for status in [200, 204, 304, 404, 500] {
            assert!(!is_redirect(status));
        }
    }

    #[test]
    fn answers_without_a_document() {
        assert!(has_no_document(204) && has_no_document(205));
        for status in [200, 206, 301, 304, 404, 500] {
            assert!(!has_no_document(status), "{status}");
        }
    }
}
