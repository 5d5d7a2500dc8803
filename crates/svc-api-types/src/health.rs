use serde::{Deserialize, Serialize};

/// `GET /healthz`: `{"status": "ok", "database": "sqlite"}`; `GET /readyz`:
/// `{"status": "ready", "database": "postgres", "browserSandbox": "on"}`
/// (`browserSandbox` in a process that runs the browser engine: `on`,
/// `off` when the operator set `SVC_BROWSER_SANDBOX=off`, `unavailable`
/// when Chromium could not start with it on this host).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HealthView {
    pub status: String,
    pub database: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub browser_sandbox: Option<String>,
}

impl HealthView {
    pub fn ok(database: &str) -> Self {
        HealthView { status: "ok".into(), database: database.into(), browser_sandbox: None }
    }

    pub fn ready(database: &str, browser_sandbox: Option<&str>) -> Self {
        HealthView {
            status: "ready".into(),
            database: database.into(),
            browser_sandbox: browser_sandbox.map(Into::into),
        }
    }
}
