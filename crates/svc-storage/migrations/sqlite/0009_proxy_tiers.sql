-- The proxy tier that last worked for a host, per organization (auto tier
-- runs start there), and how many runs in a row it has.
CREATE TABLE tier_memory (
    organization_id TEXT NOT NULL,
    host TEXT NOT NULL,
    tier BIGINT NOT NULL,
    runs BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (organization_id, host)
);
