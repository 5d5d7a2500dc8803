//! The sandbox process's side: [`serve`] is what `svc sandbox` (and, in test
//! and bench programs, the pre-main hook) runs.
//!
//! Start-up, before any page: take the channel (descriptor 3), load what
//! later needs a file (the time zone), then lock down (`syscall_filter`:
//! from then on no file, socket, process or signal of another can be had)
//! and say `Ready`. Then serve runs (see `protocol`) until the channel
//! closes: parse the page (`document`), run the script (`script_runtime`),
//! its `fetch` a request to the engine over the channel, and answer
//! `Done`. Each run starts from the realm as built (`realm.rs`: QuickJS's
//! runtime and context with svc's prelude, built once at start-up and
//! copied back before each run).

use std::cell::RefCell;
use std::io;
use std::os::fd::FromRawFd;
use std::os::unix::net::UnixStream;
use std::rc::Rc;
use std::time::{Duration, Instant};

use svc_engine::{PageCapture, ScriptResult};
use url::Url;

use super::protocol::{self, FromChild, RunDone, RunOrder, TO_CHILD_MAX, ToChild};
use crate::document::Document;
use crate::error::StaticError;
use crate::fetch::ScriptRequest;
use crate::script_network::{ScriptFetch, ScriptResponse};
use crate::script_runtime::ScriptRun;

unsafe extern "C" {
    /// glibc's: loads the time zone (`/etc/localtime`, as `TZ` is unset).
    fn tzset();
}

/// The channel's descriptor in the child.
pub const CHANNEL_FD: i32 = 3;

/// The page's HTML handed back (snapshot, `capture_page`) is cut to this, as the browser engine's.
pub const PAGE_HTML_MAX: usize = 512 * 1024;

/// `html` cut to [`PAGE_HTML_MAX`] bytes on a character boundary.
pub fn cut_html(mut html: String) -> String {
    if html.len() > PAGE_HTML_MAX {
        let mut at = PAGE_HTML_MAX;
        while !html.is_char_boundary(at) {
            at -= 1;
        }
        html.truncate(at);
    }
    html
}

/// The sandbox process's main: serves runs on descriptor 3 until it
/// closes; the exit code (0 when the channel closed).
pub fn serve() -> u8 {
    if !channel_is_a_socket() {
        eprintln!("svc sandbox: this is the static engine's sandbox process, started by svc with its channel");
        return 2;
    }
    // SAFETY: descriptor 3 is open, a socket, the channel the engine set
    // up; nothing else in this process owns it.
    let channel = unsafe { UnixStream::from_raw_fd(CHANNEL_FD) };
    // What needs a file, before the lock-down: glibc reads the time zone once.
    // SAFETY: tzset has no preconditions; this process has one thread.
    unsafe { tzset() };
    if let Err(e) = super::syscall_filter::install() {
        // Never serve a page unconfined; the engine reports the exit.
        eprintln!("svc sandbox: cannot install the system call filter: {e}");
        return 3;
    }
    // svc's own JavaScript compiled and its realm built once, for every run of this process.
    if let Err(e) = crate::script_runtime::prepare() {
        eprintln!("svc sandbox: {e}");
        return 4;
    }
    let channel = Rc::new(RefCell::new(channel));
    if protocol::write_message(&mut *channel.borrow_mut(), &FromChild::Ready).is_err() {
        return 1;
    }
    loop {
        let message = protocol::read_message::<ToChild>(&mut *channel.borrow_mut(), TO_CHILD_MAX);
        let order = match message {
            Ok(ToChild::Run(order)) => order,
            Ok(ToChild::FetchAnswer { .. }) => return 1,
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return 0,
            Err(_) => return 1,
        };
        let network: Rc<dyn ScriptFetch> = Rc::new(ChannelFetch(channel.clone()));
        let done = run(order, network);
        if protocol::write_message(&mut *channel.borrow_mut(), &FromChild::Done(done)).is_err() {
            return 1;
        }
    }
}

/// Whether descriptor 3 is open and a socket (not so when started by hand).
fn channel_is_a_socket() -> bool {
    // SAFETY: fstat writes into the zeroed struct it is given.
    unsafe {
        let mut stat: libc::stat = std::mem::zeroed();
        libc::fstat(CHANNEL_FD, &mut stat) == 0 && (stat.st_mode & libc::S_IFMT) == libc::S_IFSOCK
    }
}

/// The script's `fetch`, asked of the engine over the channel.
struct ChannelFetch(Rc<RefCell<UnixStream>>);

impl ScriptFetch for ChannelFetch {
    fn fetch(&self, request: &ScriptRequest) -> Result<ScriptResponse, String> {
        let mut channel = self.0.borrow_mut();
        let lost = |e: io::Error| format!("the engine did not answer: {e}");
        protocol::write_message(&mut *channel, &FromChild::Fetch { request: request.clone() }).map_err(lost)?;
        match protocol::read_message::<ToChild>(&mut *channel, TO_CHILD_MAX).map_err(lost)? {
            ToChild::FetchAnswer { answer } => answer,
            ToChild::Run(_) => Err("the engine sent a run in the middle of one".into()),
        }
    }
}

/// Parses the page and runs the script.
fn run(order: RunOrder, network: Rc<dyn ScriptFetch>) -> RunDone {
    let deadline = Instant::now() + Duration::from_millis(order.remaining_ms);
    let secs = order.timeout_secs;
    let capture: PageCapture = order.capture.into();
    let url = match Url::parse(&order.url) {
        Ok(url) => url,
        Err(e) => {
            let outcome = Err(StaticError::Internal(format!("the page's URL: {e}")).into());
            return RunDone { outcome, html: None };
        }
    };
    let document = match Document::parse(&order.html, url, deadline) {
        Ok(document) => Rc::new(document.with_encoding(&order.encoding)),
        Err(_) => {
            let html = Some(cut_html(order.html));
            return RunDone { outcome: Err(StaticError::TimedOut(secs).into()), html };
        }
    };
    drop(order.html);
    let run = crate::script_runtime::run_with_network(
        document.clone(),
        &order.script,
        deadline,
        secs,
        order.limits,
        Some(network),
    );
    let failed = !matches!(run, Ok(ScriptRun { result: ScriptResult::Data { .. }, .. }));
    // A failure's snapshot needs the page; a capture only when the job wants it.
    let wanted = run.as_ref().is_ok_and(|r| capture.wants(&r.result));
    let html = (failed || wanted).then(|| cut_html(document.page_html()));
    RunDone { outcome: run.map(Into::into).map_err(Into::into), html }
}
