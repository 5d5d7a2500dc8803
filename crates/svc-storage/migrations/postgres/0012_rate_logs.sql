-- Limits that must hold over any span of their window (the trigger limit
-- per API key): the times of the latest requests, a JSON array of unix
-- milliseconds, at most the limit's count of them.
CREATE TABLE rate_logs (
    bucket TEXT PRIMARY KEY,
    stamps TEXT NOT NULL
);
