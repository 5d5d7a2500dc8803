-- Web sessions: each JWT names its row (claim `sid`), and is accepted only
-- while the row is neither ended (`revoked_at`) nor expired. Keyed by
-- organization and user, as every per-user row.
CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    -- The client's User-Agent at log-in (at most 300 characters) and address.
    device TEXT NOT NULL,
    address TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    last_seen_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    revoked_at BIGINT
);
CREATE INDEX sessions_by_user ON sessions (organization_id, user_id, expires_at);
CREATE INDEX sessions_by_expiry ON sessions (expires_at);
