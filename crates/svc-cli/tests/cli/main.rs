//! The command-line client's suites in one test binary: `binary` runs the
//! real `svc` executable (start-up, admin commands, exit codes), `client`
//! runs it against an in-process server, a recording server and a pseudo-terminal;
//! `browser_process` looks at the Chromium processes of a real `svc server`, `static_sandbox` at
//! its static engine's sandbox processes;
//! `workers` runs `svc worker` processes on PostgreSQL and kills or stops them mid-run;
//! `scale_out` runs two `svc server` and two `svc worker` processes on one PostgreSQL
//! database (`process` starts them).

mod binary;
mod browser_process;
mod client;
mod logs;
mod process;
mod scale_out;
mod static_sandbox;
mod workers;

/// The crawl tests' catalog site, shared with the HTTP suites.
#[allow(dead_code)]
#[path = "../../../svc-server/tests/api/common/catalog_site.rs"]
mod catalog_site;

/// A local webhook receiver, shared with the HTTP suites.
#[path = "../../../svc-server/tests/api/common/receiver.rs"]
mod receiver;
