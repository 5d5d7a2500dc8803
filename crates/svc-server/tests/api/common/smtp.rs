//! A local SMTP server speaking the real protocol (RFC 5321, clear text):
//! it captures every message it accepts (envelope and raw RFC 5322 bytes),
//! answers scripted failures, can stall, and can be stopped and started
//! again on the same port.
//!
//! ```ignore
//! let smtp = SmtpServer::start().await;        // bound before it returns
//! let app = TestApp::start_with(&[("SVC_SMTP_URL", &smtp.url())]).await;
//! smtp.fail_next(2, At::Data, 451, "4.3.0 try again later");
//! let mails = smtp.wait_for(1, Duration::from_secs(10)).await;
//! let parsed = mails[0].parsed();               // mail_parser::Message
//! smtp.stop().await;                            // connections refused
//! smtp.restart().await;                         // same port, same captures
//! ```
#![allow(dead_code)]

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::net::{TcpSocket, TcpStream};
use tokio::task::JoinSet;
use tokio::time::Instant;

/// A message the server accepted.
#[derive(Clone, Debug)]
pub struct Captured {
    /// The envelope sender (`MAIL FROM`), without angle brackets.
    pub from: String,
    /// The envelope recipients (`RCPT TO`), without angle brackets.
    pub to: Vec<String>,
    /// The message as received, dot-stuffing undone, without the final `.`.
    pub raw: Vec<u8>,
}

impl Captured {
    pub fn parsed(&self) -> mail_parser::Message<'_> {
        mail_parser::MessageParser::default().parse(&self.raw).expect("an RFC 5322 message")
    }

    /// The raw header section (up to the first empty line).
    /// The secret of the recipient confirmation link this mail carries.
    pub fn confirmation_token(&self) -> String {
        let text = self.parsed().body_text(0).expect("a text body").to_string();
        let link =
            text.split_whitespace().find(|w| w.contains("/recipients/confirm?token=")).expect("a confirmation link");
        link.split("token=").nth(1).unwrap().to_string()
    }

    pub fn header_section(&self) -> String {
        let text = String::from_utf8_lossy(&self.raw);
        text.split("\r\n\r\n").next().unwrap_or_default().to_string()
    }
}

/// Where a scripted failure is answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum At {
    /// To the transaction's first `RCPT TO`.
    Rcpt,
    /// After the message data (the answer to the final `.`).
    Data,
}

#[derive(Clone, Debug)]
struct Fault {
    at: At,
    code: u16,
    text: String,
}

#[derive(Default)]
struct State {
    messages: Vec<Captured>,
    /// Commands received, in order (`EHLO x`, `MAIL FROM:<...>`, ...).
    commands: Vec<String>,
    faults: VecDeque<Fault>,
    /// Answers given to refused messages: `(code, text)`.
    refusals: Vec<(u16, String)>,
    stalled: bool,
}

#[derive(Clone)]
pub struct SmtpServer {
    pub addr: SocketAddr,
    state: Arc<Mutex<State>>,
    /// The accept loop and every open session; aborted by `stop`.
    tasks: Arc<tokio::sync::Mutex<Option<JoinSet<()>>>>,
}

impl SmtpServer {
    /// Binds 127.0.0.1 on a free port and serves on it.
    pub async fn start() -> SmtpServer {
        let server = SmtpServer { addr: "127.0.0.1:0".parse().unwrap(), state: Arc::default(), tasks: Arc::default() };
        let addr = server.serve_on("127.0.0.1:0".parse().unwrap()).await;
        SmtpServer { addr, ..server }
    }

    /// `smtp://127.0.0.1:PORT?tls=none`, for `SVC_SMTP_URL`.
    pub fn url(&self) -> String {
        format!("smtp://{}?tls=none", self.addr)
    }

    /// Binds `addr` (address reuse on, so the port of a stopped server can be
    /// taken again at once) and spawns the accept loop; returns the address.
    async fn serve_on(&self, addr: SocketAddr) -> SocketAddr {
        let socket = TcpSocket::new_v4().unwrap();
        socket.set_reuseaddr(true).unwrap();
        socket.bind(addr).unwrap_or_else(|e| panic!("test SMTP server cannot bind {addr}: {e}"));
        let listener = socket.listen(64).unwrap();
        let bound = listener.local_addr().unwrap();
        let mut tasks = JoinSet::new();
        let state = self.state.clone();
        tasks.spawn(async move {
            // Sessions live in their own set, dropped (aborted) with this task.
            let mut sessions = JoinSet::new();
            loop {
                tokio::select! {
                    accepted = listener.accept() => {
                        let Ok((stream, _)) = accepted else { continue };
                        sessions.spawn(session(stream, state.clone()));
                    }
                    Some(_) = sessions.join_next() => {}
                }
            }
        });
        *self.tasks.lock().await = Some(tasks);
        bound
    }

    /// Stops listening and drops every open connection: from now on a
    /// client's connection is refused. Captures and the script are kept.
    pub async fn stop(&self) {
        if let Some(mut tasks) = self.tasks.lock().await.take() {
            tasks.abort_all();
            while tasks.join_next().await.is_some() {}
        }
    }

    /// Serves again on the same port after [`SmtpServer::stop`].
    pub async fn restart(&self) {
        self.stop().await;
        self.serve_on(self.addr).await;
    }

    /// The next `n` messages are refused with `code text` at `at`; those
    /// already scripted come first.
    pub fn fail_next(&self, n: usize, at: At, code: u16, text: &str) {
        let mut state = self.state.lock().unwrap();
        for _ in 0..n {
            state.faults.push_back(Fault { at, code, text: text.to_string() });
        }
    }

    /// While on, new connections are accepted and never answered (no
    /// greeting): a relay that hangs.
    pub fn stall(&self, on: bool) {
        self.state.lock().unwrap().stalled = on;
    }

    /// The messages accepted so far, in order.
    pub fn messages(&self) -> Vec<Captured> {
        self.state.lock().unwrap().messages.clone()
    }

    /// The commands received so far, in order.
    pub fn commands(&self) -> Vec<String> {
        self.state.lock().unwrap().commands.clone()
    }

    /// The answers given to refused messages so far: `(code, text)`.
    pub fn refusals(&self) -> Vec<(u16, String)> {
        self.state.lock().unwrap().refusals.clone()
    }

    /// Waits (with a deadline) until `n` messages were accepted.
    pub async fn wait_for(&self, n: usize, within: Duration) -> Vec<Captured> {
        let deadline = Instant::now() + within;
        loop {
            let messages = self.messages();
            if messages.len() >= n {
                return messages;
            }
            assert!(Instant::now() < deadline, "{} of {n} emails arrived", messages.len());
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

/// `<a@b> SIZE=12` → `a@b`.
fn path_of(argument: &str) -> String {
    let argument = argument.trim();
    match (argument.find('<'), argument.find('>')) {
        (Some(open), Some(close)) if open < close => argument[open + 1..close].to_string(),
        _ => argument.split_whitespace().next().unwrap_or_default().to_string(),
    }
}

async fn reply(w: &mut (impl AsyncWrite + Unpin), text: &str) -> std::io::Result<()> {
    w.write_all(text.as_bytes()).await?;
    w.write_all(b"\r\n").await?;
    w.flush().await
}

async fn session(stream: TcpStream, state: Arc<Mutex<State>>) {
    if state.lock().unwrap().stalled {
        // Hold the connection open, say nothing, until the client gives up.
        let mut stream = stream;
        let mut sink = Vec::new();
        let _ = tokio::io::AsyncReadExt::read_to_end(&mut stream, &mut sink).await;
        return;
    }
    let (read, mut write) = stream.into_split();
    let _ = converse(BufReader::new(read), &mut write, &state).await;
}

/// One SMTP session, until QUIT or the connection closes.
async fn converse(
    mut read: BufReader<impl AsyncRead + Unpin>,
    write: &mut (impl AsyncWrite + Unpin),
    state: &Mutex<State>,
) -> std::io::Result<()> {
    reply(write, "220 svc-test ESMTP ready").await?;
    let mut from: Option<String> = None;
    let mut to: Vec<String> = Vec::new();
    let mut line = String::new();
    loop {
        line.clear();
        if read.read_line(&mut line).await? == 0 {
            return Ok(());
        }
        let command = line.trim_end_matches(['\r', '\n']).to_string();
        state.lock().unwrap().commands.push(command.clone());
        let upper = command.to_ascii_uppercase();
        let verb = upper.split_whitespace().next().unwrap_or_default().to_string();
        match verb.as_str() {
            "EHLO" => {
                reply(write, "250-svc-test greets you\r\n250-8BITMIME\r\n250-SMTPUTF8\r\n250 SIZE 52428800").await?
            }
            "HELO" => reply(write, "250 svc-test").await?,
            "MAIL" if upper.starts_with("MAIL FROM:") => {
                from = Some(path_of(&command["MAIL FROM:".len()..]));
                to.clear();
                reply(write, "250 2.1.0 OK").await?;
            }
            "RCPT" if upper.starts_with("RCPT TO:") => {
                if from.is_none() {
                    reply(write, "503 5.5.1 MAIL first").await?;
                    continue;
                }
                let fault = if to.is_empty() { take_fault(state, At::Rcpt) } else { None };
                match fault {
                    Some(f) => reply(write, &format!("{} {}", f.code, f.text)).await?,
                    None => {
                        to.push(path_of(&command["RCPT TO:".len()..]));
                        reply(write, "250 2.1.5 OK").await?;
                    }
                }
            }
            "DATA" => {
                if to.is_empty() {
                    reply(write, "503 5.5.1 RCPT first").await?;
                    continue;
                }
                reply(write, "354 End data with <CR><LF>.<CR><LF>").await?;
                let raw = read_data(&mut read).await?;
                let envelope_from = from.take().unwrap_or_default();
                let recipients = std::mem::take(&mut to);
                let answer = match take_fault(state, At::Data) {
                    Some(f) => format!("{} {}", f.code, f.text),
                    None => {
                        let mut s = state.lock().unwrap();
                        s.messages.push(Captured { from: envelope_from, to: recipients, raw });
                        format!("250 2.0.0 queued as {}", s.messages.len())
                    }
                };
                reply(write, &answer).await?;
            }
            "RSET" => {
                from = None;
                to.clear();
                reply(write, "250 2.0.0 OK").await?;
            }
            "NOOP" => reply(write, "250 2.0.0 OK").await?,
            "QUIT" => {
                reply(write, "221 2.0.0 bye").await?;
                return Ok(());
            }
            _ => reply(write, "502 5.5.2 command not implemented").await?,
        }
    }
}

/// Pops the next scripted fault if it is for `at`, recording the refusal.
fn take_fault(state: &Mutex<State>, at: At) -> Option<Fault> {
    let mut s = state.lock().unwrap();
    if s.faults.front().is_some_and(|f| f.at == at) {
        let fault = s.faults.pop_front()?;
        s.refusals.push((fault.code, fault.text.clone()));
        Some(fault)
    } else {
        None
    }
}

/// The message after `DATA`, up to the line holding a single `.`, with
/// dot-stuffing undone (RFC 5321 §4.5.2).
async fn read_data(read: &mut BufReader<impl AsyncRead + Unpin>) -> std::io::Result<Vec<u8>> {
    let mut raw = Vec::new();
    let mut line = Vec::new();
    loop {
        line.clear();
        if read.read_until(b'\n', &mut line).await? == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        if line == b".\r\n" || line == b".\n" {
            return Ok(raw);
        }
        let unstuffed = if line.starts_with(b"..") { &line[1..] } else { &line[..] };
        raw.extend_from_slice(unstuffed);
    }
}
