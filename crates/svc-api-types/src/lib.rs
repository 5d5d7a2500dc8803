//! The JSON shapes of svc's public interface, request bodies (`*Body`: the
//! typed client writes them, the server reads them) and answers (`*View`:
//! the server builds them from domain values, the client reads them),
//! shared so that the two cannot drift apart.

mod account;
mod activity;
mod ai;
mod announcement;
mod channel;
mod error;
mod health;
mod history;
mod key;
mod list;
mod member;
mod organization;
mod recipient;
mod run;
mod run_page;
mod scrap;
mod site_account;
mod usage;
mod webhook;

pub use account::{
    LoginBody, LoginView, MeView, OrganizationView, PasswordBody, SessionView, SignupBody, SignupView, UserView,
};
pub use activity::ActivityView;
pub use ai::{GenerateBody, TaskAccepted, TaskView, VersionView, WizardBody};
pub use announcement::{AnnouncementBody, AnnouncementQueued};
pub use channel::{ChannelBody, ChannelTestView, ChannelView};
pub use error::ErrorBody;
pub use health::HealthView;
pub use history::HistoryRowView;
pub use key::{CreatedKeyView, KeyView, NewKeyBody};
pub use list::ListView;
pub use member::{
    AcceptInviteBody, AcceptedInviteView, CreatedInviteView, InviteBody, InviteView, MemberView, RoleBody,
};
pub use organization::{AuditActorView, AuditEntryView, OrganizationSettingsBody, OrganizationSettingsView};
pub use recipient::{RecipientView, ResendBody};
pub use run::TriggerAccepted;
pub use run_page::RunPageView;
pub use scrap::{ScrapBody, ScrapView};
pub use site_account::{SiteAccountBody, SiteAccountView};
pub use usage::{CostsView, MeterBreakdownView, MeterView};
pub use webhook::{AttemptView, CreatedWebhookView, RedeliveryView, WebhookBody, WebhookView};

use chrono::{DateTime, SecondsFormat, Utc};
use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, SchemaType, Type};

/// The pattern of an id (24 hexadecimal digits; the server answers lowercase).
pub const ID_PATTERN: &str = "^[0-9a-fA-F]{24}$";

/// A list of ids, or `null` (taken as absent), in a request body.
pub(crate) fn ids_or_null() -> ArrayBuilder {
    let id = ObjectBuilder::new().schema_type(Type::String).pattern(Some(ID_PATTERN));
    ArrayBuilder::new().schema_type(SchemaType::from_iter([Type::Array, Type::Null])).items(id)
}

/// ISO 8601 with milliseconds, UTC: `2026-11-22T01:40:55.123Z`.
pub fn iso(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Millis, true)
}
