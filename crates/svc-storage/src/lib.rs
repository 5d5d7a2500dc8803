//! Storage of svc behind traits, implemented once (`sql`) for SQLite and PostgreSQL.
//!
//! Every method that touches an organization's objects takes that
//! organization's id and filters by it in SQL: a caller cannot read or write
//! another organization's rows through this crate.

mod connect;
mod email_records;
mod error;
mod from_row;
pub mod key_check;
pub mod migrations;
mod postgres;
mod records;
pub mod sealing;
mod sql;
mod sqlite;
mod task_records;
mod traits;
mod usage_records;
mod wal_checkpoints;
mod webhook_records;

#[cfg(feature = "testing")]
pub mod testing;

pub use connect::{DEFAULT_ACQUIRE_TIMEOUT, PoolSettings, connect, connect_with};
pub use error::StoreError;
pub use postgres::PostgresStore;
pub use sealing::{MasterKey, Sealer};
pub use sql::sealed_columns::{SEALED_COLUMNS, SEALED_SETTINGS, SealedColumn};
pub use sql::{Dialect, RowsAffected, SqlStore};
pub use sqlite::SqliteStore;
pub use traits::{
    AccountStore, ActivityStore, AddressSeen, AppliedFix, Asked, AuditStore, Backlog, BannerImage, BannerStore,
    ChannelStore, ClaimedRun, ConfirmationLink, Decided, DueScrap, EmailOutcome, EmailStore, EngineMemory,
    ExpiredLeases, FeedStore, FinishedRun, FiredTick, FixProposalStore, HistoryFilter, HistoryStore, Joined, KeyStore,
    MemberChange, MemberStore, Nearby, NewAccount, NewBanner, NextRun, OpsStore, Page, PlanRenewal, PlannedTick,
    PoolUse, ProposalDecision, QueueState, QueuedRun, RateStore, Recipient, RecipientStore, RenewalOutcome,
    RetentionStore, RotationReport, RunNeighbours, RunPageStore, RunScrap, RunStore, RunStreak, ScheduleStore,
    ScrapFilter, ScrapStore, SealReport, SecretStore, SessionStore, SiteAccountStore, Store, StoredFeedToken, TaskEnd,
    TaskFinish, TaskStore, TickAction, TickOutcome, TickPlan, TickPlanner, TierMemory, TierNote, VersionStore,
    WebhookStore,
};

pub type Result<T, E = StoreError> = std::result::Result<T, E>;
