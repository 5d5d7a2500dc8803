//! The JSON shapes of the public interface. Only these types know field
//! names; they are built from domain values and never deserialized.

mod account;
mod activity;
mod history;
mod key;
mod list;
mod scrap;
mod webhook;

pub(crate) use account::{LoginView, MeView, SignupView};
pub(crate) use activity::ActivityView;
pub(crate) use history::HistoryRowView;
pub(crate) use key::{CreatedKeyView, KeyView};
pub(crate) use list::ListView;
pub(crate) use scrap::ScrapView;
pub(crate) use webhook::{AttemptView, CreatedWebhookView, RedeliveryView, WebhookView};

use chrono::{DateTime, SecondsFormat, Utc};

/// ISO 8601 with milliseconds, UTC: `2026-11-22T01:40:55.123Z`.
pub(crate) fn iso(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Millis, true)
}
