-- AI operations (the wizard, script generation) are history rows of no
-- scrap: `history.scrap_id` becomes nullable. SQLite cannot drop a NOT NULL
-- constraint, so the table is rebuilt (no table references it).
CREATE TABLE history_new (
    id TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations(id),
    scrap_id TEXT,
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
INSERT INTO history_new SELECT id, organization_id, scrap_id, status_detail, data, length, time_ms, digest,
    triggered_by, run_type, proxy_tier, costs, meter, fix_version_id, fixed_at, error_snapshot, retries, error,
    created_at, finished_at FROM history;
DROP TABLE history;
ALTER TABLE history_new RENAME TO history;
CREATE INDEX history_by_scrap ON history (organization_id, scrap_id, created_at DESC, id DESC);
CREATE INDEX history_by_org ON history (organization_id, created_at DESC, id DESC);

-- Work that outlives its request: the AI wizard, script generation, AI Fix.
CREATE TABLE tasks (
    id TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL,
    user_id TEXT,
    -- ai_wizard | ai_generate | ai_fix
    kind TEXT NOT NULL,
    -- queued | running | succeeded | failed
    state TEXT NOT NULL,
    input TEXT NOT NULL,
    result TEXT,
    error TEXT,
    scrap_id TEXT,
    history_id TEXT,
    attempts BIGINT NOT NULL DEFAULT 0,
    -- Held by a task runner until then.
    lease_until BIGINT,
    created_at BIGINT NOT NULL,
    finished_at BIGINT
);
CREATE INDEX tasks_open ON tasks (created_at) WHERE state IN ('queued', 'running');
CREATE INDEX tasks_by_org ON tasks (organization_id, kind, created_at);

-- Every script a scrap has had, numbered from 1 per scrap.
CREATE TABLE script_versions (
    id TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL,
    scrap_id TEXT NOT NULL,
    number BIGINT NOT NULL,
    request TEXT NOT NULL,
    -- user | ai_fix | rollback
    source TEXT NOT NULL,
    history_id TEXT,
    restored_from TEXT,
    created_at BIGINT NOT NULL,
    UNIQUE (scrap_id, number)
);
CREATE INDEX script_versions_by_scrap ON script_versions (organization_id, scrap_id, number DESC);

-- The scripts of existing scraps are their first version (ids are the
-- scrap's own: a scrap id never names a version, so none can clash).
INSERT INTO script_versions (id, organization_id, scrap_id, number, request, source, created_at)
SELECT id, organization_id, id, 1, request, 'user', updated_at FROM scraps;
