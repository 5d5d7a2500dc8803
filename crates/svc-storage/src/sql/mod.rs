//! The SQL both engines run: one generic implementation of the storage
//! traits over [`Dialect`]. The schemas of both engines use the same column
//! types (BIGINT milliseconds, TEXT JSON, BOOLEAN) and both accept `$n`
//! placeholders, so one body of SQL serves both; the little that differs is
//! in `Dialect`, implemented in `sqlite.rs` and `postgres.rs`.
//!
//! # The where-clause
//!
//! Every impl over `SqlStore<DB>` that runs SQL (one per storage trait, and
//! the helpers in `shared.rs`) carries the same where-clause as the `Store`
//! impl below: an executor for a connection, and the encoding and decoding
//! of what the SQL binds and reads (strings, `i64`, `bool` and their
//! options; columns by name and by position). Rust implies the bounds on a
//! supertrait's associated types (`Dialect`'s `Arguments` and `QueryResult`)
//! but not where-clauses whose subject is another type, such as
//! `String: Encode<'q, DB>`, so those cannot live on `Dialect`.

mod accounts;
mod activities;
mod audit;
mod banners;
mod batch;
mod channels;
mod columns;
mod emails;
mod feeds;
mod fix_proposals;
mod history;
mod keys;
mod members;
mod ops;
mod rates;
mod readers;
mod recipients;
mod retention;
mod run_pages;
mod runs;
mod schedule;
mod scraps;
pub mod sealed_columns;
mod secrets;
mod sessions;
mod shared;
mod site_accounts;
mod tasks;
mod versions;
mod webhooks;
mod writer;

use async_trait::async_trait;
use sqlx::{ColumnIndex, Database, Decode, Encode, Executor, IntoArguments, Type};

use crate::Store;
pub(crate) use readers::{Reader, Readers};
pub(crate) use writer::{WriteTx, Writer, Writers};

/// What differs between the engines.
pub trait Dialect: Database<Arguments: IntoArguments<Self>, QueryResult: RowsAffected> {
    /// What `Store::backend` answers.
    const BACKEND: &'static str;

    /// Ends the `SELECT` of the rows that a write transaction takes and then
    /// updates: the next queued run, the due schedules, the due webhook
    /// deliveries.
    const LOCK_DUE: &'static str;

    /// The statement that opens a transaction that will write
    /// (`SqlStore::begin_write`; the first statement of a batch that is a
    /// transaction of its own, `batch.rs`).
    const BEGIN_WRITE: &'static str;

    /// Whether one query may hold several statements with placeholders,
    /// run in order in one round trip (`batch.rs`).
    const JOINS_STATEMENTS: bool;
}

/// The count of rows a statement changed, which each engine's result type
/// has only as an inherent method.
pub trait RowsAffected {
    fn rows_affected(&self) -> u64;
}

/// The storage traits over one engine's connections: `SqliteStore` or
/// `PostgresStore`.
pub struct SqlStore<DB: Dialect> {
    /// What the writes (and the reads without a reader) go to: SQLite's one
    /// kept writer, PostgreSQL's pool (`writer.rs`).
    writers: Writers<DB>,
    /// Connections beside the writer for the hot reads and the lists.
    readers: Readers<DB>,
    /// Seals the secrets this store writes and opens those it reads.
    sealer: crate::Sealer,
    /// SQLite's checkpointer (`wal_checkpoints.rs`), stopped on close.
    checkpoints: std::sync::Mutex<Option<crate::wal_checkpoints::Running>>,
}

impl<DB: Dialect> SqlStore<DB> {
    /// A store writing on `writers` to a database that is migrated, with
    /// `readers` for the hot reads and the lists (`readers.rs`).
    pub(crate) fn new(writers: Writers<DB>, readers: Readers<DB>, sealer: crate::Sealer) -> Self {
        SqlStore { writers, readers, sealer, checkpoints: std::sync::Mutex::new(None) }
    }

    /// Checkpoints done by `running` until the store closes (SQLite).
    pub(crate) fn with_checkpoints(self, running: crate::wal_checkpoints::Running) -> Self {
        *self.checkpoints.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(running);
        self
    }

    /// A connection to write on (or for a read that needs no reader),
    /// waiting for it when it is lent (`writer.rs`).
    pub(crate) async fn writer(&self) -> crate::Result<Writer<DB>> {
        Ok(self.writers.acquire().await?)
    }

    /// A connection for a hot read or a list: a reader (waiting for one
    /// when all are taken), the writer's when there are none.
    async fn reader(&self) -> crate::Result<Reader<'_, DB>> {
        Ok(self.readers.get(&self.writers).await?)
    }

    /// A transaction that will write, opened with [`Dialect::BEGIN_WRITE`].
    async fn begin_write(&self) -> crate::Result<WriteTx<DB>> {
        Ok(self.writers.begin(DB::BEGIN_WRITE).await?)
    }
}

#[async_trait]
impl<DB: Dialect> Store for SqlStore<DB>
where
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> &'q str: Encode<'q, DB> + ColumnIndex<DB::Row>,
    for<'q> Option<&'q str>: Encode<'q, DB>,
    for<'q> String: Encode<'q, DB> + Decode<'q, DB> + Type<DB>,
    for<'q> Option<String>: Encode<'q, DB>,
    for<'q> i64: Encode<'q, DB> + Decode<'q, DB> + Type<DB>,
    for<'q> Option<i64>: Encode<'q, DB>,
    for<'q> bool: Encode<'q, DB> + Decode<'q, DB> + Type<DB>,
    for<'q> Vec<u8>: Encode<'q, DB> + Decode<'q, DB> + Type<DB>,
    str: Type<DB>,
    usize: ColumnIndex<DB::Row>,
{
    fn backend(&self) -> &'static str {
        DB::BACKEND
    }

    async fn ping(&self) -> crate::Result<()> {
        sqlx::query("SELECT 1").execute(&mut *self.writer().await?).await?;
        Ok(())
    }

    async fn close(&self) {
        let checkpoints = self.checkpoints.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take();
        if let Some(running) = checkpoints {
            running.stop().await;
        }
        self.readers.close().await;
        self.writers.close().await;
    }
}
