//! A local webhook receiver: records every request (headers, raw body,
//! arrival) and answers with scripted statuses (200 once the script runs
//! out; 0 means never answer), or holds every answer until released.
#![allow(dead_code)]

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::time::Instant;

#[derive(Clone, Debug)]
pub struct Hit {
    pub headers: HeaderMap,
    pub body: Bytes,
    pub at: Instant,
}

impl Hit {
    pub fn header(&self, name: &str) -> String {
        self.headers.get(name).and_then(|v| v.to_str().ok()).unwrap_or_default().to_string()
    }
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).expect("JSON body")
    }
}

#[derive(Default)]
struct Inner {
    hits: Vec<Hit>,
    script: VecDeque<u16>,
    /// Set for a receiver that holds every request until released.
    gate: Option<watch::Receiver<bool>>,
}

#[derive(Clone)]
pub struct Receiver {
    pub url: String,
    inner: Arc<Mutex<Inner>>,
    open: Option<Arc<watch::Sender<bool>>>,
}

async fn receive(State(inner): State<Arc<Mutex<Inner>>>, headers: HeaderMap, body: Bytes) -> StatusCode {
    let (code, gate) = {
        let mut inner = inner.lock().unwrap();
        inner.hits.push(Hit { headers, body, at: Instant::now() });
        (inner.script.pop_front().unwrap_or(200), inner.gate.clone())
    };
    if let Some(mut gate) = gate {
        let _ = gate.wait_for(|open| *open).await;
    }
    if code == 0 {
        tokio::time::sleep(Duration::from_secs(3600)).await;
    }
    StatusCode::from_u16(code).unwrap_or(StatusCode::OK)
}

impl Receiver {
    /// Answers `script` in order, then 200.
    pub async fn start(script: &[u16]) -> Receiver {
        Self::serve(Inner { hits: vec![], script: script.iter().copied().collect(), gate: None }, None).await
    }

    /// Records every request at once and answers 200 once
    /// [`Receiver::release`] is called (each request in flight until then).
    pub async fn holding() -> Receiver {
        let (open, gate) = watch::channel(false);
        Self::serve(Inner { hits: vec![], script: VecDeque::new(), gate: Some(gate) }, Some(Arc::new(open))).await
    }

    async fn serve(inner: Inner, open: Option<Arc<watch::Sender<bool>>>) -> Receiver {
        let inner = Arc::new(Mutex::new(inner));
        let app = Router::new().route("/hook", post(receive)).with_state(inner.clone());
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/hook", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        Receiver { url, inner, open }
    }

    /// Lets the held requests (and later ones) be answered.
    pub fn release(&self) {
        if let Some(open) = &self.open {
            let _ = open.send(true);
        }
    }

    pub fn hits(&self) -> Vec<Hit> {
        self.inner.lock().unwrap().hits.clone()
    }

    /// Waits (with a deadline) until `n` requests arrived.
    pub async fn wait_for(&self, n: usize, within: Duration) -> Vec<Hit> {
        let deadline = Instant::now() + within;
        loop {
            let hits = self.hits();
            if hits.len() >= n {
                return hits;
            }
            assert!(Instant::now() < deadline, "{} of {n} webhook requests arrived", hits.len());
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}
