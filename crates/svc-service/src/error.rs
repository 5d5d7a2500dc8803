use svc_domain::scope::Scope;
use svc_storage::StoreError;

/// Every way a service call can fail. Adapters map each variant to their
/// wire format (HTTP status and error code, JSON-RPC error, CLI exit code).
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    /// Missing, malformed, unknown, revoked or expired credentials.
    #[error("{0}")]
    Unauthorized(String),
    /// A JWT-only operation was attempted with an API key.
    #[error("{0}")]
    SessionRequired(String),
    #[error("the API key is missing the required scope(s): {}", list(.0))]
    InsufficientScope(Vec<Scope>),
    #[error("the API key is not scoped to this scrap")]
    ScrapNotInKeyScope,
    #[error("{0} requires the Growth or Pro plan")]
    PlanRequired(&'static str),
    #[error("{0}")]
    Forbidden(String),
    #[error("{0} not found")]
    NotFound(&'static str),
    #[error("{field}: {message}")]
    Validation { field: String, message: String },
    #[error("{message}")]
    Conflict { code: &'static str, message: String },
    #[error("the organization has no compute balance left")]
    InsufficientBalance,
    #[error("rate limit reached: {} requests per {} seconds; retry in {} s", .0.rate.limit, .0.rate.window.as_secs(), .0.retry_after_secs())]
    RateLimited(crate::accounts::rate_limits::Refusal),
    /// A feature this server is not set up for (email without
    /// `SVC_SMTP_URL`): the message says what to set.
    #[error("{0}")]
    Unavailable(String),
    /// The database cannot be reached now (the cause is for the log):
    /// the same call may succeed in a few seconds.
    #[error("the database is unreachable; retry in a few seconds")]
    StoreUnavailable(String),
    /// An AI route or feature on a server without a model provider
    /// (`SVC_AI_BASE_URL`).
    #[error("no AI provider is configured on this server (SVC_AI_BASE_URL)")]
    AiNotConfigured,
    #[error("internal error: {0}")]
    Internal(String),
}

fn list(scopes: &[Scope]) -> String {
    scopes.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
}

impl ServiceError {
    pub fn validation(field: impl Into<String>, message: impl Into<String>) -> Self {
        ServiceError::Validation { field: field.into(), message: message.into() }
    }
}

impl ServiceError {
    /// Whether the database could not be reached (a background loop backs
    /// off; a request answers 503).
    pub fn is_store_unavailable(&self) -> bool {
        matches!(self, ServiceError::StoreUnavailable(_))
    }
}

impl From<StoreError> for ServiceError {
    fn from(e: StoreError) -> Self {
        if e.is_unavailable() {
            ServiceError::StoreUnavailable(e.to_string())
        } else {
            ServiceError::Internal(e.to_string())
        }
    }
}
