-- PostgreSQL. Runs waiting for or held by a worker. A row exists from the trigger until
-- the run is finished; `history` holds the public record of the run.
CREATE TABLE run_queue (
    history_id TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL,
    scrap_id TEXT NOT NULL,
    -- ",id1,id2," of the scrap's containers at trigger time.
    containers TEXT NOT NULL,
    -- The picked parameter set as JSON, or NULL.
    param TEXT,
    state TEXT NOT NULL,
    attempts BIGINT NOT NULL DEFAULT 0,
    worker_id TEXT,
    lease_until BIGINT,
    enqueued_at BIGINT NOT NULL
);
CREATE INDEX run_queue_by_state ON run_queue (state, enqueued_at);
