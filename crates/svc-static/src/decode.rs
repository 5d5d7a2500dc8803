//! From the response's bytes to the HTML text the parser reads.
//!
//! The encoding is chosen as a browser does, in this order: a byte-order
//! mark, the `charset` of `Content-Type`, a `<meta charset>` (or `http-equiv`)
//! in the first 1,024 bytes; without any of them UTF-8 when the bytes are
//! valid UTF-8, else windows-1252 (browsers guess from the bytes there).
//!
//! Plain text and JSON become the document a browser shows for them: the
//! text in a `<pre>`. Other types (images, PDF, ...) are refused.

use encoding_rs::{Encoding, UTF_8, UTF_16BE, UTF_16LE, WINDOWS_1252};

use crate::error::StaticError;

/// How far into the body a `<meta charset>` is looked for.
const PRESCAN_BYTES: usize = 1024;

/// The document's HTML for a body of `content_type`.
pub fn page_html(body: &[u8], content_type: Option<&str>) -> Result<String, StaticError> {
    page(body, content_type).map(|(html, _)| html)
}

/// The document's HTML for a body of `content_type`, and the name of the
/// encoding it was read in (`document.characterSet`: `UTF-8`,
/// `windows-1252`, `Shift_JIS`, ...).
pub fn page(body: &[u8], content_type: Option<&str>) -> Result<(String, &'static str), StaticError> {
    let essence =
        content_type.and_then(|t| t.split(';').next()).map(|t| t.trim().to_ascii_lowercase()).filter(|t| !t.is_empty());
    let encoding = encoding_of(body, content_type);
    let (text, _, _) = encoding.decode(body);
    let text = text.into_owned();
    let html = match essence.as_deref() {
        None | Some("text/html" | "application/xhtml+xml") => text,
        Some(t) if t.ends_with("+xml") || t.ends_with("/xml") => text,
        Some(t) if t.starts_with("text/") || t == "application/json" || t.ends_with("+json") => as_text_document(&text),
        Some("application/javascript" | "application/ecmascript") => as_text_document(&text),
        Some(other) => return Err(StaticError::NotHtml(other.to_string())),
    };
    Ok((html, encoding.name()))
}

/// What a browser makes of a text response.
fn as_text_document(text: &str) -> String {
    let escaped = text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;");
    format!(
        "<html><head></head><body><pre style=\"word-wrap: break-word; white-space: pre-wrap;\">{escaped}</pre></body></html>"
    )
}

/// `body` as text, in the encoding a browser would pick.
pub fn decode(body: &[u8], content_type: Option<&str>) -> String {
    let (text, _, _) = encoding_of(body, content_type).decode(body);
    text.into_owned()
}

/// The encoding a browser would read `body` in.
fn encoding_of(body: &[u8], content_type: Option<&str>) -> &'static Encoding {
    Encoding::for_bom(body)
        .map(|(e, _)| e)
        .or_else(|| content_type.and_then(charset_param).and_then(|l| Encoding::for_label(l.as_bytes())))
        .or_else(|| meta_charset(&body[..body.len().min(PRESCAN_BYTES)]))
        .unwrap_or_else(|| if std::str::from_utf8(body).is_ok() { UTF_8 } else { WINDOWS_1252 })
}

/// `charset=...` of a `Content-Type` value.
fn charset_param(content_type: &str) -> Option<&str> {
    content_type.split(';').skip(1).find_map(|param| {
        let (name, value) = param.split_once('=')?;
        name.trim().eq_ignore_ascii_case("charset").then(|| value.trim().trim_matches(['"', '\'']))
    })
}

/// The encoding a `<meta>` in `head` declares (the prescan, simplified: the
/// first `charset=` inside a `<meta ...>` tag). A declared UTF-16 means
/// UTF-8, as in browsers (the bytes were readable as ASCII).
fn meta_charset(head: &[u8]) -> Option<&'static Encoding> {
    let lower = head.to_ascii_lowercase();
    let mut rest = &lower[..];
    while let Some(at) = find(rest, b"<meta") {
        let tag = &rest[at..];
        let end = tag.iter().position(|&b| b == b'>').unwrap_or(tag.len());
        let tag = &tag[..end];
        if let Some(c) = find(tag, b"charset") {
            let after = &tag[c + b"charset".len()..];
            let after = after.trim_ascii_start();
            if let Some(after) = after.strip_prefix(b"=") {
                let value = after.iter().skip_while(|b| b.is_ascii_whitespace() || **b == b'"' || **b == b'\'');
                let label: Vec<u8> = value
                    .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b':' | b'.'))
                    .copied()
                    .collect();
                if let Some(encoding) = Encoding::for_label(&label) {
                    return Some(if encoding == UTF_16LE || encoding == UTF_16BE { UTF_8 } else { encoding });
                }
            }
        }
        rest = &rest[at + end.max(1)..];
    }
    None
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodings_follow_the_browser_order() {
        assert_eq!(decode("é".as_bytes(), None), "é");
        assert_eq!(decode(b"\xe9", None), "é", "not UTF-8: windows-1252");
        assert_eq!(decode(b"\xe9", Some("text/html; charset=\"ISO-8859-1\"")), "é");
        let meta = b"<html><head><meta charset='windows-1251'></head>\xe9";
        assert!(decode(meta, Some("text/html")).ends_with('й'));
        let http_equiv = b"<meta http-equiv=Content-Type content=\"text/html; charset=koi8-r\">\xcb";
        assert!(decode(http_equiv, None).ends_with('к'));
        assert_eq!(decode(b"\xef\xbb\xbfx", Some("text/html; charset=latin1")), "x", "the BOM wins");
    }

    #[test]
    fn text_becomes_a_pre_and_images_are_refused() {
        let html = page_html(b"[1, 2] <b>", Some("application/json")).unwrap();
        assert!(html.contains("<pre"), "{html}");
        assert!(html.contains("[1, 2] &lt;b&gt;"), "{html}");
        assert!(page_html(b"<p>x", None).unwrap().starts_with("<p>"));
        assert!(matches!(page_html(b"\x89PNG", Some("image/png")), Err(StaticError::NotHtml(t)) if t == "image/png"));
    }
}
