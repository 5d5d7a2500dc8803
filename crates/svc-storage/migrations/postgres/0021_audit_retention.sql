-- Issue 37, parts 2 and 5: the audit log, the addresses each user has
-- logged in from (to tell a new one), an organization's history age limit,
-- and what retention needs to find old rows.

CREATE TABLE audit_entries (
    id TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL,
    actor_kind TEXT NOT NULL,
    actor_id TEXT,
    actor_email TEXT,
    action TEXT NOT NULL,
    target_kind TEXT NOT NULL,
    target_id TEXT NOT NULL,
    detail TEXT,
    address TEXT,
    created_at BIGINT NOT NULL
);
CREATE INDEX audit_entries_by_org ON audit_entries (organization_id, created_at DESC, id DESC);
CREATE INDEX audit_entries_by_age ON audit_entries (created_at);

CREATE TABLE known_addresses (
    organization_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    address TEXT NOT NULL,
    first_seen_at BIGINT NOT NULL,
    last_seen_at BIGINT NOT NULL,
    PRIMARY KEY (organization_id, user_id, address)
);
CREATE INDEX known_addresses_by_age ON known_addresses (last_seen_at);

-- Days of history an organization keeps; NULL keeps every run.
ALTER TABLE organizations ADD COLUMN history_retention_days BIGINT;

-- When a sliding-log bucket was last written (unix ms), so that an unused
-- one can be pruned; buckets from before count as written now.
ALTER TABLE rate_logs ADD COLUMN used_at BIGINT NOT NULL DEFAULT 0;
UPDATE rate_logs SET used_at = (EXTRACT(EPOCH FROM now()) * 1000)::BIGINT;

CREATE INDEX activities_by_age ON activities (created_at);
CREATE INDEX emails_by_age ON emails (created_at);
CREATE INDEX webhook_deliveries_by_age ON webhook_deliveries (created_at);
CREATE INDEX tasks_by_age ON tasks (created_at);
CREATE INDEX plan_renewals_by_week ON plan_renewals (week_start);
CREATE INDEX rate_logs_by_use ON rate_logs (used_at);
