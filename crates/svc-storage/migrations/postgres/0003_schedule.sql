-- Cron schedules. `next_fire_at` is the next instant a scrap's schedule is
-- due (NULL: manual runs only); the scheduler reads the smallest one to know
-- when to wake.
ALTER TABLE scraps ADD COLUMN next_fire_at BIGINT;
CREATE INDEX scraps_by_next_fire ON scraps (next_fire_at, id) WHERE next_fire_at IS NOT NULL;

-- One row per (scrap, scheduled instant) the scheduler handled, written in
-- the transaction that enqueues its run: the primary key is what makes a
-- tick fire once even with several schedulers on one database.
CREATE TABLE schedule_ticks (
    scrap_id TEXT NOT NULL,
    scheduled_at BIGINT NOT NULL,
    organization_id TEXT NOT NULL,
    -- enqueued | skipped_overlap | skipped_balance | missed
    outcome TEXT NOT NULL,
    history_id TEXT,
    fired_at BIGINT NOT NULL,
    PRIMARY KEY (scrap_id, scheduled_at)
);
CREATE INDEX schedule_ticks_by_fired ON schedule_ticks (fired_at);

-- The overlap check: is a run of this scrap still queued or running?
CREATE INDEX run_queue_by_scrap ON run_queue (scrap_id);
