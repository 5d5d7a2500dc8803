//! The static engine: the user's script on server-rendered HTML, without a
//! browser.
//!
//! [`StaticEngine`] implements the service layer's
//! [`svc_engine::Engine`] port, as `svc-runner`'s Chromium engine
//! does, for scraps whose `scrapper` is `static`. A run:
//!
//! 1. fetches the page with reqwest through the same vetting as the
//!    browser's egress ([`fetch`]: every address dialled is one
//!    `host_vetting::vetted_addresses` accepted; at most 5 redirects, each
//!    vetted again; a body cap; a document status of 400 or more fails the
//!    run with "the page answered HTTP N");
//! 2. decodes it as a browser would ([`decode`]);
//! 3. hands it to a sandbox process ([`sandbox`]: a child process without
//!    environment, files or network, under a seccomp filter), which parses
//!    it with html5ever ([`document`], on scraper's tree, with [`css`]'s
//!    selectors over the `selectors` crate) and runs the script in QuickJS
//!    ([`script_runtime`]) wrapped as the browser engine wraps it
//!    ([`script`]), over a read-only DOM ([`dom_bindings`] +
//!    `js/prelude.js`), with a memory limit, a stack limit and an interrupt
//!    at the run's deadline; a process still busy after the deadline is killed.
//!
//! The page's own scripts never run: what JavaScript would add to the page
//! is not there. Changing the page, layout, events and `XMLHttpRequest`
//! throw errors that say so; `fetch` goes out through [`fetch`] too
//! ([`script_network`]), made by the engine for the sandbox process.

pub mod css;
pub mod decode;
pub mod document;
pub mod dom_bindings;
pub mod dom_members;
pub mod engine;
pub mod error;
pub mod fetch;
mod heap;
pub mod inner_text;
mod realm;
pub mod sandbox;
pub mod script;
pub mod script_network;
pub mod script_runtime;

pub use engine::{StaticConfig, StaticEngine};
pub use error::StaticError;
pub use script_runtime::ScriptLimits;
