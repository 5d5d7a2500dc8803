-- A scrap's banner image, in the database so that every node serves it
-- (no local folder). One per scrap; replacing it gives it a new token. The
-- token (32 hex characters, random) is the unguessable last segment of the
-- path the scrap's `banner` holds (`/banners/TOKEN`); the image is served
-- only while that path is the scrap's banner. `image` holds the bytes as
-- svc re-encoded them (metadata stripped), of type `content_type`.
CREATE TABLE scrap_banners (
    scrap_id TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL,
    token TEXT NOT NULL UNIQUE,
    content_type TEXT NOT NULL,
    image BLOB NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX scrap_banners_by_org ON scrap_banners (organization_id, scrap_id);
