//! A local target site for the static engine's tests, served on 127.0.0.1:0.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use tokio::net::TcpListener;

pub struct Site {
    pub base: String,
    pub port: u16,
    /// Requests served, every path.
    pub hits: Arc<AtomicUsize>,
}

/// The fixture's 50-item page, as `svc-server/tests/api/common/fixture.rs` serves it.
pub fn items_page(n: usize) -> String {
    let items: String = (0..n).map(|i| format!("<li class=\"item\" data-i=\"{i}\">Item {i}</li>")).collect();
    format!("<!doctype html><html><head><title>Items</title></head><body><ul id=\"list\">{items}</ul></body></html>")
}

async fn items(Path(n): Path<usize>) -> Html<String> {
    Html(items_page(n.min(10_000)))
}

async fn status(Path(code): Path<u16>) -> Response {
    let code = StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    (code, Html(format!("<html><body><h1>status {}</h1></body></html>", code.as_u16()))).into_response()
}

/// `/hop/n/target`: n redirects, then `/target`.
async fn hop(Path((n, target)): Path<(u32, String)>) -> Response {
    let location = if n == 0 { format!("/{target}") } else { format!("/hop/{}/{target}", n - 1) };
    (StatusCode::FOUND, [(header::LOCATION, location)]).into_response()
}

/// Redirects to an absolute URL given in the path (percent-encoded).
async fn redirect_to(Path(target): Path<String>) -> Response {
    (StatusCode::FOUND, [(header::LOCATION, target)]).into_response()
}

async fn slow() -> Html<&'static str> {
    tokio::time::sleep(Duration::from_secs(60)).await;
    Html("<html><body>late</body></html>")
}

/// An endless body streamed slowly.
async fn endless() -> Response {
    let stream = futures_stream();
    Response::builder().header(header::CONTENT_TYPE, "text/html").body(Body::from_stream(stream)).unwrap()
}

fn futures_stream() -> impl futures::Stream<Item = Result<bytes::Bytes, std::io::Error>> {
    let chunk = bytes::Bytes::from(vec![b'x'; 64 * 1024]);
    futures::stream::unfold(0u32, move |n| {
        let chunk = chunk.clone();
        async move {
            if n > 0 {
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
            (n < 16_384).then_some((Ok(chunk), n + 1))
        }
    })
}

/// A page announcing a 1 GiB body (of which it sends 1 KiB, then stalls).
async fn announced_huge() -> Response {
    let stream = futures::stream::unfold(0u32, |n| async move {
        if n > 0 {
            tokio::time::sleep(Duration::from_secs(60)).await;
        }
        (n < 2).then(|| (Ok::<_, std::io::Error>(bytes::Bytes::from(vec![b'x'; 1024])), n + 1))
    });
    Response::builder()
        .header(header::CONTENT_TYPE, "text/html")
        .header(header::CONTENT_LENGTH, (1u64 << 30).to_string())
        .body(Body::from_stream(stream))
        .unwrap()
}

async fn text() -> Response {
    ([(header::CONTENT_TYPE, "text/plain; charset=utf-8")], "plain <text> & more").into_response()
}

async fn image() -> Response {
    ([(header::CONTENT_TYPE, "image/png")], vec![0x89, b'P', b'N', b'G']).into_response()
}

async fn latin1() -> Response {
    ([(header::CONTENT_TYPE, "text/html; charset=iso-8859-1")], b"<p id=x>caf\xe9</p>".to_vec()).into_response()
}

/// The page a JavaScript app serves: its items arrive from its script.
async fn app_shell() -> Html<&'static str> {
    Html(concat!(
        "<!doctype html><html><body><ul id=\"list\"></ul><script>",
        "for (let i = 0; i < 3; i++) { const li = document.createElement('li'); li.className = 'late';",
        "document.getElementById('list').appendChild(li); }",
        "</script></body></html>"
    ))
}

/// A page for the DOM behaviours: links, a table, a form, data attributes.
pub const RICH: &str = r#"<!doctype html><html><head><title>  Rich
  page </title><base href="/base/"></head><body>
<nav><a id="rel" href="item?id=7#top">Seven</a> <a id="abs" href="https://example.org/x">Ext</a> <a id="none">No href</a></nav>
<main class="content main">
  <h1 id="t" data-product-id="42" data-x="y">Widget <small>v2</small></h1>
  <p class="price">  $10.00 </p><p class="price sale">$8.00</p>
  <img id="pic" src="img/w.png" alt="A widget">
  <table id="specs"><thead><tr><th>Key</th><th>Value</th></tr></thead>
    <tbody><tr><td>Weight</td><td>2 kg</td></tr><tr><td>Size</td><td>L</td></tr></tbody></table>
  <form id="f"><input name="q" value="shoes"><input type="checkbox" name="c" checked><select name="s"><option value="a">A</option><option selected>B</option></select><textarea name="t">text</textarea></form>
  <div id="hidden" hidden>secret</div><script>var notText = 1;</script>
</main>
</body></html>"#;

async fn rich() -> Html<&'static str> {
    Html(RICH)
}

/// What a request carried, as JSON: for the scripts' `fetch`.
async fn echo(method: axum::http::Method, headers: axum::http::HeaderMap, body: String) -> Response {
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).map(str::to_string);
    let answer = serde_json::json!({
        "method": method.as_str(),
        "body": body,
        "xTest": header("x-test"),
        "cookie": header("cookie"),
        "contentType": header("content-type"),
    });
    (
        [(header::CONTENT_TYPE, "application/json"), (header::HeaderName::from_static("x-answer"), "echo")],
        answer.to_string(),
    )
        .into_response()
}

async fn count(
    State(hits): State<Arc<AtomicUsize>>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    hits.fetch_add(1, Ordering::Relaxed);
    next.run(request).await
}

pub async fn start() -> Site {
    start_on("127.0.0.1").await
}

/// The same site on another loopback address (`127.0.0.2`: another site).
pub async fn start_on(ip: &str) -> Site {
    let hits = Arc::new(AtomicUsize::new(0));
    let app = Router::new()
        .route("/items/{n}", get(items))
        .route("/status/{code}", get(status))
        .route("/hop/{n}/{*target}", get(hop))
        .route("/redirect/{*target}", get(redirect_to))
        .route("/slow", get(slow))
        .route("/endless", get(endless))
        .route("/announced-huge", get(announced_huge))
        .route("/text", get(text))
        .route("/image", get(image))
        .route("/latin1", get(latin1))
        .route("/app", get(app_shell))
        .route("/rich", get(rich))
        .route("/echo", get(echo).post(echo).put(echo))
        .route(
            "/api/items",
            get(|| async { ([(header::CONTENT_TYPE, "application/json")], r#"[{"t":"a"},{"t":"b"}]"#) }),
        )
        .layer(axum::middleware::from_fn_with_state(hits.clone(), count));
    let listener = TcpListener::bind((ip, 0)).await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move { axum::serve(listener, app).await });
    Site { base: format!("http://{ip}:{port}"), port, hits }
}
