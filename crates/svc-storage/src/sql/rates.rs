//! Rate-limit buckets: GCRA buckets hold their theoretical arrival time
//! (`tat`); sliding-log buckets the times of their latest requests.

use async_trait::async_trait;
use sqlx::{ColumnIndex, Decode, Encode, Executor, Type};

use super::{Dialect, RowsAffected, SqlStore};
use crate::Result;
use crate::traits::RateStore;

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
    async fn rate_tat(&self, bucket: &str) -> Result<Option<i64>> {
        let row: Option<(i64,)> = sqlx::query_as("SELECT tat FROM rate_limits WHERE bucket = $1")
            .bind(bucket)
            .fetch_optional(&self.pool)
            .await?;
        Ok(row.map(|(t,)| t))
    }

    async fn swap_rate_tat(&self, bucket: &str, expected: Option<i64>, tat: i64) -> Result<bool> {
        let done = match expected {
            None => {
                sqlx::query("INSERT INTO rate_limits (bucket, tat) VALUES ($1, $2) ON CONFLICT DO NOTHING")
                    .bind(bucket)
                    .bind(tat)
                    .execute(&self.pool)
                    .await?
            }
            Some(old) => {
                sqlx::query("UPDATE rate_limits SET tat = $3 WHERE bucket = $1 AND tat = $2")
                    .bind(bucket)
                    .bind(old)
                    .bind(tat)
                    .execute(&self.pool)
                    .await?
            }
        };
        Ok(done.rows_affected() == 1)
    }

    async fn rate_log(&self, bucket: &str) -> Result<Option<String>> {
        let row: Option<(String,)> = sqlx::query_as("SELECT stamps FROM rate_logs WHERE bucket = $1")
            .bind(bucket)
            .fetch_optional(&self.pool)
            .await?;
        Ok(row.map(|(s,)| s))
    }

    async fn swap_rate_log(&self, bucket: &str, expected: Option<&str>, stamps: &str) -> Result<bool> {
        let done = match expected {
            None => {
                sqlx::query("INSERT INTO rate_logs (bucket, stamps) VALUES ($1, $2) ON CONFLICT DO NOTHING")
                    .bind(bucket)
                    .bind(stamps)
                    .execute(&self.pool)
                    .await?
            }
            Some(old) => {
                sqlx::query("UPDATE rate_logs SET stamps = $3 WHERE bucket = $1 AND stamps = $2")
                    .bind(bucket)
                    .bind(old)
                    .bind(stamps)
                    .execute(&self.pool)
                    .await?
            }
        };
        Ok(done.rows_affected() == 1)
    }
}
