//! A target site whose pages the test changes while svc runs against it:
//! `set(path, status, html)` replaces what `GET path` answers, and
//! `engines(path)` tells which engines fetched it (by their user agent).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use tokio::net::TcpListener;

type Pages = Arc<Mutex<HashMap<String, (u16, String)>>>;
/// `(path, user agent)` of every request, in order.
type Visits = Arc<Mutex<Vec<(String, String)>>>;

#[derive(Clone)]
pub struct Site {
    /// `http://127.0.0.1:PORT` (or the address it was started on).
    pub base: String,
    pages: Pages,
    visits: Visits,
}

async fn page(State((pages, visits)): State<(Pages, Visits)>, request: Request) -> Response {
    let agent = request.headers().get(header::USER_AGENT).and_then(|v| v.to_str().ok()).unwrap_or_default();
    visits.lock().unwrap().push((request.uri().path().to_string(), agent.to_string()));
    let found = pages.lock().unwrap().get(request.uri().path()).cloned();
    match found {
        Some((status, html)) => {
            (StatusCode::from_u16(status).unwrap(), [(header::CONTENT_TYPE, "text/html; charset=utf-8")], html)
                .into_response()
        }
        None => StatusCode::NOT_FOUND.into_response(),
    }
}

impl Site {
    pub async fn start() -> Site {
        Site::start_on(("127.0.0.1", 0)).await
    }

    /// The site on another address (a loopback address beside 127.0.0.1,
    /// a given port).
    pub async fn start_on(addr: (&str, u16)) -> Site {
        let pages: Pages = Arc::default();
        let visits: Visits = Arc::default();
        let app = Router::new().fallback(page).with_state((pages.clone(), visits.clone()));
        let listener = TcpListener::bind(addr).await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        Site { base, pages, visits }
    }

    /// Which engines fetched `path` since the last call, in order:
    /// `static` (svc's static engine) or `browser` (anything else).
    pub fn engines(&self, path: &str) -> Vec<&'static str> {
        let mut visits = self.visits.lock().unwrap();
        let seen = visits
            .iter()
            .filter(|(p, _)| p == path)
            .map(|(_, agent)| if agent.contains("svc-static/") { "static" } else { "browser" })
            .collect();
        visits.retain(|(p, _)| p != path);
        seen
    }

    /// From now on `GET path` answers `status` with `html`.
    pub fn set(&self, path: &str, status: u16, html: &str) {
        self.pages.lock().unwrap().insert(path.to_string(), (status, html.to_string()));
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }
}

/// A shop page listing `n` products in `<li class="item">` (the markup the
/// scripts are written for), with enough text around them to be a real page.
pub fn shop_as_list(n: usize) -> String {
    let items: String = (1..=n)
        .map(|i| format!("<li class=\"item\"><span class=\"name\">Lamp {i}</span> <b class=\"price\">{i}9.00</b></li>"))
        .collect();
    format!(
        "<!doctype html><html><head><title>Lamp shop</title></head><body><h1>Lamp shop</h1>\
             <p>Our lamps are made by hand in a small workshop; every one of them is tested before it ships.</p>\
             <ul id=\"products\">{items}</ul><footer>Opening hours: Monday to Friday, 9:00 to 18:00.</footer></body></html>"
    )
}

/// The same shop after a redesign: products are `<div class="product">` cards.
pub fn shop_as_cards(n: usize) -> String {
    let items: String = (1..=n)
        .map(|i| {
            format!("<div class=\"product\"><h2 class=\"title\">Lamp {i}</h2><span class=\"cost\">{i}9.00</span></div>")
        })
        .collect();
    format!(
        "<!doctype html><html><head><title>Lamp shop</title></head><body><h1>Lamp shop</h1>\
             <p>Our lamps are made by hand in a small workshop; every one of them is tested before it ships.</p>\
             <section id=\"catalogue\">{items}</section><footer>Opening hours: Monday to Friday, 9:00 to 18:00.</footer></body></html>"
    )
}
