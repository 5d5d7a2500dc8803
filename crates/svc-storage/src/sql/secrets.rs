//! Secrets at rest: the key check, sealed settings, the start-up pass that
//! seals plaintext from before sealing, and the master key rotation. Both
//! passes go over the columns of `sealed_columns.rs`, one transaction each.

use async_trait::async_trait;
use sqlx::{AssertSqlSafe, ColumnIndex, Decode, Encode, Executor, Type};

use super::sealed_columns::{SEALED_COLUMNS, SEALED_SETTINGS};
use super::{Dialect, RowsAffected, SqlStore, WriteTx};
use crate::key_check::{KEY_CHECK_SETTING, key_check_opens, seal_key_check};
use crate::traits::{RotationReport, SealReport, SecretStore};
use crate::{MasterKey, Result, Sealer, StoreError};

/// Where sealed values are: a sealed column, or the sealed `settings` rows.
#[derive(Clone, Copy)]
struct Place {
    table: &'static str,
    id: &'static str,
    column: &'static str,
    /// Only these rows (the sealed settings); `None`: every row.
    only: Option<&'static [&'static str]>,
}

fn places() -> impl Iterator<Item = Place> {
    SEALED_COLUMNS
        .iter()
        .map(|c| Place { table: c.table, id: c.id, column: c.column, only: None })
        .chain(std::iter::once(Place { table: "settings", id: "key", column: "value", only: Some(SEALED_SETTINGS) }))
}

/// What a pass does with one stored value: `Some(new stored value)`, or
/// `None` to leave it.
type Step<'a> = dyn FnMut(Place, &str, &str) -> Result<Option<String>> + Send + 'a;

impl<DB: Dialect> SqlStore<DB>
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
    /// Applies `step` to every stored value of every place, except those
    /// sealed with the key `skip` names (so that a start-up pass over a
    /// database with nothing to do reads no rows); returns how many values it
    /// rewrote. Each write is guarded by the value read, so a value changed
    /// meanwhile (by another process's pass) is not overwritten.
    async fn reseal_in(tx: &mut WriteTx<DB>, skip: Option<&str>, step: &mut Step<'_>) -> Result<u64> {
        // Key ids are hex: nothing in the pattern is a LIKE wildcard.
        let pattern = skip.map(|key_id| format!("svcenc:1:{key_id}:%"));
        let unless = |column: &str, n: u8| match &pattern {
            Some(_) => format!(" AND {column} NOT LIKE ${n}"),
            None => String::new(),
        };
        let mut rewritten = 0;
        for place in places() {
            let Place { table, id, column, only } = place;
            let mut rows: Vec<(String, String)> = Vec::new();
            match only {
                None => {
                    let sql = format!(
                        "SELECT {id}, {column} FROM {table} WHERE {column} IS NOT NULL{} ORDER BY {id}",
                        unless(column, 1)
                    );
                    let mut query = sqlx::query_as(AssertSqlSafe(sql));
                    if let Some(p) = &pattern {
                        query = query.bind(p);
                    }
                    rows = query.fetch_all(&mut **tx).await?;
                }
                Some(ids) => {
                    for wanted in ids {
                        let sql = format!(
                            "SELECT {id}, {column} FROM {table} WHERE {id} = $1 AND {column} IS NOT NULL{}",
                            unless(column, 2)
                        );
                        let mut query = sqlx::query_as(AssertSqlSafe(sql)).bind(*wanted);
                        if let Some(p) = &pattern {
                            query = query.bind(p);
                        }
                        rows.extend(query.fetch_optional(&mut **tx).await?);
                    }
                }
            }
            for (row_id, stored) in rows {
                let Some(new) = step(place, &row_id, &stored)? else { continue };
                let done = sqlx::query(AssertSqlSafe(format!(
                    "UPDATE {table} SET {column} = $1 WHERE {id} = $2 AND {column} = $3"
                )))
                .bind(new)
                .bind(&row_id)
                .bind(&stored)
                .execute(&mut **tx)
                .await?;
                rewritten += done.rows_affected();
            }
        }
        Ok(rewritten)
    }

    /// SQLite keeps a rewritten value's old bytes in the page's free space
    /// and in the write-ahead log: zero what this transaction frees
    /// (`secure_delete`, per connection, switched off again by `scrub_end`).
    async fn scrub_begin(tx: &mut WriteTx<DB>) -> Result<()> {
        if DB::BACKEND == "sqlite" {
            sqlx::query("PRAGMA secure_delete = ON").execute(&mut **tx).await?;
        }
        Ok(())
    }

    async fn scrub_end(tx: &mut WriteTx<DB>) -> Result<()> {
        if DB::BACKEND == "sqlite" {
            sqlx::query("PRAGMA secure_delete = OFF").execute(&mut **tx).await?;
        }
        Ok(())
    }

    /// After the commit, on SQLite: copy the log into the database file and
    /// truncate it, so the old page images are gone from the log too (best
    /// effort: a reader holding an old snapshot keeps the log for now).
    async fn truncate_log(&self) -> Result<()> {
        if DB::BACKEND == "sqlite" {
            sqlx::query("PRAGMA wal_checkpoint(TRUNCATE)").execute(&mut *self.writer().await?).await?;
        }
        Ok(())
    }
}

/// `webhooks.secret of <id>` / `settings jwt_secret`.
fn where_(place: Place, id: &str) -> String {
    match place.only {
        Some(_) => format!("{}.{} `{id}`", place.table, place.column),
        None => format!("{}.{} of {id}", place.table, place.column),
    }
}

#[async_trait]
impl<DB: Dialect> SecretStore for SqlStore<DB>
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
    async fn key_check(&self) -> Result<Option<String>> {
        let row: Option<(String,)> = sqlx::query_as("SELECT value FROM settings WHERE key = $1")
            .bind(KEY_CHECK_SETTING)
            .fetch_optional(&mut *self.writer().await?)
            .await?;
        Ok(row.map(|(v,)| v))
    }

    async fn init_key_check(&self) -> Result<()> {
        sqlx::query("INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING")
            .bind(KEY_CHECK_SETTING)
            .bind(seal_key_check(&self.sealer))
            .execute(&mut *self.writer().await?)
            .await?;
        let stored = self.key_check().await?.ok_or_else(|| StoreError::Corrupt("the key check vanished".into()))?;
        if key_check_opens(&self.sealer, &stored) {
            return Ok(());
        }
        Err(StoreError::Sealing(format!(
            "the database was sealed with master key {}; this server has key {}",
            Sealer::key_id_of(&stored).unwrap_or("(none: the check is not sealed)"),
            self.sealer.key_id()
        )))
    }

    async fn secret_setting_or_init(&self, key: &str, value: &str) -> Result<String> {
        sqlx::query("INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING")
            .bind(key)
            .bind(self.sealer.seal(value))
            .execute(&mut *self.writer().await?)
            .await?;
        let (stored,): (String,) = sqlx::query_as("SELECT value FROM settings WHERE key = $1")
            .bind(key)
            .fetch_one(&mut *self.writer().await?)
            .await?;
        self.sealer.open_or_plain(&stored)
    }

    async fn seal_plaintext_secrets(&self) -> Result<SealReport> {
        let sealer = &self.sealer;
        let mut report = SealReport::default();
        let mut tx = self.begin_write().await?;
        Self::scrub_begin(&mut tx).await?;
        let mut step = |place: Place, id: &str, stored: &str| -> Result<Option<String>> {
            if !Sealer::is_sealed(stored) {
                report.sealed += 1;
                return Ok(Some(sealer.seal(stored)));
            }
            if sealer.is_current(stored) {
                return Ok(None);
            }
            match sealer.open(stored) {
                Ok(plain) => {
                    report.resealed += 1;
                    Ok(Some(sealer.seal(&plain)))
                }
                Err(e) => {
                    report.unreadable.push(format!("{}: {e}", where_(place, id)));
                    Ok(None)
                }
            }
        };
        let rewritten = Self::reseal_in(&mut tx, Some(sealer.key_id()), &mut step).await?;
        Self::scrub_end(&mut tx).await?;
        tx.commit().await?;
        if rewritten > 0 {
            self.truncate_log().await?;
        }
        Ok(report)
    }

    async fn rotate_master_key(&self, new_key: &MasterKey) -> Result<RotationReport> {
        let rotating = self.sealer.rotating_to(new_key.clone());
        let mut tx = self.begin_write().await?;
        Self::scrub_begin(&mut tx).await?;
        let mut step = |place: Place, id: &str, stored: &str| -> Result<Option<String>> {
            let plain = rotating.open_or_plain(stored).map_err(|e| {
                StoreError::Sealing(format!("cannot rotate the master key: {} does not open: {e}", where_(place, id)))
            })?;
            Ok(Some(rotating.seal(&plain)))
        };
        let mut resealed = Self::reseal_in(&mut tx, None, &mut step).await?;
        // A database without a key check (never started with sealing) gets one.
        let added = sqlx::query("INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING")
            .bind(KEY_CHECK_SETTING)
            .bind(seal_key_check(&rotating))
            .execute(&mut *tx)
            .await?;
        resealed += added.rows_affected();
        Self::scrub_end(&mut tx).await?;
        tx.commit().await?;
        self.truncate_log().await?;
        Ok(RotationReport { from_key: self.sealer.key_id().to_string(), to_key: new_key.id().to_string(), resealed })
    }
}
