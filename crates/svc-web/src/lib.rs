//! Adding a screen? Read `crates/svc-web/CONVENTIONS.md` first (CSP, forms,
//! CSRF, tests, screenshots).
//!
//! The web app: server-rendered pages over the same services as REST, so a
//! page shows exactly what the API would give. Templates are askama, compiled
//! into the binary with the one stylesheet and the one script
//! (`assets/`); nothing is fetched at run time.
//!
//! The browser session is the contract's JWT in an HttpOnly cookie;
//! [`browser_session`] holds the cookie and CSRF rules that the REST adapter
//! shares for cookie callers.

pub mod browser_session;

mod assets;
mod chrome;
mod client_ip;
mod form_errors;
mod page_error;
mod pages;
pub mod path_id;
mod present;
mod signed_in;

use std::sync::Arc;

use axum::Router;
use svc_service::Services;

pub use page_error::{InternalCause, method_not_allowed_page, not_found_page, refused_page};

/// Every page of the web app and its assets.
pub fn routes() -> Router<Arc<Services>> {
    pages::routes()
}
