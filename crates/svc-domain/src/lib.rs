//! Domain types shared by every layer of svc. No I/O, no JSON shapes of the
//! public API (those live in `svc-api-types`), only the vocabulary.

pub mod account;
pub mod activity;
pub mod api_key;
pub mod audit;
pub mod channel;
pub mod costs;
pub mod email;
pub mod history;
pub mod id;
pub mod login_session;
pub mod member;
pub mod meter;
pub mod net;
pub mod plan;
pub mod recipient;
pub mod run_page;
pub mod scope;
pub mod scrap;
pub mod script_version;
pub mod site_account;
pub mod task;
pub mod webhook;

pub use id::{HistoryId, InviteId, KeyId, ObjectId, OrgId, ScrapId, SessionId, TypedId, UserId, WebhookId};
