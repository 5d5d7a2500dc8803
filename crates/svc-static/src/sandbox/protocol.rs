//! The messages between the engine and a sandbox process, and their framing.
//!
//! The channel is one Unix stream socket (a socketpair; descriptor 3 in the
//! child). Each message is a frame: its length as 4 bytes little-endian,
//! then that many bytes of JSON. The conversation:
//!
//! ```text
//! child  -> engine  Ready                      once, after start-up and lock-down
//! engine -> child   Run(RunOrder)              a run: the page, the script and its input, limits, time left
//! child  -> engine  Fetch { request }          the script's fetch() ...
//! engine -> child   FetchAnswer { answer }     ... answered (made and vetted by the engine)
//! child  -> engine  Done(RunDone)              the outcome, and the page when wanted
//! ```
//!
//! `Fetch`/`FetchAnswer` pairs repeat as the script fetches; a process
//! serves runs one after the other and ends when its channel closes. The
//! engine trusts nothing the child says: frames from a child are capped at
//! [`FROM_CHILD_MAX`] bytes, and a frame that is not the expected message
//! ends the process.

use std::io::{self, Read, Write};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use svc_engine::{PageCapture, ScriptResult};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::error::StaticError;
use crate::fetch::ScriptRequest;
use crate::script::Wrapped;
use crate::script_network::ScriptResponse;
use crate::script_runtime::{ScriptLimits, ScriptRun};

/// The largest frame a child may send: the 10 MiB result as escaped JSON,
/// with room to spare.
pub const FROM_CHILD_MAX: usize = 96 * 1024 * 1024;
/// The largest frame the engine sends (a page of 10 MiB whose bytes each
/// became several in UTF-8 and JSON).
pub const TO_CHILD_MAX: usize = 256 * 1024 * 1024;

/// What the engine tells a child.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToChild {
    Run(RunOrder),
    FetchAnswer { answer: Result<ScriptResponse, String> },
}

/// `ToChild::Run` serialized from a borrowed order (the engine keeps the
/// page, for the snapshot of a run it has to kill).
#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum RunRef<'a> {
    Run(&'a RunOrder),
}

/// What a child tells the engine.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum FromChild {
    Ready,
    Fetch { request: ScriptRequest },
    Done(RunDone),
}

/// One run, as the child needs it.
#[derive(Debug, Serialize, Deserialize)]
pub struct RunOrder {
    /// The page, decoded.
    pub html: String,
    /// Where it came from (after redirects).
    pub url: String,
    /// The encoding the page was read in (`document.characterSet`).
    #[serde(default = "utf8")]
    pub encoding: String,
    /// The script as `script::wrap` made it.
    pub script: Wrapped,
    /// The run's timeout, for the messages.
    pub timeout_secs: u64,
    /// Time left until the run's deadline.
    pub remaining_ms: u64,
    pub limits: ScriptLimits,
    pub capture: Capture,
}

fn utf8() -> String {
    "UTF-8".into()
}

/// `PageCapture` on the wire.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Capture {
    Never,
    UnlessItems,
    Always,
}

impl From<PageCapture> for Capture {
    fn from(capture: PageCapture) -> Self {
        match capture {
            PageCapture::Never => Capture::Never,
            PageCapture::UnlessItems => Capture::UnlessItems,
            PageCapture::Always => Capture::Always,
        }
    }
}

impl From<Capture> for PageCapture {
    fn from(capture: Capture) -> Self {
        match capture {
            Capture::Never => PageCapture::Never,
            Capture::UnlessItems => PageCapture::UnlessItems,
            Capture::Always => PageCapture::Always,
        }
    }
}

/// How a run ended in the child.
#[derive(Debug, Serialize, Deserialize)]
pub struct RunDone {
    pub outcome: Result<Outcome, Failure>,
    /// The page's markup (cut), when the run failed or the job wants it.
    pub html: Option<String>,
}

/// What the script did (`ScriptRun` on the wire).
#[derive(Debug, Serialize, Deserialize)]
pub struct Outcome {
    /// `Some((json, length))` when `returnData` was called with an array.
    pub data: Option<(String, i64)>,
    /// Why the script failed, otherwise.
    pub failed: Option<String>,
    pub selector: Option<String>,
    /// The JSON of the pages the script added with `SVC.enqueue`.
    #[serde(default)]
    pub enqueued: Option<String>,
}

impl From<ScriptRun> for Outcome {
    fn from(run: ScriptRun) -> Self {
        let enqueued = run.enqueued;
        match run.result {
            ScriptResult::Data { json, length } => {
                Outcome { data: Some((json, length)), failed: None, selector: None, enqueued }
            }
            ScriptResult::Failed { message } => {
                Outcome { data: None, failed: Some(message), selector: run.selector, enqueued }
            }
        }
    }
}

impl From<Outcome> for ScriptRun {
    fn from(outcome: Outcome) -> Self {
        let result = match outcome.data {
            Some((json, length)) => ScriptResult::Data { json, length },
            None => ScriptResult::Failed { message: outcome.failed.unwrap_or_else(|| "the script failed".into()) },
        };
        ScriptRun { result, selector: outcome.selector, enqueued: outcome.enqueued }
    }
}

/// The errors a run can end with in the child (`StaticError`'s script side).
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Failure {
    TimedOut(u64),
    Script(String),
    Aborted(String),
    Stalled,
    Internal(String),
}

impl From<StaticError> for Failure {
    fn from(e: StaticError) -> Self {
        match e {
            StaticError::TimedOut(secs) => Failure::TimedOut(secs),
            StaticError::Script(message) => Failure::Script(message),
            StaticError::ScriptAborted(message) => Failure::Aborted(message),
            StaticError::Stalled => Failure::Stalled,
            StaticError::Internal(message) => Failure::Internal(message),
            other => Failure::Internal(other.to_string()),
        }
    }
}

impl From<Failure> for StaticError {
    fn from(f: Failure) -> Self {
        match f {
            Failure::TimedOut(secs) => StaticError::TimedOut(secs),
            Failure::Script(message) => StaticError::Script(message),
            Failure::Aborted(message) => StaticError::ScriptAborted(message),
            Failure::Stalled => StaticError::Stalled,
            Failure::Internal(message) => StaticError::Internal(message),
        }
    }
}

/// `message` as one frame.
fn frame(message: &impl Serialize) -> io::Result<Vec<u8>> {
    let mut bytes = vec![0; 4];
    serde_json::to_writer(&mut bytes, message).map_err(io::Error::other)?;
    let length = u32::try_from(bytes.len() - 4).map_err(|_| io::Error::other("a message over 4 GiB"))?;
    bytes[..4].copy_from_slice(&length.to_le_bytes());
    Ok(bytes)
}

fn decode<T: DeserializeOwned>(body: &[u8]) -> io::Result<T> {
    serde_json::from_slice(body).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}

fn checked(length: [u8; 4], max: usize) -> io::Result<usize> {
    let length = u32::from_le_bytes(length) as usize;
    if length > max {
        return Err(io::Error::new(io::ErrorKind::InvalidData, format!("a message of {length} bytes")));
    }
    Ok(length)
}

/// Writes one message (blocking: the child's side).
pub fn write_message(to: &mut impl Write, message: &impl Serialize) -> io::Result<()> {
    to.write_all(&frame(message)?)
}

/// Reads one message of at most `max` bytes (blocking: the child's side).
pub fn read_message<T: DeserializeOwned>(from: &mut impl Read, max: usize) -> io::Result<T> {
    let mut length = [0; 4];
    from.read_exact(&mut length)?;
    let mut body = vec![0; checked(length, max)?];
    from.read_exact(&mut body)?;
    decode(&body)
}

/// Sends one message (the engine's side).
pub async fn send(to: &mut tokio::net::UnixStream, message: &impl Serialize) -> io::Result<()> {
    to.write_all(&frame(message)?).await
}

/// Receives one message of at most `max` bytes (the engine's side).
pub async fn receive<T: DeserializeOwned>(from: &mut tokio::net::UnixStream, max: usize) -> io::Result<T> {
    let mut length = [0; 4];
    from.read_exact(&mut length).await?;
    let mut body = vec![0; checked(length, max)?];
    from.read_exact(&mut body).await?;
    decode(&body)
}
