//! The stylesheet and the script, compiled into the binary and served with
//! a content hash in their URL so browsers may cache them for good.

use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};

const CSS: &str = include_str!("../assets/app.css");
const JS: &str = include_str!("../assets/app.js");

/// FNV-1a of the content: changes whenever the file does.
const fn version(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut i = 0;
    while i < bytes.len() {
        hash ^= bytes[i] as u64;
        hash = hash.wrapping_mul(0x0100_0000_01b3);
        i += 1;
    }
    hash
}

pub const CSS_VERSION: u64 = version(CSS.as_bytes());
pub const JS_VERSION: u64 = version(JS.as_bytes());

fn asset(body: &'static str, content_type: &'static str) -> Response {
    let mut response = body.into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("public, max-age=31536000, immutable"));
    response
}

pub async fn css() -> Response {
    asset(CSS, "text/css; charset=utf-8")
}

pub async fn js() -> Response {
    asset(JS, "text/javascript; charset=utf-8")
}
