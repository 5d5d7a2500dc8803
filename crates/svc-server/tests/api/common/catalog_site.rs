//! A catalog to crawl: an index page (`/`) links to the first of 5 listing
//! pages (`/catalog?page=N`), each listing 20 items that link to their
//! detail page (`/item/K`) and to the next listing by a `a.next` link. 106
//! pages in all. With extras, the first listing also links to a page that
//! answers 500 (`/broken`), to one robots.txt disallows (`/private/secret`),
//! to item 1 again (a duplicate, with a fragment), to the same catalog
//! under `localhost` (another site) and to a private address.
//! robots.txt disallows `/private`. Every request is counted by path. An
//! uneven catalog answers its detail pages after varying delays.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use tokio::net::TcpListener;

pub const LISTINGS: usize = 5;
pub const PER_LISTING: usize = 20;

/// The crawl script the tests run: listing pages enqueue their items
/// (`detail`) and the next listing (`list`); detail pages return one record.
pub fn catalog_script(directive: &str) -> String {
    format!(
        "// svc:crawl {directive}\n\
         if (SVC.label === 'detail') {{\n\
           returnData([{{ title: document.querySelector('h1').textContent, price: document.querySelector('.price').textContent, from: SVC.data && SVC.data.listing }}]);\n\
         }} else {{\n\
           const listing = new URL(location.href).searchParams.get('page');\n\
           for (const a of document.querySelectorAll('a.item')) SVC.enqueue(a.href, {{ label: 'detail', data: {{ listing }} }});\n\
           for (const a of document.querySelectorAll('a.next')) SVC.enqueue(a.href, {{ label: 'list' }});\n\
           returnData([]);\n\
         }}"
    )
}

#[derive(Clone)]
pub struct CatalogSite {
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    hits: Arc<Mutex<HashMap<String, usize>>>,
}

#[derive(Clone)]
struct Shared {
    base: String,
    extras: bool,
    /// Detail pages answer after a delay that varies with the item, so that
    /// pages run in parallel finish out of the order they were enqueued.
    uneven: bool,
    hits: Arc<Mutex<HashMap<String, usize>>>,
}

fn html(body: String) -> Response {
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        format!("<!doctype html><html><body>{body}</body></html>"),
    )
        .into_response()
}

async fn answer(State(shared): State<Shared>, request: Request) -> Response {
    let path = request.uri().path().to_string();
    let query = request.uri().query().unwrap_or_default().to_string();
    *shared
        .hits
        .lock()
        .unwrap()
        .entry(format!("{path}{}", if query.is_empty() { String::new() } else { format!("?{query}") }))
        .or_default() += 1;
    match path.as_str() {
        "/" => html("<h1>Lamp catalog</h1><a class=\"next\" href=\"/catalog?page=1\">Browse the catalog</a>".into()),
        "/robots.txt" => {
            (StatusCode::OK, [(header::CONTENT_TYPE, "text/plain")], "User-agent: *\nDisallow: /private\n")
                .into_response()
        }
        "/catalog" => {
            let n: usize = query.strip_prefix("page=").and_then(|p| p.parse().ok()).unwrap_or(0);
            if !(1..=LISTINGS).contains(&n) {
                return StatusCode::NOT_FOUND.into_response();
            }
            let mut body = format!("<h1>Lamps, page {n}</h1><ul>");
            for k in (n - 1) * PER_LISTING + 1..=n * PER_LISTING {
                body.push_str(&format!("<li><a class=\"item\" href=\"/item/{k}\">Lamp {k}</a></li>"));
            }
            body.push_str("</ul>");
            if shared.extras && n == 1 {
                let other_site = shared.base.replace("127.0.0.1", "localhost");
                body.push_str(&format!(
                    "<a class=\"item\" href=\"/item/1#reviews\">Lamp 1 again</a>\
                     <a class=\"item\" href=\"/broken\">A broken lamp</a>\
                     <a class=\"item\" href=\"/private/secret\">A private lamp</a>\
                     <a class=\"item\" href=\"{other_site}/item/999\">A lamp elsewhere</a>\
                     <a class=\"item\" href=\"http://10.255.255.1/item/1\">A lamp on a private address</a>"
                ));
            }
            if n < LISTINGS {
                body.push_str(&format!("<a class=\"next\" href=\"/catalog?page={}\">Next</a>", n + 1));
            }
            html(body)
        }
        "/broken" => (StatusCode::INTERNAL_SERVER_ERROR, "down").into_response(),
        p if p.starts_with("/item/") => {
            let k = &p["/item/".len()..];
            if shared.uneven {
                let n: u64 = k.parse().unwrap_or(0);
                tokio::time::sleep(std::time::Duration::from_millis((5 - n % 5) * 15)).await;
            }
            html(format!("<h1>Lamp {k}</h1><span class=\"price\">{k}.00</span>"))
        }
        p if p.starts_with("/private/") => html("<h1>Private lamp</h1><span class=\"price\">0</span>".into()),
        _ => StatusCode::NOT_FOUND.into_response(),
    }
}

impl CatalogSite {
    pub async fn start(extras: bool) -> CatalogSite {
        Self::start_with(extras, false).await
    }

    /// `uneven`: detail pages answer after 15 to 75 ms, the later items of
    /// each five sooner, so that parallel pages finish out of order.
    pub async fn start_with(extras: bool, uneven: bool) -> CatalogSite {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let hits: Arc<Mutex<HashMap<String, usize>>> = Arc::default();
        let shared = Shared { base: base.clone(), extras, uneven, hits: hits.clone() };
        let app = Router::new().fallback(answer).with_state(shared);
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        CatalogSite { base, hits }
    }

    /// How many times `path` (with its query) was requested.
    pub fn hits(&self, path: &str) -> usize {
        self.hits.lock().unwrap().get(path).copied().unwrap_or(0)
    }
}
