-- PostgreSQL schema. Timestamps are unix milliseconds (BIGINT) and JSON values TEXT,
-- like the SQLite schema, so that both engines share their query text.
CREATE TABLE settings (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE organizations (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    plan TEXT NOT NULL,
    balance BIGINT NOT NULL,
    default_containers TEXT NOT NULL,
    created_at BIGINT NOT NULL
);

CREATE TABLE users (
    id TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations(id),
    email TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    password_hash TEXT NOT NULL,
    is_admin BOOLEAN NOT NULL DEFAULT FALSE,
    created_at BIGINT NOT NULL
);

CREATE TABLE scraps (
    id TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations(id),
    user_id TEXT NOT NULL,
    title TEXT NOT NULL,
    description TEXT NOT NULL,
    url TEXT NOT NULL,
    request TEXT NOT NULL,
    scrapper TEXT NOT NULL,
    containers TEXT NOT NULL,
    params TEXT NOT NULL,
    cron TEXT,
    cron_timezone TEXT NOT NULL,
    alert TEXT,
    auto_fix BOOLEAN NOT NULL,
    proxy_tier TEXT,
    last_tier_change_at BIGINT,
    email_notif BOOLEAN NOT NULL,
    email_notif_recipient TEXT,
    email_notif_format TEXT NOT NULL,
    digest_enabled BOOLEAN NOT NULL,
    digest_prompt TEXT,
    digest_recipient TEXT,
    banner TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    -- Lowercased title, description and url (Unicode-aware, computed by svc),
    -- so that search is case-insensitive the same way on both engines.
    search_text TEXT NOT NULL,
    -- The newest run ids (at most 50), comma-separated, newest first; kept
    -- up to date by every write of a history row, so reads need no join.
    history_ids TEXT NOT NULL DEFAULT ''
);
CREATE INDEX scraps_by_org ON scraps (organization_id, created_at);

CREATE TABLE history (
    id TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations(id),
    scrap_id TEXT NOT NULL,
    status_detail TEXT,
    data TEXT NOT NULL,
    length BIGINT NOT NULL,
    time_ms BIGINT,
    digest TEXT,
    triggered_by TEXT NOT NULL,
    run_type TEXT NOT NULL,
    proxy_tier TEXT NOT NULL,
    costs TEXT,
    meter TEXT,
    fix_version_id TEXT,
    fixed_at BIGINT,
    error_snapshot TEXT,
    retries BIGINT NOT NULL,
    error TEXT,
    created_at BIGINT NOT NULL,
    finished_at BIGINT
);
CREATE INDEX history_by_scrap ON history (organization_id, scrap_id, created_at DESC, id DESC);
CREATE INDEX history_by_org ON history (organization_id, created_at DESC, id DESC);

CREATE TABLE api_keys (
    id TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations(id),
    user_id TEXT NOT NULL REFERENCES users(id),
    name TEXT NOT NULL,
    prefix TEXT NOT NULL,
    key_hash TEXT NOT NULL UNIQUE,
    scopes TEXT NOT NULL,
    scrap_ids TEXT NOT NULL,
    expires_at BIGINT,
    created_at BIGINT NOT NULL,
    revoked_at BIGINT
);
CREATE INDEX api_keys_by_org ON api_keys (organization_id, created_at);

CREATE TABLE activities (
    id TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations(id),
    scrap_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    actor TEXT NOT NULL,
    message TEXT NOT NULL,
    history_id TEXT,
    created_at BIGINT NOT NULL
);
CREATE INDEX activities_by_scrap ON activities (organization_id, scrap_id, created_at DESC, id DESC);
