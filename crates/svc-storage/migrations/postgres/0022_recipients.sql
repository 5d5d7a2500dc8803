-- Addresses outside an organization's members that its scraps send result
-- emails, digests and alerts to (issue 37): nothing is sent to one until it
-- confirms through the link mailed to it. The link's secret is kept as a
-- SHA-256 hex hash. `sent_at`: the last confirmation mail (rate limit).
CREATE TABLE recipients (
    organization_id TEXT NOT NULL,
    email TEXT NOT NULL,
    -- pending or confirmed
    state TEXT NOT NULL,
    token_hash TEXT UNIQUE,
    created_at BIGINT NOT NULL,
    sent_at BIGINT,
    confirmed_at BIGINT,
    PRIMARY KEY (organization_id, email)
);

-- The addresses scraps named before this change keep receiving: they are
-- confirmed (docs/decisions.md, Confirmed recipients). Chat channels are not
-- addresses.
INSERT INTO recipients (organization_id, email, state, created_at, confirmed_at)
SELECT DISTINCT organization_id, address, 'confirmed', 0, 0 FROM (
    SELECT organization_id, lower(trim(alert)) AS address FROM scraps WHERE alert IS NOT NULL
    UNION SELECT organization_id, lower(trim(email_notif_recipient)) FROM scraps WHERE email_notif_recipient IS NOT NULL
    UNION SELECT organization_id, lower(trim(digest_recipient)) FROM scraps WHERE digest_recipient IS NOT NULL
) named
WHERE address LIKE '%@%' AND address NOT LIKE '%://%' AND address NOT LIKE 'channel:%'
ON CONFLICT DO NOTHING;
