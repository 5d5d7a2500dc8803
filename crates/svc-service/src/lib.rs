//! The one place where svc's business rules live. REST, MCP, the web app and
//! the CLI are adapters over these services: they parse their wire format,
//! obtain a [`Principal`] (or a [`Session`]) from [`AuthService`], call a
//! service, and render the result.
//!
//! Every service method that reads or writes an organization's objects takes
//! the authenticated principal and checks its scopes and allow-list itself,
//! so an adapter cannot forget a check.

pub mod accounts;
pub mod admin;
pub mod ai_authoring;
pub mod ai_fix;
pub mod ai_model;
pub mod ai_prompts;
pub mod ai_spend;
pub mod ai_tasks;
pub mod announcements;
pub mod attachments;
pub mod auth;
pub mod backoff;
pub mod client_address;
pub mod data_export;
pub mod digest;
pub mod dispatcher;
pub mod email_compose;
pub mod engine;
pub mod engine_choice;
pub mod error;
pub mod fix_policy;
pub mod gcra;
pub mod history;
pub mod host_vetting;
pub mod jwt;
pub mod key_cache;
pub mod key_material;
pub mod keys;
pub mod mail_transport;
pub mod mailer;
pub mod metrics;
pub mod model_answer;
pub mod page_snapshot;
pub mod paging;
pub mod password;
pub mod principal;
#[cfg(test)]
mod properties;
pub mod proxy_tiers;
pub mod rate_limits;
pub mod redact;
pub mod renewal;
pub mod run_outcome;
pub mod runs;
pub mod schedule;
pub mod scheduler;
pub mod scrap_input;
pub mod scraps;
pub mod script_directives;
pub mod services;
pub mod site_accounts;
pub mod sliding_log;
pub mod task_runner;
#[cfg(test)]
pub(crate) mod testing;
pub mod webhook_payload;
pub mod webhook_signing;
pub mod webhooks;

pub use error::ServiceError;
pub use principal::{Principal, Session};
pub use services::{Health, ServiceConfig, Services};
pub use svc_domain::plan::WeeklyUnits;

pub type Result<T, E = ServiceError> = std::result::Result<T, E>;
