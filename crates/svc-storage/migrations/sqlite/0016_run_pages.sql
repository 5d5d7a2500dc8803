-- The pages of a crawl: one row per page a run visited or skipped, in the
-- order of the run's data.
CREATE TABLE run_pages (
    organization_id TEXT NOT NULL,
    scrap_id TEXT NOT NULL,
    history_id TEXT NOT NULL,
    position BIGINT NOT NULL,
    url TEXT NOT NULL,
    label TEXT,
    depth BIGINT NOT NULL,
    -- ok | error | skipped_robots | skipped_limit
    status TEXT NOT NULL,
    items BIGINT NOT NULL,
    duration_ms BIGINT NOT NULL,
    error TEXT,
    PRIMARY KEY (history_id, position)
);
CREATE INDEX run_pages_by_scrap ON run_pages (organization_id, scrap_id);
