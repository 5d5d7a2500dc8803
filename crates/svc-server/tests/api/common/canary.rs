//! A server standing in for an attacker's, to show that nothing reaches it.

/// A second local server standing in for an attacker's: records every
/// request (any method, any path) with its query and body.
pub struct Canary {
    pub base: String,
    hits: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

impl Canary {
    pub async fn start() -> Canary {
        use axum::extract::{Request, State};
        type Hits = std::sync::Arc<std::sync::Mutex<Vec<String>>>;
        async fn record(State(hits): State<Hits>, request: Request) -> &'static str {
            let line = format!("{} {}", request.method(), request.uri());
            let body = axum::body::to_bytes(request.into_body(), 1 << 20).await.unwrap_or_default();
            hits.lock().unwrap().push(format!("{line} {}", String::from_utf8_lossy(&body)));
            "ok"
        }
        let hits: Hits = Default::default();
        let router = axum::Router::new().fallback(record).with_state(hits.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, router).await });
        Canary { base, hits }
    }

    pub fn hits(&self) -> Vec<String> {
        self.hits.lock().unwrap().clone()
    }
}
