//! Start-up of svc: configuration, and `launch(config, listener, shutdown)`
//! which opens the store, builds the services and serves the API until
//! `shutdown` resolves. Background tasks (run workers, scheduler, webhook
//! dispatcher) are switched on here by configuration as they arrive.

pub mod config;
mod launch;

pub use config::{Config, ConfigError, Secret};
pub use launch::{App, LaunchError, launch};
