//! `StaticEngine`: the service's `Engine` port without a browser. A run
//! fetches the page (`fetch.rs`), decodes it (`decode.rs`), and on a thread
//! of its own parses it (`document.rs`) and runs the user's script over it
//! in QuickJS (`script_runtime.rs`). The run timeout covers all of it.

use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use serde_json::{Value, json};
use svc_engine::host_vetting::Resolver;
use svc_engine::{Engine, RunJob};
use svc_engine::{EngineReport, ScriptResult};
use url::Url;

use crate::document::Document;
use crate::error::StaticError;
use crate::fetch::Fetcher;
use crate::script_network::Network;
use crate::script_runtime::{ScriptLimits, ScriptRun};

/// The page's HTML handed back (snapshot, `capture_page`) is cut to this, as the browser engine's.
pub const PAGE_HTML_MAX: usize = 512 * 1024;
/// The script thread's stack; QuickJS may use [`ScriptLimits::stack`] of it.
const THREAD_STACK: usize = 16 * 1024 * 1024;
/// How long after the deadline a script thread may take to hand back its
/// answer (the interrupt stops JavaScript at the deadline; native work in
/// progress, such as serializing the page, finishes first).
const THREAD_GRACE: Duration = Duration::from_secs(2);

#[derive(Clone, Debug)]
pub struct StaticConfig {
    /// Let runs reach loopback and private addresses (`SVC_ALLOW_PRIVATE_NETWORKS`).
    pub allow_private_networks: bool,
    /// Where host names are resolved (fixed answers in tests).
    pub resolver: Resolver,
    /// Largest page body read (beyond it the run fails).
    pub max_body_bytes: usize,
    pub limits: ScriptLimits,
}

impl Default for StaticConfig {
    fn default() -> Self {
        StaticConfig {
            allow_private_networks: false,
            resolver: Resolver::default(),
            max_body_bytes: 10 * 1024 * 1024,
            limits: ScriptLimits { memory: 256 * 1024 * 1024, stack: 4 * 1024 * 1024 },
        }
    }
}

pub struct StaticEngine {
    fetcher: Arc<Fetcher>,
    limits: ScriptLimits,
}

impl StaticEngine {
    pub fn new(config: StaticConfig) -> StaticEngine {
        StaticEngine {
            fetcher: Arc::new(Fetcher::new(config.allow_private_networks, config.resolver, config.max_body_bytes)),
            limits: config.limits,
        }
    }
}

/// What the script thread hands back.
struct PageOutcome {
    run: Result<ScriptRun, StaticError>,
    /// The page's markup (cut), when the run failed or the job asked for it.
    html: Option<String>,
}

/// `html` cut to [`PAGE_HTML_MAX`] bytes on a character boundary.
fn cut_html(mut html: String) -> String {
    if html.len() > PAGE_HTML_MAX {
        let mut at = PAGE_HTML_MAX;
        while !html.is_char_boundary(at) {
            at -= 1;
        }
        html.truncate(at);
    }
    html
}

/// Parses the page and runs the script, on the calling (dedicated) thread.
fn run_page(html: String, url: Url, job: &RunJob, limits: ScriptLimits, network: Network) -> PageOutcome {
    let deadline = network.deadline;
    let secs = job.timeout.as_secs();
    let document = match Document::parse(&html, url, deadline) {
        Ok(document) => Rc::new(document),
        Err(_) => return PageOutcome { run: Err(StaticError::TimedOut(secs)), html: Some(cut_html(html)) },
    };
    drop(html);
    let source = crate::script::wrap(job);
    let run = crate::script_runtime::run_with_network(document.clone(), &source, deadline, secs, limits, Some(network));
    let failed = !matches!(run, Ok(ScriptRun { result: ScriptResult::Data { .. }, .. }));
    // A failure's snapshot needs the page; a capture only when the job wants it.
    let wanted = run.as_ref().is_ok_and(|r| job.capture_page.wants(&r.result));
    let html = (failed || wanted).then(|| cut_html(document.page_html()));
    PageOutcome { run, html }
}

/// [`run_page`] on a thread of its own, awaited.
async fn run_on_thread(html: String, url: Url, job: RunJob, limits: ScriptLimits, network: Network) -> PageOutcome {
    let deadline = network.deadline;
    let (tx, rx) = tokio::sync::oneshot::channel();
    let secs = job.timeout.as_secs();
    let spawned =
        std::thread::Builder::new().name("svc-static-script".into()).stack_size(THREAD_STACK).spawn(move || {
            let _ = tx.send(run_page(html, url, &job, limits, network));
        });
    if let Err(e) = spawned {
        return PageOutcome {
            run: Err(StaticError::Internal(format!("cannot start a script thread: {e}"))),
            html: None,
        };
    }
    let wait = deadline.saturating_duration_since(Instant::now()) + THREAD_GRACE;
    match tokio::time::timeout(wait, rx).await {
        Ok(Ok(outcome)) => outcome,
        Ok(Err(_)) => PageOutcome { run: Err(StaticError::Internal("the script thread died".into())), html: None },
        Err(_) => PageOutcome { run: Err(StaticError::TimedOut(secs)), html: None },
    }
}

fn snapshot(html: Option<String>, selector: Option<String>) -> Value {
    json!({ "html": html, "selector": selector, "screenshot": null })
}

#[async_trait]
impl Engine for StaticEngine {
    async fn run(&self, job: RunJob) -> EngineReport {
        let started = Instant::now();
        let deadline = started + job.timeout;
        let received = Arc::new(AtomicU64::new(0));
        let report =
            |result: ScriptResult, status: Option<i64>, snapshot: Option<Value>, html: Option<String>| EngineReport {
                result,
                duration_ms: started.elapsed().as_millis() as i64,
                bytes: received.load(Ordering::Relaxed),
                snapshot,
                status,
                html,
                session: None,
            };
        let fail = |e: StaticError, html: Option<String>| {
            let status = e.status();
            let result = ScriptResult::Failed { message: e.to_string() };
            let capture = job.capture_page.wants(&result).then(|| html.clone()).flatten();
            report(result, status, Some(snapshot(html, None)), capture)
        };
        if job.tier != 0 {
            return fail(StaticError::ProxyTier(job.tier), None);
        }

        let fetched = match tokio::time::timeout(job.timeout, self.fetcher.fetch(&job.url, &received)).await {
            Ok(Ok(fetched)) => fetched,
            Ok(Err(e)) => return fail(e, None),
            Err(_) => return fail(StaticError::OpeningTimedOut(job.timeout.as_secs()), None),
        };
        let status = i64::from(fetched.status);
        let html = match crate::decode::page_html(&fetched.body, fetched.content_type.as_deref()) {
            Ok(html) => html,
            Err(e) => return EngineReport { status: Some(status), ..fail(e, None) },
        };
        if fetched.status >= 400 {
            return fail(StaticError::Status(fetched.status), Some(cut_html(html)));
        }

        let network = Network {
            fetcher: self.fetcher.clone(),
            runtime: tokio::runtime::Handle::current(),
            received: received.clone(),
            deadline,
        };
        let page = run_on_thread(html, fetched.url, job.clone(), self.limits, network).await;
        match page.run {
            Ok(ScriptRun { result: result @ ScriptResult::Data { .. }, .. }) => {
                let capture = page.html.filter(|_| job.capture_page.wants(&result));
                report(result, Some(status), None, capture)
            }
            Ok(ScriptRun { result, selector }) => {
                let capture = job.capture_page.wants(&result).then(|| page.html.clone()).flatten();
                report(result, Some(status), Some(snapshot(page.html, selector)), capture)
            }
            Err(e) => EngineReport { status: Some(status), ..fail(e, page.html) },
        }
    }
}
