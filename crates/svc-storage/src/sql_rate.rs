//! Rate-limit buckets, shared by both engines like `sql_store`.

macro_rules! sql_rate {
    ($store:ident) => {
        #[async_trait]
        impl $crate::traits::RateStore for $store {
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
        }
    };
}
