//! The schema's migrations, embedded in the binary: one list of files, the
//! same names under `migrations/sqlite` and `migrations/postgres`.
//!
//! This is what `sqlx::migrate!` would build, without its proc macro (which
//! compiles sqlx's drivers and SQLite's C source a second time, for the
//! compiler: docs/decisions.md, "CI's build, a third time"). A test checks
//! the list against the folders as sqlx reads them: same versions,
//! descriptions and checksums, so a database migrated by an earlier svc
//! stays valid.

use std::borrow::Cow;
use std::sync::LazyLock;

use sqlx::migrate::{Migration, MigrationType, Migrator};
use sqlx::{AssertSqlSafe, SqlSafeStr};

/// (file name, SQLite text, PostgreSQL text) of every migration, in order.
macro_rules! embedded {
    ($($file:literal,)+) => {
        &[$((
            $file,
            include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/migrations/sqlite/", $file)),
            include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/migrations/postgres/", $file)),
        )),+]
    };
}

const FILES: &[(&str, &str, &str)] = embedded!(
    "0001_init.sql",
    "0002_run_queue.sql",
    "0003_schedule.sql",
    "0004_webhooks.sql",
    "0005_rate_limits.sql",
    "0006_emails.sql",
    "0007_ai.sql",
    "0008_plan_renewals.sql",
    "0009_proxy_tiers.sql",
    "0010_site_accounts.sql",
    "0012_rate_logs.sql",
    "0013_engine_memory.sql",
    "0014_engine_checks.sql",
    "0015_fix_approval.sql",
    "0016_run_pages.sql",
    "0017_sessions.sql",
    "0018_scrap_feeds.sql",
    "0019_channels.sql",
    "0020_members.sql",
    "0021_audit_retention.sql",
    "0022_recipients.sql",
    "0023_scrap_banners.sql",
);

/// The SQLite schema's migrations.
pub fn sqlite() -> &'static Migrator {
    static MIGRATOR: LazyLock<Migrator> = LazyLock::new(|| migrator(FILES.iter().map(|&(f, s, _)| (f, s))));
    &MIGRATOR
}

/// The PostgreSQL schema's migrations.
pub fn postgres() -> &'static Migrator {
    static MIGRATOR: LazyLock<Migrator> = LazyLock::new(|| migrator(FILES.iter().map(|&(f, _, p)| (f, p))));
    &MIGRATOR
}

/// A migration the way sqlx reads `<version>_<description>.sql` from a folder.
fn migration(file: &str, sql: &'static str) -> Migration {
    let (version, rest) = file.split_once('_').expect("a migration file is named <version>_<description>.sql");
    let version = version.parse().expect("a migration's version is an integer");
    let kind = MigrationType::from_filename(rest);
    let description = rest.trim_end_matches(kind.suffix()).replace('_', " ");
    let no_tx = sql.starts_with("-- no-transaction");
    Migration::new(version, Cow::Owned(description), kind, AssertSqlSafe(sql).into_sql_str(), no_tx)
}

fn migrator<'a>(files: impl Iterator<Item = (&'a str, &'static str)>) -> Migrator {
    Migrator::with_migrations(files.map(|(file, sql)| migration(file, sql)).collect())
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    /// What a migration is to the `_sqlx_migrations` table and to `run`.
    fn shape(m: &Migration) -> (i64, String, bool, Vec<u8>, bool) {
        (m.version, m.description.to_string(), m.migration_type.is_up_migration(), m.checksum.to_vec(), m.no_tx)
    }

    fn check(embedded: &Migrator, folder: &str) {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations").join(folder);
        let read = sqlx::migrate::resolve_blocking(&dir).expect("read the migrations folder");
        let from_folder: Vec<_> = read.iter().map(|(m, _)| shape(m)).collect();
        let from_binary: Vec<_> = embedded.iter().map(shape).collect();
        assert_eq!(from_binary.len(), from_folder.len(), "every file of {folder} is in FILES, and only those");
        assert_eq!(from_binary, from_folder);
        for (m, (r, _)) in embedded.iter().zip(&read) {
            assert_eq!(m.sql.as_str(), r.sql.as_str(), "migration {} of {folder}", m.version);
        }
    }

    #[test]
    fn the_embedded_migrations_are_those_sqlx_reads_from_the_folders() {
        check(sqlite(), "sqlite");
        check(postgres(), "postgres");
    }
}
