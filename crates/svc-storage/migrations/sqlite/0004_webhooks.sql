CREATE TABLE webhooks (
    id TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL,
    url TEXT NOT NULL,
    -- JSON arrays.
    events TEXT NOT NULL,
    scrap_ids TEXT NOT NULL,
    active BOOLEAN NOT NULL,
    -- The whsec_ secret: deliveries are signed with it, so it is kept
    -- (never returned after creation, never logged).
    secret TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE INDEX webhooks_by_org ON webhooks (organization_id, created_at);

-- The outbox: one row per (event, webhook), written in the transaction that
-- finishes the run; `id` is the webhook-id header of every attempt.
CREATE TABLE webhook_deliveries (
    id TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL,
    webhook_id TEXT NOT NULL,
    event TEXT NOT NULL,
    history_id TEXT NOT NULL,
    scrap_id TEXT NOT NULL,
    payload TEXT NOT NULL,
    attempts BIGINT NOT NULL DEFAULT 0,
    -- pending | done
    state TEXT NOT NULL,
    next_attempt_at BIGINT,
    -- Held by a dispatcher until then.
    lease_until BIGINT,
    created_at BIGINT NOT NULL
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE state = 'pending';

-- The delivery log: one row per attempt made.
CREATE TABLE webhook_attempts (
    id TEXT PRIMARY KEY,
    delivery_id TEXT NOT NULL,
    organization_id TEXT NOT NULL,
    webhook_id TEXT NOT NULL,
    event TEXT NOT NULL,
    history_id TEXT NOT NULL,
    attempt BIGINT NOT NULL,
    state TEXT NOT NULL,
    response_status BIGINT,
    response_body TEXT,
    error TEXT,
    duration_ms BIGINT,
    created_at BIGINT NOT NULL,
    next_retry_at BIGINT
);
CREATE INDEX webhook_attempts_by_webhook ON webhook_attempts (organization_id, webhook_id, created_at);
CREATE INDEX webhook_attempts_by_delivery ON webhook_attempts (delivery_id);
