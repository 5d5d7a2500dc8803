//! Start-up of svc: configuration, and `launch(config, listener, shutdown)`
//! which opens the store, builds the services and serves the API until
//! `shutdown` resolves. Background tasks (run worker, scheduler, webhook
//! dispatcher) are switched on here by configuration. The outbound adapters
//! live here too: `webhook_client` (HTTP) and `mail_client` (SMTP).
//! `secret_key` finds the master key that seals stored secrets and checks it
//! against the database at every start.

pub mod ai_client;
pub mod config;
mod launch;
pub mod mail_client;
pub mod secret_key;
pub mod serve;
pub mod webhook_client;

pub use config::{AiSettings, Config, ConfigError, LogFormat, MailSettings, Secret, SmtpSecurity, SmtpUrl};
pub use launch::{App, LaunchError, launch};
pub use svc_runner::sandbox::SandboxSetting;
