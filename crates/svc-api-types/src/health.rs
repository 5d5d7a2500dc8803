use serde::{Deserialize, Serialize};

/// `GET /healthz`: `{"status": "ok", "database": "sqlite"}`; `GET /readyz`:
/// `{"status": "ready", "database": "postgres"}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HealthView {
    pub status: String,
    pub database: String,
}

impl HealthView {
    pub fn ok(database: &str) -> Self {
        HealthView { status: "ok".into(), database: database.into() }
    }

    pub fn ready(database: &str) -> Self {
        HealthView { status: "ready".into(), database: database.into() }
    }
}
