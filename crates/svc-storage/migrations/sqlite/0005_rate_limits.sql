-- Rate-limit buckets shared by every server process: the GCRA "theoretical
-- arrival time" (unix ms) of each bucket.
CREATE TABLE rate_limits (
    bucket TEXT PRIMARY KEY,
    tat BIGINT NOT NULL
);
