//! Local stand-ins for the operator's upstream proxies and for a site that
//! only lets a given tier in.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use base64::Engine as _;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// A tiny HTTP proxy on loopback, as an operator's upstream would be: it
/// forwards absolute-form requests (in origin form, with `X-Came-Through:
/// <label>` added) and opens `CONNECT` tunnels, after checking
/// `Proxy-Authorization` (407 when it is wrong or missing). It counts what
/// it did and the bytes it relayed.
pub struct CountingProxy {
    pub addr: SocketAddr,
    /// `http://user:password@127.0.0.1:PORT` with its own credentials.
    pub url: String,
    pub forwarded: AtomicU64,
    pub tunnels: AtomicU64,
    /// Requests answered 407.
    pub refused: AtomicU64,
    /// Bytes relayed between the client and targets, both ways.
    pub bytes: AtomicU64,
    /// Every `Proxy-Authorization` value received, and every request line.
    pub authorizations: Mutex<Vec<String>>,
    pub requests: Mutex<Vec<String>>,
}

impl CountingProxy {
    /// A proxy that wants `user:password` and marks what it forwards with `label`.
    pub async fn start(label: &'static str, user: &str, password: &str) -> Arc<CountingProxy> {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let expected =
            format!("Basic {}", base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}")));
        let proxy = Arc::new(CountingProxy {
            addr,
            url: format!("http://{user}:{password}@{addr}"),
            forwarded: AtomicU64::new(0),
            tunnels: AtomicU64::new(0),
            refused: AtomicU64::new(0),
            bytes: AtomicU64::new(0),
            authorizations: Mutex::new(Vec::new()),
            requests: Mutex::new(Vec::new()),
        });
        let me = proxy.clone();
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let me = me.clone();
                let expected = expected.clone();
                tokio::spawn(async move { me.serve(stream, label, &expected).await });
            }
        });
        proxy
    }

    /// The same proxy's URL with other credentials.
    pub fn url_with(&self, user: &str, password: &str) -> String {
        format!("http://{user}:{password}@{}", self.addr)
    }

    pub fn handled(&self) -> u64 {
        self.forwarded.load(Ordering::SeqCst) + self.tunnels.load(Ordering::SeqCst)
    }

    async fn serve(&self, mut client: TcpStream, label: &str, expected: &str) {
        let Some((head, rest)) = read_head(&mut client).await else { return };
        let mut lines = head.split("\r\n");
        let line = lines.next().unwrap_or("").to_string();
        let headers: Vec<(String, String)> = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_string()))
            .collect();
        self.requests.lock().unwrap().push(line.clone());
        let authorizations: Vec<String> =
            headers.iter().filter(|(name, _)| name == "proxy-authorization").map(|(_, v)| v.clone()).collect();
        self.authorizations.lock().unwrap().extend(authorizations.iter().cloned());
        if authorizations != [expected] {
            self.refused.fetch_add(1, Ordering::SeqCst);
            let _ = client
                .write_all(
                    b"HTTP/1.1 407 Proxy Authentication Required\r\nproxy-authenticate: Basic realm=\"test\"\r\n\
                      content-length: 0\r\nconnection: close\r\n\r\n",
                )
                .await;
            return;
        }
        let mut words = line.split_whitespace();
        let (method, target) = (words.next().unwrap_or(""), words.next().unwrap_or(""));
        if method == "CONNECT" {
            let Ok(mut upstream) = TcpStream::connect(target).await else {
                let _ = client.write_all(b"HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n").await;
                return;
            };
            self.tunnels.fetch_add(1, Ordering::SeqCst);
            if client.write_all(b"HTTP/1.1 200 Connection established\r\n\r\n").await.is_err() {
                return;
            }
            let _ = upstream.write_all(&rest).await;
            if let Ok((up, down)) = tokio::io::copy_bidirectional(&mut client, &mut upstream).await {
                self.bytes.fetch_add(up + down + rest.len() as u64, Ordering::SeqCst);
            }
            return;
        }
        let Ok(url) = url::Url::parse(target) else {
            let _ = client.write_all(b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n").await;
            return;
        };
        let origin = format!("{}:{}", url.host_str().unwrap_or(""), url.port_or_known_default().unwrap_or(80));
        let Ok(mut upstream) = TcpStream::connect(origin).await else {
            let _ = client.write_all(b"HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n").await;
            return;
        };
        self.forwarded.fetch_add(1, Ordering::SeqCst);
        let path = match url.query() {
            Some(query) => format!("{}?{query}", url.path()),
            None => url.path().to_string(),
        };
        let mut sent = format!("{method} {path} HTTP/1.1\r\n");
        for (name, value) in &headers {
            if !matches!(name.as_str(), "proxy-authorization" | "proxy-connection" | "connection" | "keep-alive") {
                sent.push_str(&format!("{name}: {value}\r\n"));
            }
        }
        sent.push_str(&format!("x-came-through: {label}\r\nconnection: close\r\n\r\n"));
        if upstream.write_all(sent.as_bytes()).await.is_err() || upstream.write_all(&rest).await.is_err() {
            return;
        }
        if let Ok((up, down)) = tokio::io::copy_bidirectional(&mut client, &mut upstream).await {
            self.bytes.fetch_add(up + down + (sent.len() + rest.len()) as u64, Ordering::SeqCst);
        }
    }
}

/// Reads a request or answer head; hands back the head and what came after it.
pub async fn read_head(stream: &mut TcpStream) -> Option<(String, Vec<u8>)> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let rest = buf.split_off(end + 4);
            return Some((String::from_utf8_lossy(&buf[..end]).to_string(), rest));
        }
        if buf.len() > 64 * 1024 {
            return None;
        }
    }
}

/// A site that answers 403 unless the request came through a proxy that
/// marked it with one of `admitted` (`X-Came-Through`); admitted, `/items/N`
/// is a page of N items. It remembers the marks it saw (`-` for none).
pub struct TierSite {
    pub base: String,
    pub seen: Arc<Mutex<Vec<String>>>,
}

pub async fn tier_site(admitted: &'static [&'static str]) -> TierSite {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            let log = log.clone();
            tokio::spawn(async move {
                let Some((head, _)) = read_head(&mut stream).await else { return };
                let path = head.split_whitespace().nth(1).unwrap_or("/").to_string();
                let mark = head
                    .split("\r\n")
                    .filter_map(|l| l.split_once(':'))
                    .find(|(name, _)| name.trim().eq_ignore_ascii_case("x-came-through"))
                    .map(|(_, value)| value.trim().to_string());
                log.lock().unwrap().push(mark.clone().unwrap_or_else(|| "-".into()));
                let (status, body) = match mark {
                    Some(mark) if admitted.contains(&mark.as_str()) => {
                        let count: usize = path.strip_prefix("/items/").and_then(|n| n.parse().ok()).unwrap_or(1);
                        let items: String = (0..count).map(|i| format!("<li class=\"item\">Item {i}</li>")).collect();
                        ("200 OK", format!("<!doctype html><title>{mark}</title><ul>{items}</ul>"))
                    }
                    _ => ("403 Forbidden", "<!doctype html><title>Blocked</title><h1>Not from here</h1>".to_string()),
                };
                let answer = format!(
                    "HTTP/1.1 {status}\r\ncontent-type: text/html\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = stream.write_all(answer.as_bytes()).await;
            });
        }
    });
    TierSite { base, seen }
}
