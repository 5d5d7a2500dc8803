-- AI operations (the wizard, script generation) are history rows of no
-- scrap.
ALTER TABLE history ALTER COLUMN scrap_id DROP NOT NULL;

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
