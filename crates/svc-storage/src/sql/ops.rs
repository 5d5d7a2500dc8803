//! What operators watch: the queue and the outboxes counted, and the
//! connection pool (read at a `GET /metrics` scrape).

use async_trait::async_trait;
use sqlx::{ColumnIndex, Decode, Encode, Executor, Type};

use super::{Dialect, SqlStore};
use crate::Result;
use crate::records::opt_time;
use crate::traits::{Backlog, OpsStore, PoolUse};

/// One round-trip; each count is served by an index on `state`
/// (`run_queue_by_state`) or a partial index on the pending rows
/// (`webhook_deliveries_due`, `emails_due`), so finished rows are never read.
const BACKLOG: &str = "SELECT \
    (SELECT COUNT(*) FROM run_queue WHERE state = 'queued'), \
    (SELECT COUNT(*) FROM run_queue WHERE state = 'running'), \
    (SELECT MIN(enqueued_at) FROM run_queue WHERE state = 'queued'), \
    (SELECT COUNT(*) FROM webhook_deliveries WHERE state = 'pending'), \
    (SELECT COUNT(*) FROM webhook_deliveries WHERE state = 'pending' AND attempts > 0), \
    (SELECT COUNT(*) FROM emails WHERE state = 'queued'), \
    (SELECT COUNT(*) FROM emails WHERE state = 'queued' AND attempts > 0)";

#[async_trait]
impl<DB: Dialect> OpsStore for SqlStore<DB>
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
    async fn backlog(&self) -> Result<Backlog> {
        #[allow(clippy::type_complexity)]
        let (runs_queued, runs_running, oldest, webhooks_pending, webhooks_retrying, emails_queued, emails_retrying): (
            i64,
            i64,
            Option<i64>,
            i64,
            i64,
            i64,
            i64,
        ) = sqlx::query_as(BACKLOG).fetch_one(&mut *self.writer().await?).await?;
        Ok(Backlog {
            runs_queued,
            runs_running,
            oldest_queued_at: opt_time(oldest)?,
            webhooks_pending,
            webhooks_retrying,
            emails_queued,
            emails_retrying,
        })
    }

    fn pool_use(&self) -> PoolUse {
        self.writers.pool_use()
    }
}
