//! A local chat service: accepts POSTs on any path (as Slack's, Discord's,
//! Telegram's, a Teams workflow's, ntfy's, Mattermost's or a JSON
//! receiver's endpoint would), records each request (path with query,
//! headers, body) and answers scripted statuses (200 once the script runs
//! out). Bound before `start` returns.
#![allow(dead_code)]

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri};
use tokio::net::TcpListener;
use tokio::time::Instant;

#[derive(Clone, Debug)]
pub struct Request {
    pub path: String,
    pub headers: HeaderMap,
    pub body: Bytes,
}

impl Request {
    pub fn header(&self, name: &str) -> String {
        self.headers.get(name).and_then(|v| v.to_str().ok()).unwrap_or_default().to_string()
    }
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).expect("a JSON body")
    }
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

#[derive(Default)]
struct Inner {
    requests: Vec<Request>,
    script: VecDeque<(u16, &'static str)>,
}

#[derive(Clone)]
pub struct ChatService {
    /// `http://127.0.0.1:PORT`
    pub base: String,
    /// `127.0.0.1:PORT`
    pub authority: String,
    inner: Arc<Mutex<Inner>>,
}

async fn receive(
    State(inner): State<Arc<Mutex<Inner>>>,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> (StatusCode, String) {
    let mut inner = inner.lock().unwrap();
    let path = uri.path_and_query().map(|p| p.to_string()).unwrap_or_default();
    inner.requests.push(Request { path, headers, body });
    let (status, answer) = inner.script.pop_front().unwrap_or((200, "ok"));
    (StatusCode::from_u16(status).unwrap(), answer.to_string())
}

impl ChatService {
    pub async fn start() -> ChatService {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let inner = Arc::new(Mutex::new(Inner::default()));
        let app = Router::new().fallback(receive).with_state(inner.clone());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        ChatService { base: format!("http://{addr}"), authority: addr.to_string(), inner }
    }

    /// The next answers, in order (then 200).
    pub fn answer(&self, answers: &[(u16, &'static str)]) {
        self.inner.lock().unwrap().script.extend(answers.iter().copied());
    }

    pub fn requests(&self) -> Vec<Request> {
        self.inner.lock().unwrap().requests.clone()
    }

    /// Waits (up to `within`) until `n` requests have come.
    pub async fn wait_for(&self, n: usize, within: Duration) -> Vec<Request> {
        let deadline = Instant::now() + within;
        loop {
            let got = self.requests();
            if got.len() >= n {
                return got;
            }
            assert!(Instant::now() < deadline, "fewer than {n} requests: {got:?}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}
