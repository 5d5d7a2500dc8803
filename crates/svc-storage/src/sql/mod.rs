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

use std::future::Future;

use async_trait::async_trait;
use sqlx::{ColumnIndex, Database, Decode, Encode, Executor, IntoArguments, Pool, Transaction, Type};

use crate::Store;
pub(crate) use readers::{Reader, Readers};

/// What differs between the engines.
pub trait Dialect: Database<Arguments: IntoArguments<Self>, QueryResult: RowsAffected> {
    /// What `Store::backend` answers.
    const BACKEND: &'static str;

    /// Ends the `SELECT` of the rows that a write transaction takes and then
    /// updates: the next queued run, the due schedules, the due webhook
    /// deliveries.
    const LOCK_DUE: &'static str;

    /// The statement that opens a transaction that will write
    /// ([`Dialect::begin_write`]; the first statement of a batch that is a
    /// transaction of its own, `batch.rs`).
    const BEGIN_WRITE: &'static str;

    /// Whether one query may hold several statements with placeholders,
    /// run in order in one round trip (`batch.rs`).
    const JOINS_STATEMENTS: bool;

    /// Opens a transaction that will write, with [`Dialect::BEGIN_WRITE`].
    fn begin_write(pool: &Pool<Self>) -> impl Future<Output = sqlx::Result<Transaction<'static, Self>>> + Send {
        pool.begin_with(Self::BEGIN_WRITE)
    }
}

/// The count of rows a statement changed, which each engine's result type
/// has only as an inherent method.
pub trait RowsAffected {
    fn rows_affected(&self) -> u64;
}

/// The storage traits over one engine's pool: `SqliteStore` or
/// `PostgresStore`.
pub struct SqlStore<DB: Dialect> {
    pool: Pool<DB>,
    /// Connections beside the pool for the hot reads and the lists.
    readers: Readers<DB>,
    /// Seals the secrets this store writes and opens those it reads.
    sealer: crate::Sealer,
    /// SQLite's checkpointer (`wal_checkpoints.rs`), stopped on close.
    checkpoints: std::sync::Mutex<Option<crate::wal_checkpoints::Running>>,
}

impl<DB: Dialect> SqlStore<DB> {
    /// A store over a pool whose database is migrated, with `readers` for
    /// the hot reads and the lists (`readers.rs`).
    pub(crate) fn new(pool: Pool<DB>, readers: Readers<DB>, sealer: crate::Sealer) -> Self {
        SqlStore { pool, readers, sealer, checkpoints: std::sync::Mutex::new(None) }
    }

    /// Checkpoints done by `running` until the store closes (SQLite).
    pub(crate) fn with_checkpoints(self, running: crate::wal_checkpoints::Running) -> Self {
        *self.checkpoints.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(running);
        self
    }

    /// The pool, for a test's own statements.
    #[cfg(test)]
    pub(crate) fn pool(&self) -> &Pool<DB> {
        &self.pool
    }

    /// A connection for a hot read or a list: a reader (waiting for one
    /// when all are taken), the pool's when there are none.
    async fn reader(&self) -> crate::Result<Reader<'_, DB>> {
        Ok(self.readers.get(&self.pool).await?)
    }

    async fn begin_write(&self) -> crate::Result<Transaction<'static, DB>> {
        Ok(DB::begin_write(&self.pool).await?)
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
        sqlx::query("SELECT 1").execute(&self.pool).await?;
        Ok(())
    }

    async fn close(&self) {
        let checkpoints = self.checkpoints.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take();
        if let Some(running) = checkpoints {
            running.stop().await;
        }
        self.readers.close().await;
        self.pool.close().await;
    }
}
