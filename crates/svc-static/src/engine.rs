//! `StaticEngine`: the service's `Engine` port without a browser. A run
//! fetches the page (`fetch.rs`) and decodes it (`decode.rs`) here, then
//! hands it to a sandbox process (`sandbox/`), which parses it
//! (`document.rs`) and runs the user's script over it in QuickJS
//! (`script_runtime.rs`); the script's `fetch` requests come back here to
//! be made. The run timeout covers all of it: a process still busy at the
//! deadline plus [`GRACE`] is killed.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use serde_json::{Value, json};
use svc_domain::OrgId;
use svc_engine::host_vetting::{PrivateNetworks, Resolver};
use svc_engine::{Engine, RunJob};
use svc_engine::{EngineReport, ScriptResult};

use crate::error::StaticError;
use crate::fetch::Fetcher;
use crate::sandbox::SandboxConfig;
use crate::sandbox::child::cut_html;
use crate::sandbox::launch::{Launch, SandboxUser};
use crate::sandbox::pool::Pool;
use crate::sandbox::process::Lost;
use crate::sandbox::protocol::RunOrder;
use crate::script_runtime::{ScriptLimits, ScriptRun};

pub use crate::sandbox::child::PAGE_HTML_MAX;

/// How long after the deadline a sandbox process may take to hand back its
/// answer (the interrupt stops JavaScript at the deadline; native work in
/// progress, such as serializing the page, finishes first). Then it is killed.
pub const GRACE: Duration = Duration::from_secs(1);

#[derive(Clone, Debug)]
pub struct StaticConfig {
    /// Which loopback and private addresses runs may reach (`SVC_ALLOW_PRIVATE_NETWORKS`).
    pub allow_private_networks: PrivateNetworks,
    /// Where host names are resolved (fixed answers in tests).
    pub resolver: Resolver,
    /// Largest page body read (beyond it the run fails).
    pub max_body_bytes: usize,
    pub limits: ScriptLimits,
    /// The processes scripts run in.
    pub sandbox: SandboxConfig,
}

impl Default for StaticConfig {
    fn default() -> Self {
        StaticConfig {
            allow_private_networks: PrivateNetworks::None,
            resolver: Resolver::default(),
            max_body_bytes: 10 * 1024 * 1024,
            limits: ScriptLimits { memory: 256 * 1024 * 1024, stack: 4 * 1024 * 1024 },
            sandbox: SandboxConfig::default(),
        }
    }
}

pub struct StaticEngine {
    fetcher: Arc<Fetcher>,
    limits: ScriptLimits,
    pool: Pool,
}

impl StaticEngine {
    pub fn new(config: StaticConfig) -> StaticEngine {
        let user = SandboxUser::for_this_process(&config.sandbox.user);
        let launch = Launch::this_program(user, config.sandbox.limits);
        StaticEngine {
            fetcher: Arc::new(Fetcher::new(config.allow_private_networks, config.resolver, config.max_body_bytes)),
            limits: config.limits,
            pool: Pool::new(launch, config.sandbox.pool),
        }
    }

    /// The ids of the sandbox processes waiting for a run (spares and idle
    /// ones; not those running one).
    pub fn sandbox_processes(&self) -> Vec<u32> {
        self.pool.waiting()
    }

    /// Runs `order` in a sandbox process of `organization`'s.
    async fn run_sandboxed(
        &self,
        fetcher: &Fetcher,
        order: &RunOrder,
        organization: Option<OrgId>,
        received: &AtomicU64,
        deadline: Instant,
    ) -> PageOutcome {
        let page = || Some(cut_html(order.html.clone()));
        let kill_at = tokio::time::Instant::from_std(deadline + GRACE);
        // A kept process that died while idle did not get the run: one more try.
        for attempt in 0..2 {
            let mut process = match self.pool.take(organization).await {
                Ok(process) => process,
                Err(e) => return PageOutcome { run: Err(StaticError::Internal(e)), html: None },
            };
            let served = tokio::time::timeout_at(kill_at, process.serve(order, fetcher, received, deadline));
            let lost = match served.await {
                Ok(Ok(done)) => {
                    self.pool.give_back(process);
                    let run = done.outcome.map(ScriptRun::from).map_err(StaticError::from);
                    return PageOutcome { run, html: done.html.map(cut_html) };
                }
                Ok(Err(Lost::NotSent(_))) if attempt == 0 => continue,
                Ok(Err(Lost::NotSent(e))) => e.to_string(),
                Ok(Err(Lost::Failed(e))) => e,
                // Dropping the process kills it.
                Err(_) => return PageOutcome { run: Err(StaticError::TimedOut(order.timeout_secs)), html: page() },
            };
            let why = process.ending().await;
            return PageOutcome { run: Err(StaticError::Internal(format!("{why}: {lost}"))), html: page() };
        }
        unreachable!("the second attempt returns")
    }
}

/// What the sandbox hands back.
struct PageOutcome {
    run: Result<ScriptRun, StaticError>,
    /// The page's markup (cut), when the run failed or the job asked for it.
    html: Option<String>,
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
                enqueued: vec![],
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

        // The page and the script's requests: held to the run's site when it
        // has one, and to the sites the page's redirects lead to.
        let fetcher = self.fetcher.confined(job.confined_to.clone());
        let fetched = match tokio::time::timeout(job.timeout, fetcher.fetch(&job.url, &received)).await {
            Ok(Ok(fetched)) => fetched,
            Ok(Err(e)) => return fail(e, None),
            Err(_) => return fail(StaticError::OpeningTimedOut(job.timeout.as_secs()), None),
        };
        let status = i64::from(fetched.status);
        let (html, encoding) = match crate::decode::page(&fetched.body, fetched.content_type.as_deref()) {
            Ok(page) => page,
            Err(e) => return EngineReport { status: Some(status), ..fail(e, None) },
        };
        if fetched.status >= 400 {
            return fail(StaticError::Status(fetched.status), Some(cut_html(html)));
        }

        let order = RunOrder {
            html,
            url: fetched.url.to_string(),
            encoding: encoding.to_string(),
            script: crate::script::wrap(&job),
            timeout_secs: job.timeout.as_secs(),
            remaining_ms: deadline.saturating_duration_since(Instant::now()).as_millis() as u64,
            limits: self.limits,
            capture: job.capture_page.into(),
        };
        let page = self.run_sandboxed(&fetcher, &order, job.organization, &received, deadline).await;
        let room = job.page.room;
        match page.run {
            Ok(ScriptRun { result: result @ ScriptResult::Data { .. }, enqueued, .. }) => {
                let capture = page.html.filter(|_| job.capture_page.wants(&result));
                let enqueued = svc_engine::crawl::read_enqueued(enqueued.as_deref(), room);
                EngineReport { enqueued, ..report(result, Some(status), None, capture) }
            }
            Ok(ScriptRun { result, selector, enqueued }) => {
                let capture = job.capture_page.wants(&result).then(|| page.html.clone()).flatten();
                let enqueued = svc_engine::crawl::read_enqueued(enqueued.as_deref(), room);
                EngineReport { enqueued, ..report(result, Some(status), Some(snapshot(page.html, selector)), capture) }
            }
            Err(e) => EngineReport { status: Some(status), ..fail(e, page.html) },
        }
    }
}
