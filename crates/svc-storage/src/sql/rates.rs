//! Rate-limit buckets: GCRA buckets hold their theoretical arrival time
//! (`tat`); sliding-log buckets the times of their latest requests. A take
//! that the state as stored does not refuse reads, decides and writes its
//! bucket in one write transaction that holds the bucket's row (an upsert
//! locks it until the transaction ends), so that requests from several
//! processes never decide on the same state.

use async_trait::async_trait;
use sqlx::{AssertSqlSafe, ColumnIndex, Decode, Encode, Executor, Type};

use super::{Dialect, RowsAffected, SqlStore};
use crate::Result;
use crate::traits::RateStore;

/// A kind of bucket: its table, its state's column, and the state of a
/// bucket never used (which decides like no state at all).
struct Buckets<T> {
    table: &'static str,
    column: &'static str,
    unused: T,
    /// The column that keeps when the bucket was last written, if any
    /// (what `RetentionStore::prune_rate_logs` goes by).
    used_at: Option<&'static str>,
}

/// GCRA buckets.
const TATS: Buckets<i64> = Buckets { table: "rate_limits", column: "tat", unused: 0, used_at: None };

/// Sliding-log buckets.
fn logs() -> Buckets<String> {
    Buckets { table: "rate_logs", column: "stamps", unused: "[]".to_string(), used_at: Some("used_at") }
}

impl<DB: Dialect> SqlStore<DB>
where
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> &'q str: Encode<'q, DB>,
    for<'q> i64: Encode<'q, DB> + Type<DB>,
    str: Type<DB>,
    usize: ColumnIndex<DB::Row>,
{
    /// A refusal on the bucket's state read without a lock, which stands
    /// (see `RateStore`); otherwise the bucket is created if it is new and
    /// its row locked and read in one upsert, decided on, and what was
    /// decided stored.
    async fn take<T>(
        &self,
        kind: Buckets<T>,
        bucket: &str,
        decide: &mut (dyn FnMut(T) -> Option<T> + Send),
    ) -> Result<bool>
    where
        T: for<'q> Encode<'q, DB> + for<'q> Decode<'q, DB> + Type<DB> + Send + Unpin + 'static,
    {
        let Buckets { table, column, unused, used_at } = kind;
        let read = format!("SELECT {column} FROM {table} WHERE bucket = $1");
        let seen: Option<T> =
            sqlx::query_scalar(AssertSqlSafe(read)).bind(bucket).fetch_optional(&mut *self.writer().await?).await?;
        if let Some(seen) = seen
            && decide(seen).is_none()
        {
            return Ok(false);
        }
        let mut tx = self.begin_write().await?;
        // Made if new and locked in one statement: an upsert always ends with
        // the row, locked (an insert then a locked read could find nothing,
        // should pruning delete the row in between, `prune_rate_tats`).
        let stored: T = sqlx::query_scalar(AssertSqlSafe(format!(
            "INSERT INTO {table} (bucket, {column}) VALUES ($1, $2) \
             ON CONFLICT (bucket) DO UPDATE SET {column} = {table}.{column} RETURNING {column}"
        )))
        .bind(bucket)
        .bind(unused)
        .fetch_one(&mut *tx)
        .await?;
        // Refused: the transaction is rolled back (a new bucket with it).
        let Some(next) = decide(stored) else { return Ok(false) };
        let touch = used_at.map(|c| format!(", {c} = $3")).unwrap_or_default();
        let update = sqlx::query(AssertSqlSafe(format!("UPDATE {table} SET {column} = $2{touch} WHERE bucket = $1")))
            .bind(bucket)
            .bind(next);
        // The store's clock: pruning keeps a bucket a day or more past this.
        let update = if used_at.is_some() { update.bind(chrono::Utc::now().timestamp_millis()) } else { update };
        update.execute(&mut *tx).await?;
        tx.commit().await?;
        Ok(true)
    }
}

#[async_trait]
impl<DB: Dialect> RateStore for SqlStore<DB>
where
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> &'q str: Encode<'q, DB> + ColumnIndex<DB::Row>,
    for<'q> Option<&'q str>: Encode<'q, DB>,
    for<'q> String: Encode<'q, DB> + Decode<'q, DB> + Type<DB>,
    for<'q> Option<String>: Encode<'q, DB>,
    for<'q> i64: Encode<'q, DB> + Decode<'q, DB> + Type<DB>,
    for<'q> Option<i64>: Encode<'q, DB>,
    for<'q> bool: Encode<'q, DB> + Decode<'q, DB> + Type<DB>,
    str: Type<DB>,
    usize: ColumnIndex<DB::Row>,
{
    async fn take_rate_tat(&self, bucket: &str, decide: &mut (dyn FnMut(i64) -> Option<i64> + Send)) -> Result<bool> {
        self.take(TATS, bucket, decide).await
    }

    async fn take_rate_log(
        &self,
        bucket: &str,
        decide: &mut (dyn for<'s> FnMut(&'s str) -> Option<String> + Send),
    ) -> Result<bool> {
        self.take(logs(), bucket, &mut |stamps: String| decide(&stamps)).await
    }

    async fn prune_rate_tats(&self, now_ms: i64) -> Result<u64> {
        let mut tx = self.begin_write().await?;
        let done = sqlx::query(AssertSqlSafe(format!("DELETE FROM {} WHERE tat <= $1", TATS.table)))
            .bind(now_ms)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(done.rows_affected())
    }
}
