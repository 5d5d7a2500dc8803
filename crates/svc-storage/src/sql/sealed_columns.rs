//! Every column that holds a sealed secret, in one list: the start-up pass
//! (`SecretStore::seal_plaintext_secrets`) and the key rotation
//! (`SecretStore::rotate_master_key`) go over exactly these, so a column
//! missing here would keep plaintext from before sealing, and would no longer
//! open after a rotation.
//!
//! To seal a new column: write it with `self.sealer.seal(..)`, read it with
//! `self.sealer.open_or_plain(..)`, and add one line here. The column must
//! be TEXT (NULL allowed: NULLs are left alone), and `id` a TEXT column
//! that names one row.

/// One column of sealed values: `table.column`, rows named by `table.id`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SealedColumn {
    pub table: &'static str,
    pub id: &'static str,
    pub column: &'static str,
}

/// The sealed columns. One line each, so that merges stay trivial.
pub const SEALED_COLUMNS: &[SealedColumn] = &[
    // Webhook signing secrets (`whsec_...`).
    SealedColumn { table: "webhooks", id: "id", column: "secret" },
    // A scrap's login on its target site, and the session its last success left.
    SealedColumn { table: "site_accounts", id: "scrap_id", column: "username_sealed" },
    SealedColumn { table: "site_accounts", id: "scrap_id", column: "password_sealed" },
    SealedColumn { table: "site_sessions", id: "scrap_id", column: "session_sealed" },
    // A scrap's feed token (the lookup uses `scrap_feeds.token_hash`).
    SealedColumn { table: "scrap_feeds", id: "scrap_id", column: "token_sealed" },
    // Saved chat channels: their Apprise URLs carry the service's tokens.
    SealedColumn { table: "channels", id: "id", column: "url" },
];

/// The `settings` rows whose value is sealed: the generated JWT secret
/// (absent when `SVC_JWT_SECRET` is set) and the key check.
pub const SEALED_SETTINGS: &[&str] = &["jwt_secret", crate::key_check::KEY_CHECK_SETTING];
