-- Members of organizations: a user belongs to one or more organizations,
-- each with a role. `users.organization_id` stays the organization the user
-- signed up with; membership decides access.
CREATE TABLE memberships (
    organization_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    -- owner, admin, editor or viewer
    role TEXT NOT NULL,
    joined_at BIGINT NOT NULL,
    -- The last log-in into (or switch to) this organization: login's default.
    last_used_at BIGINT NOT NULL,
    PRIMARY KEY (organization_id, user_id)
);
CREATE INDEX memberships_by_user ON memberships (user_id, last_used_at);

-- Every existing user owns the organization they signed up with.
INSERT INTO memberships (organization_id, user_id, role, joined_at, last_used_at)
SELECT organization_id, id, 'owner', created_at, created_at FROM users;

-- Invitations: a single-use link (its secret stored as a SHA-256 hex hash)
-- until `expires_at`; accepting or withdrawing deletes the row.
CREATE TABLE invites (
    id TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL,
    email TEXT NOT NULL,
    role TEXT NOT NULL,
    token_hash TEXT NOT NULL UNIQUE,
    invited_by TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL
);
CREATE INDEX invites_by_org ON invites (organization_id, created_at);
CREATE INDEX invites_by_email ON invites (email, expires_at);
