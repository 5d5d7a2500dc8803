//! The JSON shapes of svc's public interface, shared by the server (which
//! builds them from domain values) and the typed client (which reads them),
//! so that the two cannot drift apart.

mod account;
mod activity;
mod error;
mod health;
mod history;
mod key;
mod list;
mod run;
mod scrap;
mod webhook;

pub use account::{LoginView, MeView, OrganizationView, SignupView, UserView};
pub use activity::ActivityView;
pub use error::ErrorBody;
pub use health::HealthView;
pub use history::HistoryRowView;
pub use key::{CreatedKeyView, KeyView};
pub use list::ListView;
pub use run::TriggerAccepted;
pub use scrap::ScrapView;
pub use webhook::{AttemptView, CreatedWebhookView, RedeliveryView, WebhookView};

use chrono::{DateTime, SecondsFormat, Utc};

/// ISO 8601 with milliseconds, UTC: `2026-11-22T01:40:55.123Z`.
pub fn iso(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Millis, true)
}
