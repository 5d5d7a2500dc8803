-- The engine an `auto` scrap runs on, as last decided (static when it
-- found what the browser found), for which URL and script, and how many
-- runs ago the engines were compared.
CREATE TABLE engine_memory (
    organization_id TEXT NOT NULL,
    scrap_id TEXT NOT NULL,
    engine TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    runs BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (organization_id, scrap_id)
);
