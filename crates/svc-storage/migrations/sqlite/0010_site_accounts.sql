-- Logged-in scraping: a scrap's login on its target site and the browser
-- session its last successful run left. Every `*_sealed` column holds a
-- value sealed with the server's master key (`svcenc:1:<key id>:...`,
-- svc-storage `sealing.rs`), never plaintext. One row per scrap; deleting
-- the scrap deletes both (`delete_scrap`).
CREATE TABLE site_accounts (
    organization_id TEXT NOT NULL,
    scrap_id TEXT PRIMARY KEY,
    username_sealed TEXT NOT NULL,
    password_sealed TEXT NOT NULL,
    updated_at BIGINT NOT NULL
);

CREATE TABLE site_sessions (
    organization_id TEXT NOT NULL,
    scrap_id TEXT PRIMARY KEY,
    -- JSON: the run's cookies and the target origin's localStorage.
    session_sealed TEXT NOT NULL,
    saved_at BIGINT NOT NULL,
    -- The run that saved it.
    history_id TEXT
);
