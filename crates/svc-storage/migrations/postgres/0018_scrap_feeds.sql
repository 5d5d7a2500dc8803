-- A scrap's feed address (the Atom and RSS feeds of what changed between its
-- successful runs): one token per scrap. A feed reader sends the token in the
-- URL; it is looked up by its SHA-256 (hex), and kept sealed (sealing.rs) so
-- that the scrap page can show the address again. Rotating replaces the row.
CREATE TABLE scrap_feeds (
    scrap_id TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL,
    token_hash TEXT NOT NULL UNIQUE,
    token_sealed TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX scrap_feeds_by_org ON scrap_feeds (organization_id, scrap_id);
