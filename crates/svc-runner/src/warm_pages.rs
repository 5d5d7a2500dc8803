//! Warm pages: where the pages of finished runs wait for the next run of
//! the same scrap, or of another scrap of the same organization on the same
//! origin.
//!
//! Starting a renderer process is most of what a run costs the browser
//! (docs/benchmarks.md). A page whose run is over is emptied (chromium.rs,
//! `Inner::recycle`: the next document is held until the context's
//! cookies, storage and history are cleared, page_hold.rs) and parked here
//! under its run's key, the scrap and its organization. The scrap's next
//! run takes it first; failing that, a run of another scrap that
//! [`WarmPages::take`]'s `shares` accepts (the engine's rule: the same
//! organization, and the origin the page shows, so that the navigation
//! keeps the renderer). A page never leaves its organization: the engine's
//! `shares` compares organizations first, and this pool hands a page only
//! to its own key or to one `shares` accepts.
//!
//! This file is the bookkeeping alone, generic over the page, so that its
//! rules are tested without a browser.

use std::hash::Hash;
use std::time::{Duration, Instant};

/// How long a parked page waits for its scrap's next run before it is
/// disposed: long enough for a scrap run every minute to find its page.
pub const IDLE_TTL: Duration = Duration::from_secs(90);
/// How long a parked page waits before its renderer's garbage is collected
/// (once per parking): a renderer that served many runs holds about twice
/// the memory of a new one until then, and pages used back to back never
/// pay for it.
pub const COLLECT_AFTER: Duration = Duration::from_secs(20);

struct Parked<K, P> {
    key: K,
    page: P,
    since: Instant,
    collected: bool,
}

/// Parked pages by key, at most `capacity` of them (0: none are kept),
/// and the pages being emptied, by key and the origin each shows.
pub struct WarmPages<K, P> {
    capacity: usize,
    /// Oldest first.
    parked: Vec<Parked<K, P>>,
    recycling: Vec<(K, Option<String>)>,
    /// A sweeper is looking for idle pages (`sweeper_needed`, `sweeper_done`).
    swept: bool,
}

impl<K: Eq + Hash + Clone, P> WarmPages<K, P> {
    pub fn new(capacity: usize) -> Self {
        WarmPages { capacity, parked: Vec::new(), recycling: Vec::new(), swept: false }
    }

    /// Whether pages are kept at all.
    pub fn enabled(&self) -> bool {
        self.capacity > 0
    }

    /// The page of `key` parked last, if any; else the page parked last
    /// under another key that `shares` accepts for `key`.
    pub fn take(&mut self, key: &K, shares: impl Fn(&K, &P) -> bool) -> Option<P> {
        let index = self
            .parked
            .iter()
            .rposition(|p| &p.key == key)
            .or_else(|| self.parked.iter().rposition(|p| shares(&p.key, &p.page)))?;
        Some(self.parked.remove(index).page)
    }

    /// Parks `page` under `key`; hands back the page that no longer fits
    /// (the oldest parked), to be disposed. With no capacity, `page` itself.
    pub fn park(&mut self, key: K, page: P, now: Instant) -> Option<P> {
        if self.capacity == 0 {
            return Some(page);
        }
        self.parked.push(Parked { key, page, since: now, collected: false });
        (self.parked.len() > self.capacity).then(|| self.parked.remove(0).page)
    }

    /// Removes and hands back the pages parked for `IDLE_TTL` or more at
    /// `now`, and those `unusable` says cannot serve a run any more.
    pub fn remove_stale(&mut self, now: Instant, unusable: impl Fn(&P) -> bool) -> Vec<P> {
        let (stale, kept): (Vec<_>, Vec<_>) = std::mem::take(&mut self.parked)
            .into_iter()
            .partition(|p| now.saturating_duration_since(p.since) >= IDLE_TTL || unusable(&p.page));
        self.parked = kept;
        stale.into_iter().map(|p| p.page).collect()
    }

    /// `what` of each page parked for `COLLECT_AFTER` or more at `now` and
    /// not yet collected since it was parked, which now counts as collected.
    pub fn due_for_collection<T>(&mut self, now: Instant, what: impl Fn(&P) -> T) -> Vec<T> {
        let due =
            self.parked.iter_mut().filter(|p| !p.collected && now.saturating_duration_since(p.since) >= COLLECT_AFTER);
        due.map(|p| {
            p.collected = true;
            what(&p.page)
        })
        .collect()
    }

    /// Every parked page (the engine is closing).
    pub fn drain(&mut self) -> Vec<P> {
        std::mem::take(&mut self.parked).into_iter().map(|p| p.page).collect()
    }

    /// A page of `key` that shows `origin` is being emptied: a run of
    /// `key` (or one that may share it) may wait for it.
    pub fn recycling(&mut self, key: &K, origin: Option<String>) {
        self.recycling.push((key.clone(), origin));
    }

    /// That page is parked, or was disposed.
    pub fn recycled(&mut self, key: &K, origin: &Option<String>) {
        if let Some(index) = self.recycling.iter().position(|(k, o)| k == key && o == origin) {
            self.recycling.swap_remove(index);
        }
    }

    /// Whether a page of `key` is being emptied.
    pub fn is_recycling(&self, key: &K) -> bool {
        self.recycling.iter().any(|(k, _)| k == key)
    }

    /// Whether a page is being emptied whose key and origin `accept` takes.
    pub fn is_recycling_where(&self, accept: impl Fn(&K, Option<&str>) -> bool) -> bool {
        self.recycling.iter().any(|(k, o)| accept(k, o.as_deref()))
    }

    /// The key and origin of every page parked (`origin_of` tells what a
    /// parked page shows) or being emptied: what the next runs could find
    /// warm.
    pub fn seats(&self, origin_of: impl Fn(&P) -> Option<String>) -> Vec<(K, Option<String>)> {
        let parked = self.parked.iter().map(|p| (p.key.clone(), origin_of(&p.page)));
        parked.chain(self.recycling.iter().cloned()).collect()
    }

    /// Whether the caller, which just parked a page, must start a sweeper
    /// (none is running): one sweeper at a time, whatever the rate of runs.
    pub fn sweeper_needed(&mut self) -> bool {
        !std::mem::replace(&mut self.swept, true)
    }

    /// Whether the sweeper may stop: nothing is parked any more. Decided
    /// under the same lock as `sweeper_needed`, so that a page parked in
    /// between is never left without a sweeper.
    pub fn sweeper_done(&mut self) -> bool {
        if self.parked.is_empty() {
            self.swept = false;
        }
        !self.swept
    }

    pub fn len(&self) -> usize {
        self.parked.len()
    }

    /// Pages parked or being emptied.
    pub fn held(&self) -> usize {
        self.parked.len() + self.recycling.len()
    }

    /// Removes and hands back the page parked first of those `evictable`
    /// says may go, asked from the oldest on (to make room).
    pub fn take_oldest_where(&mut self, mut evictable: impl FnMut(&K, &P) -> bool) -> Option<P> {
        let index = self.parked.iter().position(|p| evictable(&p.key, &p.page))?;
        Some(self.parked.remove(index).page)
    }

    /// Removes and hands back the page parked first (to make room).
    pub fn take_oldest(&mut self) -> Option<P> {
        (!self.parked.is_empty()).then(|| self.parked.remove(0).page)
    }

    pub fn is_empty(&self) -> bool {
        self.parked.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_serves_only_its_own_key() {
        let now = Instant::now();
        let mut pool = WarmPages::new(4);
        assert!(pool.park(("org-a", "scrap-1"), "page-a1", now).is_none());
        assert!(pool.park(("org-b", "scrap-1"), "page-b1", now).is_none());
        let never = |_: &(&str, &str), _: &&str| false;
        assert_eq!(pool.take(&("org-a", "scrap-2"), never), None, "another scrap of the organization");
        assert_eq!(pool.take(&("org-c", "scrap-1"), never), None, "the same scrap id under another organization");
        assert_eq!(pool.take(&("org-b", "scrap-1"), never), Some("page-b1"));
        assert_eq!(pool.take(&("org-b", "scrap-1"), never), None, "a page serves one run at a time");
        assert_eq!(pool.take(&("org-a", "scrap-1"), never), Some("page-a1"));
        assert!(pool.is_empty());
    }

    #[test]
    fn a_page_goes_to_another_key_only_when_shares_accepts_it() {
        let now = Instant::now();
        let mut pool = WarmPages::new(4);
        pool.park(("org-a", "scrap-1"), "a1 on site x", now);
        pool.park(("org-a", "scrap-2"), "a2 on site y", now);
        pool.park(("org-b", "scrap-3"), "b3 on site x", now);
        // The engine's rule, in small: the same organization and site.
        fn shares<'a>(wanted: &'a (&'a str, &'a str), site: &'a str) -> impl Fn(&(&str, &str), &&str) -> bool + 'a {
            move |parked, page| parked.0 == wanted.0 && page.ends_with(site)
        }
        let c = ("org-c", "scrap-9");
        assert_eq!(pool.take(&c, shares(&c, "site x")), None, "no page of another organization");
        let a4 = ("org-a", "scrap-4");
        assert_eq!(pool.take(&a4, shares(&a4, "site z")), None, "no page of the organization on that site");
        assert_eq!(pool.take(&a4, shares(&a4, "site x")), Some("a1 on site x"));
        // The key's own page comes first, whatever `shares` says.
        pool.park(("org-a", "scrap-4"), "a4 on site y", now);
        let a2 = ("org-a", "scrap-2");
        assert_eq!(pool.take(&a2, |_, _| true), Some("a2 on site y"));
        assert_eq!(pool.take(&a2, shares(&a2, "site y")), Some("a4 on site y"));
        assert_eq!(pool.len(), 1);
    }

    #[test]
    fn the_newest_page_of_a_key_is_taken_and_the_oldest_overall_makes_room() {
        let start = Instant::now();
        let mut pool = WarmPages::new(2);
        assert!(pool.park("a", 1, start).is_none());
        assert!(pool.park("a", 2, start + Duration::from_secs(1)).is_none());
        assert_eq!(pool.park("b", 3, start + Duration::from_secs(2)), Some(1), "over capacity: the oldest goes");
        assert_eq!(pool.len(), 2);
        assert_eq!(pool.take(&"a", |_, _| false), Some(2));
        assert_eq!(pool.take(&"a", |_, _| false), None);
    }

    #[test]
    fn without_capacity_nothing_is_kept() {
        let mut pool = WarmPages::new(0);
        assert!(!pool.enabled());
        assert_eq!(pool.park("a", 1, Instant::now()), Some(1));
        assert_eq!(pool.take(&"a", |_, _| true), None);
    }

    #[test]
    fn idle_and_unusable_pages_are_removed() {
        let start = Instant::now();
        let mut pool = WarmPages::new(8);
        pool.park("old", 1, start);
        pool.park("dead", -2, start + Duration::from_secs(60));
        pool.park("fresh", 3, start + Duration::from_secs(60));
        let later = start + IDLE_TTL;
        let mut stale = pool.remove_stale(later, |page| *page < 0);
        stale.sort();
        assert_eq!(stale, vec![-2, 1]);
        assert_eq!(pool.take(&"fresh", |_, _| false), Some(3));
        assert!(pool.remove_stale(later + IDLE_TTL, |_| false).is_empty(), "nothing left");
    }

    #[test]
    fn one_sweeper_runs_while_pages_are_parked() {
        let mut pool = WarmPages::new(4);
        pool.park("a", 1, Instant::now());
        assert!(pool.sweeper_needed(), "the first park starts one");
        pool.park("b", 2, Instant::now());
        assert!(!pool.sweeper_needed(), "one is running");
        assert!(!pool.sweeper_done(), "pages are parked: it goes on");
        pool.drain();
        assert!(pool.sweeper_done(), "nothing parked: it stops");
        pool.park("c", 3, Instant::now());
        assert!(pool.sweeper_needed(), "the next park starts one again");
    }

    #[test]
    fn idle_pages_are_collected_once_per_parking() {
        let start = Instant::now();
        let mut pool = WarmPages::new(4);
        pool.park("a", 1, start);
        pool.park("b", 2, start + Duration::from_secs(10));
        assert!(pool.due_for_collection(start + Duration::from_secs(19), |p| *p).is_empty(), "not idle long enough");
        assert_eq!(pool.due_for_collection(start + COLLECT_AFTER, |p| *p), vec![1]);
        assert!(pool.due_for_collection(start + COLLECT_AFTER, |p| *p).is_empty(), "once");
        assert_eq!(pool.due_for_collection(start + Duration::from_secs(60), |p| *p), vec![2]);
        // Taken and parked again: collected again when idle again.
        let page = pool.take(&"a", |_, _| false).unwrap();
        pool.park("a", page, start + Duration::from_secs(60));
        assert_eq!(pool.due_for_collection(start + Duration::from_secs(80), |p| *p), vec![1]);
    }

    #[test]
    fn recycling_is_counted_per_key() {
        let mut pool: WarmPages<&str, ()> = WarmPages::new(1);
        let x = Some("http://x".to_string());
        pool.recycling(&"a", x.clone());
        pool.recycling(&"a", None);
        assert!(pool.is_recycling(&"a"));
        assert!(!pool.is_recycling(&"b"));
        assert!(pool.is_recycling_where(|k, o| *k == "a" && o == Some("http://x")));
        assert!(!pool.is_recycling_where(|_, o| o == Some("http://y")));
        pool.recycled(&"a", &x);
        assert!(pool.is_recycling(&"a"));
        assert!(!pool.is_recycling_where(|_, o| o.is_some()), "the page on x is done");
        pool.recycled(&"a", &None);
        assert!(!pool.is_recycling(&"a"));
        pool.recycled(&"a", &None);
        assert!(!pool.is_recycling(&"a"), "an extra end changes nothing");
    }

    #[test]
    fn the_oldest_page_makes_room() {
        let start = Instant::now();
        let mut pool = WarmPages::new(4);
        pool.park("a", 1, start);
        pool.park("b", 2, start + Duration::from_secs(1));
        pool.recycling(&"c", None);
        assert_eq!(pool.held(), 3);
        assert_eq!(pool.take_oldest(), Some(1));
        assert_eq!(pool.take_oldest(), Some(2));
        assert_eq!(pool.take_oldest(), None, "a page being emptied is not parked yet");
        assert_eq!(pool.held(), 1);
    }

    #[test]
    fn seats_are_the_parked_pages_and_those_being_emptied() {
        let mut pool: WarmPages<&str, &str> = WarmPages::new(4);
        pool.park("a", "http://x", Instant::now());
        pool.recycling(&"b", Some("http://y".into()));
        let seats = pool.seats(|page| Some(page.to_string()));
        assert_eq!(seats, vec![("a", Some("http://x".into())), ("b", Some("http://y".into()))]);
    }
}
