-- Weekly plan renewal: Growth and Pro balances are topped up to their weekly
-- amount once per week (weeks start on Monday 00:00 UTC).
--
-- `plan_renewed_at` (unix milliseconds) is the instant from which the
-- organization counts as renewed: the start of the week of its last
-- renewal, or when its plan was last set (a plan change takes effect at the
-- next renewal). An organization of a renewed plan is due in week W while
-- `plan_renewed_at < W`; the index makes "is anyone due?" one lookup.
-- Organizations existing before this migration start at 0: Growth and Pro
-- ones are renewed at the first scheduler pass after the upgrade.
ALTER TABLE organizations ADD COLUMN plan_renewed_at BIGINT NOT NULL DEFAULT 0;
CREATE INDEX organizations_by_renewal ON organizations (plan, plan_renewed_at);

-- One row per (organization, week) renewed, written in the transaction that
-- tops up the balance: the primary key is what makes a week's renewal
-- happen once even with several schedulers on one database.
CREATE TABLE plan_renewals (
    organization_id TEXT NOT NULL REFERENCES organizations(id),
    -- The Monday 00:00 UTC that starts the renewed week.
    week_start BIGINT NOT NULL,
    -- The plan at renewal time and its weekly amount then.
    plan TEXT NOT NULL,
    units BIGINT NOT NULL,
    balance_before BIGINT NOT NULL,
    balance_after BIGINT NOT NULL,
    renewed_at BIGINT NOT NULL,
    PRIMARY KEY (organization_id, week_start)
);
