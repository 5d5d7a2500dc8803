//! Counting the pages that have a renderer of their own, from the moment
//! one is asked for until its context is gone.
//!
//! The engine's page budget (`SVC_WARM_PAGES`, `SVC_SPARE_PAGES`) bounds
//! pages held by runs, parked, being emptied, spare, being made and being
//! disposed alike: a [`Seat`] is taken before a context is created and
//! given back when the page that holds it is dropped, which is after its
//! context was disposed. Counting only some of these let a fleet of scraps
//! keep about three renderers beyond the budget (docs/benchmarks.md).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::sync::Notify;

/// The seats taken, and a signal when one is given back.
#[derive(Default)]
pub struct Seats {
    taken: AtomicUsize,
    freed: Notify,
}

/// One page's place in the budget; given back when dropped.
pub struct Seat(Arc<Seats>);

impl Seats {
    pub fn new() -> Arc<Seats> {
        Arc::new(Seats::default())
    }

    /// A seat for a page about to be made (whatever the budget: callers
    /// make room first).
    pub fn take(self: &Arc<Self>) -> Seat {
        self.taken.fetch_add(1, Ordering::SeqCst);
        Seat(self.clone())
    }

    /// Pages that have (or are about to have, or still have) a renderer.
    pub fn taken(&self) -> usize {
        self.taken.load(Ordering::SeqCst)
    }

    /// Resolves when a seat is given back after this call was made and
    /// the returned future first polled (enable it before looking at
    /// [`Seats::taken`]).
    pub fn freed(&self) -> tokio::sync::futures::Notified<'_> {
        self.freed.notified()
    }
}

impl Drop for Seat {
    fn drop(&mut self) {
        self.0.taken.fetch_sub(1, Ordering::SeqCst);
        self.0.freed.notify_waiters();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_seat_is_counted_until_dropped_and_its_return_wakes_a_waiter() {
        let seats = Seats::new();
        let first = seats.take();
        let second = seats.take();
        assert_eq!(seats.taken(), 2);
        let freed = seats.freed();
        tokio::pin!(freed);
        freed.as_mut().enable();
        drop(first);
        assert_eq!(seats.taken(), 1);
        tokio::time::timeout(std::time::Duration::from_secs(5), freed).await.expect("woken by the seat's return");
        drop(second);
        assert_eq!(seats.taken(), 0);
    }
}
