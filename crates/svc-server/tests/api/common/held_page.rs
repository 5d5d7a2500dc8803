//! A target page that holds requests until the test lets them go: a run
//! whose page load is in flight for as long as the test wants. Shared with
//! the `svc` binary's tests (`svc-cli/tests/cli/`).
#![allow(dead_code)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::get;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::time::Instant;

/// The page's items, for the scripts that read it.
pub const ITEMS: [&str; 3] = ["Lamp", "Chair", "Desk"];

#[derive(Clone)]
struct Shared {
    /// Requests so far.
    hits: Arc<AtomicUsize>,
    /// How many of the first requests wait for `open`.
    held: usize,
    open: watch::Receiver<bool>,
}

pub struct HeldPage {
    /// `http://127.0.0.1:PORT/items`.
    pub url: String,
    hits: Arc<AtomicUsize>,
    open: watch::Sender<bool>,
}

async fn page(State(shared): State<Shared>) -> impl IntoResponse {
    let n = shared.hits.fetch_add(1, Ordering::SeqCst) + 1;
    if n <= shared.held {
        let mut open = shared.open.clone();
        let _ = open.wait_for(|open| *open).await;
    }
    let items: String = ITEMS.iter().map(|i| format!("<li class=\"item\">{i}</li>")).collect();
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], format!("<!doctype html><ul>{items}</ul>"))
}

impl HeldPage {
    /// A page whose first `held` requests wait until [`HeldPage::release`].
    pub async fn start(held: usize) -> HeldPage {
        let hits = Arc::new(AtomicUsize::new(0));
        let (open, open_rx) = watch::channel(false);
        let shared = Shared { hits: hits.clone(), held, open: open_rx };
        let app = Router::new().route("/items", get(page)).with_state(shared);
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/items", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        HeldPage { url, hits, open }
    }

    /// Requests that arrived so far (held ones included).
    pub fn hits(&self) -> usize {
        self.hits.load(Ordering::SeqCst)
    }

    /// Waits (with a deadline) until `n` requests arrived.
    pub async fn wait_for(&self, n: usize, within: Duration) {
        let deadline = Instant::now() + within;
        while self.hits() < n {
            assert!(Instant::now() < deadline, "{} of {n} requests reached the page", self.hits());
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Lets the held requests (and any later one) through.
    pub fn release(&self) {
        let _ = self.open.send(true);
    }
}
