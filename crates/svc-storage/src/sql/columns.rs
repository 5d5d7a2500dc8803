//! The column lists that several queries name, in the order of their record
//! types.

use const_format::concatcp;

pub(super) const USER: &str = "id, organization_id, email, name, is_admin, created_at";

/// [`USER`] of a query that joins `users u` to `memberships m`: the user as a
/// member of `m`'s organization.
pub(super) const USER_M: &str = "u.id, m.organization_id, u.email, u.name, u.is_admin, u.created_at";

pub(super) const ORGANIZATION: &str = "id, name, plan, balance, default_containers, created_at";

/// The columns of a scrap that are written.
pub(super) const SCRAP: &str = "id, organization_id, user_id, title, description, url, request, scrapper, containers, \
                                params, cron, cron_timezone, alert, auto_fix, proxy_tier, last_tier_change_at, \
                                email_notif, email_notif_recipient, email_notif_format, digest_enabled, \
                                digest_prompt, digest_recipient, banner, created_at, updated_at";

/// The columns read back for a scrap: the written ones and the derived list
/// of run ids.
pub(super) const SCRAP_READ: &str = concatcp!(SCRAP, ", history_ids, next_fire_at");

pub(super) const HISTORY: &str = "id, organization_id, scrap_id, status_detail, data, length, time_ms, digest, \
                                  triggered_by, run_type, proxy_tier, costs, meter, fix_version_id, fixed_at, \
                                  error_snapshot, retries, error, created_at, finished_at";

/// A history row's columns without its data (`RunSummary`).
pub(super) const RUN_SUMMARY: &str =
    "id, scrap_id, status_detail, length, time_ms, triggered_by, created_at, finished_at";

/// An API key's columns, from `api_keys k`.
pub(super) const KEY: &str = "k.id AS id, k.organization_id AS organization_id, k.user_id AS user_id, k.name AS name, \
                              k.prefix AS prefix, k.scopes AS scopes, k.scrap_ids AS scrap_ids, \
                              k.expires_at AS expires_at, k.created_at AS created_at, k.revoked_at AS revoked_at";

pub(super) const ACTIVITY: &str = "id, organization_id, scrap_id, kind, actor, message, history_id, created_at";

pub(super) const WEBHOOK: &str = "id, organization_id, url, events, scrap_ids, active, secret, created_at, updated_at";

pub(super) const DELIVERY: &str =
    "id, organization_id, webhook_id, event, history_id, scrap_id, payload, attempts, created_at";

pub(super) const ATTEMPT: &str = "id, delivery_id, organization_id, webhook_id, event, history_id, attempt, state, \
                                  response_status, response_body, error, duration_ms, created_at, next_retry_at";

/// An outbox row, as `EmailRow` reads it.
pub(super) const EMAIL: &str = "id, organization_id, kind, recipient, subject, body_text, body_html, attachment_name, \
                                attachment_type, attachment_b64, unsubscribe_url, scrap_id, history_id, state, attempts, \
                                next_attempt_at, last_error, sent_at, created_at";

pub(super) const TASK: &str = "id, organization_id, user_id, kind, state, input, result, error, scrap_id, history_id, \
                               attempts, lease_until, created_at, finished_at";

pub(super) const VERSION: &str = "id, organization_id, scrap_id, number, request, source, history_id, restored_from, created_at, approved_at, \
     approved_by";
pub(super) const FIX_PROPOSAL: &str = "id, organization_id, scrap_id, task_id, history_id, base_request, request, \
     length, state, created_at, decided_at, decided_by, version_id";
