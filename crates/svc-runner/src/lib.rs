//! The Chromium engine: an [`svc_engine::Engine`] over headless Chromium.
//!
//! [`ChromiumEngine`] is the engine: one warm headless
//! Chromium, a fresh browser context per run, every request checked by
//! [`net_guard`] before it leaves the browser, and every connection the
//! browser opens made through [`egress_proxy`], which dials only vetted
//! addresses.

pub mod browser;
pub mod chromium;
pub mod egress_proxy;
pub mod first_navigation;
pub mod handover;
pub mod net_guard;
pub mod page_hold;
pub mod page_seats;
pub mod renderer_limits;
pub mod sandbox;
pub mod script;
pub mod session;
pub mod storage_reach;
pub mod upstream;
pub mod warm_pages;

pub use chromium::{ChromiumEngine, EngineConfig};
