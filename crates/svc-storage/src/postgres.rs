//! The engine for several processes sharing one database.

use sqlx::Postgres;
use sqlx::postgres::{PgPool, PgPoolOptions};

pub struct PostgresStore {
    pool: PgPool,
}

impl PostgresStore {
    /// Connects to and migrates `postgres://...` (migrations hold an advisory
    /// lock, so several processes may start at once).
    pub async fn open(url: &str) -> crate::Result<Self> {
        let pool = PgPoolOptions::new().max_connections(16).connect(url).await?;
        sqlx::migrate!("./migrations/postgres").run(&pool).await?;
        Ok(PostgresStore { pool })
    }

    async fn begin_write(&self) -> crate::Result<sqlx::Transaction<'static, Postgres>> {
        Ok(self.pool.begin().await?)
    }

    async fn fetch_scrap(
        &self,
        org: svc_domain::ObjectId,
        scrap: svc_domain::ObjectId,
    ) -> crate::Result<Option<svc_domain::scrap::Scrap>> {
        let row: Option<crate::records::ScrapRecord> = sqlx::query_as(scrap_sql!())
            .bind(org.to_string())
            .bind(scrap.to_string())
            .fetch_optional(&self.pool)
            .await?;
        row.map(svc_domain::scrap::Scrap::try_from).transpose()
    }

    async fn fetch_history_row(
        &self,
        org: svc_domain::ObjectId,
        id: svc_domain::ObjectId,
    ) -> crate::Result<Option<svc_domain::history::HistoryRow>> {
        let row: Option<crate::records::HistoryRecord> = sqlx::query_as(history_row_sql!())
            .bind(org.to_string())
            .bind(id.to_string())
            .fetch_optional(&self.pool)
            .await?;
        row.map(svc_domain::history::HistoryRow::try_from).transpose()
    }
}

#[async_trait::async_trait]
impl crate::Store for PostgresStore {
    fn backend(&self) -> &'static str {
        "postgres"
    }
    async fn close(&self) {
        self.pool.close().await;
    }
}

sql_store!(PostgresStore, Postgres);
