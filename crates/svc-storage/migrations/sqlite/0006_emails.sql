-- The email outbox: each row is one whole message, written in the
-- transaction that causes it and sent by the mailer loop.
CREATE TABLE emails (
    id TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL,
    -- result | alert | recovered | announcement
    kind TEXT NOT NULL,
    recipient TEXT NOT NULL,
    subject TEXT NOT NULL,
    body_text TEXT NOT NULL,
    body_html TEXT,
    attachment_name TEXT,
    attachment_type TEXT,
    -- The attachment's bytes, base64.
    attachment_b64 TEXT,
    unsubscribe_url TEXT,
    scrap_id TEXT,
    history_id TEXT,
    -- The announcement an email belongs to.
    batch_id TEXT,
    -- queued | sent | failed
    state TEXT NOT NULL,
    attempts BIGINT NOT NULL DEFAULT 0,
    next_attempt_at BIGINT,
    -- Held by a mailer until then.
    lease_until BIGINT,
    last_error TEXT,
    sent_at BIGINT,
    created_at BIGINT NOT NULL
);
CREATE INDEX emails_due ON emails (next_attempt_at) WHERE state = 'queued';
CREATE INDEX emails_by_scrap ON emails (organization_id, scrap_id, created_at);

-- Whether a user receives release announcements (one-click unsubscribe).
ALTER TABLE users ADD COLUMN announcements BOOLEAN NOT NULL DEFAULT TRUE;
