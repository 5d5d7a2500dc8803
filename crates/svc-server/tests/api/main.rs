//! The HTTP suites of svc-server in one test binary (one link instead of one
//! per suite): each module drives the in-process app over HTTP on port 0
//! with a fresh database per test (`SVC_TEST_BACKEND=postgres` runs them on
//! PostgreSQL). Run one suite with a filter: `cargo test --test api -- runs::`.

mod common;

mod accounts;
mod ai_digest;
mod ai_fix;
mod ai_tasks;
mod audit;
mod bad_input;
pub mod banners;
mod channels;
mod clients;
mod crawl;
mod email;
mod exports;
mod feeds;
mod history;
mod keys;
mod mail_transport;
mod mcp;
mod members;
mod openapi;
mod operations;
mod outage;
mod proxy_tiers;
mod public_url;
mod rate_limits;
mod recipients;
mod renewals;
mod retention;
mod run_faults;
mod runs;
mod schedules;
mod schemathesis;
mod scraps;
mod secrets;
mod sessions;
mod site_accounts;
mod static_engine;
mod tenancy;
mod test_runs;
mod typed_client;
mod warm_pages;
mod web;
mod webhooks;
