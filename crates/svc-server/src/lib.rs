//! Start-up of svc: configuration, and `launch(config, listener, shutdown)`
//! which opens the store, builds the services and serves the API until
//! `shutdown` resolves. Background tasks (run worker, scheduler, webhook
//! dispatcher) are switched on here by configuration.

pub mod config;
mod launch;
pub mod webhook_client;

pub use config::{Config, ConfigError, Secret};
pub use launch::{App, LaunchError, launch};
