//! The egress proxy over real sockets: what it refuses, and that it dials
//! the address it resolved (not a second lookup). Names go through fixed
//! resolver answers, standing in for DNS; local servers stand in for targets.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::Ordering;

use svc_engine::host_vetting::Resolver;
use svc_runner::egress_proxy::{ANSWER_HEADER, EgressProxy};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

fn ip(text: &str) -> IpAddr {
    text.parse().unwrap()
}

pub(crate) fn answers() -> Resolver {
    let table: HashMap<String, Vec<IpAddr>> = [
        ("site.test", vec![ip("127.0.0.1")]),
        ("internal.test", vec![ip("10.0.0.5")]),
        ("metadata.test", vec![ip("169.254.169.254")]),
        ("mixed.test", vec![ip("93.184.216.34"), ip("127.0.0.1")]),
        ("mapped.test", vec![ip("::ffff:127.0.0.1")]),
    ]
    .into_iter()
    .map(|(name, ips)| (name.to_string(), ips))
    .collect();
    Resolver::fixed(table)
}

/// A local server that answers every connection with `hello from <port>`
/// (as an HTTP response) and then echoes what it reads.
pub(crate) async fn target() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut buf = vec![0u8; 4096];
                let Ok(n) = stream.read(&mut buf).await else { return };
                let first = String::from_utf8_lossy(&buf[..n]).to_string();
                if first.starts_with("GET ") {
                    let line = first.lines().next().unwrap_or("").to_string();
                    let body = format!("hello; the target saw `{line}`");
                    let head =
                        format!("HTTP/1.1 200 OK\r\ncontent-length: {}\r\nconnection: close\r\n\r\n", body.len());
                    let _ = stream.write_all(format!("{head}{body}").as_bytes()).await;
                } else {
                    let _ = stream.write_all(&buf[..n]).await;
                    let (mut r, mut w) = stream.split();
                    let _ = tokio::io::copy(&mut r, &mut w).await;
                }
            });
        }
    });
    addr
}

/// Sends `request` to the proxy and reads the whole answer.
pub(crate) async fn ask(proxy: &EgressProxy, request: &str) -> String {
    let mut stream = TcpStream::connect(proxy.addr()).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    let _ = tokio::time::timeout(std::time::Duration::from_secs(10), stream.read_to_end(&mut answer)).await;
    String::from_utf8_lossy(&answer).to_string()
}

pub(crate) fn get(host_port: &str) -> String {
    format!("GET http://{host_port}/page?q=1 HTTP/1.1\r\nhost: {host_port}\r\nconnection: close\r\n\r\n")
}

pub(crate) fn connect(host_port: &str) -> String {
    format!("CONNECT {host_port} HTTP/1.1\r\nhost: {host_port}\r\n\r\n")
}

#[tokio::test]
async fn non_public_addresses_are_refused_however_they_are_named() {
    let site = target().await;
    let proxy = EgressProxy::start(false.into(), answers(), Vec::new()).await.unwrap();
    let port = site.port();
    let cases = [
        ("127.0.0.1", "127.0.0.1"),
        ("[::1]", "::1"),
        ("site.test", "127.0.0.1"),
        ("internal.test", "10.0.0.5"),
        ("metadata.test", "169.254.169.254"),
        ("mixed.test", "127.0.0.1"),
        ("mapped.test", "::ffff:127.0.0.1"),
    ];
    for (host, address) in cases {
        let host_port = format!("{host}:{port}");
        for request in [get(&host_port), connect(&host_port)] {
            let answer = ask(&proxy, &request).await;
            let first = answer.lines().next().unwrap_or("");
            assert!(first.contains("403"), "{host}: {first}\n{answer}");
            assert!(answer.to_lowercase().contains(ANSWER_HEADER), "{host}: the proxy marks its own answer: {answer}");
            assert!(answer.contains(&format!("non-public address {address}")), "{host}: {answer}");
        }
    }
    assert_eq!(proxy.stats().refused.load(Ordering::Relaxed), 14);
    assert_eq!(proxy.stats().tunnels.load(Ordering::Relaxed), 0);
    assert_eq!(proxy.stats().forwarded.load(Ordering::Relaxed), 0);
    let why =
        proxy.failure_since("metadata.test", port, std::time::Instant::now() - std::time::Duration::from_secs(60));
    assert!(why.is_some_and(|w| w.contains("169.254.169.254")));
}

#[tokio::test]
async fn allowed_hosts_are_dialled_at_the_address_the_proxy_resolved() {
    let site = target().await;
    let proxy = EgressProxy::start(true.into(), answers(), Vec::new()).await.unwrap();
    // `site.test` exists only in the proxy's answers: reaching the local
    // server through it shows the proxy dials what it resolved.
    let host_port = format!("site.test:{}", site.port());

    let answer = ask(&proxy, &get(&host_port)).await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.contains("the target saw `GET /page?q=1 HTTP/1.1`"), "sent on in origin form: {answer}");
    assert!(!answer.to_lowercase().contains(ANSWER_HEADER), "a target's answer is not marked: {answer}");

    let mut stream = TcpStream::connect(proxy.addr()).await.unwrap();
    stream.write_all(connect(&host_port).as_bytes()).await.unwrap();
    let mut head = vec![0u8; 256];
    let n = stream.read(&mut head).await.unwrap();
    assert!(String::from_utf8_lossy(&head[..n]).starts_with("HTTP/1.1 200"), "{}", String::from_utf8_lossy(&head[..n]));
    stream.write_all(b"ping through the tunnel").await.unwrap();
    let mut echoed = vec![0u8; 64];
    let n = stream.read(&mut echoed).await.unwrap();
    assert_eq!(&echoed[..n], b"ping through the tunnel");

    assert_eq!(proxy.stats().forwarded.load(Ordering::Relaxed), 1);
    assert_eq!(proxy.stats().tunnels.load(Ordering::Relaxed), 1);
    assert_eq!(proxy.stats().refused.load(Ordering::Relaxed), 0);
}

#[tokio::test]
async fn unknown_names_and_closed_ports_are_bad_gateways_with_a_reason() {
    let proxy = EgressProxy::start(true.into(), answers(), Vec::new()).await.unwrap();
    let closed = {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        listener.local_addr().unwrap().port()
    };
    let answer = ask(&proxy, &get("nowhere.test:80")).await;
    assert!(answer.starts_with("HTTP/1.1 502") && answer.contains("does not resolve"), "{answer}");
    let answer = ask(&proxy, &connect(&format!("127.0.0.1:{closed}"))).await;
    assert!(answer.starts_with("HTTP/1.1 502") && answer.contains("cannot connect"), "{answer}");
    let answer = ask(&proxy, "GET /relative HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n").await;
    assert!(answer.starts_with("HTTP/1.1 400"), "a request that is not for a proxy: {answer}");
}

/// A target that never closes its side does not keep a tunnel open: once
/// the browser's side closes, the target sees the end of the stream, and
/// the proxy lets its connection go. (This target keeps writing, which ends
/// the tunnel at once; a silent one is let go after `CLOSE_GRACE`, which
/// this test does not wait for.)
#[tokio::test]
async fn a_tunnel_ends_when_the_browser_side_closes_even_if_the_target_never_does() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let (saw_eof, mut eof) = tokio::sync::oneshot::channel::<()>();
    let (lost, mut gone) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(async move {
        let (mut stream, _) = listener.accept().await.unwrap();
        let mut buf = [0u8; 64];
        while stream.read(&mut buf).await.unwrap_or(0) > 0 {}
        let _ = saw_eof.send(());
        // Keeps writing, never closes: fails once the proxy lets go.
        let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(30);
        while tokio::time::Instant::now() < deadline {
            if stream.write_all(b"still here").await.is_err() {
                let _ = lost.send(());
                return;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
    });
    let proxy = EgressProxy::start(true.into(), answers(), Vec::new()).await.unwrap();
    let mut client = TcpStream::connect(proxy.addr()).await.unwrap();
    client.write_all(connect(&format!("127.0.0.1:{port}")).as_bytes()).await.unwrap();
    let mut head = vec![0u8; 128];
    let n = client.read(&mut head).await.unwrap();
    assert!(String::from_utf8_lossy(&head[..n]).starts_with("HTTP/1.1 200"));
    drop(client);

    let limit = std::time::Duration::from_secs(20);
    tokio::time::timeout(limit, &mut eof).await.expect("the target sees the end of the stream").unwrap();
    tokio::time::timeout(limit, &mut gone).await.expect("the proxy drops the target's connection").unwrap();
}
