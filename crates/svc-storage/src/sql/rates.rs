//! Rate-limit buckets: GCRA buckets hold their theoretical arrival time
//! (`tat`); sliding-log buckets the times of their latest requests. Each
//! take reads, decides and writes its bucket in one write transaction that
//! holds the bucket's row ([`Dialect::LOCK_ROW`]), so that requests from
//! several processes never decide on the same state.

use async_trait::async_trait;
use sqlx::{AssertSqlSafe, ColumnIndex, Decode, Encode, Executor, Type};

use super::{Dialect, SqlStore};
use crate::Result;
use crate::traits::RateStore;

/// A kind of bucket: its table, its state's column, and the state of a
/// bucket never used (which decides like no state at all).
struct Buckets<T> {
    table: &'static str,
    column: &'static str,
    unused: T,
}

impl<DB: Dialect> SqlStore<DB>
where
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> &'q str: Encode<'q, DB>,
    str: Type<DB>,
    usize: ColumnIndex<DB::Row>,
{
    /// Creates the bucket if it is new (its row is what the lock holds),
    /// then reads it under the lock, decides, and stores what was decided.
    async fn take<T>(
        &self,
        kind: Buckets<T>,
        bucket: &str,
        decide: &mut (dyn FnMut(T) -> Option<T> + Send),
    ) -> Result<bool>
    where
        T: for<'q> Encode<'q, DB> + for<'q> Decode<'q, DB> + Type<DB> + Send + Unpin + 'static,
    {
        let Buckets { table, column, unused } = kind;
        let mut tx = self.begin_write().await?;
        sqlx::query(AssertSqlSafe(format!(
            "INSERT INTO {table} (bucket, {column}) VALUES ($1, $2) ON CONFLICT DO NOTHING"
        )))
        .bind(bucket)
        .bind(unused)
        .execute(&mut *tx)
        .await?;
        let stored: T = sqlx::query_scalar(AssertSqlSafe(format!(
            "SELECT {column} FROM {table} WHERE bucket = $1{}",
            DB::LOCK_ROW
        )))
        .bind(bucket)
        .fetch_one(&mut *tx)
        .await?;
        // Refused: the transaction is rolled back (a new bucket with it).
        let Some(next) = decide(stored) else { return Ok(false) };
        sqlx::query(AssertSqlSafe(format!("UPDATE {table} SET {column} = $2 WHERE bucket = $1")))
            .bind(bucket)
            .bind(next)
            .execute(&mut *tx)
            .await?;
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
        self.take(Buckets { table: "rate_limits", column: "tat", unused: 0 }, bucket, decide).await
    }

    async fn take_rate_log(
        &self,
        bucket: &str,
        decide: &mut (dyn for<'s> FnMut(&'s str) -> Option<String> + Send),
    ) -> Result<bool> {
        let logs = Buckets { table: "rate_logs", column: "stamps", unused: "[]".to_string() };
        self.take(logs, bucket, &mut |stamps: String| decide(&stamps)).await
    }
}
