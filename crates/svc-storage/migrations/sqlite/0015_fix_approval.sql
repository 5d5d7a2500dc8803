-- A script a model wrote is approved by a person. A person's own versions
-- (`user`, `rollback`) count as approved when made; `ai_fix` versions wait
-- (`approved_at` NULL) and the scrap's runs of them are held to its site.
ALTER TABLE script_versions ADD COLUMN approved_at BIGINT;
ALTER TABLE script_versions ADD COLUMN approved_by TEXT;
UPDATE script_versions SET approved_at = created_at WHERE source <> 'ai_fix';

-- Repairs AI Fix found for scraps with a site login: never applied by
-- themselves, they wait here for the owner to approve or dismiss them.
CREATE TABLE fix_proposals (
    id TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL,
    scrap_id TEXT NOT NULL,
    task_id TEXT NOT NULL,
    history_id TEXT NOT NULL,
    base_request TEXT NOT NULL,
    request TEXT NOT NULL,
    length BIGINT NOT NULL,
    -- pending | approved | dismissed | superseded
    state TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    decided_at BIGINT,
    decided_by TEXT,
    version_id TEXT
);
CREATE INDEX fix_proposals_by_scrap ON fix_proposals (organization_id, scrap_id, created_at DESC);
