-- Chat channels an organization saved (Settings > Channels), referred to
-- as `channel:NAME` in a scrap's recipient fields. `url` is the Apprise
-- URL with its tokens: sealed (sql/sealed_columns.rs), never returned
-- whole after creation.
CREATE TABLE channels (
    id TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL,
    name TEXT NOT NULL,
    url TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE UNIQUE INDEX channels_by_name ON channels (organization_id, name);
