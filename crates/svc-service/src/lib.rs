//! The one place where svc's business rules live. REST, MCP, the web app and
//! the CLI are adapters over these services: they parse their wire format,
//! obtain a [`Principal`] (or a [`Session`]) from [`AuthService`], call a
//! service, and render the result.
//!
//! Every service method that reads or writes an organization's objects takes
//! the authenticated principal and checks its scopes and allow-list itself,
//! so an adapter cannot forget a check.

pub mod accounts;
pub mod ai;
pub mod error;
pub mod members;
pub mod metrics;
pub mod outbox;
pub mod paging;
pub mod runs;
pub mod schedule;
pub mod scraps;
pub mod services;
#[cfg(test)]
pub(crate) mod testing;

pub use accounts::principal::{Principal, Session};
pub use error::ServiceError;
pub use runs::worker::Worker;
pub use services::{Health, ServiceConfig, Services};
pub use svc_domain::plan::WeeklyUnits;

pub type Result<T, E = ServiceError> = std::result::Result<T, E>;
