//! Why a static run failed before or around the script. The wording follows
//! the browser engine's (`svc-runner`), so that users, AI Fix
//! (`fix_policy::diagnose` reads the prefixes) and tests see one language.

use svc_engine::host_vetting::Refusal;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StaticError {
    /// The job's own URL may not be loaded.
    #[error("target refused: {0}")]
    TargetRefused(Refusal),
    /// A redirect led somewhere that may not be loaded.
    #[error("navigation refused: {url}: {why}")]
    RedirectRefused { url: String, why: String },
    #[error("navigation failed: {0}")]
    Navigation(String),
    #[error("navigation failed: more than {0} redirects")]
    TooManyRedirects(usize),
    /// The main document's final status was 400 or more.
    #[error("the page answered HTTP {0}")]
    Status(u16),
    #[error("the page is larger than {} MiB", .0 / (1024 * 1024))]
    TooLarge(usize),
    #[error("the static engine reads HTML and text pages, not `{0}`; use the puppeteer engine for this scrap")]
    NotHtml(String),
    #[error("timed out after {0} s while opening the page")]
    OpeningTimedOut(u64),
    /// Parsing did not end before the deadline (the caller words the timeout).
    #[error("timed out while parsing the page")]
    ParseTimedOut,
    #[error("timed out after {0} s")]
    TimedOut(u64),
    /// The script could not be compiled or evaluated at all.
    #[error("the script could not run: {0}")]
    Script(String),
    /// The script stopped in a way it could not catch (out of memory in
    /// the engine's own code, a failed job).
    #[error("the script failed: {0}")]
    ScriptAborted(String),
    /// Awaits that nothing can ever resolve: no events, no network here.
    #[error("the script waits for a promise that nothing resolves (the static engine has no page events)")]
    Stalled,
    #[error("the static engine does not use proxy tiers yet (this run is on tier{0}); use the puppeteer engine")]
    ProxyTier(u8),
    #[error("the static engine failed: {0}")]
    Internal(String),
}

impl StaticError {
    /// The main document's status, when the failure is about it.
    pub fn status(&self) -> Option<i64> {
        match self {
            StaticError::Status(code) => Some(i64::from(*code)),
            _ => None,
        }
    }
}
