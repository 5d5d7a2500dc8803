//! What an engine tells the service layer about how it contains the pages
//! it runs, for `/readyz`, the start-up line and the admin page.

/// Whether the browser engine runs pages inside Chromium's sandbox
/// (`SVC_BROWSER_SANDBOX`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BrowserSandbox {
    /// Required: Chromium starts with its sandbox or not at all (the
    /// default). Until the first launch, this is the setting, not a check.
    On,
    /// Turned off by the operator (`SVC_BROWSER_SANDBOX=off`): Chromium
    /// starts with `--no-sandbox`.
    Off,
    /// Required, but Chromium could not start with it on this host (why, and
    /// how to fix it): browser runs fail until the host or the setting changes.
    Unavailable(String),
}

impl BrowserSandbox {
    /// `on`, `off` or `unavailable`.
    pub fn word(&self) -> &'static str {
        match self {
            BrowserSandbox::On => "on",
            BrowserSandbox::Off => "off",
            BrowserSandbox::Unavailable(_) => "unavailable",
        }
    }
}

/// An engine that can say how it contains pages.
pub trait IsolationReport: Send + Sync {
    fn browser_sandbox(&self) -> BrowserSandbox;
}
