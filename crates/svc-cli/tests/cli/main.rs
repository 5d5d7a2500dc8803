//! The command-line client's suites in one test binary: `binary` runs the
//! real `svc` executable (start-up, admin commands, exit codes), `client`
//! runs it against an in-process server, a recording server and a pseudo-terminal;
//! `workers` runs `svc worker` processes on PostgreSQL and kills or stops them mid-run.

mod binary;
mod client;
mod logs;
mod workers;
