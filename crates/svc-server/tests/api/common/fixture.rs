//! A local target site for run tests, served by the test itself on port 0.
#![allow(dead_code)]

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use tokio::net::TcpListener;

pub struct Fixture {
    pub base: String,
    /// Paths of `/asset/...` requests, in order.
    pub asset_hits: Arc<Mutex<Vec<String>>>,
}

impl Fixture {
    pub fn asset_hit(&self, name: &str) -> bool {
        self.asset_hits.lock().unwrap().iter().any(|hit| hit == name)
    }
}

fn items_page(n: usize) -> String {
    let items: String = (0..n).map(|i| format!("<li class=\"item\" data-i=\"{i}\">Item {i}</li>")).collect();
    format!("<!doctype html><html><head><title>Items</title></head><body><ul id=\"list\">{items}</ul></body></html>")
}

async fn items(Path(n): Path<usize>) -> Html<String> {
    Html(items_page(n.min(10_000)))
}

/// Shows the cookie the browser sent, then sets one.
async fn cookie(headers: HeaderMap) -> Response {
    let seen = headers.get(header::COOKIE).and_then(|v| v.to_str().ok()).unwrap_or("").to_string();
    let body = format!("<!doctype html><html><body><p id=\"seen\">{seen}</p></body></html>");
    ([(header::SET_COOKIE, "visited=yes; Path=/"), (header::CONTENT_TYPE, "text/html")], body).into_response()
}

/// What a page finds when it starts, in `#seen` as JSON: the cookie the
/// server got and every kind of state a page can keep in its browser (its
/// own and, through an iframe, another origin's), whose values it then
/// sets, with a timer that goes on setting some and a `pagehide` handler
/// that sets some when the page goes and asks for `/asset/unload-*` in
/// every way a request can outlive its document (or try to). `body[data-ready]` once done. Its
/// Content-Security-Policy refuses every connection its scripts open;
/// `?policy=no-sync-xhr` forbids synchronous requests too. The iframe's origin is `localhost` on the same port (another site
/// than `127.0.0.1`).
async fn state(headers: HeaderMap, Query(query): Query<HashMap<String, String>>) -> Response {
    let sent = headers.get(header::COOKIE).and_then(|v| v.to_str().ok()).unwrap_or("").to_string();
    let host = headers.get(header::HOST).and_then(|v| v.to_str().ok()).unwrap_or("");
    let port = host.rsplit(':').next().unwrap_or("80");
    let body = format!(
        r#"<!doctype html><html><body><p id="seen"></p>
<iframe src="http://localhost:{port}/state-frame"></iframe>
<script>
(async () => {{
  const frame = new Promise(resolve => addEventListener('message', e => resolve(e.data)));
  const keys = store => Object.keys(store).sort().join(',');
  const seen = {{
    server: {sent:?},
    cookie: document.cookie,
    local: keys(localStorage),
    session: keys(sessionStorage),
    name: window.name,
    history: history.length,
    visibility: document.visibilityState,
    idb: (await indexedDB.databases()).map(d => d.name).sort().join(','),
    caches: (await caches.keys()).sort().join(','),
    frame: await frame,
  }};
  document.getElementById('seen').textContent = JSON.stringify(seen);
  document.cookie = 'page=1; max-age=3600';
  localStorage.setItem('page', '1');
  sessionStorage.setItem('page', '1');
  window.name = 'page';
  await new Promise(done => {{ const open = indexedDB.open('page', 1); open.onsuccess = done; open.onerror = done; }});
  await caches.open('page');
  setInterval(() => {{ localStorage.setItem('late', '1'); document.cookie = 'late=1; max-age=3600'; }}, 5);
  addEventListener('pagehide', () => {{
    localStorage.setItem('unloading', '1');
    sessionStorage.setItem('unloading', '1');
    document.cookie = 'unloading=1; max-age=3600';
    window.name = 'unloading';
    // What could carry the old document's state to the next run's.
    navigator.sendBeacon('/asset/unload-beacon');
    fetch('/asset/unload-keepalive', {{ keepalive: true }}).catch(() => {{}});
    const script = document.createElement('script');
    script.src = '/asset/unload-script.js';
    document.head.appendChild(script);
    const sheet = document.createElement('link');
    sheet.rel = 'stylesheet';
    sheet.href = '/asset/unload-sheet.css';
    document.head.appendChild(sheet);
  }});
  document.body.dataset.ready = '1';
}})();
</script></body></html>"#
    );
    // A policy that would refuse any connection the page's scripts open.
    let policy = (header::CONTENT_SECURITY_POLICY, "connect-src 'none'");
    let mut response =
        ([(header::SET_COOKIE, "server=1; Path=/; Max-Age=3600"), (header::CONTENT_TYPE, "text/html"), policy], body)
            .into_response();
    // `?policy=no-sync-xhr`: synchronous requests forbidden (and geolocation).
    if query.get("policy").is_some_and(|p| p == "no-sync-xhr") {
        let forbid = HeaderValue::from_static("sync-xhr=(), geolocation=()");
        response.headers_mut().insert(HeaderName::from_static("permissions-policy"), forbid);
    }
    response
}

/// The iframe of `/state`: tells its parent which `localStorage` keys it
/// found in its origin, then sets one.
async fn state_frame() -> Html<&'static str> {
    Html(
        "<!doctype html><html><body><script>\
         const found = Object.keys(localStorage).sort().join(',');\
         localStorage.setItem('frame', '1');\
         parent.postMessage(found, '*');\
         </script></body></html>",
    )
}

/// A JSON document (an API a scrap reads as its page).
async fn json_document() -> Response {
    ([(header::CONTENT_TYPE, "application/json")], r#"{"items":[1,2,3]}"#).into_response()
}

async fn status(Path(code): Path<u16>) -> Response {
    let code = StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    (code, Html(format!("<html><body><h1>status {}</h1></body></html>", code.as_u16()))).into_response()
}

/// A page of 3 items whose iframe answers `code`.
async fn framing(Path(code): Path<u16>) -> Html<String> {
    let items: String = (0..3).map(|i| format!("<li class=\"item\">Item {i}</li>")).collect();
    Html(format!("<!doctype html><html><body><ul>{items}</ul><iframe src=\"/status/{code}\"></iframe></body></html>"))
}

/// Answers after a minute: longer than any test's run timeout.
async fn slow() -> Html<&'static str> {
    tokio::time::sleep(Duration::from_secs(60)).await;
    Html("<html><body>late</body></html>")
}

async fn redirect_loop(Path(n): Path<u64>) -> Response {
    (StatusCode::FOUND, [(header::LOCATION, format!("/loop/{}", n + 1))]).into_response()
}

async fn redirect_to(Path(target): Path<String>) -> Response {
    let location = match target.as_str() {
        "file" => "file:///etc/passwd".to_string(),
        "chrome" => "chrome://version".to_string(),
        "metadata" => "http://169.254.169.254/latest/meta-data/".to_string(),
        other => format!("/{other}"),
    };
    (StatusCode::FOUND, [(header::LOCATION, location)]).into_response()
}

/// An endless HTML body (1 GiB announced), streamed slowly enough not to
/// exhaust memory before the run times out.
async fn huge() -> Response {
    let stream = async_stream::stream! {
        yield Ok::<_, std::io::Error>(bytes::Bytes::from_static(b"<!doctype html><html><body><ul>"));
        let chunk = bytes::Bytes::from(vec![b'x'; 64 * 1024]);
        for _ in 0..16_384u32 {
            yield Ok(chunk.clone());
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    };
    Response::builder()
        .header(header::CONTENT_TYPE, "text/html")
        .header(header::CONTENT_LENGTH, (1u64 << 30).to_string())
        .body(Body::from_stream(stream))
        .unwrap()
}

/// A page whose own script tries to forge a result through a global
/// `returnData` and to read a global `SVC`.
async fn hostile() -> Html<&'static str> {
    Html(concat!(
        "<!doctype html><html><body><p id=\"x\">real</p><script>",
        "document.getElementById('x').dataset.pageSawSvc = String(typeof SVC);",
        "window.returnData = () => 'forged'; window.SVC = {historyId: 'forged'};",
        "</script></body></html>"
    ))
}

/// Three items under a policy that refuses every script, `eval` and
/// string that is not a Trusted Type.
async fn strict_policy() -> Response {
    let policy = "default-src 'none'; script-src 'none'; require-trusted-types-for 'script'; trusted-types 'none'";
    ([(header::CONTENT_SECURITY_POLICY, policy), (header::CONTENT_TYPE, "text/html")], items_page(3)).into_response()
}

/// A page that adds its items a while after load.
async fn late_items() -> Html<&'static str> {
    Html(concat!(
        "<!doctype html><html><body><ul id=\"list\"></ul><script>",
        "setTimeout(() => { for (let i = 0; i < 3; i++) { const li = document.createElement('li');",
        "li.className = 'late'; li.textContent = 'late ' + i; document.getElementById('list').appendChild(li); } }, 300);",
        "</script></body></html>"
    ))
}

/// A page with a stylesheet, an image and a web font (used by the text), to
/// see what loads.
async fn assets_page() -> Html<&'static str> {
    Html(concat!(
        "<!doctype html><html><head><title>assets</title><link rel=\"stylesheet\" href=\"/asset/style.css\"></head>",
        "<body><img src=\"/asset/pic.png\"><p class=\"item\" style=\"font-family: Face\">assets</p></body></html>"
    ))
}

/// A TrueType font of the machine (Chromium's dependencies bring one:
/// fontconfig needs a font), for pages that inline one.
fn system_font() -> Vec<u8> {
    fn find(dir: &std::path::Path) -> Option<std::path::PathBuf> {
        let mut entries: Vec<_> = std::fs::read_dir(dir).ok()?.flatten().map(|e| e.path()).collect();
        entries.sort();
        entries
            .iter()
            .find(|p| p.extension().is_some_and(|e| e == "ttf"))
            .cloned()
            .or_else(|| entries.iter().filter(|p| p.is_dir()).find_map(|p| find(p)))
    }
    let path = find(std::path::Path::new("/usr/share/fonts"))
        .expect("a .ttf font under /usr/share/fonts (apt-get install fonts-dejavu-core)");
    std::fs::read(path).unwrap()
}

/// A page whose font is inlined as a `data:` URL: no request for it ever
/// leaves the page.
async fn inline_font_page() -> Html<String> {
    use base64::Engine as _;
    let font = base64::engine::general_purpose::STANDARD.encode(system_font());
    Html(format!(
        "<!doctype html><html><head><title>inline font</title><style>\
         @font-face {{ font-family: Inline; src: url(data:font/ttf;base64,{font}) format('truetype'); }}\
         p {{ font-family: Inline, monospace; }}</style></head><body><p>inline</p></body></html>"
    ))
}

/// A page whose content comes from its own script and stylesheet, both
/// in its head (what the preload scanner fetches first).
async fn scripted_page() -> Html<&'static str> {
    Html(concat!(
        "<!doctype html><html><head><title>scripted</title><script src=\"/asset/app.js\"></script>",
        "<link rel=\"stylesheet\" href=\"/asset/style.css\"></head><body><p>scripted</p></body></html>"
    ))
}

/// A page whose script may be cached for an hour (`/asset/cached.js`,
/// which says how many times the server sent it).
async fn cached_page() -> Html<&'static str> {
    Html("<!doctype html><html><head><script src=\"/asset/cached.js\"></script></head><body>cached</body></html>")
}

async fn asset(State(hits): State<Arc<Mutex<Vec<String>>>>, Path(name): Path<String>) -> Response {
    hits.lock().unwrap().push(name.clone());
    if name.ends_with(".css") {
        let css =
            "@font-face { font-family: Face; src: url(/asset/face.woff2) format('woff2'); } p { color: rgb(1, 2, 3); }";
        return ([(header::CONTENT_TYPE, "text/css")], css).into_response();
    }
    if name == "cached.js" {
        // Cacheable for an hour; says how many times it was served.
        let served = hits.lock().unwrap().iter().filter(|hit| *hit == "cached.js").count();
        let js = format!("document.documentElement.dataset.served = '{served}';");
        let headers = [(header::CONTENT_TYPE, "text/javascript"), (header::CACHE_CONTROL, "public, max-age=3600")];
        return (headers, js).into_response();
    }
    if name.ends_with(".js") {
        let js = "document.documentElement.dataset.app = 'ran';";
        return ([(header::CONTENT_TYPE, "text/javascript")], js).into_response();
    }
    let kind = if name.ends_with(".woff2") { "font/woff2" } else { "image/png" };
    ([(header::CONTENT_TYPE, kind)], vec![b'a'; 1024]).into_response()
}

pub async fn start() -> Fixture {
    let asset_hits = Arc::new(Mutex::new(Vec::new()));
    let app = Router::new()
        .route("/items/{n}", get(items))
        .route("/cookie", get(cookie))
        .route("/state", get(state))
        .route("/state-frame", get(state_frame))
        .route("/status/{code}", get(status))
        .route("/framing/{code}", get(framing))
        .route("/slow", get(slow))
        .route("/loop/{n}", get(redirect_loop))
        .route("/redirect/{target}", get(redirect_to))
        .route("/huge", get(huge))
        .route("/json", get(json_document))
        .route("/hostile", get(hostile))
        .route("/strict-policy", get(strict_policy))
        .route("/late", get(late_items))
        .route("/assets", get(assets_page))
        .route("/inline-font", get(inline_font_page))
        .route("/scripted", get(scripted_page))
        .route("/cached", get(cached_page))
        .route("/asset/{name}", get(asset))
        .with_state(asset_hits.clone());
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    Fixture { base, asset_hits }
}

/// A base URL where nothing listens.
pub async fn closed_port() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    base
}
