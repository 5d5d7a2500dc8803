//! Backend-generic tests of the storage traits.
//!
//! Each test is an `async fn name(store: Arc<dyn Store>)` listed in
//! `storage_tests!` at the bottom, which generates one `#[tokio::test]` per
//! engine, each on a fresh database:
//!
//! - `sqlite::name` always runs, on a new SQLite file;
//! - `postgres::name` runs on a new database of the server named by
//!   `SVC_TEST_POSTGRES_URL` and is skipped (with a printed line) when it is
//!   unset. `scripts/start-test-postgres.sh` starts such a server:
//!
//! ```sh
//! SVC_TEST_POSTGRES_URL=$(bash scripts/start-test-postgres.sh) cargo test -p svc-storage --test storage
//! ```

use std::collections::BTreeSet;
use std::sync::Arc;

use chrono::{DateTime, Datelike, Duration, SubsecRound, Utc};
use futures::FutureExt;
use serde_json::json;
use svc_domain::account::{Organization, User};
use svc_domain::activity::Activity;
use svc_domain::api_key::{ApiKey, KeyOwner};
use svc_domain::audit::{AuditAction, AuditActor, AuditEntry};
use svc_domain::costs::Costs;
use svc_domain::email::{Attachment, Email, EmailKind, EmailState};
use svc_domain::history::{HistoryRow, RunSummary, RunType, StatusDetail, TriggeredBy};
use svc_domain::login_session::LoginSession;
use svc_domain::member::{Invite, Role};
use svc_domain::meter::{Meter, MeterBreakdown};
use svc_domain::plan::{Plan, WeeklyUnits};
use svc_domain::recipient::RecipientState;
use svc_domain::run_page::{PageStatus, RunPage};
use svc_domain::scope::Scope;
use svc_domain::scrap::{EmailFormat, HISTORY_IDS_CAP, ParamSet, Scrap};
use svc_domain::script_version::{FixProposal, ProposalState, ScriptVersion, VersionSource};
use svc_domain::site_account::{SavedSession, SessionState, SiteAccount};
use svc_domain::task::{Task, TaskKind, TaskState};
use svc_domain::webhook::{AttemptState, Delivery, DeliveryAttempt, Webhook, WebhookEvent};
use svc_domain::{HistoryId, InviteId, KeyId, ObjectId, OrgId, ScrapId, SessionId, TypedId, UserId, WebhookId};
use svc_storage::key_check::key_check_opens;
use svc_storage::testing::TestDb;
use svc_storage::{
    AddressSeen, AppliedFix, Asked, BannerImage, ConfirmationLink, Decided, DueScrap, EmailOutcome, EngineMemory,
    FinishedRun, HistoryFilter, Joined, MemberChange, Nearby, NewAccount, NewBanner, Page, PlanRenewal, PlannedTick,
    ProposalDecision, QueueState, QueuedRun, RenewalOutcome, RunNeighbours, RunStreak, ScrapFilter, Store, StoreError,
    StoredFeedToken, TaskEnd, TaskFinish, TickAction, TickOutcome, TickPlan, TickPlanner, TierNote,
};
use svc_storage::{MasterKey, Sealer};

// ---------------------------------------------------------------------------
// Fixtures
// ---------------------------------------------------------------------------

/// Now, at the millisecond precision the store keeps.
fn now() -> DateTime<Utc> {
    Utc::now().trunc_subsecs(3)
}

fn new_account(email: &str) -> NewAccount {
    let at = now();
    let org = Organization {
        id: OrgId::new(),
        name: format!("org of {email}"),
        plan: Plan::Free,
        balance: 500,
        default_containers: vec!["main".into(), "backup-eu".into()],
        created_at: at,
    };
    let user = User {
        id: UserId::new(),
        organization_id: org.id,
        email: email.to_string(),
        name: format!("user {email}"),
        is_admin: false,
        created_at: at,
    };
    NewAccount { organization: org, user, password_hash: format!("$argon2id$v=19$hash-of-{email}") }
}

/// Creates an account and returns its organization and user.
async fn account(store: &Arc<dyn Store>, email: &str) -> (Organization, User) {
    let account = new_account(email);
    store.create_account(&account).await.expect("create account");
    (account.organization, account.user)
}

/// A scrap of `user` with every optional field empty.
fn scrap(user: &User, title: &str, created_at: DateTime<Utc>) -> Scrap {
    Scrap::new(user.organization_id, user.id, title, "https://example.org/", "the list of items", created_at)
}

/// A scrap with every field filled, nested JSON in its parameters.
fn full_scrap(user: &User, created_at: DateTime<Utc>) -> Scrap {
    Scrap {
        description: "Prices of the week, with \"quotes\" and ünïcødé".into(),
        url: "https://shop.example.com/catalog?page=1&sort=price".into(),
        containers: vec!["main".into(), "backup-eu".into()],
        params: vec![
            ParamSet { key: "city".into(), value: json!("Paris") },
            ParamSet { key: "filters".into(), value: json!({"min": 10, "max": 99.5, "tags": ["a", "b"], "on": true}) },
            ParamSet { key: "none".into(), value: json!(null) },
        ],
        cron: Some("0 */6 * * *".into()),
        cron_timezone: "Europe/Paris".into(),
        alert: Some("when the price drops".into()),
        auto_fix: true,
        proxy_tier: Some("tier2".into()),
        last_tier_change_at: Some(created_at - Duration::milliseconds(1_234)),
        email_notif: true,
        email_notif_recipient: Some("ops@example.com".into()),
        email_notif_format: EmailFormat::Csv,
        digest_enabled: true,
        digest_prompt: Some("summarise the changes".into()),
        digest_recipient: Some("boss@example.com".into()),
        banner: "maintenance on sunday".into(),
        updated_at: created_at + Duration::milliseconds(7),
        ..scrap(user, "Weekly prices", created_at)
    }
}

fn activity(org: OrgId, scrap: ScrapId, kind: &str, at: DateTime<Utc>) -> Activity {
    Activity {
        id: ObjectId::new(),
        organization_id: org,
        scrap_id: scrap,
        kind: kind.to_string(),
        actor: "system".into(),
        message: format!("{kind} at {}", at.timestamp_millis()),
        history_id: None,
        created_at: at,
    }
}

/// A pending run of `scrap`.
fn history(scrap: &Scrap, created_at: DateTime<Utc>) -> HistoryRow {
    HistoryRow::pending(scrap.id, scrap.organization_id, TriggeredBy::Cron, "tier0", created_at)
}

/// A finished run with every field filled.
fn full_history(scrap: &Scrap, created_at: DateTime<Utc>) -> HistoryRow {
    HistoryRow {
        status_detail: Some(StatusDetail::Regression),
        data: r#"[{"title":"a","price":1.5},{"title":"b","price":null}]"#.into(),
        length: 2,
        time_ms: Some(4_321),
        digest: Some("two items".into()),
        triggered_by: TriggeredBy::Api,
        run_type: RunType::AiGenerate,
        proxy_tier: "tier3".into(),
        costs: Some(Costs { proxy: 0.1, ai: 0.02, provider: Some("p".into()), ..Costs::of_loads(4096, 0.0, false) }),
        meter: Some(Meter {
            ratio_version: 3,
            breakdown: MeterBreakdown {
                tier: Some(8),
                ai: Some(2),
                fix_runs: Some(1),
                ..Meter::of_loads(1, 2, None).breakdown
            },
        }),
        fix_version_id: Some("fix-7".into()),
        fixed_at: Some(created_at + Duration::milliseconds(500)),
        error_snapshot: Some(json!({"html": "<p>x</p>", "selector": ".price", "screenshot": null})),
        retries: 2,
        error: Some("selector .price matched nothing".into()),
        finished_at: Some(created_at + Duration::milliseconds(4_321)),
        ..history(scrap, created_at)
    }
}

fn api_key(user: &User, name: &str, created_at: DateTime<Utc>) -> ApiKey {
    ApiKey {
        id: KeyId::new(),
        organization_id: user.organization_id,
        user_id: user.id,
        name: name.to_string(),
        prefix: format!("svc_{}", &name[..name.len().min(4)]),
        scopes: vec![Scope::ScrapsRead, Scope::HistoryRead],
        scrap_ids: vec![ScrapId::new(), ScrapId::new()],
        expires_at: Some(created_at + Duration::days(90)),
        created_at,
        revoked_at: None,
    }
}

async fn insert_scrap(store: &Arc<dyn Store>, s: &Scrap) {
    store
        .insert_scrap(s, &activity(s.organization_id, s.id, "scrap.created", s.created_at))
        .await
        .expect("insert scrap");
}

fn filter(offset: i64, limit: i64) -> ScrapFilter {
    ScrapFilter { offset, limit, ..ScrapFilter::default() }
}

fn search(text: &str) -> ScrapFilter {
    ScrapFilter { search: Some(text.to_string()), ..filter(0, 100) }
}

fn titles(page: &Page<Scrap>) -> Vec<&str> {
    page.items.iter().map(|s| s.title.as_str()).collect()
}

fn ids<T, I>(items: &[T], id: impl Fn(&T) -> I) -> Vec<I> {
    items.iter().map(id).collect()
}

fn set<I: Ord>(ids: impl IntoIterator<Item = I>) -> BTreeSet<I> {
    ids.into_iter().collect()
}

fn history_filter(offset: i64, limit: i64) -> HistoryFilter {
    HistoryFilter { offset, limit, ..HistoryFilter::default() }
}

// ---------------------------------------------------------------------------
// Accounts
// ---------------------------------------------------------------------------

async fn accounts_round_trip(store: Arc<dyn Store>) {
    let ada = new_account("ada@example.com");
    store.create_account(&ada).await.unwrap();
    let (org, user) = (&ada.organization, &ada.user);

    let (found, hash) = store.user_by_email("ada@example.com").await.unwrap().expect("user by email");
    assert_eq!(&found, user);
    assert_eq!(hash, ada.password_hash);
    assert_eq!(store.user_by_email("nobody@example.com").await.unwrap(), None);

    assert_eq!(store.user(org.id, user.id).await.unwrap().as_ref(), Some(user));
    assert_eq!(store.organization(org.id).await.unwrap().as_ref(), Some(org));
    assert_eq!(store.organization(OrgId::new()).await.unwrap(), None);
    assert_eq!(store.user(org.id, UserId::new()).await.unwrap(), None);

    // A second account with the same email fails, and leaves nothing behind
    // (its organization is written in the same transaction).
    let duplicate = new_account("ada@example.com");
    match store.create_account(&duplicate).await {
        Err(StoreError::Conflict(what)) => assert_eq!(what, "email"),
        other => panic!("expected Conflict(\"email\"), got {other:?}"),
    }
    assert_eq!(store.organization(duplicate.organization.id).await.unwrap(), None);
    assert_eq!(store.user(duplicate.organization.id, duplicate.user.id).await.unwrap(), None);
    let (still, _) = store.user_by_email("ada@example.com").await.unwrap().unwrap();
    assert_eq!(still.id, user.id);

    // Users are only visible through their own organization.
    let (other_org, other_user) = account(&store, "bob@example.com").await;
    assert_eq!(store.user(other_org.id, user.id).await.unwrap(), None);
    assert_eq!(store.user(org.id, other_user.id).await.unwrap(), None);
    assert_eq!(store.user(other_org.id, other_user.id).await.unwrap(), Some(other_user));
}

async fn organization_updates(store: Arc<dyn Store>) {
    let (org, user) = account(&store, "ada@example.com").await;
    let (other_org, other_user) = account(&store, "bob@example.com").await;

    assert!(store.set_plan(org.id, Plan::Pro).await.unwrap());
    assert_eq!(store.organization(org.id).await.unwrap().unwrap().plan, Plan::Pro);
    assert!(store.set_plan(org.id, Plan::Growth).await.unwrap());
    assert_eq!(store.organization(org.id).await.unwrap().unwrap().plan, Plan::Growth);
    assert!(!store.set_plan(OrgId::new(), Plan::Pro).await.unwrap());
    assert_eq!(store.organization(other_org.id).await.unwrap().unwrap().plan, Plan::Free);

    assert!(store.set_admin(org.id, user.id, true).await.unwrap());
    assert!(store.user(org.id, user.id).await.unwrap().unwrap().is_admin);
    assert!(store.user_by_email("ada@example.com").await.unwrap().unwrap().0.is_admin);
    // Through another organization: not found, nothing changed.
    assert!(!store.set_admin(org.id, other_user.id, true).await.unwrap());
    assert!(!store.user(other_org.id, other_user.id).await.unwrap().unwrap().is_admin);
    assert!(store.set_admin(org.id, user.id, false).await.unwrap());
    assert!(!store.user(org.id, user.id).await.unwrap().unwrap().is_admin);

    assert_eq!(store.add_balance(org.id, 250).await.unwrap(), Some(750));
    assert_eq!(store.add_balance(org.id, -1_000).await.unwrap(), Some(-250));
    assert_eq!(store.add_balance(org.id, 0).await.unwrap(), Some(-250));
    assert_eq!(store.organization(org.id).await.unwrap().unwrap().balance, -250);
    assert_eq!(store.organization(other_org.id).await.unwrap().unwrap().balance, 500);
    assert_eq!(store.add_balance(OrgId::new(), 10).await.unwrap(), None);

    assert_eq!(store.setting_or_init("jwt_secret", "first").await.unwrap(), "first");
    assert_eq!(store.setting_or_init("jwt_secret", "second").await.unwrap(), "first");
    assert_eq!(store.setting_or_init("other", "x").await.unwrap(), "x");
    assert_eq!(store.setting_or_init("jwt_secret", "third").await.unwrap(), "first");
}

async fn password_and_email_changes(store: Arc<dyn Store>) {
    let (org, user) = account(&store, "ada@example.com").await;
    let (other_org, other_user) = account(&store, "bob@example.com").await;

    assert_eq!(
        store.password_hash(org.id, user.id).await.unwrap().as_deref(),
        Some("$argon2id$v=19$hash-of-ada@example.com")
    );
    assert_eq!(store.password_hash(org.id, other_user.id).await.unwrap(), None, "another organization's user");
    assert!(store.set_password_hash(org.id, user.id, "$argon2id$new", None, now()).await.unwrap());
    assert_eq!(store.password_hash(org.id, user.id).await.unwrap().as_deref(), Some("$argon2id$new"));
    assert_eq!(store.user_by_email("ada@example.com").await.unwrap().unwrap().1, "$argon2id$new");
    // Through another organization: not found, nothing changed.
    assert!(!store.set_password_hash(org.id, other_user.id, "$argon2id$stolen", None, now()).await.unwrap());
    assert!(!store.set_password_hash(OrgId::new(), user.id, "$argon2id$stolen", None, now()).await.unwrap());
    assert_eq!(
        store.password_hash(other_org.id, other_user.id).await.unwrap().as_deref(),
        Some("$argon2id$v=19$hash-of-bob@example.com")
    );
    assert_eq!(store.password_hash(org.id, user.id).await.unwrap().as_deref(), Some("$argon2id$new"));

    assert!(store.set_email(org.id, user.id, "ada@new.example.com").await.unwrap());
    assert_eq!(store.user(org.id, user.id).await.unwrap().unwrap().email, "ada@new.example.com");
    assert_eq!(store.user_by_email("ada@example.com").await.unwrap(), None);
    assert_eq!(store.user_by_email("ada@new.example.com").await.unwrap().unwrap().0.id, user.id);
    // The same email again is no change, and no conflict with itself.
    assert!(store.set_email(org.id, user.id, "ada@new.example.com").await.unwrap());
    // A taken email is the conflict signup reports.
    match store.set_email(org.id, user.id, "bob@example.com").await {
        Err(StoreError::Conflict(what)) => assert_eq!(what, "email"),
        other => panic!("expected Conflict(\"email\"), got {other:?}"),
    }
    assert_eq!(store.user(org.id, user.id).await.unwrap().unwrap().email, "ada@new.example.com");
    assert!(!store.set_email(org.id, other_user.id, "mallory@example.com").await.unwrap());
    assert_eq!(store.user(other_org.id, other_user.id).await.unwrap().unwrap().email, "bob@example.com");
    // The old email is free again.
    account(&store, "ada@example.com").await;
}

async fn members_roles_and_the_last_owner(store: Arc<dyn Store>) {
    let (org, ada) = account(&store, "ada@example.com").await;
    let (bobs_org, bob) = account(&store, "bob@example.com").await;
    let at = now();
    // The signup user owns their organization; a user of another one is not
    // a member, and is not reachable through this one.
    let members = store.members(org.id, 0, 10).await.unwrap();
    assert_eq!(members.total, 1);
    assert_eq!((members.items[0].user_id, members.items[0].role), (ada.id, Role::Owner));
    assert_eq!(store.member(org.id, bob.id).await.unwrap(), None);
    assert_eq!(store.user(org.id, bob.id).await.unwrap(), None);

    // Bob joins Ada's organization by invitation.
    let invite = Invite {
        id: InviteId::new(),
        organization_id: org.id,
        email: "bob@example.com".into(),
        role: Role::Editor,
        invited_by: ada.id,
        created_at: at,
        expires_at: at + Duration::days(7),
    };
    store.insert_invite(&invite, "hash-bob").await.unwrap();
    assert_eq!(store.accept_invite(&invite, bob.id, at + Duration::seconds(1)).await.unwrap(), Joined::Joined);
    let as_member = store.user(org.id, bob.id).await.unwrap().expect("a member's user");
    assert_eq!(as_member.organization_id, org.id, "the user as a member of the organization read");
    assert_eq!(store.member(org.id, bob.id).await.unwrap().unwrap().role, Role::Editor);
    let mine = store.memberships(bob.id).await.unwrap();
    assert_eq!(ids(&mine, |m| m.organization_id), vec![org.id, bobs_org.id], "most recently used first");
    assert!(store.touch_membership(bobs_org.id, bob.id, at + Duration::seconds(5)).await.unwrap());
    assert_eq!(store.memberships(bob.id).await.unwrap()[0].organization_id, bobs_org.id);
    assert!(!store.touch_membership(bobs_org.id, ada.id, at).await.unwrap(), "not a member");

    // A session of Bob's in Ada's organization carries his role there.
    let session = LoginSession { organization_id: org.id, ..login_session(&bob, "Firefox", at) };
    store.insert_session(&session).await.unwrap();
    let (_, role, _) = store.live_session(org.id, bob.id, session.id, at).await.unwrap().unwrap();
    assert_eq!(role, Role::Editor);
    let key = ApiKey { organization_id: org.id, ..api_key(&bob, "bob's", at) };
    store.insert_key(&key, "hash-bobs-key", &[]).await.unwrap();
    let own_key = api_key(&bob, "bob's own", at);
    store.insert_key(&own_key, "hash-bobs-own", &[]).await.unwrap();
    assert_eq!(store.key_by_hash("hash-bobs-key").await.unwrap().unwrap().owner_role, Role::Editor);
    assert_eq!(store.key_by_hash("hash-bobs-own").await.unwrap().unwrap().owner_role, Role::Owner);

    // The last owner can neither be demoted nor removed; with a second
    // owner, either can.
    assert_eq!(store.set_role(org.id, ada.id, Role::Admin).await.unwrap(), MemberChange::LastOwner);
    assert_eq!(store.remove_member(org.id, ada.id, at).await.unwrap(), MemberChange::LastOwner);
    assert_eq!(
        store.set_role(org.id, bob.id, Role::Viewer).await.unwrap(),
        MemberChange::Done { revoked_keys: vec![], ended_sessions: 0 }
    );
    assert_eq!(store.key_by_hash("hash-bobs-key").await.unwrap().unwrap().owner_role, Role::Viewer);
    assert_eq!(store.set_role(org.id, UserId::new(), Role::Viewer).await.unwrap(), MemberChange::NotFound);
    assert!(matches!(store.set_role(org.id, bob.id, Role::Owner).await.unwrap(), MemberChange::Done { .. }));
    assert!(matches!(store.set_role(org.id, ada.id, Role::Admin).await.unwrap(), MemberChange::Done { .. }));
    assert_eq!(store.set_role(org.id, bob.id, Role::Editor).await.unwrap(), MemberChange::LastOwner);
    assert!(matches!(store.set_role(org.id, ada.id, Role::Owner).await.unwrap(), MemberChange::Done { .. }));

    // Removing Bob ends his session there and revokes the keys he made
    // there, not those of his own organization.
    let removed = store.remove_member(org.id, bob.id, at + Duration::seconds(2)).await.unwrap();
    assert_eq!(removed, MemberChange::Done { revoked_keys: vec![key.id], ended_sessions: 1 });
    assert_eq!(store.live_session(org.id, bob.id, session.id, at).await.unwrap(), None);
    assert_eq!(store.key_by_hash("hash-bobs-key").await.unwrap(), None, "no longer a member");
    assert!(store.key_by_hash("hash-bobs-own").await.unwrap().unwrap().key.revoked_at.is_none());
    assert_eq!(store.user(org.id, bob.id).await.unwrap(), None);
    assert_eq!(store.members(org.id, 0, 10).await.unwrap().total, 1);
    assert_eq!(store.remove_member(org.id, bob.id, at).await.unwrap(), MemberChange::NotFound);
}

/// Two owners demoting each other at once: one wins, one is refused, and
/// the organization keeps an owner (the organization's row lock).
async fn concurrent_demotions_keep_an_owner(store: Arc<dyn Store>) {
    let (org, ada) = account(&store, "ada@example.com").await;
    let (_, bob) = account(&store, "bob@example.com").await;
    let at = now();
    let invite = Invite {
        id: InviteId::new(),
        organization_id: org.id,
        email: "bob@example.com".into(),
        role: Role::Owner,
        invited_by: ada.id,
        created_at: at,
        expires_at: at + Duration::days(1),
    };
    store.insert_invite(&invite, "hash-owner").await.unwrap();
    assert_eq!(store.accept_invite(&invite, bob.id, at).await.unwrap(), Joined::Joined);
    for round in 0..5 {
        let (a, b) =
            tokio::join!(store.set_role(org.id, ada.id, Role::Admin), store.set_role(org.id, bob.id, Role::Admin));
        let outcomes = [a.unwrap(), b.unwrap()];
        assert_eq!(
            outcomes.iter().filter(|o| **o == MemberChange::LastOwner).count(),
            1,
            "round {round}: {outcomes:?}"
        );
        let owners = store.members(org.id, 0, 10).await.unwrap().items.iter().filter(|m| m.role == Role::Owner).count();
        assert_eq!(owners, 1);
        let demoted = if matches!(outcomes[0], MemberChange::Done { .. }) { ada.id } else { bob.id };
        assert!(matches!(store.set_role(org.id, demoted, Role::Owner).await.unwrap(), MemberChange::Done { .. }));
    }
}

async fn invites_are_single_use_until_they_expire(store: Arc<dyn Store>) {
    let (org, ada) = account(&store, "ada@example.com").await;
    let (other_org, _) = account(&store, "eve@example.com").await;
    let (_, bob) = account(&store, "bob@example.com").await;
    let at = now();
    let invite = |email: &str, created: DateTime<Utc>, expires: DateTime<Utc>| Invite {
        id: InviteId::new(),
        organization_id: org.id,
        email: email.into(),
        role: Role::Viewer,
        invited_by: ada.id,
        created_at: created,
        expires_at: expires,
    };
    let bobs = invite("bob@example.com", at, at + Duration::days(7));
    let carols = invite("carol@example.com", at + Duration::seconds(1), at + Duration::days(7));
    let stale = invite("dan@example.com", at - Duration::days(8), at - Duration::days(1));
    store.insert_invite(&bobs, "hash-bob").await.unwrap();
    store.insert_invite(&carols, "hash-carol").await.unwrap();
    store.insert_invite(&stale, "hash-dan").await.unwrap();

    let pending = store.invites(org.id, at, 0, 10).await.unwrap();
    assert_eq!((pending.total, ids(&pending.items, |i| i.id)), (2, vec![carols.id, bobs.id]));
    assert_eq!(store.invites(other_org.id, at, 0, 10).await.unwrap().total, 0);
    assert_eq!(store.invite_by_token("hash-bob", at).await.unwrap(), Some(bobs.clone()));
    assert_eq!(store.invite_by_token("hash-dan", at).await.unwrap(), None, "expired");
    assert!(store.invited("carol@example.com", at).await.unwrap());
    assert!(!store.invited("dan@example.com", at).await.unwrap(), "expired");

    assert_eq!(store.accept_invite(&bobs, bob.id, at).await.unwrap(), Joined::Joined);
    assert_eq!(store.accept_invite(&bobs, bob.id, at).await.unwrap(), Joined::InviteGone, "single use");
    assert_eq!(store.invite_by_token("hash-bob", at).await.unwrap(), None);
    // Another organization cannot withdraw an invite; its own can.
    assert!(!store.delete_invite(other_org.id, carols.id).await.unwrap());
    assert!(store.delete_invite(org.id, carols.id).await.unwrap());
    assert!(!store.invited("carol@example.com", at).await.unwrap());
    // A second invite of a member uses the invite and leaves the role.
    let again = Invite { role: Role::Admin, ..invite("bob@example.com", at, at + Duration::days(1)) };
    store.insert_invite(&again, "hash-bob-again").await.unwrap();
    assert_eq!(store.accept_invite(&again, bob.id, at).await.unwrap(), Joined::AlreadyMember);
    assert_eq!(store.member(org.id, bob.id).await.unwrap().unwrap().role, Role::Viewer);
}

/// Asks `sam@example.com` of `org` with a link whose secret hashes to
/// `hash`, in a mail of its own; the answer and that mail's id.
async fn ask_with_link(
    store: &Arc<dyn Store>,
    org: OrgId,
    hash: &str,
    now: DateTime<Utc>,
    resend_before: DateTime<Utc>,
) -> (Asked, ObjectId) {
    let mail = email(org, None, "sam@example.com", now);
    let link = ConfirmationLink { token_hash: hash, mail: &mail };
    (store.ask_recipient(org, "sam@example.com", Some(&link), now, resend_before).await.unwrap(), mail.id)
}

async fn recipients_confirm_per_organization_and_resend_at_most_hourly(store: Arc<dyn Store>) {
    let (org, _ada) = account(&store, "ada@example.com").await;
    let (other_org, _) = account(&store, "eve@example.com").await;
    let at = now();
    let hour_ago = at - Duration::hours(1);
    let queued = || async { store.claim_emails(at + Duration::hours(3), at + Duration::hours(4), 10).await.unwrap() };
    // A member's own address may always receive; a stranger's not yet.
    assert!(store.may_receive(org.id, "ada@example.com").await.unwrap());
    assert!(!store.may_receive(org.id, "eve@example.com").await.unwrap(), "a member of another organization");
    assert!(!store.may_receive(org.id, "sam@example.com").await.unwrap());

    // Email off: recorded pending, no link.
    let asked = store.ask_recipient(org.id, "sam@example.com", None, at, hour_ago).await.unwrap();
    let Asked::Wait(pending) = asked else { panic!("{asked:?}") };
    assert_eq!((pending.state, pending.sent_at), (RecipientState::Pending, None));
    // The first link goes at once; the next only after the interval.
    let (first, mail) = ask_with_link(&store, org.id, "hash-1", at, hour_ago).await;
    assert_eq!(first, Asked::Send);
    let sent = queued().await;
    assert_eq!(sent.iter().map(|r| r.email.id).collect::<Vec<_>>(), [mail], "the link's mail, queued with it");
    let soon = at + Duration::minutes(5);
    let (again, _) = ask_with_link(&store, org.id, "hash-2", soon, soon - Duration::hours(1)).await;
    let Asked::Wait(waiting) = again else { panic!("sent twice within the hour") };
    assert!(queued().await.is_empty(), "no mail for a link not taken");
    assert_eq!(waiting.sent_at, Some(at));
    assert_eq!(store.recipient_by_token("hash-2").await.unwrap(), None, "the secret was not replaced");
    let later = at + Duration::minutes(61);
    let (third, _) = ask_with_link(&store, org.id, "hash-3", later, later - Duration::hours(1)).await;
    assert_eq!(third, Asked::Send);
    assert_eq!(store.recipient_by_token("hash-1").await.unwrap(), None, "a resend replaces the link");

    // The same address in another organization is its own, pending.
    assert_eq!(ask_with_link(&store, other_org.id, "hash-other", at, hour_ago).await.0, Asked::Send);

    let confirmed = store.confirm_recipient("hash-3", later).await.unwrap().expect("the link's address");
    assert_eq!((confirmed.organization_id, confirmed.state), (org.id, RecipientState::Confirmed));
    assert_eq!(confirmed.confirmed_at, Some(later));
    assert_eq!(store.confirm_recipient("hash-3", later + Duration::hours(1)).await.unwrap(), Some(confirmed));
    assert_eq!(store.confirm_recipient("hash-unknown", later).await.unwrap(), None);
    assert!(store.may_receive(org.id, "sam@example.com").await.unwrap());
    assert!(!store.may_receive(other_org.id, "sam@example.com").await.unwrap(), "confirmed in one organization only");
    let asked = ask_with_link(&store, org.id, "hash-4", later, later).await.0;
    assert_eq!(asked, Asked::Confirmed);

    let listed = store.recipients(org.id).await.unwrap();
    assert_eq!(
        listed.iter().map(|r| (r.email.as_str(), r.state)).collect::<Vec<_>>(),
        [("sam@example.com", RecipientState::Confirmed)]
    );
    assert_eq!(store.recipients(other_org.id).await.unwrap()[0].state, RecipientState::Pending);
}

fn login_session(user: &User, device: &str, at: DateTime<Utc>) -> LoginSession {
    LoginSession {
        id: SessionId::new(),
        organization_id: user.organization_id,
        user_id: user.id,
        device: device.to_string(),
        address: "2001:db8::1".to_string(),
        created_at: at,
        last_seen_at: at,
        expires_at: at + Duration::hours(24),
    }
}

async fn sessions_live_until_ended_or_expired(store: Arc<dyn Store>) {
    let (org, user) = account(&store, "ada@example.com").await;
    let (other_org, other_user) = account(&store, "bob@example.com").await;
    let at = now();
    let laptop = login_session(&user, "Firefox on Linux", at);
    let phone = login_session(&user, "Safari on iPhone", at + Duration::seconds(1));
    let old =
        LoginSession { expires_at: at - Duration::seconds(1), ..login_session(&user, "old", at - Duration::days(2)) };
    let bobs = login_session(&other_user, "Chrome", at);
    for s in [&laptop, &phone, &old, &bobs] {
        store.insert_session(s).await.unwrap();
    }

    let (found, role, seen) = store.live_session(org.id, user.id, laptop.id, at).await.unwrap().expect("live");
    assert_eq!((found.id, found.email.as_str(), role, seen), (user.id, "ada@example.com", Role::Owner, at));
    assert_eq!(store.live_session(org.id, user.id, old.id, at).await.unwrap(), None, "expired");
    assert_eq!(store.live_session(org.id, user.id, bobs.id, at).await.unwrap(), None, "another user's");
    assert_eq!(store.live_session(other_org.id, user.id, laptop.id, at).await.unwrap(), None, "another org");
    assert_eq!(store.live_session(org.id, user.id, laptop.id, laptop.expires_at).await.unwrap(), None, "at expiry");
    assert_eq!(
        ids(&store.live_sessions(org.id, user.id, at).await.unwrap(), |s| s.id),
        vec![phone.id, laptop.id],
        "most recently seen first, expired left out"
    );

    // Last seen moves forward only.
    let later = at + Duration::minutes(10);
    assert!(store.touch_session(org.id, user.id, laptop.id, later).await.unwrap());
    assert!(!store.touch_session(org.id, user.id, laptop.id, at).await.unwrap());
    assert!(!store.touch_session(other_org.id, user.id, laptop.id, later + Duration::minutes(1)).await.unwrap());
    assert_eq!(store.live_session(org.id, user.id, laptop.id, at).await.unwrap().unwrap().2, later);
    let listed = store.live_sessions(org.id, user.id, at).await.unwrap();
    assert_eq!(listed[0], LoginSession { last_seen_at: later, ..laptop.clone() }, "round trip");

    // Ending: only the user's own, once.
    assert!(!store.end_session(other_org.id, other_user.id, laptop.id, at).await.unwrap());
    assert!(!store.end_session(org.id, user.id, bobs.id, at).await.unwrap());
    assert!(store.end_session(org.id, user.id, laptop.id, at).await.unwrap());
    assert!(!store.end_session(org.id, user.id, laptop.id, at).await.unwrap(), "already ended");
    assert_eq!(store.live_session(org.id, user.id, laptop.id, at).await.unwrap(), None);
    assert!(store.live_session(other_org.id, other_user.id, bobs.id, at).await.unwrap().is_some(), "bob's untouched");

    // Every session but one, then all.
    let tablet = login_session(&user, "tablet", at);
    store.insert_session(&tablet).await.unwrap();
    assert_eq!(store.end_sessions(org.id, user.id, Some(tablet.id), at).await.unwrap(), 1);
    assert_eq!(ids(&store.live_sessions(org.id, user.id, at).await.unwrap(), |s| s.id), vec![tablet.id]);
    assert_eq!(store.end_sessions(org.id, user.id, None, at).await.unwrap(), 1);
    assert!(store.live_sessions(org.id, user.id, at).await.unwrap().is_empty());
    assert_eq!(store.live_sessions(other_org.id, other_user.id, at).await.unwrap().len(), 1);

    // A password change ends the others in its transaction.
    let kept = login_session(&user, "kept", at);
    let other = login_session(&user, "other", at);
    store.insert_session(&kept).await.unwrap();
    store.insert_session(&other).await.unwrap();
    assert!(store.set_password_hash(org.id, user.id, "$argon2id$x", Some(kept.id), at).await.unwrap());
    assert_eq!(ids(&store.live_sessions(org.id, user.id, at).await.unwrap(), |s| s.id), vec![kept.id]);
    assert!(!store.set_password_hash(org.id, other_user.id, "$argon2id$y", None, at).await.unwrap());
    assert_eq!(store.live_sessions(other_org.id, other_user.id, at).await.unwrap().len(), 1, "not through org");

    // Pruning takes the expired rows only.
    assert_eq!(store.prune_sessions(at).await.unwrap(), 1);
    assert_eq!(store.prune_sessions(at).await.unwrap(), 0);
    assert!(store.live_session(org.id, user.id, kept.id, at).await.unwrap().is_some());
}

// ---------------------------------------------------------------------------
// Scraps
// ---------------------------------------------------------------------------

async fn scrap_round_trip(store: Arc<dyn Store>) {
    let (org, user) = account(&store, "ada@example.com").await;
    let t0 = now();

    let full = full_scrap(&user, t0);
    insert_scrap(&store, &full).await;
    assert_eq!(store.scrap(org.id, full.id).await.unwrap().as_ref(), Some(&full));

    let bare = scrap(&user, "bare", t0 + Duration::seconds(1));
    insert_scrap(&store, &bare).await;
    assert_eq!(store.scrap(org.id, bare.id).await.unwrap().as_ref(), Some(&bare));

    // Every stored field changes; nullable ones go back to NULL.
    let updated = Scrap {
        title: "Daily prices".into(),
        description: "changed".into(),
        url: "https://other.example.net/".into(),
        request: "only the cheapest".into(),
        containers: vec!["backup-eu".into()],
        params: vec![ParamSet { key: "country".into(), value: json!(["fr", "de"]) }],
        cron: None,
        cron_timezone: "America/New_York".into(),
        alert: None,
        auto_fix: false,
        proxy_tier: None,
        last_tier_change_at: None,
        email_notif: false,
        email_notif_recipient: None,
        email_notif_format: EmailFormat::Json,
        digest_enabled: false,
        digest_prompt: None,
        digest_recipient: None,
        banner: String::new(),
        updated_at: t0 + Duration::milliseconds(2_345),
        ..full.clone()
    };
    let update = activity(org.id, full.id, "scrap.updated", t0 + Duration::seconds(2));
    assert!(store.update_scrap(org.id, &updated, &update).await.unwrap());
    assert_eq!(store.scrap(org.id, full.id).await.unwrap().as_ref(), Some(&updated));

    // And nullable ones get values again.
    let refilled = Scrap { updated_at: t0 + Duration::milliseconds(3_001), ..full_scrap(&user, t0) };
    let refilled = Scrap { id: bare.id, title: "bare".into(), created_at: bare.created_at, ..refilled };
    let update = activity(org.id, bare.id, "scrap.updated", t0 + Duration::seconds(3));
    assert!(store.update_scrap(org.id, &refilled, &update).await.unwrap());
    assert_eq!(store.scrap(org.id, bare.id).await.unwrap().as_ref(), Some(&refilled));

    // Unknown scrap: nothing to update or delete.
    let ghost = scrap(&user, "ghost", t0);
    let ghost_activity = activity(org.id, ghost.id, "scrap.updated", t0);
    assert!(!store.update_scrap(org.id, &ghost, &ghost_activity).await.unwrap());
    assert!(!store.delete_scrap(org.id, ghost.id, &ghost_activity).await.unwrap());
    assert_eq!(store.list_activities(org.id, ghost.id, 0, 10).await.unwrap().total, 0);

    // A second insert of the same id is a conflict.
    match store.insert_scrap(&full, &activity(org.id, full.id, "scrap.created", t0)).await {
        Err(StoreError::Conflict(what)) => assert_eq!(what, "scrap"),
        other => panic!("expected Conflict(\"scrap\"), got {other:?}"),
    }

    let deleted = activity(org.id, full.id, "scrap.deleted", t0 + Duration::seconds(4));
    assert!(store.delete_scrap(org.id, full.id, &deleted).await.unwrap());
    assert_eq!(store.scrap(org.id, full.id).await.unwrap(), None);
    assert!(!store.delete_scrap(org.id, full.id, &activity(org.id, full.id, "scrap.deleted", t0)).await.unwrap());
    assert_eq!(store.scrap(org.id, bare.id).await.unwrap().as_ref(), Some(&refilled));

    let kinds: Vec<String> =
        store.list_activities(org.id, full.id, 0, 10).await.unwrap().items.into_iter().map(|a| a.kind).collect();
    assert_eq!(kinds, ["scrap.deleted", "scrap.updated", "scrap.created"]);
}

async fn scraps_scoped_by_organization(store: Arc<dyn Store>) {
    let (org, user) = account(&store, "ada@example.com").await;
    let (other_org, other_user) = account(&store, "bob@example.com").await;
    let t0 = now();
    let mine = full_scrap(&user, t0);
    let mine2 = scrap(&user, "mine 2", t0 + Duration::seconds(1));
    let theirs = scrap(&other_user, "theirs", t0 + Duration::seconds(2));
    for s in [&mine, &mine2, &theirs] {
        insert_scrap(&store, s).await;
    }

    assert_eq!(store.scrap(other_org.id, mine.id).await.unwrap(), None);
    assert_eq!(store.scrap(org.id, theirs.id).await.unwrap(), None);

    // Another organization cannot update or delete the scrap, and no
    // activity is written for the attempt.
    let hijack = Scrap { title: "hijacked".into(), organization_id: other_org.id, ..mine.clone() };
    let attempt = activity(other_org.id, mine.id, "scrap.updated", t0);
    assert!(!store.update_scrap(other_org.id, &hijack, &attempt).await.unwrap());
    let attempt = activity(other_org.id, mine.id, "scrap.deleted", t0);
    assert!(!store.delete_scrap(other_org.id, mine.id, &attempt).await.unwrap());
    assert_eq!(store.scrap(org.id, mine.id).await.unwrap().as_ref(), Some(&mine));
    assert_eq!(store.list_activities(other_org.id, mine.id, 0, 10).await.unwrap().total, 0);
    assert_eq!(store.list_activities(org.id, mine.id, 0, 10).await.unwrap().total, 1);

    let page = store.list_scraps(other_org.id, &filter(0, 10)).await.unwrap();
    assert_eq!(ids(&page.items, |s| s.id), [theirs.id]);
    assert_eq!(page.total, 1);
    let page = store.list_scraps(org.id, &filter(0, 10)).await.unwrap();
    assert_eq!(ids(&page.items, |s| s.id), [mine2.id, mine.id]);
    assert_eq!(page.total, 2);
    let unknown = store.list_scraps(OrgId::new(), &filter(0, 10)).await.unwrap();
    assert_eq!(unknown, Page { items: vec![], total: 0 });

    let asked = [mine.id, theirs.id, ScrapId::new(), mine2.id];
    assert_eq!(set(store.existing_scrap_ids(org.id, &asked).await.unwrap()), set([mine.id, mine2.id]));
    assert_eq!(store.existing_scrap_ids(other_org.id, &asked).await.unwrap(), [theirs.id]);
    assert_eq!(store.existing_scrap_ids(org.id, &[ScrapId::new()]).await.unwrap(), []);
    assert_eq!(store.existing_scrap_ids(org.id, &[]).await.unwrap(), []);
}

async fn list_scraps_pages_newest_first(store: Arc<dyn Store>) {
    let (org, user) = account(&store, "ada@example.com").await;
    let (_, other_user) = account(&store, "bob@example.com").await;
    let t0 = now();
    // Inserted in a shuffled order, created one second apart.
    for i in [3, 0, 6, 1, 5, 2, 4] {
        insert_scrap(&store, &scrap(&user, &format!("s{i}"), t0 + Duration::seconds(i))).await;
    }
    insert_scrap(&store, &scrap(&other_user, "foreign", t0 + Duration::seconds(10))).await;

    let page = store.list_scraps(org.id, &filter(0, 3)).await.unwrap();
    assert_eq!(titles(&page), ["s6", "s5", "s4"]);
    assert_eq!(page.total, 7);
    let page = store.list_scraps(org.id, &filter(3, 3)).await.unwrap();
    assert_eq!(titles(&page), ["s3", "s2", "s1"]);
    assert_eq!(page.total, 7);
    let page = store.list_scraps(org.id, &filter(6, 3)).await.unwrap();
    assert_eq!(titles(&page), ["s0"]);
    assert_eq!(page.total, 7);
    let page = store.list_scraps(org.id, &filter(9, 3)).await.unwrap();
    assert_eq!(titles(&page), Vec::<&str>::new());
    assert_eq!(page.total, 7);
    let page = store.list_scraps(org.id, &filter(0, 100)).await.unwrap();
    assert_eq!(titles(&page), ["s6", "s5", "s4", "s3", "s2", "s1", "s0"]);
}

async fn list_scraps_search(store: Arc<dyn Store>) {
    let (org, user) = account(&store, "ada@example.com").await;
    let (other_org, other_user) = account(&store, "bob@example.com").await;
    let t0 = now();
    let mut n = 0;
    let mut add = async |title: &str, description: &str, url: &str| {
        n += 1;
        let s = Scrap {
            description: description.into(),
            url: url.into(),
            ..scrap(&user, title, t0 + Duration::seconds(n))
        };
        insert_scrap(&store, &s).await;
    };
    add("Weekly PRICES", "", "https://a.example/").await;
    add("in description", "Tracks the prices of bikes", "https://b.example/").await;
    add("in url", "", "https://shop.example/Prices/list").await;
    add("100% cotton", "", "https://c.example/").await;
    add("100 percent", "", "https://d.example/").await;
    add("under_score", "", "https://e.example/").await;
    add("underXscore", "", "https://f.example/").await;
    add("back\\slash", "", "https://g.example/").await;
    add("backXslash", "", "https://h.example/").await;
    // The same words in another organization are never found.
    insert_scrap(&store, &scrap(&other_user, "prices 100% under_score", t0)).await;

    for (query, expected) in [
        ("prices", &["in url", "in description", "Weekly PRICES"][..]),
        ("PrIcEs", &["in url", "in description", "Weekly PRICES"][..]),
        ("weekly", &["Weekly PRICES"][..]),
        ("SHOP.EXAMPLE", &["in url"][..]),
        ("bikes", &["in description"][..]),
        // LIKE metacharacters match themselves only.
        ("%", &["100% cotton"][..]),
        ("0% c", &["100% cotton"][..]),
        ("_", &["under_score"][..]),
        ("r_s", &["under_score"][..]),
        ("\\", &["back\\slash"][..]),
        ("k\\s", &["back\\slash"][..]),
        ("nothing like this", &[][..]),
    ] {
        let page = store.list_scraps(org.id, &search(query)).await.unwrap();
        assert_eq!(titles(&page), expected, "search {query:?}");
        assert_eq!(page.total, expected.len() as i64, "total of search {query:?}");
    }

    // The total counts every match, the page holds the requested slice.
    let page = store.list_scraps(org.id, &ScrapFilter { offset: 1, limit: 1, ..search("prices") }).await.unwrap();
    assert_eq!(titles(&page), ["in description"]);
    assert_eq!(page.total, 3);

    let page = store.list_scraps(other_org.id, &search("%")).await.unwrap();
    assert_eq!(titles(&page), ["prices 100% under_score"]);
}

/// Case-insensitive search beyond ASCII: titles are free text (accents,
/// other scripts), and searching a title exactly as it is stored must find it.
async fn list_scraps_search_non_ascii(store: Arc<dyn Store>) {
    let (org, user) = account(&store, "ada@example.com").await;
    let t0 = now();
    insert_scrap(&store, &scrap(&user, "Été à Paris", t0)).await;
    insert_scrap(&store, &scrap(&user, "ÜBER Straße", t0 + Duration::seconds(1))).await;
    insert_scrap(&store, &scrap(&user, "Ελληνικά", t0 + Duration::seconds(2))).await;
    insert_scrap(&store, &scrap(&user, "plain ascii", t0 + Duration::seconds(3))).await;

    for (query, expected) in [
        ("Été à Paris", "Été à Paris"),
        ("été", "Été à Paris"),
        ("ÉTÉ", "Été à Paris"),
        ("ÜBER", "ÜBER Straße"),
        ("über straße", "ÜBER Straße"),
        ("Ελληνικά", "Ελληνικά"),
        ("ελληνικά", "Ελληνικά"),
    ] {
        let page = store.list_scraps(org.id, &search(query)).await.unwrap();
        assert_eq!(titles(&page), [expected], "search {query:?} on {}", store.backend());
        assert_eq!(page.total, 1, "total of search {query:?} on {}", store.backend());
    }
}

async fn list_scraps_only(store: Arc<dyn Store>) {
    let (org, user) = account(&store, "ada@example.com").await;
    let (_, other_user) = account(&store, "bob@example.com").await;
    let t0 = now();
    let a: Vec<Scrap> = (0..4).map(|i| scrap(&user, &format!("a{i}"), t0 + Duration::seconds(i))).collect();
    for s in &a {
        insert_scrap(&store, s).await;
    }
    let foreign = scrap(&other_user, "foreign", t0);
    insert_scrap(&store, &foreign).await;

    let only = |ids: Vec<ScrapId>| ScrapFilter { only: Some(ids), ..filter(0, 10) };
    let page = store.list_scraps(org.id, &only(vec![a[0].id, a[2].id, foreign.id, ScrapId::new()])).await.unwrap();
    assert_eq!(titles(&page), ["a2", "a0"]);
    assert_eq!(page.total, 2);

    let second = ScrapFilter { offset: 1, limit: 1, ..only(vec![a[0].id, a[2].id]) };
    let page = store.list_scraps(org.id, &second).await.unwrap();
    assert_eq!(titles(&page), ["a0"]);
    assert_eq!(page.total, 2);

    let searched = ScrapFilter { search: Some("A3".into()), ..only(vec![a[1].id, a[3].id]) };
    let page = store.list_scraps(org.id, &searched).await.unwrap();
    assert_eq!(titles(&page), ["a3"]);
    assert_eq!(page.total, 1);

    // An empty allow-list allows nothing (it is not "no filter").
    let page = store.list_scraps(org.id, &only(vec![])).await.unwrap();
    assert_eq!(page, Page { items: vec![], total: 0 });
}

async fn list_scraps_failing(store: Arc<dyn Store>) {
    let (org, user) = account(&store, "ada@example.com").await;
    let (other_org, other_user) = account(&store, "bob@example.com").await;
    let t0 = now();
    // (title, outcomes of its runs, oldest first): failing when the newest
    // finished as error, empty or regression.
    let cases: [(&str, &[Option<StatusDetail>]); 8] = [
        ("never run", &[]),
        ("ok", &[Some(StatusDetail::Error), Some(StatusDetail::Success)]),
        ("broken", &[Some(StatusDetail::Success), Some(StatusDetail::Error)]),
        ("empty", &[Some(StatusDetail::Empty)]),
        ("shrunk", &[Some(StatusDetail::Success), Some(StatusDetail::Regression)]),
        ("pending after error", &[Some(StatusDetail::Error), None]),
        ("broken too", &[Some(StatusDetail::Error)]),
        ("recovered", &[Some(StatusDetail::Empty), Some(StatusDetail::Regression), Some(StatusDetail::Success)]),
    ];
    for (i, (title, outcomes)) in cases.iter().enumerate() {
        let s = scrap(&user, title, t0 + Duration::seconds(i as i64));
        insert_scrap(&store, &s).await;
        for (j, outcome) in outcomes.iter().enumerate() {
            let row = HistoryRow { status_detail: *outcome, ..history(&s, t0 + Duration::seconds(j as i64)) };
            store.insert_history(&row).await.unwrap();
        }
    }
    let foreign = scrap(&other_user, "foreign broken", t0);
    insert_scrap(&store, &foreign).await;
    store
        .insert_history(&HistoryRow { status_detail: Some(StatusDetail::Error), ..history(&foreign, t0) })
        .await
        .unwrap();

    let failing = ScrapFilter { failing: true, ..filter(0, 100) };
    let page = store.list_scraps(org.id, &failing).await.unwrap();
    assert_eq!(titles(&page), ["broken too", "shrunk", "empty", "broken"], "on {}", store.backend());
    assert_eq!(page.total, 4);
    assert_eq!(store.list_scraps(org.id, &filter(0, 100)).await.unwrap().total, 8, "off: every scrap");

    // With paging, search and an allow-list.
    let page = store.list_scraps(org.id, &ScrapFilter { offset: 1, limit: 2, ..failing.clone() }).await.unwrap();
    assert_eq!((titles(&page), page.total), (vec!["shrunk", "empty"], 4));
    let page =
        store.list_scraps(org.id, &ScrapFilter { search: Some("BROKEN".into()), ..failing.clone() }).await.unwrap();
    assert_eq!((titles(&page), page.total), (vec!["broken too", "broken"], 2));
    let allowed = store.list_scraps(org.id, &filter(0, 100)).await.unwrap().items;
    let only = allowed.iter().filter(|s| ["ok", "empty"].contains(&s.title.as_str())).map(|s| s.id).collect();
    let page = store.list_scraps(org.id, &ScrapFilter { only: Some(only), ..failing.clone() }).await.unwrap();
    assert_eq!((titles(&page), page.total), (vec!["empty"], 1));

    let page = store.list_scraps(other_org.id, &failing).await.unwrap();
    assert_eq!((titles(&page), page.total), (vec!["foreign broken"], 1));
}

// ---------------------------------------------------------------------------
// History
// ---------------------------------------------------------------------------

async fn history_rows(store: Arc<dyn Store>) {
    let (org, user) = account(&store, "ada@example.com").await;
    let (other_org, other_user) = account(&store, "bob@example.com").await;
    let t0 = now();
    let s1 = scrap(&user, "s1", t0);
    let s2 = scrap(&user, "s2", t0);
    let foreign = scrap(&other_user, "foreign", t0);
    for s in [&s1, &s2, &foreign] {
        insert_scrap(&store, s).await;
    }

    // Created at t0+0s .. t0+4s, alternating scraps, inserted out of order.
    let rows = [
        full_history(&s1, t0 + Duration::seconds(0)),
        history(&s2, t0 + Duration::seconds(1)),
        HistoryRow { status_detail: Some(StatusDetail::Success), ..history(&s1, t0 + Duration::seconds(2)) },
        full_history(&s2, t0 + Duration::seconds(3)),
        history(&s1, t0 + Duration::seconds(4)),
    ];
    for i in [3, 0, 4, 1, 2] {
        store.insert_history(&rows[i]).await.unwrap();
    }
    let foreign_row = full_history(&foreign, t0 + Duration::seconds(9));
    store.insert_history(&foreign_row).await.unwrap();

    for row in &rows {
        assert_eq!(store.history_row(org.id, row.id).await.unwrap().as_ref(), Some(row));
        assert_eq!(store.history_row(other_org.id, row.id).await.unwrap(), None);
    }
    assert_eq!(store.history_row(other_org.id, foreign_row.id).await.unwrap(), Some(foreign_row.clone()));
    assert_eq!(store.history_row(org.id, foreign_row.id).await.unwrap(), None);
    assert_eq!(store.history_row(org.id, HistoryId::new()).await.unwrap(), None);

    match store.insert_history(&rows[0]).await {
        Err(StoreError::Conflict(_)) => {}
        other => panic!("expected a conflict on a duplicate history id, got {other:?}"),
    }

    let page = store.list_history(org.id, &history_filter(0, 10)).await.unwrap();
    assert_eq!(page.items, [&rows[4], &rows[3], &rows[2], &rows[1], &rows[0]].map(Clone::clone));
    assert_eq!(page.total, 5);

    let page = store.list_history(org.id, &history_filter(1, 2)).await.unwrap();
    assert_eq!(ids(&page.items, |h| h.id), [rows[3].id, rows[2].id]);
    assert_eq!(page.total, 5);

    let of_s1 = HistoryFilter { scrap: Some(s1.id), ..history_filter(0, 10) };
    let page = store.list_history(org.id, &of_s1).await.unwrap();
    assert_eq!(ids(&page.items, |h| h.id), [rows[4].id, rows[2].id, rows[0].id]);
    assert_eq!(page.total, 3);
    let page = store.list_history(org.id, &HistoryFilter { offset: 2, ..of_s1.clone() }).await.unwrap();
    assert_eq!(ids(&page.items, |h| h.id), [rows[0].id]);
    assert_eq!(page.total, 3);

    let only_s2 = HistoryFilter { only_scraps: Some(vec![s2.id, foreign.id]), ..history_filter(0, 10) };
    let page = store.list_history(org.id, &only_s2).await.unwrap();
    assert_eq!(ids(&page.items, |h| h.id), [rows[3].id, rows[1].id]);
    assert_eq!(page.total, 2);

    // A scrap outside the allow-list yields nothing.
    let page = store.list_history(org.id, &HistoryFilter { scrap: Some(s1.id), ..only_s2.clone() }).await.unwrap();
    assert_eq!(page, Page { items: vec![], total: 0 });
    let page = store.list_history(org.id, &HistoryFilter { scrap: Some(s2.id), ..only_s2 }).await.unwrap();
    assert_eq!(page.total, 2);

    let empty_allow_list = HistoryFilter { only_scraps: Some(vec![]), ..history_filter(0, 10) };
    assert_eq!(store.list_history(org.id, &empty_allow_list).await.unwrap(), Page { items: vec![], total: 0 });

    // Another organization's scrap id filters to nothing.
    let theirs = HistoryFilter { scrap: Some(foreign.id), ..history_filter(0, 10) };
    assert_eq!(store.list_history(org.id, &theirs).await.unwrap().total, 0);
    let page = store.list_history(other_org.id, &history_filter(0, 10)).await.unwrap();
    assert_eq!(page.items, [foreign_row]);
}

fn summary(row: &HistoryRow) -> RunSummary {
    RunSummary {
        id: row.id,
        scrap_id: row.scrap_id.unwrap(),
        status_detail: row.status_detail,
        length: row.length,
        time_ms: row.time_ms,
        triggered_by: row.triggered_by,
        created_at: row.created_at,
        finished_at: row.finished_at,
    }
}

async fn run_summaries_of_the_organization(store: Arc<dyn Store>) {
    let (org, user) = account(&store, "ada@example.com").await;
    let (other_org, other_user) = account(&store, "bob@example.com").await;
    let t0 = now();
    let (s1, s2, foreign) = (scrap(&user, "s1", t0), scrap(&user, "s2", t0), scrap(&other_user, "foreign", t0));
    for s in [&s1, &s2, &foreign] {
        insert_scrap(&store, s).await;
    }
    let rows = [full_history(&s1, t0), history(&s2, t0 + Duration::seconds(1)), full_history(&s2, t0)];
    for row in &rows {
        store.insert_history(row).await.unwrap();
    }
    let foreign_row = full_history(&foreign, t0);
    store.insert_history(&foreign_row).await.unwrap();

    let asked = [rows[2].id, foreign_row.id, HistoryId::new(), rows[0].id, rows[1].id, rows[0].id];
    let mut got = store.run_summaries(org.id, &asked).await.unwrap();
    got.sort_by_key(|s| s.id);
    let mut expected: Vec<RunSummary> = rows.iter().map(summary).collect();
    expected.sort_by_key(|s| s.id);
    assert_eq!(got, expected, "each of the organization's rows once; foreign and unknown ids left out");
    assert_eq!(got.iter().find(|s| s.id == rows[0].id).unwrap().status_detail, Some(StatusDetail::Regression));
    assert_eq!(got.iter().find(|s| s.id == rows[1].id).unwrap().finished_at, None);

    assert_eq!(store.run_summaries(org.id, &[]).await.unwrap(), []);
    assert_eq!(store.run_summaries(other_org.id, &[rows[0].id]).await.unwrap(), []);
    assert_eq!(store.run_summaries(other_org.id, &[foreign_row.id]).await.unwrap(), [summary(&foreign_row)]);
}

async fn run_neighbours_in_creation_order(store: Arc<dyn Store>) {
    let (org, user) = account(&store, "ada@example.com").await;
    let (other_org, _) = account(&store, "bob@example.com").await;
    let t0 = now();
    let s = scrap(&user, "s", t0);
    let other = scrap(&user, "other", t0);
    insert_scrap(&store, &s).await;
    insert_scrap(&store, &other).await;
    let ok = |at: i64| HistoryRow {
        status_detail: Some(StatusDetail::Success),
        data: format!("[{at}]"),
        length: 1,
        ..history(&s, t0 + Duration::seconds(at))
    };
    let failed =
        |at: i64| HistoryRow { status_detail: Some(StatusDetail::Error), ..history(&s, t0 + Duration::seconds(at)) };
    // Two runs created in the same millisecond are ordered by id.
    let (mut tie_a, mut tie_b) = (failed(3), ok(3));
    if tie_b.id < tie_a.id {
        std::mem::swap(&mut tie_a.id, &mut tie_b.id);
    }
    let runs = [ok(0), ok(1), failed(2), tie_a, tie_b, failed(4), history(&s, t0 + Duration::seconds(5))];
    for row in runs.iter().rev() {
        store.insert_history(row).await.unwrap();
    }
    // Runs of another scrap in between change nothing.
    for at in [1, 3, 6] {
        let theirs =
            HistoryRow { status_detail: Some(StatusDetail::Success), ..history(&other, t0 + Duration::seconds(at)) };
        store.insert_history(&theirs).await.unwrap();
    }

    let around = |i: usize| {
        let store = store.clone();
        let row = runs[i].clone();
        async move { store.run_neighbours(org.id, &row).await.unwrap() }
    };
    let first = around(0).await;
    assert_eq!((first.previous, first.next, first.previous_success), (None, Some(runs[1].id), None));
    let second = around(1).await;
    assert_eq!((second.previous, second.next), (Some(runs[0].id), Some(runs[2].id)));
    assert_eq!(second.previous_success.as_ref(), Some(&runs[0]), "the full row, data included");
    let failed_one = around(2).await;
    assert_eq!((failed_one.previous, failed_one.next), (Some(runs[1].id), Some(runs[3].id)));
    assert_eq!(failed_one.previous_success.as_ref(), Some(&runs[1]));
    let tie_first = around(3).await;
    assert_eq!((tie_first.previous, tie_first.next), (Some(runs[2].id), Some(runs[4].id)));
    assert_eq!(tie_first.previous_success.as_ref(), Some(&runs[1]));
    let tie_second = around(4).await;
    assert_eq!((tie_second.previous, tie_second.next), (Some(runs[3].id), Some(runs[5].id)));
    assert_eq!(tie_second.previous_success.as_ref(), Some(&runs[1]), "a successful run is not its own predecessor");
    let after_tie = around(5).await;
    assert_eq!(after_tie.previous_success.as_ref(), Some(&runs[4]));
    let last = around(6).await;
    assert_eq!((last.previous, last.next), (Some(runs[5].id), None));
    assert_eq!(last.previous_success.as_ref(), Some(&runs[4]));

    // Another organization sees nothing around the row.
    assert_eq!(store.run_neighbours(other_org.id, &runs[2]).await.unwrap(), RunNeighbours::default());
}

async fn scrap_history_lists_most_recent_ids(store: Arc<dyn Store>) {
    let (org, user) = account(&store, "ada@example.com").await;
    let t0 = now();
    let busy = scrap(&user, "busy", t0);
    let quiet = scrap(&user, "quiet", t0 + Duration::seconds(1));
    let idle = scrap(&user, "idle", t0 + Duration::seconds(2));
    for s in [&busy, &quiet, &idle] {
        insert_scrap(&store, s).await;
    }

    let runs: Vec<HistoryRow> = (0..55).map(|i| history(&busy, t0 + Duration::seconds(i))).collect();
    // Inserted newest first, so that insertion order is not the answer.
    for row in runs.iter().rev() {
        store.insert_history(row).await.unwrap();
    }
    let quiet_runs = [history(&quiet, t0 + Duration::seconds(100)), history(&quiet, t0 + Duration::seconds(50))];
    for row in &quiet_runs {
        store.insert_history(row).await.unwrap();
    }

    let expected: Vec<HistoryId> = runs.iter().rev().take(HISTORY_IDS_CAP).map(|h| h.id).collect();
    assert_eq!(expected.len(), 50);
    assert_eq!(expected[0], runs[54].id);
    assert_eq!(expected[49], runs[5].id);

    let got = store.scrap(org.id, busy.id).await.unwrap().unwrap();
    assert_eq!(got.history, expected);
    assert_eq!(store.scrap(org.id, quiet.id).await.unwrap().unwrap().history, [quiet_runs[0].id, quiet_runs[1].id]);
    assert_eq!(store.scrap(org.id, idle.id).await.unwrap().unwrap().history, []);

    let page = store.list_scraps(org.id, &filter(0, 10)).await.unwrap();
    assert_eq!(titles(&page), ["idle", "quiet", "busy"]);
    assert_eq!(page.items[0].history, []);
    assert_eq!(page.items[1].history, [quiet_runs[0].id, quiet_runs[1].id]);
    assert_eq!(page.items[2].history, expected);
    // The list and the single read agree on every field.
    assert_eq!(page.items[2], got);
}

/// Runs inserted in the order they were made (the usual case, each the
/// newest) go first in `history_ids`, which stays cut to the cap; a row
/// older than the first one makes the list from the rows again. Runs of
/// one millisecond order by id.
async fn scrap_history_follows_each_new_run(store: Arc<dyn Store>) {
    let (org, user) = account(&store, "steady@example.com").await;
    let t0 = now();
    let steady = scrap(&user, "steady", t0);
    insert_scrap(&store, &steady).await;
    let ids = || async { store.scrap(org.id, steady.id).await.unwrap().unwrap().history };

    let mut runs: Vec<HistoryRow> = (0..55).map(|i| history(&steady, t0 + Duration::seconds(i))).collect();
    // Two more in the last one's millisecond, made after it (greater ids).
    runs.extend((0..2).map(|_| history(&steady, t0 + Duration::seconds(54))));
    for row in &runs {
        store.insert_history(row).await.unwrap();
    }
    let newest_first = |runs: &[HistoryRow]| {
        let mut sorted: Vec<&HistoryRow> = runs.iter().collect();
        sorted.sort_by_key(|h| std::cmp::Reverse((h.created_at, h.id)));
        sorted.iter().take(HISTORY_IDS_CAP).map(|h| h.id).collect::<Vec<HistoryId>>()
    };
    let listed = ids().await;
    assert_eq!(listed, newest_first(&runs));
    assert_eq!(listed[..3], [runs[56].id, runs[55].id, runs[54].id]);

    // A row made between two listed ones: the list is made again, with it in place.
    let between = history(&steady, t0 + Duration::milliseconds(53_500));
    store.insert_history(&between).await.unwrap();
    runs.push(between.clone());
    let listed = ids().await;
    assert_eq!(listed, newest_first(&runs));
    assert_eq!(listed[3], between.id, "after the three of second 54");
    assert_eq!(listed.len(), HISTORY_IDS_CAP);
}

async fn delete_scrap_removes_history_keeps_activities(store: Arc<dyn Store>) {
    let (org, user) = account(&store, "ada@example.com").await;
    let t0 = now();
    let doomed = scrap(&user, "doomed", t0);
    let kept = scrap(&user, "kept", t0);
    insert_scrap(&store, &doomed).await;
    insert_scrap(&store, &kept).await;
    let doomed_runs: Vec<HistoryRow> = (0..3).map(|i| history(&doomed, t0 + Duration::seconds(i))).collect();
    for row in &doomed_runs {
        store.insert_history(row).await.unwrap();
    }
    let kept_run = history(&kept, t0);
    store.insert_history(&kept_run).await.unwrap();

    let update = activity(org.id, doomed.id, "scrap.updated", t0 + Duration::seconds(5));
    let renamed = Scrap { title: "renamed".into(), ..doomed.clone() };
    assert!(store.update_scrap(org.id, &renamed, &update).await.unwrap());
    let delete = activity(org.id, doomed.id, "scrap.deleted", t0 + Duration::seconds(6));
    assert!(store.delete_scrap(org.id, doomed.id, &delete).await.unwrap());

    for row in &doomed_runs {
        assert_eq!(store.history_row(org.id, row.id).await.unwrap(), None);
    }
    let of_doomed = HistoryFilter { scrap: Some(doomed.id), ..history_filter(0, 10) };
    assert_eq!(store.list_history(org.id, &of_doomed).await.unwrap(), Page { items: vec![], total: 0 });
    assert_eq!(store.history_row(org.id, kept_run.id).await.unwrap(), Some(kept_run.clone()));
    assert_eq!(
        store.list_history(org.id, &history_filter(0, 10)).await.unwrap().items,
        std::slice::from_ref(&kept_run)
    );
    assert_eq!(store.scrap(org.id, kept.id).await.unwrap().unwrap().history, [kept_run.id]);

    let log = store.list_activities(org.id, doomed.id, 0, 10).await.unwrap();
    assert_eq!(log.total, 3);
    assert_eq!(log.items[0], delete);
    assert_eq!(log.items[1], update);
    assert_eq!(log.items[2].kind, "scrap.created");
}

// ---------------------------------------------------------------------------
// API keys
// ---------------------------------------------------------------------------

async fn api_keys(store: Arc<dyn Store>) {
    let (org, user) = account(&store, "ada@example.com").await;
    let (other_org, other_user) = account(&store, "bob@example.com").await;
    let t0 = now();
    let log_scrap = ScrapId::new();

    let key = ApiKey { scopes: vec![], scrap_ids: vec![], expires_at: None, ..api_key(&user, "ci", t0) };
    let created = activity(org.id, log_scrap, "key.created", t0);
    store.insert_key(&key, "hash-ci", std::slice::from_ref(&created)).await.unwrap();
    assert_eq!(
        store.key_by_hash("hash-ci").await.unwrap(),
        Some(KeyOwner { key: key.clone(), owner_is_admin: false, owner_role: Role::Owner })
    );
    assert_eq!(store.key_by_hash("hash-unknown").await.unwrap(), None);
    assert!(store.set_admin(org.id, user.id, true).await.unwrap());
    assert_eq!(
        store.key_by_hash("hash-ci").await.unwrap(),
        Some(KeyOwner { key: key.clone(), owner_is_admin: true, owner_role: Role::Owner })
    );
    assert!(store.set_admin(org.id, user.id, false).await.unwrap());
    assert!(!store.key_by_hash("hash-ci").await.unwrap().unwrap().owner_is_admin);
    assert_eq!(store.list_activities(org.id, log_scrap, 0, 10).await.unwrap().items, std::slice::from_ref(&created));

    // More keys, one second apart, one of them already revoked.
    let keys: Vec<ApiKey> = (1..=4).map(|i| api_key(&user, &format!("key{i}"), t0 + Duration::seconds(i))).collect();
    for (i, k) in keys.iter().enumerate() {
        store.insert_key(k, &format!("hash-{i}"), &[]).await.unwrap();
    }
    let old =
        ApiKey { revoked_at: Some(t0 + Duration::seconds(6)), ..api_key(&user, "old", t0 + Duration::seconds(5)) };
    store.insert_key(&old, "hash-old", &[]).await.unwrap();
    let foreign = api_key(&other_user, "foreign", t0 + Duration::seconds(7));
    store.insert_key(&foreign, "hash-foreign", &[]).await.unwrap();
    assert_eq!(store.key_by_hash("hash-2").await.unwrap().unwrap().key, keys[2]);

    let page = store.list_keys(org.id, 0, 10).await.unwrap();
    assert_eq!(page.items, [&keys[3], &keys[2], &keys[1], &keys[0], &key].map(Clone::clone));
    assert_eq!(page.total, 5);
    let page = store.list_keys(org.id, 1, 2).await.unwrap();
    assert_eq!(ids(&page.items, |k| k.id), [keys[2].id, keys[1].id]);
    assert_eq!(page.total, 5);
    let page = store.list_keys(org.id, 4, 2).await.unwrap();
    assert_eq!(ids(&page.items, |k| k.id), [key.id]);
    let page = store.list_keys(other_org.id, 0, 10).await.unwrap();
    assert_eq!(page, Page { items: vec![foreign.clone()], total: 1 });

    assert_eq!(store.key(org.id, keys[1].id).await.unwrap().as_ref(), Some(&keys[1]));
    assert_eq!(store.key(other_org.id, keys[1].id).await.unwrap(), None);
    assert_eq!(store.key(org.id, foreign.id).await.unwrap(), None);
    assert_eq!(store.key(org.id, old.id).await.unwrap(), None, "a revoked key is not returned");

    // Revoking through another organization does nothing and writes nothing.
    let at = t0 + Duration::milliseconds(8_765);
    let revoked = activity(org.id, log_scrap, "key.revoked", at);
    let foreign_attempt = activity(other_org.id, log_scrap, "key.revoked", at);
    assert!(!store.revoke_key(other_org.id, keys[1].id, at, &[foreign_attempt]).await.unwrap());
    assert_eq!(store.key(org.id, keys[1].id).await.unwrap().as_ref(), Some(&keys[1]));
    assert_eq!(store.list_activities(other_org.id, log_scrap, 0, 10).await.unwrap().total, 0);

    let revoked2 = activity(org.id, ScrapId::new(), "key.revoked", at);
    assert!(store.revoke_key(org.id, keys[1].id, at, &[revoked.clone(), revoked2.clone()]).await.unwrap());
    assert_eq!(store.key(org.id, keys[1].id).await.unwrap(), None);
    let page = store.list_keys(org.id, 0, 10).await.unwrap();
    assert_eq!(ids(&page.items, |k| k.id), [keys[3].id, keys[2].id, keys[0].id, key.id]);
    assert_eq!(page.total, 4);
    // Authentication still finds it, marked revoked at the given time.
    let owner = store.key_by_hash("hash-1").await.unwrap().unwrap();
    assert_eq!(owner.key, ApiKey { revoked_at: Some(at), ..keys[1].clone() });
    assert_eq!(store.list_activities(org.id, log_scrap, 0, 10).await.unwrap().items, [revoked.clone(), created]);
    assert_eq!(
        store.list_activities(org.id, revoked2.scrap_id, 0, 10).await.unwrap().items,
        std::slice::from_ref(&revoked2)
    );

    // A second revocation is refused and writes nothing.
    let again = activity(org.id, log_scrap, "key.revoked", at + Duration::seconds(1));
    assert!(!store.revoke_key(org.id, keys[1].id, at + Duration::seconds(1), &[again]).await.unwrap());
    assert_eq!(store.list_activities(org.id, log_scrap, 0, 10).await.unwrap().total, 2);
    assert_eq!(store.key_by_hash("hash-1").await.unwrap().unwrap().key.revoked_at, Some(at));
    assert!(!store.revoke_key(org.id, old.id, at, &[]).await.unwrap());
    assert!(!store.revoke_key(org.id, KeyId::new(), at, &[]).await.unwrap());

    // A hash collision is a conflict; neither the key nor its activities are written.
    let clash = api_key(&user, "clash", t0 + Duration::seconds(20));
    let clash_activity = activity(org.id, ScrapId::new(), "key.created", t0);
    match store.insert_key(&clash, "hash-ci", std::slice::from_ref(&clash_activity)).await {
        Err(StoreError::Conflict(what)) => assert_eq!(what, "key"),
        other => panic!("expected Conflict(\"key\"), got {other:?}"),
    }
    assert_eq!(store.key(org.id, clash.id).await.unwrap(), None);
    assert_eq!(store.key_by_hash("hash-ci").await.unwrap().unwrap().key, key);
    assert_eq!(store.list_activities(org.id, clash_activity.scrap_id, 0, 10).await.unwrap().total, 0);
}

// ---------------------------------------------------------------------------
// Activities
// ---------------------------------------------------------------------------

async fn activities_newest_first(store: Arc<dyn Store>) {
    let (org, user) = account(&store, "ada@example.com").await;
    let (other_org, other_user) = account(&store, "bob@example.com").await;
    let t0 = now();
    let s = scrap(&user, "s", t0);
    let created = activity(org.id, s.id, "scrap.created", t0);
    store.insert_scrap(&s, &created).await.unwrap();

    // Written out of chronological order.
    let mut expected = vec![created];
    for secs in [30, 10, 20, 40] {
        let a = Activity {
            actor: format!("user:{}", user.id),
            history_id: Some(HistoryId::new()),
            ..activity(org.id, s.id, "scrap.updated", t0 + Duration::seconds(secs))
        };
        assert!(store.update_scrap(org.id, &s, &a).await.unwrap());
        expected.push(a);
    }
    expected.sort_by_key(|a| std::cmp::Reverse(a.created_at));

    let page = store.list_activities(org.id, s.id, 0, 10).await.unwrap();
    assert_eq!(page.items, expected);
    assert_eq!(page.total, 5);
    let page = store.list_activities(org.id, s.id, 1, 2).await.unwrap();
    assert_eq!(page.items, expected[1..3]);
    assert_eq!(page.total, 5);
    let page = store.list_activities(org.id, s.id, 5, 2).await.unwrap();
    assert_eq!(page, Page { items: vec![], total: 5 });

    // Scoped by organization: another one sees none of them, even by scrap id.
    assert_eq!(store.list_activities(other_org.id, s.id, 0, 10).await.unwrap(), Page { items: vec![], total: 0 });
    let theirs = scrap(&other_user, "theirs", t0);
    insert_scrap(&store, &theirs).await;
    assert_eq!(store.list_activities(org.id, theirs.id, 0, 10).await.unwrap().total, 0);
    assert_eq!(store.list_activities(other_org.id, theirs.id, 0, 10).await.unwrap().total, 1);
    assert_eq!(store.list_activities(org.id, ScrapId::new(), 0, 10).await.unwrap().total, 0);
}

/// A claim near what a worker keeps warm: the oldest queued run of the
/// organization (on the URL prefix, when given) among those queued within
/// the window of the oldest; nothing of another organization, and nothing
/// when none fits (the caller then takes the oldest).
async fn run_queue_claims_near_warm_pages(store: Arc<dyn Store>) {
    let (org_a, user_a) = account(&store, "near-a@example.com").await;
    let (org_b, user_b) = account(&store, "near-b@example.com").await;
    let on = |user: &User, title: &str, url: &str| Scrap { url: url.into(), ..scrap(user, title, now()) };
    let a_x = on(&user_a, "a on x", "http://x_test:8080/items?page=1");
    let a_y = on(&user_a, "a on y", "http://y.test/list");
    // A URL that a pattern with an unescaped `_` would take for x's.
    let a_like = on(&user_a, "a on x, or so", "http://xytest:8080/items");
    let b_x = on(&user_b, "b on x", "http://x_test:8080/items");
    for s in [&a_x, &a_y, &a_like, &b_x] {
        insert_scrap(&store, s).await;
    }
    let t0 = now();
    let mut queued = Vec::new();
    // Oldest first: b on x, a on y, a on x, a "x_test", then a on x again 60 s later.
    for (s, at) in [(&b_x, 0), (&a_y, 1), (&a_x, 2), (&a_like, 3), (&a_x, 60_000)] {
        let row = history(s, t0 + Duration::milliseconds(at));
        let log = activity(s.organization_id, s.id, "run.triggered", now());
        store.enqueue_run(&row, &["default".to_string()], None, &log).await.unwrap();
        queued.push(row.id);
    }
    let lease = now() + Duration::minutes(5);
    let window = std::time::Duration::from_secs(5);
    let near = |org: OrgId, prefix: Option<&str>| Nearby { organization: org, url_prefix: prefix.map(str::to_string) };

    assert!(store.claim_run_near("default", "w", lease, &[], window).await.unwrap().is_none(), "nothing warm");
    let stranger = near(OrgId::new(), None);
    assert!(store.claim_run_near("default", "w", lease, &[stranger], window).await.unwrap().is_none());
    let other_container = store.claim_run_near("eu", "w", lease, &[near(org_a.id, None)], window).await.unwrap();
    assert!(other_container.is_none(), "containers still hold");

    // A page of a on x: a's run on x, though two runs are older.
    let x = near(org_a.id, Some("http://x_test:8080/"));
    let claim = store.claim_run_near("default", "w-1", lease, std::slice::from_ref(&x), window).await.unwrap().unwrap();
    assert_eq!((claim.history_id, claim.organization_id, claim.scrap_id), (queued[2], org_a.id, a_x.id));
    assert_eq!(claim.attempts, 1);
    assert_eq!(claim.url.as_deref(), Some(a_x.url.as_str()), "the scrap's URL comes with the claim");
    assert_eq!(claim.scrapper.as_deref(), Some(a_x.scrapper.as_str()), "and its engine");
    // The next run of a on x was queued a minute after the oldest: not passed ahead of it.
    assert!(store.claim_run_near("default", "w-1", lease, std::slice::from_ref(&x), window).await.unwrap().is_none());
    // A process of organization a (any URL): its oldest run within the window.
    let claim = store.claim_run_near("default", "w-2", lease, &[near(org_a.id, None)], window).await.unwrap().unwrap();
    assert_eq!(claim.history_id, queued[1], "a on y");
    let claim =
        store.claim_run_near("default", "w-2", lease, &[x.clone(), near(org_a.id, None)], window).await.unwrap();
    assert_eq!(claim.unwrap().history_id, queued[3], "the look-alike URL fits only the organization");
    // b's page: b's run, never a's.
    let bs_page = [near(org_b.id, Some("http://x_test:8080/"))];
    let claim = store.claim_run_near("default", "w-3", lease, &bs_page, window).await.unwrap().unwrap();
    assert_eq!((claim.history_id, claim.organization_id), (queued[0], org_b.id));
    // Now the late run is the oldest queued: it fits.
    let claim = store.claim_run_near("default", "w-1", lease, &[x], window).await.unwrap().unwrap();
    assert_eq!(claim.history_id, queued[4]);
    assert!(store.claim_run("default", "w", lease).await.unwrap().is_none(), "each run claimed once");
}

// ---------------------------------------------------------------------------
// One test per engine for each of the functions above
// ---------------------------------------------------------------------------

/// A claim carries what a worker needs of the pending row (who triggered
/// it, when it was queued) and tells, in the same statement, whether
/// another run for its container is still queued behind it.
async fn run_claims_tell_the_trigger_and_whether_more_are_queued(store: Arc<dyn Store>) {
    let (_, user) = account(&store, "next@example.com").await;
    let s = scrap(&user, "Next", now());
    insert_scrap(&store, &s).await;
    let lease = now() + Duration::minutes(5);
    assert_eq!(store.claim_next_run("default", "w", lease).await.unwrap(), None, "nothing queued");
    let first = history(&s, now());
    let second = HistoryRow { triggered_by: TriggeredBy::User, ..history(&s, now() + Duration::milliseconds(5)) };
    let elsewhere = history(&s, now() + Duration::milliseconds(10));
    for (row, container) in [(&first, "default"), (&second, "default"), (&elsewhere, "eu")] {
        let log = activity(s.organization_id, s.id, "run.triggered", now());
        store.enqueue_run(row, &[container.to_string()], None, &log).await.unwrap();
    }
    let next = store.claim_next_run("default", "w", lease).await.unwrap().unwrap();
    assert_eq!(
        (next.claim.history_id, next.claim.triggered_by, next.claim.enqueued_at),
        (first.id, Some(TriggeredBy::Cron), first.created_at)
    );
    assert_eq!(
        (next.claim.url.as_deref(), next.claim.scrapper.as_deref()),
        (Some(s.url.as_str()), Some(s.scrapper.as_str())),
        "with its scrap's URL and engine"
    );
    assert!(next.more_queued, "the second run is still queued");
    let next = store.claim_next_run("default", "w", lease).await.unwrap().unwrap();
    assert_eq!((next.claim.history_id, next.claim.triggered_by), (second.id, Some(TriggeredBy::User)));
    assert!(!next.more_queued, "the run queued for another container is not behind it");
    assert_eq!(store.claim_next_run("default", "w", lease).await.unwrap(), None);
    // The same claim as `claim_run` gives, and as an expired lease hands back.
    let released = next.claim.clone();
    assert!(store.release_run(&released).await.unwrap());
    let again = store.claim_run("default", "w", now() - Duration::seconds(1)).await.unwrap().unwrap();
    assert_eq!(
        (again.history_id, again.triggered_by, again.enqueued_at),
        (second.id, Some(TriggeredBy::User), second.created_at)
    );
    let expired = store.expire_leases(now(), 1).await.unwrap();
    assert_eq!(expired.lost, vec![again], "handed back with its trigger");
}

/// Which of the runs callers wait on have finished: one read for many
/// runs, each matched with its organization (a run id under another
/// organization is not reported), pending runs and unknown ids left out.
async fn finished_among_reports_the_finished_runs_of_each_organization(store: Arc<dyn Store>) {
    let (org, user) = account(&store, "among@example.com").await;
    let (other, other_user) = account(&store, "among-other@example.com").await;
    let (mine, theirs) = (scrap(&user, "Mine", now()), scrap(&other_user, "Theirs", now()));
    insert_scrap(&store, &mine).await;
    insert_scrap(&store, &theirs).await;
    let done = HistoryRow { status_detail: Some(StatusDetail::Success), ..history(&mine, now()) };
    let pending = history(&mine, now());
    let their_done = HistoryRow { status_detail: Some(StatusDetail::Error), ..history(&theirs, now()) };
    for row in [&done, &pending, &their_done] {
        store.insert_history(row).await.unwrap();
    }
    assert_eq!(store.finished_among(&[]).await.unwrap(), Vec::<HistoryId>::new());
    let mut asked =
        vec![(org.id, done.id), (org.id, pending.id), (other.id, their_done.id), (org.id, HistoryId::new())];
    // Their finished run asked for under the wrong organization: not reported.
    asked.push((org.id, their_done.id));
    let mut found = store.finished_among(&asked).await.unwrap();
    found.sort_by_key(|id| id.to_string());
    let mut expected = vec![done.id, their_done.id];
    expected.sort_by_key(|id| id.to_string());
    assert_eq!(found, expected);
    assert_eq!(store.finished_among(&[(org.id, their_done.id)]).await.unwrap(), Vec::<HistoryId>::new());
    // More runs than one statement takes.
    let many: Vec<(OrgId, HistoryId)> =
        (0..250).map(|_| (org.id, HistoryId::new())).chain([(org.id, done.id)]).collect();
    assert_eq!(store.finished_among(&many).await.unwrap(), vec![done.id]);
}

/// The scrap as a run reads it: with whether it has a site login, whether
/// its organization has an active webhook, the length of its last success
/// and its organization's balance and plan, in one read scoped by
/// organization.
async fn run_scrap_reads_what_a_run_needs(store: Arc<dyn Store>) {
    let (org, user) = account(&store, "runscrap@example.com").await;
    let (other, other_user) = account(&store, "other-runscrap@example.com").await;
    let t0 = now();
    let s = scrap(&user, "Run me", t0);
    insert_scrap(&store, &s).await;
    let theirs = scrap(&other_user, "Theirs", t0);
    insert_scrap(&store, &theirs).await;
    let run = store.run_scrap(org.id, s.id).await.unwrap().unwrap();
    assert_eq!(run.scrap, store.scrap(org.id, s.id).await.unwrap().unwrap());
    assert_eq!(
        (run.has_login, run.awaits_approval, run.has_webhooks, run.last_success_length, run.balance, run.plan),
        (false, false, false, None, org.balance, org.plan)
    );
    assert_eq!(store.run_scrap(other.id, s.id).await.unwrap(), None, "another organization's scrap");

    let ended = |at: DateTime<Utc>, detail: StatusDetail, length: i64| HistoryRow {
        status_detail: Some(detail),
        length,
        finished_at: Some(at),
        ..history(&s, at)
    };
    store.insert_history(&ended(t0, StatusDetail::Success, 3)).await.unwrap();
    store.insert_history(&ended(t0 + Duration::seconds(1), StatusDetail::Success, 5)).await.unwrap();
    store.insert_history(&ended(t0 + Duration::seconds(2), StatusDetail::Error, 0)).await.unwrap();
    let login = activity(org.id, s.id, "account.set", t0);
    assert!(store.set_site_account(org.id, s.id, &site_account("ada", "pw"), t0, false, &login).await.unwrap());
    store.insert_webhook(&webhook(&org, "https://hooks.example.com/a", t0)).await.unwrap();
    let idle = Webhook { active: false, ..webhook(&other, "https://hooks.example.com/b", t0) };
    store.insert_webhook(&idle).await.unwrap();
    let run = store.run_scrap(org.id, s.id).await.unwrap().unwrap();
    assert_eq!(
        (run.has_login, run.has_webhooks, run.last_success_length),
        (true, true, Some(5)),
        "the newest success, not the failure after it"
    );
    let theirs = store.run_scrap(other.id, theirs.id).await.unwrap().unwrap();
    assert_eq!(
        (theirs.has_login, theirs.has_webhooks, theirs.last_success_length),
        (false, false, None),
        "another organization's login, webhook and runs are not theirs; an inactive webhook does not count"
    );
}

/// Concurrent claimers never get the same run; each claim is honoured once;
/// runs are taken only by workers serving one of the scrap's containers.
/// An enqueue is one transaction (on SQLite one query, `BEGIN` and `COMMIT`
/// included): one that fails writes nothing of itself, and neither it nor a
/// caller that gave up waiting leaves the writer inside a transaction.
async fn an_enqueue_that_fails_or_is_abandoned_leaves_the_writer_usable(store: Arc<dyn Store>) {
    let (org, user) = account(&store, "enqueue@example.com").await;
    let s = scrap(&user, "Enqueued", now());
    insert_scrap(&store, &s).await;
    let default = ["default".to_string()];
    let first = history(&s, now());
    let log = activity(org.id, s.id, "run.triggered", now());
    store.enqueue_run(&first, &default, None, &log).await.unwrap();

    // The same row again: refused; its activity (a new one) was not written.
    let again = activity(org.id, s.id, "run.triggered", now());
    let refused = store.enqueue_run(&first, &default, None, &again).await;
    assert!(matches!(refused, Err(StoreError::Conflict(_))), "{refused:?}");
    let logged = store.list_activities(org.id, s.id, 0, 50).await.unwrap().items;
    assert!(logged.iter().any(|a| a.id == log.id) && !logged.iter().any(|a| a.id == again.id));

    // A caller that stops waiting at once, then writes that must go through.
    let abandoned = history(&s, now() + Duration::milliseconds(1));
    let gave_up = tokio::time::timeout(std::time::Duration::ZERO, store.enqueue_run(&abandoned, &default, None, &log));
    let _ = gave_up.await;
    let next = history(&s, now() + Duration::milliseconds(2));
    let next_log = activity(org.id, s.id, "run.triggered", now());
    store.enqueue_run(&next, &default, None, &next_log).await.unwrap();
    assert_eq!(store.queue_state(org.id, next.id).await.unwrap(), Some(QueueState::Queued));
    assert_eq!(store.queue_state(org.id, first.id).await.unwrap(), Some(QueueState::Queued));
    // The abandoned one was written whole or not at all.
    let row = store.history_row(org.id, abandoned.id).await.unwrap();
    let entry = store.queue_state(org.id, abandoned.id).await.unwrap();
    assert_eq!(row.is_some(), entry.is_some(), "row {row:?}, queue entry {entry:?}");
    let lease = now() + Duration::minutes(5);
    let claim = store.claim_run("default", "w-1", lease).await.unwrap().expect("a queued run");
    assert_eq!(claim.history_id, first.id, "the oldest first");
}

/// A run queued and claimed in one transaction (its trigger's process has a
/// worker with a free slot): running for that worker as a claim would have
/// it, no other worker's claim takes it, its claim finishes it, and its lease
/// expires as any claim's.
async fn a_run_queued_claimed_is_its_workers_like_any_claim(store: Arc<dyn Store>) {
    let (_, user) = account(&store, "queued-claimed@example.com").await;
    let s = scrap(&user, "Claimed at once", now());
    insert_scrap(&store, &s).await;
    let row = history(&s, now());
    let param = ParamSet { key: "k".into(), value: json!(1) };
    let log = activity(s.organization_id, s.id, "run.triggered", now());
    let containers = ["default".to_string()];
    let queued = QueuedRun { row: &row, containers: &containers, param: Some(&param), activity: &log };
    let lease = now() + Duration::minutes(5);
    let claim = store.enqueue_claimed_run(queued, "w-direct", lease).await.unwrap();
    assert_eq!((claim.history_id, claim.organization_id, claim.scrap_id), (row.id, s.organization_id, s.id));
    assert_eq!((claim.attempts, claim.worker_id.as_str()), (1, "w-direct"));
    assert_eq!((claim.url.as_deref(), claim.scrapper.as_deref()), (Some(s.url.as_str()), Some(s.scrapper.as_str())));
    assert_eq!(claim.param, Some(param.clone()));
    assert_eq!(claim.triggered_by, Some(row.triggered_by));
    assert!(store.claim_run("default", "w-other", lease).await.unwrap().is_none(), "not claimable again");
    let stored = store.history_row(s.organization_id, row.id).await.unwrap().unwrap();
    assert_eq!(stored.id, row.id, "the history row is written");
    let again = store.enqueue_claimed_run(queued, "w-direct", lease).await;
    assert!(matches!(again, Err(StoreError::Conflict(_))), "the same row twice: {again:?}");

    // The lease expires as any claim's: queued again, then claimed by another worker.
    let expired = store.expire_leases(lease + Duration::seconds(1), 2).await.unwrap();
    assert_eq!(expired.requeued, vec![row.id]);
    let reclaimed = store.claim_run("default", "w-other", lease + Duration::minutes(5)).await.unwrap().unwrap();
    assert_eq!((reclaimed.history_id, reclaimed.attempts), (row.id, 2));
    let mut done = stored.clone();
    done.status_detail = Some(StatusDetail::Success);
    done.finished_at = Some(now());
    let finished = activity(s.organization_id, s.id, "run.finished", now());
    assert!(store.finish_run(&claim, &FinishedRun::new(&done, 1, &finished)).await.unwrap().is_none(), "lost");
    assert!(store.finish_run(&reclaimed, &FinishedRun::new(&done, 1, &finished)).await.unwrap().is_some());
}

async fn run_queue_claims(store: Arc<dyn Store>) {
    let (_, user) = account(&store, "queue@example.com").await;
    let s = scrap(&user, "Queued", now());
    insert_scrap(&store, &s).await;
    let mut queued = BTreeSet::new();
    for i in 0..20 {
        let row = history(&s, now() + Duration::milliseconds(i));
        let param = ParamSet { key: "k".into(), value: json!(i) };
        let log = activity(s.organization_id, s.id, "run.triggered", now());
        store.enqueue_run(&row, &["default".to_string(), "eu-1".to_string()], Some(&param), &log).await.unwrap();
        queued.insert(row.id);
    }
    let lease = now() + Duration::minutes(5);
    assert!(store.claim_run("other", "w-x", lease).await.unwrap().is_none(), "no run for another container");
    assert!(store.claim_run("eu", "w-x", lease).await.unwrap().is_none(), "container ids match whole");
    for pattern in ["eu_1", "%", "eu%"] {
        let claim = store.claim_run(pattern, "w-x", lease).await.unwrap();
        assert!(claim.is_none(), "`{pattern}` is a container's name, not a pattern");
    }

    let mut tasks = Vec::new();
    for w in 0..8 {
        let store = store.clone();
        tasks.push(tokio::spawn(async move {
            let mut mine = Vec::new();
            let container = if w % 2 == 0 { "default" } else { "eu-1" };
            while let Some(claim) = store.claim_run(container, &format!("w-{w}"), lease).await.unwrap() {
                assert_eq!(claim.attempts, 1);
                assert_eq!(claim.worker_id, format!("w-{w}"));
                mine.push(claim);
            }
            mine
        }));
    }
    let mut claims = Vec::new();
    for t in tasks {
        claims.extend(t.await.unwrap());
    }
    let claimed: BTreeSet<HistoryId> = claims.iter().map(|c| c.history_id).collect();
    assert_eq!(claims.len(), 20, "every run claimed exactly once");
    assert_eq!(claimed, queued);
    assert!(claims.iter().all(|c| c.param.is_some()));

    // Finishing: once per claim; a lost claim writes nothing.
    let claim = &claims[0];
    let mut done = store.history_row(s.organization_id, claim.history_id).await.unwrap().unwrap();
    done.status_detail = Some(StatusDetail::Success);
    done.data = "[1]".into();
    done.length = 1;
    done.finished_at = Some(now());
    let before = store.organization(s.organization_id).await.unwrap().unwrap().balance;
    let log = activity(s.organization_id, s.id, "run.finished", now());
    let stored = store.finish_run(claim, &FinishedRun::new(&done, 3, &log)).await.unwrap().expect("the claim holds");
    let read = store.history_row(s.organization_id, claim.history_id).await.unwrap().unwrap();
    assert_eq!(stored, read, "finishing answers the row as a read of it does");
    assert_eq!(
        stored.finished_at,
        done.finished_at.map(|t| DateTime::from_timestamp_millis(t.timestamp_millis()).unwrap())
    );
    // Each attempt below with an activity of its own, so that nothing but
    // the lost claim stops it (the same activity twice would fail anyway).
    let fresh = || activity(s.organization_id, s.id, "run.finished", now());
    assert!(
        store.finish_run(claim, &FinishedRun::new(&done, 3, &fresh())).await.unwrap().is_none(),
        "a claim finishes once"
    );
    let mut stranger = claims[1].clone();
    stranger.worker_id = "someone-else".into();
    assert!(store.finish_run(&stranger, &FinishedRun::new(&done, 3, &fresh())).await.unwrap().is_none());
    assert_eq!(store.organization(s.organization_id).await.unwrap().unwrap().balance, before - 3);
    let activities = store.list_activities(s.organization_id, s.id, 0, 100).await.unwrap().items;
    assert_eq!(activities.iter().filter(|a| a.kind == "run.finished").count(), 1, "lost claims write no activity");
    let stored = store.history_row(s.organization_id, claim.history_id).await.unwrap().unwrap();
    assert_eq!(stored.status_detail, Some(StatusDetail::Success));
    assert_eq!(store.last_success(s.organization_id, s.id).await.unwrap().unwrap().id, claim.history_id);

    // Released: queued again at once, the attempt not counted; only by its claimant, once.
    let released = claims[1].clone();
    assert!(!store.release_run(&stranger).await.unwrap(), "only the claimant releases");
    assert!(!store.release_run(claim).await.unwrap(), "a finished run is not released");
    assert!(store.release_run(&released).await.unwrap());
    assert!(!store.release_run(&released).await.unwrap(), "a claim is released once");
    let reclaimed = store.claim_run("default", "w-next", now() + Duration::minutes(5)).await.unwrap().unwrap();
    assert_eq!((reclaimed.history_id, reclaimed.attempts), (released.history_id, 1), "the same attempt again");
    assert!(
        store.finish_run(&released, &FinishedRun::new(&done, 3, &fresh())).await.unwrap().is_none(),
        "the released claim is lost"
    );
    assert_eq!(store.organization(s.organization_id).await.unwrap().unwrap().balance, before - 3);
    let row = store.history_row(s.organization_id, released.history_id).await.unwrap().unwrap();
    assert_eq!((row.retries, row.status_detail), (0, None), "a release is not a retry");
    claims[1] = reclaimed;

    // Expired leases: requeued while attempts remain, then failed.
    let gone = now() + Duration::hours(1);
    let expired = store.expire_leases(gone, 2).await.unwrap();
    assert_eq!(expired.requeued.len(), 19);
    assert!(expired.lost.is_empty());
    let retried = store.history_row(s.organization_id, claims[1].history_id).await.unwrap().unwrap();
    assert_eq!(retried.retries, 1);
    let again = store.claim_run("default", "w-again", now() - Duration::seconds(1)).await.unwrap().unwrap();
    assert_eq!(again.attempts, 2);
    let expired = store.expire_leases(now(), 2).await.unwrap();
    assert_eq!(expired.lost, vec![again.clone()], "tried twice: handed back to be finished");
    let next = store.claim_run("default", "w-3", now() + Duration::minutes(5)).await.unwrap();
    assert_ne!(next.map(|c| c.history_id), Some(again.history_id), "a lost run is not claimed again");
    let mut failed = store.history_row(s.organization_id, again.history_id).await.unwrap().unwrap();
    failed.status_detail = Some(StatusDetail::Error);
    failed.error = Some("lost".into());
    failed.retries = 1;
    let log = activity(s.organization_id, s.id, "run.finished", now());
    assert!(
        store.finish_run(&again, &FinishedRun::new(&failed, 0, &log)).await.unwrap().is_some(),
        "the reaper finishes the lost claim"
    );
    let stored = store.history_row(s.organization_id, again.history_id).await.unwrap().unwrap();
    assert_eq!(
        (stored.status_detail, stored.error.as_deref(), stored.retries),
        (Some(StatusDetail::Error), Some("lost"), 1)
    );
    assert!(store.expire_leases(now(), 2).await.unwrap().lost.is_empty());
}

// ---------------------------------------------------------------------------
// Schedules
// ---------------------------------------------------------------------------

/// Runs every due tick at its due instant and moves the schedule to `next`
/// (`keep` leaves it where it was, so the same tick comes due again). Like the
/// service's planner, it skips a tick when the store reports a run in flight
/// or no balance, so the outcomes below show the facts the store read.
struct TestPlanner {
    next: Option<DateTime<Utc>>,
    keep: bool,
    missed: bool,
}

impl TickPlanner for TestPlanner {
    fn plan(&self, due: &DueScrap) -> TickPlan {
        let action = if self.missed {
            TickAction::Missed
        } else if due.run_in_flight {
            TickAction::SkipOverlap
        } else if due.balance <= 0 {
            TickAction::SkipBalance
        } else {
            TickAction::Run { row: Box::new(history(&due.scrap, now())), param: due.scrap.params.first().cloned() }
        };
        TickPlan {
            next_fire_at: if self.keep { Some(due.due_at) } else { self.next },
            tick: Some(PlannedTick { scheduled_at: due.due_at, action }),
        }
    }
    fn activity(
        &self,
        scrap: &Scrap,
        _: &PlannedTick,
        outcome: TickOutcome,
        history: Option<HistoryId>,
    ) -> Option<Activity> {
        let mut log = activity(scrap.organization_id, scrap.id, &format!("tick.{}", outcome.as_str()), now());
        log.history_id = history;
        Some(log)
    }
}

fn scheduled(user: &User, title: &str, due: DateTime<Utc>) -> Scrap {
    Scrap {
        cron: Some("* * * * *".into()),
        next_fire_at: Some(due),
        params: vec![ParamSet { key: "p".into(), value: json!("v") }],
        containers: vec!["main".into()],
        ..scrap(user, title, now())
    }
}

async fn queue_state_follows_a_run(store: Arc<dyn Store>) {
    let (org, user) = account(&store, "progress@example.com").await;
    let (other, _) = account(&store, "other-progress@example.com").await;
    let s = scrap(&user, "Watched", now());
    insert_scrap(&store, &s).await;
    let row = history(&s, now());
    let log = activity(s.organization_id, s.id, "run.triggered", now());
    store.enqueue_run(&row, &["default".to_string()], None, &log).await.unwrap();
    assert_eq!(store.queue_state(org.id, row.id).await.unwrap(), Some(QueueState::Queued));
    assert_eq!(store.queue_state(other.id, row.id).await.unwrap(), None, "another organization's run is not seen");
    let claim = store.claim_run("default", "w-1", now() + Duration::minutes(5)).await.unwrap().unwrap();
    assert_eq!(store.queue_state(org.id, row.id).await.unwrap(), Some(QueueState::Running));
    let mut done = row.clone();
    done.status_detail = Some(StatusDetail::Success);
    done.finished_at = Some(now());
    let finished = activity(s.organization_id, s.id, "run.finished", now());
    assert!(store.finish_run(&claim, &FinishedRun::new(&done, 1, &finished)).await.unwrap().is_some());
    assert_eq!(store.queue_state(org.id, row.id).await.unwrap(), None, "finished runs have left the queue");
}

fn email(org: OrgId, scrap: Option<ScrapId>, to: &str, at: DateTime<Utc>) -> Email {
    Email {
        id: ObjectId::new(),
        organization_id: org,
        kind: EmailKind::Result,
        to: to.into(),
        subject: "Prices: 3 items".into(),
        text: "3 items".into(),
        html: Some("<p>3 items</p>".into()),
        attachment: Some(Attachment {
            filename: "prices.csv".into(),
            content_type: "text/csv".into(),
            content: b"a,b\r\n1,\"x\"\r\n\xff".to_vec(),
        }),
        unsubscribe_url: None,
        scrap_id: scrap,
        history_id: None,
        created_at: at,
    }
}

async fn email_outbox_claims_and_records_once(store: Arc<dyn Store>) {
    let (org, user) = account(&store, "mail@example.com").await;
    let (other, _) = account(&store, "other-mail@example.com").await;
    let s = scrap(&user, "Mailed", now());
    insert_scrap(&store, &s).await;
    let first = email(org.id, Some(s.id), "a@example.com", now());
    let later = Email { attachment: None, html: None, ..email(org.id, Some(s.id), "b@example.com", now()) };
    store.queue_emails(std::slice::from_ref(&first), now()).await.unwrap();
    store.queue_emails(std::slice::from_ref(&later), now() + Duration::minutes(10)).await.unwrap();

    let lease = now() + Duration::minutes(2);
    let claimed = store.claim_emails(now(), lease, 10).await.unwrap();
    assert_eq!(claimed.len(), 1, "only the email that is due");
    assert_eq!(claimed[0].email, first, "the whole message round-trips, attachment bytes included");
    assert_eq!((claimed[0].state, claimed[0].attempts), (EmailState::Queued, 0));
    assert!(store.claim_emails(now(), lease, 10).await.unwrap().is_empty(), "held by its lease");

    // A transient failure: queued again for later, the answer kept.
    let retry = EmailOutcome::Retry { error: "421 busy".into(), next: now() - Duration::seconds(1) };
    assert!(store.record_email(first.id, 0, &retry, None).await.unwrap());
    assert!(!store.record_email(first.id, 0, &retry, None).await.unwrap(), "an attempt is recorded once");
    let again = store.claim_emails(now(), lease, 10).await.unwrap();
    assert_eq!((again.len(), again[0].attempts), (1, 1));
    assert_eq!(again[0].last_error.as_deref(), Some("421 busy"));
    let log = activity(org.id, s.id, "email.sent", now());
    assert!(store.record_email(first.id, 1, &EmailOutcome::Sent { at: now() }, Some(&log)).await.unwrap());
    assert!(!store.record_email(first.id, 2, &EmailOutcome::Sent { at: now() }, None).await.unwrap(), "sent once");
    let logged = store.list_activities(org.id, s.id, 0, 10).await.unwrap();
    assert!(logged.items.iter().any(|a| a.kind == "email.sent"));

    let sent = store.scrap_emails(org.id, s.id, 10).await.unwrap();
    let mine = sent.iter().find(|r| r.email.id == first.id).unwrap();
    assert_eq!((mine.state, mine.attempts), (EmailState::Sent, 2));
    assert!(mine.sent_at.is_some());
    assert!(store.scrap_emails(other.id, s.id, 10).await.unwrap().is_empty(), "scoped by organization");

    // Refused for good.
    let due = store.claim_emails(now() + Duration::minutes(11), lease + Duration::minutes(11), 10).await.unwrap();
    assert_eq!(due.len(), 1);
    let failed = EmailOutcome::Failed { error: "550 no such user".into() };
    assert!(store.record_email(later.id, 0, &failed, None).await.unwrap());
    let later_row = store.scrap_emails(org.id, s.id, 10).await.unwrap().into_iter().find(|r| r.email.id == later.id);
    let later_row = later_row.unwrap();
    assert_eq!((later_row.state, later_row.last_error.as_deref()), (EmailState::Failed, Some("550 no such user")));
    let failed_rows = store.failed_emails(org.id, 10).await.unwrap();
    assert_eq!(failed_rows.iter().map(|r| r.email.id).collect::<Vec<_>>(), vec![later.id], "only what failed for good");
    assert!(store.failed_emails(other.id, 10).await.unwrap().is_empty(), "scoped by organization");
    assert!(store.claim_emails(now() + Duration::hours(1), lease + Duration::hours(1), 10).await.unwrap().is_empty());
}

async fn concurrent_mailers_claim_each_email_once(store: Arc<dyn Store>) {
    let (org, _) = account(&store, "many-mails@example.com").await;
    let emails: Vec<Email> = (0..40).map(|i| email(org.id, None, &format!("u{i}@example.com"), now())).collect();
    store.queue_emails(&emails, now()).await.unwrap();
    let mut tasks = Vec::new();
    for _ in 0..4 {
        let store = store.clone();
        tasks.push(tokio::spawn(async move {
            let mut mine = Vec::new();
            loop {
                let claimed = store.claim_emails(now(), now() + Duration::minutes(5), 3).await.unwrap();
                if claimed.is_empty() {
                    break;
                }
                for r in claimed {
                    assert!(store.record_email(r.email.id, 0, &EmailOutcome::Sent { at: now() }, None).await.unwrap());
                    mine.push(r.email.id);
                }
            }
            mine
        }));
    }
    let mut all = Vec::new();
    for t in tasks {
        all.extend(t.await.unwrap());
    }
    all.sort();
    let mut expected: Vec<ObjectId> = emails.iter().map(|e| e.id).collect();
    expected.sort();
    assert_eq!(all, expected, "every email claimed exactly once");
}

async fn finished_runs_queue_their_emails(store: Arc<dyn Store>) {
    let (org, user) = account(&store, "run-mail@example.com").await;
    let s = scrap(&user, "Mailed run", now());
    insert_scrap(&store, &s).await;
    let row = history(&s, now());
    store
        .enqueue_run(&row, &["default".to_string()], None, &activity(org.id, s.id, "run.triggered", now()))
        .await
        .unwrap();
    let claim = store.claim_run("default", "w-1", now() + Duration::minutes(5)).await.unwrap().unwrap();
    let mut done = row.clone();
    done.status_detail = Some(StatusDetail::Success);
    done.finished_at = Some(now());
    let mail = Email { history_id: Some(row.id), ..email(org.id, Some(s.id), "owner@example.com", now()) };
    let log = activity(org.id, s.id, "run.finished", now());
    assert!(
        store
            .finish_run(
                &claim,
                &FinishedRun { emails: std::slice::from_ref(&mail), ..FinishedRun::new(&done, 1, &log) }
            )
            .await
            .unwrap()
            .is_some()
    );
    let queued = store.claim_emails(now() + Duration::seconds(1), now() + Duration::minutes(1), 10).await.unwrap();
    assert_eq!(queued.len(), 1);
    assert_eq!(queued[0].email.history_id, Some(row.id));
    // A lost claim writes neither the run nor its emails.
    let other = Email { history_id: Some(row.id), ..email(org.id, Some(s.id), "owner@example.com", now()) };
    assert!(
        store
            .finish_run(&claim, &FinishedRun { emails: &[other], ..FinishedRun::new(&done, 1, &log) })
            .await
            .unwrap()
            .is_none()
    );
    assert_eq!(store.scrap_emails(org.id, s.id, 10).await.unwrap().len(), 1);
}

async fn run_streak_counts_failures_since_the_last_success(store: Arc<dyn Store>) {
    let (org, user) = account(&store, "streak@example.com").await;
    let s = scrap(&user, "Streaky", now());
    insert_scrap(&store, &s).await;
    let current = HistoryId::new();
    assert_eq!(store.run_streak(org.id, s.id, current).await.unwrap(), RunStreak::default());
    let outcomes = [
        Some(StatusDetail::Error),
        Some(StatusDetail::Success),
        Some(StatusDetail::Empty),
        None,
        Some(StatusDetail::Error),
    ];
    for (i, detail) in outcomes.iter().enumerate() {
        let mut row = history(&s, now() + Duration::seconds(i as i64));
        row.status_detail = *detail;
        store.insert_history(&row).await.unwrap();
    }
    let streak = store.run_streak(org.id, s.id, current).await.unwrap();
    assert_eq!(
        streak,
        RunStreak { last: Some(StatusDetail::Error), failures_since_success: 2, ever_succeeded: true },
        "the pending run does not count"
    );
    // Runs created in one millisecond count in the order they were made
    // (their ids): the error made before the success is not after it.
    let at = now() + Duration::seconds(60);
    for detail in [StatusDetail::Error, StatusDetail::Success, StatusDetail::Error, StatusDetail::Empty] {
        let mut row = history(&s, at);
        row.status_detail = Some(detail);
        store.insert_history(&row).await.unwrap();
    }
    let streak = store.run_streak(org.id, s.id, current).await.unwrap();
    assert_eq!(streak, RunStreak { last: Some(StatusDetail::Empty), failures_since_success: 2, ever_succeeded: true });
    let (other, _) = account(&store, "streak-other@example.com").await;
    assert_eq!(store.run_streak(other.id, s.id, current).await.unwrap(), RunStreak::default(), "scoped");
}

async fn announcement_recipients_and_unsubscribe(store: Arc<dyn Store>) {
    let (org_a, a) = account(&store, "ann-a@example.com").await;
    let (_, b) = account(&store, "ann-b@example.com").await;
    let mut all = Vec::new();
    let mut after = None;
    loop {
        let page = store.announcement_recipients(after, 1).await.unwrap();
        let Some(last) = page.last() else { break };
        after = Some(last.user_id);
        all.extend(page);
    }
    let emails: BTreeSet<String> = all.iter().map(|r| r.email.clone()).collect();
    assert!(emails.contains(&a.email) && emails.contains(&b.email), "{emails:?}");
    assert!(store.set_announcements(org_a.id, a.id, false).await.unwrap());
    assert!(!store.set_announcements(org_a.id, b.id, false).await.unwrap(), "another organization's user");
    let left = store.announcement_recipients(None, 1000).await.unwrap();
    assert!(!left.iter().any(|r| r.user_id == a.id) && left.iter().any(|r| r.user_id == b.id));
}

async fn schedule_ticks_fire_once(store: Arc<dyn Store>) {
    let (org, user) = account(&store, "cron@example.com").await;
    let t0 = now();
    let s = scheduled(&user, "Every minute", t0 + Duration::seconds(30));
    insert_scrap(&store, &s).await;
    insert_scrap(&store, &scrap(&user, "Manual only", t0)).await;
    assert_eq!(store.next_due_at().await.unwrap(), Some(t0 + Duration::seconds(30)));

    let go = TestPlanner { next: Some(t0 + Duration::seconds(90)), keep: false, missed: false };
    assert!(store.fire_due(t0, 100, &go).await.unwrap().is_empty(), "nothing is due yet");
    let fired = store.fire_due(t0 + Duration::seconds(31), 100, &go).await.unwrap();
    assert_eq!(fired.len(), 1);
    assert_eq!(fired[0].outcome, TickOutcome::Enqueued);
    assert_eq!(fired[0].scheduled_at, t0 + Duration::seconds(30));
    let row = store.history_row(org.id, fired[0].history_id.unwrap()).await.unwrap().unwrap();
    assert_eq!((row.triggered_by, row.status_detail), (TriggeredBy::Cron, None));
    assert_eq!(store.scrap(org.id, s.id).await.unwrap().unwrap().history, vec![row.id]);
    assert_eq!(store.next_due_at().await.unwrap(), Some(t0 + Duration::seconds(90)), "schedule moved");
    let claim = store.claim_run("main", "w", t0 + Duration::minutes(5)).await.unwrap().unwrap();
    assert_eq!(claim.history_id, row.id);
    assert_eq!(claim.param, Some(ParamSet { key: "p".into(), value: json!("v") }));

    // The run is still running at the next tick: skipped, and logged.
    let keep = TestPlanner { next: None, keep: true, missed: false };
    let fired = store.fire_due(t0 + Duration::seconds(91), 100, &keep).await.unwrap();
    assert_eq!(fired[0].outcome, TickOutcome::SkippedOverlap);
    assert_eq!(fired[0].history_id, None);
    // The same (scrap, instant) never fires twice, whatever the run queue says.
    let mut done = row.clone();
    done.status_detail = Some(StatusDetail::Success);
    store
        .finish_run(&claim, &FinishedRun::new(&done, 1, &activity(org.id, s.id, "run.finished", now())))
        .await
        .unwrap()
        .expect("the claim holds");
    let fired = store.fire_due(t0 + Duration::seconds(92), 100, &keep).await.unwrap();
    assert_eq!(fired[0].outcome, TickOutcome::AlreadyFired);
    let kinds: Vec<String> =
        store.list_activities(org.id, s.id, 0, 50).await.unwrap().items.into_iter().map(|a| a.kind).collect();
    assert!(kinds.contains(&"tick.enqueued".to_string()) && kinds.contains(&"tick.skipped_overlap".to_string()));
    assert!(!kinds.contains(&"tick.already_fired".to_string()), "a tick fired elsewhere logs nothing");

    // No balance: skipped.
    let go_on = TestPlanner { next: Some(t0 + Duration::seconds(150)), keep: false, missed: false };
    store.add_balance(org.id, -store.organization(org.id).await.unwrap().unwrap().balance).await.unwrap();
    let later = scheduled(&user, "Broke", t0 + Duration::seconds(100));
    insert_scrap(&store, &later).await;
    let fired = store.fire_due(t0 + Duration::seconds(101), 100, &go_on).await.unwrap();
    let broke = fired.iter().find(|f| f.scrap_id == later.id).unwrap();
    assert_eq!(broke.outcome, TickOutcome::SkippedBalance);

    // A missed tick is recorded, runs nothing, and the schedule moves on.
    let missed = TestPlanner { next: None, keep: false, missed: true };
    let fired = store.fire_due(t0 + Duration::seconds(151), 100, &missed).await.unwrap();
    assert!(fired.iter().all(|f| f.outcome == TickOutcome::Missed && f.history_id.is_none()), "{fired:?}");
    assert_eq!(store.next_due_at().await.unwrap(), None, "schedules stopped");
    assert_eq!(store.list_history(org.id, &history_filter(0, 100)).await.unwrap().total, 1);

    assert!(store.prune_ticks(now() + Duration::seconds(1)).await.unwrap() >= 3);
}

async fn update_moves_next_fire_only_when_the_schedule_changes(store: Arc<dyn Store>) {
    let (org, user) = account(&store, "move@example.com").await;
    let t0 = now();
    let s = scheduled(&user, "Hourly", t0 + Duration::minutes(60));
    insert_scrap(&store, &s).await;
    let log = || activity(org.id, s.id, "scrap.updated", now());
    let retitled = Scrap { title: "Renamed".into(), next_fire_at: Some(t0 + Duration::minutes(1)), ..s.clone() };
    store.update_scrap(org.id, &retitled, &log()).await.unwrap();
    let stored = store.scrap(org.id, s.id).await.unwrap().unwrap();
    assert_eq!((stored.title.as_str(), stored.next_fire_at), ("Renamed", Some(t0 + Duration::minutes(60))));

    let rescheduled =
        Scrap { cron: Some("*/5 * * * *".into()), next_fire_at: Some(t0 + Duration::minutes(5)), ..stored };
    store.update_scrap(org.id, &rescheduled, &log()).await.unwrap();
    assert_eq!(store.scrap(org.id, s.id).await.unwrap().unwrap().next_fire_at, Some(t0 + Duration::minutes(5)));
    let moved_zone =
        Scrap { cron_timezone: "Europe/Paris".into(), next_fire_at: Some(t0 + Duration::minutes(7)), ..rescheduled };
    store.update_scrap(org.id, &moved_zone, &log()).await.unwrap();
    assert_eq!(store.scrap(org.id, s.id).await.unwrap().unwrap().next_fire_at, Some(t0 + Duration::minutes(7)));
    let manual = Scrap { cron: None, next_fire_at: None, ..moved_zone };
    store.update_scrap(org.id, &manual, &log()).await.unwrap();
    assert_eq!(store.scrap(org.id, s.id).await.unwrap().unwrap().next_fire_at, None);
    assert_eq!(store.next_due_at().await.unwrap(), None);
}

async fn concurrent_schedulers_fire_each_tick_once(store: Arc<dyn Store>) {
    let (org, user) = account(&store, "race@example.com").await;
    let t0 = now();
    for i in 0..60 {
        insert_scrap(&store, &scheduled(&user, &format!("s{i}"), t0 + Duration::milliseconds(i))).await;
    }
    // Both schedulers leave every schedule due, so each sees every tick.
    let mut tasks = Vec::new();
    for _ in 0..4 {
        let store = store.clone();
        tasks.push(tokio::spawn(async move {
            let keep = TestPlanner { next: None, keep: true, missed: false };
            let mut fired = Vec::new();
            for _ in 0..3 {
                fired.extend(store.fire_due(t0 + Duration::seconds(1), 7, &keep).await.unwrap());
            }
            fired
        }));
    }
    let mut enqueued = BTreeSet::new();
    for t in tasks {
        for f in t.await.unwrap() {
            if f.outcome == TickOutcome::Enqueued {
                assert!(enqueued.insert(f.scrap_id), "{} fired twice", f.scrap_id);
            }
        }
    }
    let total = store.list_history(org.id, &history_filter(0, 100)).await.unwrap().total;
    assert_eq!(total as usize, enqueued.len(), "one run per enqueued tick");
    // Drain: whatever the racing batches did not reach fires now, once.
    let go = TestPlanner { next: Some(t0 + Duration::hours(1)), keep: false, missed: false };
    while !store.fire_due(t0 + Duration::seconds(1), 50, &go).await.unwrap().is_empty() {}
    let runs = store.list_history(org.id, &history_filter(0, 100)).await.unwrap();
    assert_eq!(runs.total, 60, "each of the 60 ticks ran exactly once");
}

// ---------------------------------------------------------------------------
// Weekly plan renewal
// ---------------------------------------------------------------------------

const WEEKLY: WeeklyUnits = WeeklyUnits { growth: 10_000, pro: 100_000 };

/// The Monday 00:00 UTC that starts the week of `t` (the service's rule,
/// restated: the store takes any instant as a week's start).
fn week_of(t: DateTime<Utc>) -> DateTime<Utc> {
    let day = t.date_naive() - chrono::Days::new(t.weekday().num_days_from_monday().into());
    day.and_hms_opt(0, 0, 0).unwrap().and_utc()
}

async fn account_on(store: &Arc<dyn Store>, email: &str, plan: Plan, balance: i64) -> Organization {
    let (org, _) = account(store, email).await;
    store.set_plan(org.id, plan).await.unwrap();
    store.add_balance(org.id, balance - org.balance).await.unwrap();
    store.organization(org.id).await.unwrap().unwrap()
}

fn renewed(batch: &[PlanRenewal]) -> BTreeSet<OrgId> {
    set(batch.iter().filter(|r| r.outcome == RenewalOutcome::Renewed).map(|r| r.organization_id))
}

async fn renewal_tops_up_growth_and_pro_once_a_week(store: Arc<dyn Store>) {
    let free = account_on(&store, "free@example.com", Plan::Free, 500).await;
    let low = account_on(&store, "low@example.com", Plan::Growth, 500).await;
    let rich = account_on(&store, "rich@example.com", Plan::Growth, 25_000).await;
    let pro = account_on(&store, "pro@example.com", Plan::Pro, -30).await;
    let next_week = week_of(now()) + Duration::days(7);

    let batch = store.renew_plans(next_week, &WEEKLY, 100).await.unwrap();
    assert_eq!(renewed(&batch), set([low.id, rich.id, pro.id]), "Growth and Pro only: {batch:?}");
    let of = |org: OrgId| batch.iter().find(|r| r.organization_id == org).unwrap().clone();
    assert_eq!(
        of(low.id),
        PlanRenewal {
            organization_id: low.id,
            plan: Plan::Growth,
            week_start: next_week,
            units: 10_000,
            balance_before: 500,
            balance_after: 10_000,
            outcome: RenewalOutcome::Renewed,
        }
    );
    assert_eq!((of(rich.id).balance_before, of(rich.id).balance_after), (25_000, 25_000), "never reduced");
    assert_eq!((of(pro.id).units, of(pro.id).balance_after), (100_000, 100_000), "a negative balance too");
    let balance_of = |org: OrgId| {
        let store = store.clone();
        async move { store.organization(org).await.unwrap().unwrap().balance }
    };
    assert_eq!(balance_of(free.id).await, 500, "Free keeps its one-shot grant");
    assert_eq!(balance_of(low.id).await, 10_000);
    assert_eq!(balance_of(rich.id).await, 25_000);
    assert_eq!(balance_of(pro.id).await, 100_000);

    // Spent during the week: a second call in the same week changes nothing,
    // nor does one later in it.
    store.add_balance(low.id, -4_000).await.unwrap();
    assert!(store.renew_plans(next_week, &WEEKLY, 100).await.unwrap().is_empty());
    assert!(store.renew_plans(next_week, &WEEKLY, 100).await.unwrap().is_empty());
    assert_eq!(balance_of(low.id).await, 6_000);

    // The week after renews again, with the amounts of that call, by the
    // plan at renewal time.
    store.set_plan(rich.id, Plan::Free).await.unwrap();
    let week_after = next_week + Duration::days(7);
    let batch = store.renew_plans(week_after, &WeeklyUnits { growth: 12_000, pro: 100_000 }, 100).await.unwrap();
    assert_eq!(renewed(&batch), set([low.id, pro.id]));
    assert_eq!(balance_of(low.id).await, 12_000);
    assert_eq!(balance_of(rich.id).await, 25_000);

    // A week that was skipped (svc down) is not caught up: the current one renews once.
    store.add_balance(pro.id, -99_000).await.unwrap();
    let later = week_after + Duration::days(21);
    assert_eq!(renewed(&store.renew_plans(later, &WEEKLY, 100).await.unwrap()), set([low.id, pro.id]));
    assert!(store.renew_plans(later, &WEEKLY, 100).await.unwrap().is_empty());
    assert_eq!(balance_of(pro.id).await, 100_000);

    // Batches: a limit takes that many, the next call the rest.
    let week_4 = later + Duration::days(7);
    let first = store.renew_plans(week_4, &WEEKLY, 1).await.unwrap();
    let second = store.renew_plans(week_4, &WEEKLY, 1).await.unwrap();
    assert_eq!((first.len(), second.len()), (1, 1));
    assert!(store.renew_plans(week_4, &WEEKLY, 1).await.unwrap().is_empty());
    assert_eq!(renewed(&first).union(&renewed(&second)).count(), 2);
}

async fn a_plan_change_counts_as_renewed_for_its_week(store: Arc<dyn Store>) {
    let this_week = week_of(now());
    let next_week = this_week + Duration::days(7);
    // Upgraded during the week: no top-up before the next renewal.
    let (upgraded, _) = account(&store, "upgraded@example.com").await;
    assert!(store.set_plan(upgraded.id, Plan::Growth).await.unwrap());
    // Upgraded after this week's renewal ran: the same.
    let (moved, _) = account(&store, "moved@example.com").await;
    // On Growth since last week, renewed this week, then moved to Pro: Pro's
    // amount comes next week.
    let mut created_last_week = new_account("old@example.com");
    created_last_week.organization.created_at = this_week - Duration::days(3);
    created_last_week.organization.plan = Plan::Growth;
    store.create_account(&created_last_week).await.unwrap();
    let old = created_last_week.organization.id;
    // Created on Growth this week: renewed from next week on.
    let mut created_now = new_account("new@example.com");
    created_now.organization.plan = Plan::Growth;
    store.create_account(&created_now).await.unwrap();

    let batch = store.renew_plans(this_week, &WEEKLY, 100).await.unwrap();
    assert_eq!(renewed(&batch), set([old]), "only the organization whose plan predates the week: {batch:?}");
    store.set_plan(moved.id, Plan::Growth).await.unwrap();
    store.set_plan(old, Plan::Pro).await.unwrap();
    assert!(store.renew_plans(this_week, &WEEKLY, 100).await.unwrap().is_empty());
    assert_eq!(store.organization(upgraded.id).await.unwrap().unwrap().balance, 500);
    assert_eq!(store.organization(old).await.unwrap().unwrap().balance, 10_000, "Pro's amount waits for next week");

    let batch = store.renew_plans(next_week, &WEEKLY, 100).await.unwrap();
    assert_eq!(renewed(&batch), set([upgraded.id, moved.id, old, created_now.organization.id]));
    assert_eq!(store.organization(upgraded.id).await.unwrap().unwrap().balance, 10_000);
    assert_eq!(store.organization(old).await.unwrap().unwrap().balance, 100_000);
}

async fn concurrent_renewals_renew_each_organization_once(store: Arc<dyn Store>) {
    let mut paid = BTreeSet::new();
    for i in 0..30 {
        let plan = if i % 3 == 0 { Plan::Pro } else { Plan::Growth };
        paid.insert(account_on(&store, &format!("o{i}@example.com"), plan, i).await.id);
    }
    let free = account_on(&store, "free@example.com", Plan::Free, 7).await;
    let week = week_of(now()) + Duration::days(7);
    let mut tasks = Vec::new();
    for _ in 0..4 {
        let store = store.clone();
        tasks.push(tokio::spawn(async move {
            let mut done = Vec::new();
            for _ in 0..3 {
                done.extend(store.renew_plans(week, &WEEKLY, 4).await.unwrap());
            }
            done
        }));
    }
    let mut once = BTreeSet::new();
    for t in tasks {
        for r in t.await.unwrap() {
            if r.outcome == RenewalOutcome::Renewed {
                assert!(once.insert(r.organization_id), "{} renewed twice", r.organization_id);
            }
        }
    }
    // Drain: whatever the racing batches did not reach renews now, once.
    loop {
        let batch = store.renew_plans(week, &WEEKLY, 4).await.unwrap();
        if batch.is_empty() {
            break;
        }
        for r in renewed(&batch) {
            assert!(once.insert(r), "{r} renewed twice");
        }
    }
    assert_eq!(once, paid, "each paid organization renewed exactly once");
    for org in &paid {
        let o = store.organization(*org).await.unwrap().unwrap();
        assert_eq!(o.balance, WEEKLY.of(o.plan).unwrap());
    }
    assert_eq!(store.organization(free.id).await.unwrap().unwrap().balance, 7);
}

// ---------------------------------------------------------------------------
// Webhooks
// ---------------------------------------------------------------------------

fn webhook(org: &Organization, url: &str, at: DateTime<Utc>) -> Webhook {
    Webhook {
        id: WebhookId::new(),
        organization_id: org.id,
        url: url.into(),
        events: vec![WebhookEvent::ScrapSuccess, WebhookEvent::ScrapFailure],
        scrap_ids: vec![],
        active: true,
        secret: "whsec_c2VjcmV0".into(),
        created_at: at,
        updated_at: at,
    }
}

fn delivery(hook: &Webhook, history: &HistoryRow) -> Delivery {
    Delivery {
        id: ObjectId::new(),
        organization_id: hook.organization_id,
        webhook_id: hook.id,
        event: WebhookEvent::ScrapSuccess,
        history_id: history.id,
        scrap_id: history.scrap_id.unwrap(),
        payload: r#"{"historyId":"x"}"#.into(),
        attempts: 0,
        created_at: now(),
    }
}

fn attempt_of(d: &Delivery, state: AttemptState, next: Option<DateTime<Utc>>) -> DeliveryAttempt {
    DeliveryAttempt {
        id: ObjectId::new(),
        delivery_id: d.id,
        organization_id: d.organization_id,
        webhook_id: d.webhook_id,
        event: d.event,
        history_id: d.history_id,
        attempt: d.attempts + 1,
        state,
        response_status: Some(500),
        response_body: Some("oops".into()),
        error: None,
        duration_ms: Some(3),
        created_at: now(),
        next_retry_at: next,
    }
}

async fn webhooks_round_trip_scoped_by_organization(store: Arc<dyn Store>) {
    let (org, _) = account(&store, "hooks@example.com").await;
    let (other, _) = account(&store, "other-hooks@example.com").await;
    let t0 = now();
    let a = webhook(&org, "https://a.example/hook", t0);
    let b = Webhook {
        scrap_ids: vec![ScrapId::new()],
        ..webhook(&org, "https://b.example/hook", t0 + Duration::seconds(1))
    };
    store.insert_webhook(&a).await.unwrap();
    store.insert_webhook(&b).await.unwrap();
    assert_eq!(store.webhook(org.id, a.id).await.unwrap(), Some(a.clone()));
    assert_eq!(store.webhook(other.id, a.id).await.unwrap(), None, "another organization's webhook is not found");
    let page = store.list_webhooks(org.id, 0, 10).await.unwrap();
    assert_eq!((page.total, ids(&page.items, |w| w.id)), (2, vec![b.id, a.id]));
    assert_eq!(store.list_webhooks(other.id, 0, 10).await.unwrap().total, 0);

    let off = Webhook { active: false, url: "https://c.example/x".into(), ..a.clone() };
    assert!(!store.update_webhook(other.id, &off).await.unwrap());
    assert!(store.update_webhook(org.id, &off).await.unwrap());
    assert_eq!(store.webhook(org.id, a.id).await.unwrap().unwrap().url, "https://c.example/x");
    assert_eq!(ids(&store.active_webhooks(org.id).await.unwrap(), |w| w.id), vec![b.id]);

    assert!(!store.delete_webhook(other.id, b.id).await.unwrap());
    assert!(store.delete_webhook(org.id, b.id).await.unwrap());
    assert_eq!(store.webhook(org.id, b.id).await.unwrap(), None);
}

async fn webhook_outbox_claims_records_and_skips(store: Arc<dyn Store>) {
    let (org, user) = account(&store, "outbox@example.com").await;
    let s = scrap(&user, "Hooked", now());
    insert_scrap(&store, &s).await;
    let hook = webhook(&org, "https://a.example/hook", now());
    store.insert_webhook(&hook).await.unwrap();

    // The outbox row is written by the transaction that finishes the run.
    let row = history(&s, now());
    store
        .enqueue_run(&row, &["main".to_string()], None, &activity(org.id, s.id, "run.triggered", now()))
        .await
        .unwrap();
    let claim = store.claim_run("main", "w", now() + Duration::minutes(5)).await.unwrap().unwrap();
    let mut done = row.clone();
    done.status_detail = Some(StatusDetail::Success);
    done.finished_at = Some(now());
    let d = delivery(&hook, &row);
    let log = activity(org.id, s.id, "run.finished", now());
    assert!(
        store
            .finish_run(
                &claim,
                &FinishedRun { deliveries: std::slice::from_ref(&d), ..FinishedRun::new(&done, 1, &log) }
            )
            .await
            .unwrap()
            .is_some()
    );

    let t = now() + Duration::seconds(1);
    let lease = t + Duration::seconds(40);
    let claimed = store.claim_deliveries(t, lease, 10).await.unwrap();
    assert_eq!(claimed.len(), 1);
    assert_eq!(claimed[0].0, d);
    assert_eq!(claimed[0].1.as_ref().map(|h| h.id), Some(hook.id));
    assert!(store.claim_deliveries(t, lease, 10).await.unwrap().is_empty(), "held by the lease");

    // Attempt 1 fails: a pending retry at +60 s.
    let retry_at = t + Duration::seconds(60);
    let first = attempt_of(&d, AttemptState::PendingRetry, Some(retry_at));
    assert!(store.record_attempt(&d, &first, Some(retry_at)).await.unwrap());
    assert!(!store.record_attempt(&d, &first, Some(retry_at)).await.unwrap(), "a claim records once");
    assert!(store.claim_deliveries(t + Duration::seconds(59), lease, 10).await.unwrap().is_empty(), "not due yet");
    let (again, _) = store.claim_deliveries(retry_at, retry_at + Duration::seconds(40), 10).await.unwrap().remove(0);
    assert_eq!(again.attempts, 1);
    // Attempt 2 succeeds: attempt 1 becomes `failed`, the delivery ends.
    let second = DeliveryAttempt { response_status: Some(200), ..attempt_of(&again, AttemptState::Delivered, None) };
    assert!(store.record_attempt(&again, &second, None).await.unwrap());
    let log = store.list_attempts(org.id, hook.id, 0, 10).await.unwrap();
    let states: Vec<(i64, AttemptState)> = log.items.iter().map(|a| (a.attempt, a.state)).collect();
    assert_eq!(states, vec![(2, AttemptState::Delivered), (1, AttemptState::Failed)]);
    assert!(log.items[1].next_retry_at.is_none());
    assert!(store.claim_deliveries(now() + Duration::days(1), now() + Duration::days(2), 10).await.unwrap().is_empty());
    assert_eq!(store.attempt(org.id, hook.id, second.id).await.unwrap().unwrap().state, AttemptState::Delivered);

    // A pending retry of a webhook that got deactivated is skipped.
    let d2 = delivery(&hook, &row);
    store.insert_deliveries(std::slice::from_ref(&d2), now()).await.unwrap();
    let (c2, _) = store.claim_deliveries(now(), now() + Duration::seconds(40), 10).await.unwrap().remove(0);
    let fail = attempt_of(&c2, AttemptState::PendingRetry, Some(now()));
    store.record_attempt(&c2, &fail, Some(now())).await.unwrap();
    let (c3, _) = store.claim_deliveries(now(), now() + Duration::seconds(40), 10).await.unwrap().remove(0);
    assert!(store.skip_delivery(&c3, &attempt_of(&c3, AttemptState::Skipped, None)).await.unwrap());
    let skipped = store.attempt(org.id, hook.id, fail.id).await.unwrap().unwrap();
    assert_eq!((skipped.state, skipped.next_retry_at), (AttemptState::Skipped, None));
    assert_eq!(
        store.list_attempts(org.id, hook.id, 0, 10).await.unwrap().total,
        3,
        "no extra row when a retry was pending"
    );
    // Before any attempt, skipping records the skip as attempt 1.
    let d3 = delivery(&hook, &row);
    store.insert_deliveries(std::slice::from_ref(&d3), now()).await.unwrap();
    let (c4, _) = store.claim_deliveries(now(), now() + Duration::seconds(40), 10).await.unwrap().remove(0);
    let skip = attempt_of(&c4, AttemptState::Skipped, None);
    assert!(store.skip_delivery(&c4, &skip).await.unwrap());
    assert_eq!(store.attempt(org.id, hook.id, skip.id).await.unwrap().unwrap().attempt, 1);
    assert_eq!(store.delivery(org.id, d3.id).await.unwrap().unwrap().attempts, 1);
    let (other, _) = account(&store, "outsider@example.com").await;
    assert_eq!(store.delivery(other.id, d3.id).await.unwrap(), None);
    assert_eq!(store.list_attempts(other.id, hook.id, 0, 10).await.unwrap().total, 0);
}

async fn concurrent_dispatchers_claim_each_delivery_once(store: Arc<dyn Store>) {
    let (org, user) = account(&store, "fanout@example.com").await;
    let s = scrap(&user, "Fan-out", now());
    insert_scrap(&store, &s).await;
    let hook = webhook(&org, "https://a.example/hook", now());
    store.insert_webhook(&hook).await.unwrap();
    let row = history(&s, now());
    let all: Vec<Delivery> = (0..50).map(|_| delivery(&hook, &row)).collect();
    store.insert_deliveries(&all, now()).await.unwrap();
    let mut tasks = Vec::new();
    for _ in 0..4 {
        let store = store.clone();
        tasks.push(tokio::spawn(async move {
            let mut mine = Vec::new();
            loop {
                let batch = store.claim_deliveries(now(), now() + Duration::minutes(1), 7).await.unwrap();
                if batch.is_empty() {
                    return mine;
                }
                mine.extend(batch.into_iter().map(|(d, _)| d.id));
            }
        }));
    }
    let mut claimed = Vec::new();
    for t in tasks {
        claimed.extend(t.await.unwrap());
    }
    assert_eq!(claimed.len(), 50, "each delivery claimed once");
    assert_eq!(set(claimed), set(all.iter().map(|d| d.id)));
}

// ---------------------------------------------------------------------------
// Script versions
// ---------------------------------------------------------------------------

/// (number, script, source) of a scrap's versions, newest first.
async fn version_list(store: &Arc<dyn Store>, org: OrgId, scrap: ScrapId) -> Vec<(i64, String, VersionSource)> {
    let page = store.script_versions(org, scrap, 0, 100).await.unwrap();
    assert_eq!(page.total, page.items.len() as i64);
    page.items.into_iter().map(|v| (v.number, v.request, v.source)).collect()
}

fn v(number: i64, script: &str, source: VersionSource) -> (i64, String, VersionSource) {
    (number, script.to_string(), source)
}

async fn script_versions_follow_every_script_change(store: Arc<dyn Store>) {
    let (org, user) = account(&store, "versions@example.com").await;
    let (other_org, other_user) = account(&store, "other-versions@example.com").await;
    let t0 = now();
    let s = scrap(&user, "Versioned", t0);
    insert_scrap(&store, &s).await;
    let neighbour = scrap(&user, "Neighbour", t0);
    insert_scrap(&store, &neighbour).await;
    let foreign = scrap(&other_user, "Foreign", t0);
    insert_scrap(&store, &foreign).await;

    // A new scrap's script is its version 1, by its owner.
    let page = store.script_versions(org.id, s.id, 0, 10).await.unwrap();
    assert_eq!(page.total, 1);
    let v1 = page.items[0].clone();
    assert_eq!(
        v1,
        ScriptVersion {
            id: v1.id,
            organization_id: org.id,
            scrap_id: s.id,
            number: 1,
            request: "the list of items".into(),
            source: VersionSource::User,
            history_id: None,
            restored_from: None,
            created_at: t0,
            approved_at: Some(t0),
            approved_by: None,
        }
    );
    assert_eq!(store.script_version(org.id, s.id, v1.id).await.unwrap(), Some(v1.clone()));
    assert_eq!(version_list(&store, org.id, neighbour.id).await, [v(1, "the list of items", VersionSource::User)]);

    // A change of script is a new version; a change of anything else is not.
    let t1 = t0 + Duration::seconds(1);
    let edited = Scrap { request: "only the prices".into(), updated_at: t1, ..s.clone() };
    assert!(store.update_scrap(org.id, &edited, &activity(org.id, s.id, "scrap.updated", t1)).await.unwrap());
    let t2 = t0 + Duration::seconds(2);
    let retitled = Scrap { title: "Renamed".into(), updated_at: t2, ..edited.clone() };
    assert!(store.update_scrap(org.id, &retitled, &activity(org.id, s.id, "scrap.updated", t2)).await.unwrap());
    assert_eq!(
        version_list(&store, org.id, s.id).await,
        [v(2, "only the prices", VersionSource::User), v(1, "the list of items", VersionSource::User)]
    );
    let v2 = store.script_versions(org.id, s.id, 0, 1).await.unwrap().items.remove(0);
    assert_eq!((v2.created_at, v2.restored_from), (t1, None));
    assert_eq!(version_list(&store, org.id, neighbour.id).await.len(), 1, "versions are per scrap");

    // Rolling back to version 1: the scrap's script again, as version 3.
    let t3 = t0 + Duration::seconds(3);
    let restored_log = activity(org.id, s.id, "scrap.restored", t3);
    let v3 = store.restore_version(org.id, s.id, v1.id, t3, &restored_log).await.unwrap().expect("restored");
    assert_eq!(
        v3,
        ScriptVersion {
            id: v3.id,
            organization_id: org.id,
            scrap_id: s.id,
            number: 3,
            request: "the list of items".into(),
            source: VersionSource::Rollback,
            history_id: None,
            restored_from: Some(v1.id),
            created_at: t3,
            approved_at: Some(t3),
            approved_by: None,
        }
    );
    assert!(v3.id != v1.id && v3.id != v2.id);
    let current = store.scrap(org.id, s.id).await.unwrap().unwrap();
    assert_eq!((current.request.as_str(), current.title.as_str()), ("the list of items", "Renamed"));
    assert_eq!(store.script_version(org.id, s.id, v3.id).await.unwrap(), Some(v3.clone()));
    let log = store.list_activities(org.id, s.id, 0, 10).await.unwrap();
    assert_eq!((log.total, &log.items[0]), (4, &restored_log));

    // Pages, newest first, with the total of the scrap's versions.
    let page = store.script_versions(org.id, s.id, 0, 2).await.unwrap();
    assert_eq!((ids(&page.items, |v| v.id), page.total), (vec![v3.id, v2.id], 3));
    let page = store.script_versions(org.id, s.id, 1, 1).await.unwrap();
    assert_eq!((ids(&page.items, |v| v.id), page.total), (vec![v2.id], 3));
    let page = store.script_versions(org.id, s.id, 2, 2).await.unwrap();
    assert_eq!(page, Page { items: vec![v1.clone()], total: 3 });
    let page = store.script_versions(org.id, s.id, 3, 2).await.unwrap();
    assert_eq!(page, Page { items: vec![], total: 3 });

    // Nothing to restore: an unknown version, another scrap's version,
    // another organization's scrap. Nothing is written.
    let t4 = t0 + Duration::seconds(4);
    let attempt = activity(org.id, s.id, "scrap.restored", t4);
    assert_eq!(store.restore_version(org.id, s.id, ObjectId::new(), t4, &attempt).await.unwrap(), None);
    assert_eq!(store.restore_version(org.id, neighbour.id, v2.id, t4, &attempt).await.unwrap(), None);
    assert_eq!(store.restore_version(org.id, ScrapId::new(), v2.id, t4, &attempt).await.unwrap(), None);
    let foreign_attempt = activity(other_org.id, s.id, "scrap.restored", t4);
    assert_eq!(store.restore_version(other_org.id, s.id, v2.id, t4, &foreign_attempt).await.unwrap(), None);
    let foreign_v1 = store.script_versions(other_org.id, foreign.id, 0, 1).await.unwrap().items.remove(0);
    assert_eq!(store.restore_version(org.id, foreign.id, foreign_v1.id, t4, &attempt).await.unwrap(), None);
    assert_eq!(store.scrap(org.id, s.id).await.unwrap().unwrap(), current);
    assert_eq!(version_list(&store, org.id, s.id).await.len(), 3);
    assert_eq!(version_list(&store, org.id, neighbour.id).await.len(), 1);
    assert_eq!(version_list(&store, other_org.id, foreign.id).await.len(), 1);
    assert_eq!(store.list_activities(org.id, s.id, 0, 10).await.unwrap().total, 4);
    assert_eq!(store.list_activities(other_org.id, s.id, 0, 10).await.unwrap().total, 0);
    assert_eq!(store.list_activities(org.id, foreign.id, 0, 10).await.unwrap().total, 0);

    // Another organization reads none of them.
    assert_eq!(store.script_versions(other_org.id, s.id, 0, 10).await.unwrap(), Page { items: vec![], total: 0 });
    assert_eq!(store.script_version(other_org.id, s.id, v1.id).await.unwrap(), None);
    assert_eq!(store.script_version(org.id, foreign.id, foreign_v1.id).await.unwrap(), None);
    // A version is read through its own scrap only.
    assert_eq!(store.script_version(org.id, neighbour.id, v1.id).await.unwrap(), None);

    // An edit back to an older script is a new version too (the newest is
    // always the current script).
    let t5 = t0 + Duration::seconds(5);
    let back = Scrap { request: "only the prices".into(), updated_at: t5, ..current.clone() };
    assert!(store.update_scrap(org.id, &back, &activity(org.id, s.id, "scrap.updated", t5)).await.unwrap());
    assert_eq!(version_list(&store, org.id, s.id).await[0], v(4, "only the prices", VersionSource::User));

    // Deleting the scrap deletes its versions, and only its.
    assert!(store.delete_scrap(org.id, s.id, &activity(org.id, s.id, "scrap.deleted", t5)).await.unwrap());
    assert_eq!(store.script_versions(org.id, s.id, 0, 10).await.unwrap(), Page { items: vec![], total: 0 });
    assert_eq!(store.script_version(org.id, s.id, v1.id).await.unwrap(), None);
    assert_eq!(store.restore_version(org.id, s.id, v1.id, t5, &attempt).await.unwrap(), None);
    assert_eq!(version_list(&store, org.id, neighbour.id).await.len(), 1);
    assert_eq!(version_list(&store, other_org.id, foreign.id).await.len(), 1);
}

// ---------------------------------------------------------------------------
// Tasks
// ---------------------------------------------------------------------------

/// A queued task of `org`, asked by `user`, with nested JSON input.
fn task(org: &Organization, user: Option<&User>, kind: TaskKind, created_at: DateTime<Utc>) -> Task {
    let input =
        json!({"url": "https://example.org/", "prompt": "the \"prices\" ünïcødé", "n": [1, 2.5, null, {"x": true}]});
    Task::queued(org.id, user.map(|u| u.id), kind, input, created_at)
}

/// An AI operation's history row: of no scrap, finished.
fn ai_row(org: &Organization, created_at: DateTime<Utc>) -> HistoryRow {
    HistoryRow {
        id: HistoryId::new(),
        scrap_id: None,
        organization_id: org.id,
        status_detail: Some(StatusDetail::Success),
        data: r#"[{"script":"the prices"}]"#.into(),
        length: 1,
        time_ms: Some(2_500),
        digest: None,
        triggered_by: TriggeredBy::Api,
        run_type: RunType::AiGenerate,
        proxy_tier: "tier0".into(),
        costs: Some(Costs { ai: 0.03, ..Costs::of_loads(0, 0.0, true) }),
        meter: Some(Meter {
            breakdown: MeterBreakdown { ai: Some(3), ..Meter::of_loads(1, 1, None).breakdown },
            ratio_version: 1,
        }),
        fix_version_id: None,
        fixed_at: None,
        error_snapshot: None,
        retries: 0,
        error: None,
        created_at,
        finished_at: Some(created_at + Duration::milliseconds(2_500)),
    }
}

fn task_end<'a>(state: TaskState, activities: &'a [Activity]) -> TaskEnd<'a> {
    TaskEnd {
        state,
        result: Some(json!({"ok": state == TaskState::Succeeded})),
        error: (state == TaskState::Failed).then(|| "the model gave up".to_string()),
        row: None,
        units: 0,
        activities,
        fix: None,
        proposal: None,
    }
}

async fn balance(store: &Arc<dyn Store>, org: OrgId) -> i64 {
    store.organization(org).await.unwrap().unwrap().balance
}

async fn tasks_round_trip_scoped_by_organization(store: Arc<dyn Store>) {
    let (org, user) = account(&store, "tasks@example.com").await;
    let (other_org, _) = account(&store, "other-tasks@example.com").await;
    let t0 = now();
    let queued = task(&org, Some(&user), TaskKind::AiWizard, t0);
    store.insert_task(&queued).await.unwrap();
    assert_eq!(store.task(org.id, queued.id).await.unwrap(), Some(queued.clone()));

    // Every field set.
    let full = Task {
        state: TaskState::Failed,
        result: Some(json!({"script": "a", "columns": ["x", "y"], "score": 0.5})),
        error: Some("could not repair".into()),
        scrap_id: Some(ScrapId::new()),
        history_id: Some(HistoryId::new()),
        attempts: 3,
        lease_until: Some(t0 + Duration::milliseconds(90_123)),
        finished_at: Some(t0 + Duration::milliseconds(95_456)),
        ..task(&org, None, TaskKind::AiFix, t0 + Duration::milliseconds(1))
    };
    store.insert_task(&full).await.unwrap();
    assert_eq!(store.task(org.id, full.id).await.unwrap(), Some(full.clone()));
    let generate = Task { state: TaskState::Succeeded, ..task(&org, Some(&user), TaskKind::AiGenerate, t0) };
    store.insert_task(&generate).await.unwrap();
    assert_eq!(store.task(org.id, generate.id).await.unwrap(), Some(generate));

    assert_eq!(store.task(other_org.id, queued.id).await.unwrap(), None, "another organization's task");
    assert_eq!(store.task(other_org.id, full.id).await.unwrap(), None);
    assert_eq!(store.task(org.id, ObjectId::new()).await.unwrap(), None);
}

async fn task_claims_under_a_lease(store: Arc<dyn Store>) {
    let (org, user) = account(&store, "claims@example.com").await;
    let (other_org, other_user) = account(&store, "other-claims@example.com").await;
    let t0 = now();
    let at = |s: i64| t0 + Duration::seconds(s);
    // Made in another order, so that neither id order is creation order.
    let b = task(&other_org, Some(&other_user), TaskKind::AiGenerate, at(1));
    let c = task(&org, None, TaskKind::AiFix, at(2));
    let a = task(&org, Some(&user), TaskKind::AiWizard, at(0));
    assert!(b.id < c.id && c.id < a.id);
    let done =
        Task { state: TaskState::Succeeded, finished_at: Some(at(0)), ..task(&org, None, TaskKind::AiWizard, t0) };
    // Inserted out of order: the claim order is the creation order.
    for t in [&c, &done, &b, &a] {
        store.insert_task(t).await.unwrap();
    }

    let first_lease = at(70);
    let claimed = store.claim_tasks(at(10), first_lease, 2, 2, "lost").await.unwrap();
    assert_eq!(ids(&claimed, |t| t.id), [a.id, b.id], "the oldest queued tasks, across organizations");
    let running = |t: &Task, attempts: i64, lease: DateTime<Utc>| Task {
        state: TaskState::Running,
        attempts,
        lease_until: Some(lease),
        ..t.clone()
    };
    assert_eq!(claimed, [running(&a, 1, first_lease), running(&b, 1, first_lease)]);
    assert_eq!(store.task(org.id, a.id).await.unwrap(), Some(running(&a, 1, first_lease)), "stored as returned");
    assert_eq!(store.task(other_org.id, b.id).await.unwrap(), Some(running(&b, 1, first_lease)));

    let c_lease = at(100);
    let claimed = store.claim_tasks(at(11), c_lease, 2, 10, "lost").await.unwrap();
    assert_eq!(claimed, [running(&c, 1, c_lease)], "the held ones are not taken again");
    assert!(store.claim_tasks(at(12), at(200), 2, 10, "lost").await.unwrap().is_empty(), "all held");
    assert!(
        store.claim_tasks(at(70), at(200), 2, 10, "lost").await.unwrap().is_empty(),
        "a lease ends after its instant"
    );

    // Leases of a and b ended: claimed again, a second attempt.
    let second_lease = at(131);
    let claimed = store.claim_tasks(at(71), second_lease, 2, 10, "lost").await.unwrap();
    assert_eq!(claimed, [running(&a, 2, second_lease), running(&b, 2, second_lease)]);
    assert_eq!(store.task(org.id, c.id).await.unwrap(), Some(running(&c, 1, c_lease)), "c is still held");

    // Out of attempts once their lease ends again: failed, not returned;
    // c (one attempt) is taken again.
    let third_lease = at(200);
    let claimed = store.claim_tasks(at(132), third_lease, 2, 10, "the task runner was lost").await.unwrap();
    assert_eq!(claimed, [running(&c, 2, third_lease)]);
    let lost = |t: &Task| Task {
        state: TaskState::Failed,
        error: Some("the task runner was lost".into()),
        attempts: 2,
        lease_until: None,
        finished_at: Some(at(132)),
        ..t.clone()
    };
    assert_eq!(store.task(org.id, a.id).await.unwrap(), Some(lost(&a)));
    assert_eq!(store.task(other_org.id, b.id).await.unwrap(), Some(lost(&b)));
    assert!(store.claim_tasks(at(500), at(600), 5, 10, "lost").await.unwrap().iter().all(|t| t.id == c.id));
    assert_eq!(store.task(org.id, done.id).await.unwrap(), Some(done), "a finished task is never claimed");

    // A limit of one takes only the oldest.
    let e = task(&org, None, TaskKind::AiWizard, at(301));
    let d = task(&org, None, TaskKind::AiWizard, at(300));
    store.insert_task(&e).await.unwrap();
    store.insert_task(&d).await.unwrap();
    assert_eq!(ids(&store.claim_tasks(at(302), at(400), 2, 1, "lost").await.unwrap(), |t| t.id), [d.id]);
    assert_eq!(ids(&store.claim_tasks(at(302), at(400), 2, 1, "lost").await.unwrap(), |t| t.id), [e.id]);
}

async fn concurrent_task_runners_claim_each_task_once(store: Arc<dyn Store>) {
    let (org, _) = account(&store, "many-tasks@example.com").await;
    let all: Vec<Task> =
        (0..40).map(|i| task(&org, None, TaskKind::AiWizard, now() + Duration::milliseconds(i))).collect();
    for t in &all {
        store.insert_task(t).await.unwrap();
    }
    let mut runners = Vec::new();
    for _ in 0..4 {
        let store = store.clone();
        runners.push(tokio::spawn(async move {
            let mut mine = Vec::new();
            loop {
                let batch = store.claim_tasks(now(), now() + Duration::minutes(5), 3, 3, "lost").await.unwrap();
                if batch.is_empty() {
                    return mine;
                }
                assert!(batch.iter().all(|t| t.attempts == 1 && t.state == TaskState::Running));
                mine.extend(batch.into_iter().map(|t| t.id));
            }
        }));
    }
    let mut claimed = Vec::new();
    for r in runners {
        claimed.extend(r.await.unwrap());
    }
    assert_eq!(claimed.len(), 40, "each task claimed once");
    assert_eq!(set(claimed), set(all.iter().map(|t| t.id)));
}

async fn finish_task_once_per_claim(store: Arc<dyn Store>) {
    let (org, user) = account(&store, "finish@example.com").await;
    let t0 = now();
    let log_scrap = ScrapId::new();
    let wizard = task(&org, Some(&user), TaskKind::AiWizard, t0);
    store.insert_task(&wizard).await.unwrap();
    let never_claimed = task(&org, Some(&user), TaskKind::AiWizard, t0 + Duration::seconds(1));

    let claim = store.claim_tasks(t0, t0 + Duration::minutes(5), 3, 1, "lost").await.unwrap().remove(0);
    assert_eq!(claim.id, wizard.id);
    store.insert_task(&never_claimed).await.unwrap();
    let logs = [activity(org.id, log_scrap, "ai.wizard", t0)];

    // A claim of another attempt is not this one.
    let stale = Task { attempts: 0, ..claim.clone() };
    assert_eq!(store.finish_task(&stale, &task_end(TaskState::Succeeded, &logs)).await.unwrap(), TaskFinish::ClaimLost);
    let unclaimed = store.finish_task(&never_claimed, &task_end(TaskState::Succeeded, &logs)).await.unwrap();
    assert_eq!(unclaimed, TaskFinish::ClaimLost, "a queued task is nobody's to finish");
    assert_eq!(store.task(org.id, never_claimed.id).await.unwrap(), Some(never_claimed.clone()));
    assert_eq!(store.task(org.id, wizard.id).await.unwrap(), Some(claim.clone()));
    assert_eq!(store.list_activities(org.id, log_scrap, 0, 10).await.unwrap().total, 0);

    let before = now();
    let end = TaskEnd { result: Some(json!({"fields": ["title", "price"]})), ..task_end(TaskState::Succeeded, &logs) };
    assert_eq!(store.finish_task(&claim, &end).await.unwrap(), TaskFinish::Done { version: None });
    let stored = store.task(org.id, wizard.id).await.unwrap().unwrap();
    let finished_at = stored.finished_at.expect("finished_at");
    assert!(finished_at >= before && finished_at <= now() + Duration::milliseconds(1), "{finished_at}");
    assert_eq!(
        stored,
        Task {
            state: TaskState::Succeeded,
            result: Some(json!({"fields": ["title", "price"]})),
            lease_until: None,
            finished_at: Some(finished_at),
            ..claim.clone()
        }
    );
    assert_eq!(store.list_activities(org.id, log_scrap, 0, 10).await.unwrap().items, logs);

    // Finished once: a second end is refused and writes nothing.
    let again = [activity(org.id, log_scrap, "ai.wizard.again", t0)];
    let failed = task_end(TaskState::Failed, &again);
    assert_eq!(store.finish_task(&claim, &failed).await.unwrap(), TaskFinish::ClaimLost);
    assert_eq!(store.task(org.id, wizard.id).await.unwrap(), Some(stored));
    assert_eq!(store.list_activities(org.id, log_scrap, 0, 10).await.unwrap().total, 1);

    // A claim whose lease ended and that another runner took is lost.
    let generate = task(&org, Some(&user), TaskKind::AiGenerate, t0 + Duration::seconds(2));
    store.insert_task(&generate).await.unwrap();
    let at = now();
    let mut claims = store.claim_tasks(at, at + Duration::seconds(1), 3, 10, "lost").await.unwrap();
    let first = claims.remove(claims.iter().position(|t| t.id == generate.id).unwrap());
    let second = store
        .claim_tasks(at + Duration::seconds(2), at + Duration::minutes(5), 3, 10, "lost")
        .await
        .unwrap()
        .into_iter()
        .find(|t| t.id == generate.id)
        .expect("claimed again");
    assert_eq!(second.attempts, 2);
    let row = ai_row(&org, t0);
    let balance_before = balance(&store, org.id).await;
    let lost_end = TaskEnd { row: Some(&row), units: 5, ..task_end(TaskState::Succeeded, &again) };
    assert_eq!(store.finish_task(&first, &lost_end).await.unwrap(), TaskFinish::ClaimLost);
    assert_eq!(store.history_row(org.id, row.id).await.unwrap(), None, "a lost claim writes no row");
    assert_eq!(balance(&store, org.id).await, balance_before, "nor charges");
    assert_eq!(store.list_activities(org.id, log_scrap, 0, 10).await.unwrap().total, 1, "nor logs");
    assert_eq!(store.task(org.id, generate.id).await.unwrap(), Some(second.clone()));
    // The current claim ends it, failed.
    assert_eq!(
        store.finish_task(&second, &task_end(TaskState::Failed, &[])).await.unwrap(),
        TaskFinish::Done { version: None }
    );
    let ended = store.task(org.id, generate.id).await.unwrap().unwrap();
    assert_eq!(
        (ended.state, ended.error.as_deref(), ended.lease_until),
        (TaskState::Failed, Some("the model gave up"), None)
    );
    assert!(ended.finished_at.is_some());
}

async fn finished_tasks_write_ai_rows_of_no_scrap(store: Arc<dyn Store>) {
    let (org, user) = account(&store, "ai-rows@example.com").await;
    let (other_org, _) = account(&store, "other-ai-rows@example.com").await;
    let t0 = now();
    let s = scrap(&user, "Scrap", t0);
    insert_scrap(&store, &s).await;
    let run = HistoryRow { status_detail: Some(StatusDetail::Success), ..history(&s, t0) };
    store.insert_history(&run).await.unwrap();

    let generate = task(&org, Some(&user), TaskKind::AiGenerate, t0);
    store.insert_task(&generate).await.unwrap();
    let claim = store.claim_tasks(t0, t0 + Duration::minutes(5), 3, 10, "lost").await.unwrap().remove(0);
    let row = ai_row(&org, t0 + Duration::seconds(1));
    let log_scrap = ScrapId::new();
    let logs = [
        Activity { history_id: Some(row.id), ..activity(org.id, log_scrap, "ai.generated", t0 + Duration::seconds(2)) },
        activity(org.id, log_scrap, "ai.charged", t0 + Duration::seconds(1)),
    ];
    let before = balance(&store, org.id).await;
    let end = TaskEnd {
        result: Some(json!({"script": "the prices", "historyId": row.id.to_string()})),
        row: Some(&row),
        units: 7,
        ..task_end(TaskState::Succeeded, &logs)
    };
    assert_eq!(store.finish_task(&claim, &end).await.unwrap(), TaskFinish::Done { version: None });

    let stored = store.task(org.id, generate.id).await.unwrap().unwrap();
    assert_eq!((stored.state, stored.history_id), (TaskState::Succeeded, Some(row.id)), "the task names its row");
    assert_eq!(balance(&store, org.id).await, before - 7);
    assert_eq!(balance(&store, other_org.id).await, 500);
    assert_eq!(store.list_activities(org.id, log_scrap, 0, 10).await.unwrap().items, logs);

    // The row is the organization's, readable and listed, but no scrap's.
    assert_eq!(store.history_row(org.id, row.id).await.unwrap(), Some(row.clone()));
    assert_eq!(store.history_row(other_org.id, row.id).await.unwrap(), None);
    let page = store.list_history(org.id, &history_filter(0, 10)).await.unwrap();
    assert_eq!(page, Page { items: vec![row.clone(), run.clone()], total: 2 });
    let of_s = HistoryFilter { scrap: Some(s.id), ..history_filter(0, 10) };
    assert_eq!(store.list_history(org.id, &of_s).await.unwrap(), Page { items: vec![run.clone()], total: 1 });
    let allowed = HistoryFilter { only_scraps: Some(vec![s.id]), ..history_filter(0, 10) };
    assert_eq!(store.list_history(org.id, &allowed).await.unwrap(), Page { items: vec![run.clone()], total: 1 });
    assert_eq!(store.list_history(other_org.id, &history_filter(0, 10)).await.unwrap().total, 0);
    assert_eq!(store.scrap(org.id, s.id).await.unwrap().unwrap().history, [run.id]);
    assert_eq!(store.run_neighbours(org.id, &row).await.unwrap(), RunNeighbours::default());
    // Summaries are of scrap runs: an AI row's id is left out.
    assert_eq!(store.run_summaries(org.id, &[row.id, run.id]).await.unwrap(), [summary(&run)]);
    assert_eq!(store.run_neighbours(org.id, &run).await.unwrap(), RunNeighbours::default(), "no neighbour of no scrap");

    // A wizard row too, on a failed end; no units, no activity.
    let wizard = task(&org, Some(&user), TaskKind::AiWizard, t0);
    store.insert_task(&wizard).await.unwrap();
    let claim = store.claim_tasks(now(), now() + Duration::minutes(5), 3, 10, "lost").await.unwrap().remove(0);
    let wizard_row = HistoryRow {
        run_type: RunType::AiWizard,
        status_detail: Some(StatusDetail::Error),
        data: "[]".into(),
        length: 0,
        error: Some("the page did not load".into()),
        ..ai_row(&org, t0 + Duration::seconds(3))
    };
    let end = TaskEnd { row: Some(&wizard_row), ..task_end(TaskState::Failed, &[]) };
    assert_eq!(store.finish_task(&claim, &end).await.unwrap(), TaskFinish::Done { version: None });
    assert_eq!(store.history_row(org.id, wizard_row.id).await.unwrap(), Some(wizard_row.clone()));
    assert_eq!(balance(&store, org.id).await, before - 7);
    let page = store.list_history(org.id, &history_filter(0, 10)).await.unwrap();
    assert_eq!(ids(&page.items, |h| h.id), [wizard_row.id, row.id, run.id]);
}

async fn count_tasks_by_organization_kind_and_time(store: Arc<dyn Store>) {
    let (org, user) = account(&store, "count@example.com").await;
    let (other_org, other_user) = account(&store, "other-count@example.com").await;
    let t0 = now();
    for (o, u, kind, at) in [
        (&org, &user, TaskKind::AiWizard, t0 - Duration::days(2)),
        (&org, &user, TaskKind::AiWizard, t0 - Duration::hours(1)),
        (&org, &user, TaskKind::AiWizard, t0),
        (&org, &user, TaskKind::AiGenerate, t0 - Duration::minutes(1)),
        (&other_org, &other_user, TaskKind::AiWizard, t0),
    ] {
        store.insert_task(&task(o, Some(u), kind, at)).await.unwrap();
    }
    let day_ago = t0 - Duration::days(1);
    assert_eq!(store.count_tasks(org.id, TaskKind::AiWizard, day_ago).await.unwrap(), 2);
    assert_eq!(store.count_tasks(org.id, TaskKind::AiWizard, t0 - Duration::days(3)).await.unwrap(), 3);
    assert_eq!(store.count_tasks(org.id, TaskKind::AiWizard, t0 - Duration::minutes(30)).await.unwrap(), 1);
    assert_eq!(store.count_tasks(org.id, TaskKind::AiWizard, t0 + Duration::seconds(1)).await.unwrap(), 0);
    assert_eq!(store.count_tasks(org.id, TaskKind::AiGenerate, day_ago).await.unwrap(), 1);
    assert_eq!(store.count_tasks(org.id, TaskKind::AiFix, day_ago).await.unwrap(), 0);
    assert_eq!(store.count_tasks(other_org.id, TaskKind::AiWizard, day_ago).await.unwrap(), 1);
    assert_eq!(store.count_tasks(OrgId::new(), TaskKind::AiWizard, day_ago).await.unwrap(), 0);

    // Claimed and finished tasks still count (a daily limit counts requests).
    let claimed = store.claim_tasks(t0, t0 + Duration::minutes(5), 3, 10, "lost").await.unwrap();
    assert_eq!(claimed.len(), 5);
    for t in claimed.iter().filter(|t| t.organization_id == org.id) {
        store.finish_task(t, &task_end(TaskState::Succeeded, &[])).await.unwrap();
    }
    assert_eq!(store.count_tasks(org.id, TaskKind::AiWizard, day_ago).await.unwrap(), 2);
    assert_eq!(store.count_tasks(org.id, TaskKind::AiGenerate, day_ago).await.unwrap(), 1);
}

// ---------------------------------------------------------------------------
// AI Fix
// ---------------------------------------------------------------------------

async fn ai_fix_proposals_and_approvals_wait_for_a_person(store: Arc<dyn Store>) {
    let (org, user) = account(&store, "approve@example.com").await;
    let (other, other_user) = account(&store, "other-approve@example.com").await;
    let t0 = now();
    let s = scrap(&user, "Signs in", t0);
    insert_scrap(&store, &s).await;
    let failed = HistoryRow { status_detail: Some(StatusDetail::Error), ..history(&s, t0) };
    store.insert_history(&failed).await.unwrap();
    let proposal = |task: &Task, request: &str, at| FixProposal {
        id: ObjectId::new(),
        organization_id: org.id,
        scrap_id: s.id,
        task_id: task.id,
        history_id: failed.id,
        base_request: s.request.clone(),
        request: request.into(),
        length: 3,
        state: ProposalState::Pending,
        created_at: at,
        decided_at: None,
        decided_by: None,
        version_id: None,
    };
    // Two AI Fix tasks each end with a proposal: the newer supersedes the older.
    let mut proposed = Vec::new();
    for (n, script) in ["first repair", "second repair"].into_iter().enumerate() {
        let at = t0 + Duration::seconds(n as i64 + 1);
        let fix = Task { scrap_id: Some(s.id), history_id: Some(failed.id), ..task(&org, None, TaskKind::AiFix, at) };
        store.insert_task(&fix).await.unwrap();
        let claim = store.claim_tasks(now(), now() + Duration::minutes(5), 3, 10, "lost").await.unwrap().remove(0);
        let p = proposal(&fix, script, at);
        let end = TaskEnd { proposal: Some(&p), ..task_end(TaskState::Succeeded, &[]) };
        assert_eq!(store.finish_task(&claim, &end).await.unwrap(), TaskFinish::Done { version: None });
        proposed.push(p);
    }
    let (older, newer) = (&proposed[0], &proposed[1]);
    // Nothing was applied: the script and its versions are as they were.
    assert_eq!(store.scrap(org.id, s.id).await.unwrap().unwrap().request, s.request);
    assert_eq!(store.script_versions(org.id, s.id, 0, 10).await.unwrap().total, 1);
    assert_eq!(store.fix_proposals(org.id, s.id, true, 10).await.unwrap(), vec![newer.clone()]);
    let all = store.fix_proposals(org.id, s.id, false, 10).await.unwrap();
    assert_eq!(
        all.iter().map(|p| (p.id, p.state)).collect::<Vec<_>>(),
        [(newer.id, ProposalState::Pending), (older.id, ProposalState::Superseded)]
    );
    // Another organization sees none of it and cannot decide it.
    assert!(store.fix_proposals(other.id, s.id, false, 10).await.unwrap().is_empty());
    assert_eq!(store.fix_proposal(other.id, s.id, newer.id).await.unwrap(), None);
    let theirs = activity(other.id, s.id, "fix.approved", now());
    let by_them = Decided { by: other_user.id, at: now(), activity: &theirs };
    assert_eq!(store.approve_proposal(other.id, s.id, newer.id, &by_them).await.unwrap(), None);
    assert_eq!(store.dismiss_proposal(other.id, s.id, newer.id, &by_them).await.unwrap(), None);

    // A superseded proposal cannot be approved.
    let log = activity(org.id, s.id, "fix.approved", now());
    let decided = Decided { by: user.id, at: t0 + Duration::seconds(5), activity: &log };
    assert_eq!(
        store.approve_proposal(org.id, s.id, older.id, &decided).await.unwrap(),
        Some(ProposalDecision::AlreadyDecided(ProposalState::Superseded))
    );
    // After an edit of the script, approval is refused and nothing is written.
    let edited = Scrap { request: "edited by hand".into(), updated_at: t0 + Duration::seconds(3), ..s.clone() };
    assert!(store.update_scrap(org.id, &edited, &activity(org.id, s.id, "scrap.updated", now())).await.unwrap());
    assert_eq!(
        store.approve_proposal(org.id, s.id, newer.id, &decided).await.unwrap(),
        Some(ProposalDecision::ScriptChanged)
    );
    assert_eq!(store.fix_proposal(org.id, s.id, newer.id).await.unwrap().unwrap().state, ProposalState::Pending);
    // Back to the script it repairs: approval makes it current, as an
    // approved `ai_fix` version, with its activity.
    assert!(store.update_scrap(org.id, &s, &activity(org.id, s.id, "scrap.updated", now())).await.unwrap());
    let Some(ProposalDecision::Done { version: Some(made) }) =
        store.approve_proposal(org.id, s.id, newer.id, &decided).await.unwrap()
    else {
        panic!("approved")
    };
    assert_eq!(
        (made.source, made.request.as_str(), made.history_id, made.approved_at, made.approved_by),
        (VersionSource::AiFix, "second repair", Some(failed.id), Some(decided.at), Some(user.id))
    );
    assert!(!made.awaits_approval());
    assert_eq!(store.current_version(org.id, s.id).await.unwrap(), Some(made.clone()));
    assert_eq!(store.scrap(org.id, s.id).await.unwrap().unwrap().request, "second repair");
    let approved = store.fix_proposal(org.id, s.id, newer.id).await.unwrap().unwrap();
    assert_eq!(
        (approved.state, approved.decided_by, approved.decided_at, approved.version_id),
        (ProposalState::Approved, Some(user.id), Some(decided.at), Some(made.id))
    );
    let logged = store.list_activities(org.id, s.id, 0, 10).await.unwrap().items;
    assert_eq!(logged.iter().filter(|a| a.kind == "fix.approved").collect::<Vec<_>>(), [&log], "once");
    assert!(store.fix_proposals(org.id, s.id, true, 10).await.unwrap().is_empty());
    assert_eq!(
        store.dismiss_proposal(org.id, s.id, newer.id, &decided).await.unwrap(),
        Some(ProposalDecision::AlreadyDecided(ProposalState::Approved))
    );

    // A third proposal, dismissed: the script stays.
    let fix = Task { scrap_id: Some(s.id), history_id: Some(failed.id), ..task(&org, None, TaskKind::AiFix, t0) };
    store.insert_task(&fix).await.unwrap();
    let claim = store.claim_tasks(now(), now() + Duration::minutes(5), 3, 10, "lost").await.unwrap().remove(0);
    let third = FixProposal { base_request: "second repair".into(), ..proposal(&fix, "third repair", now()) };
    let end = TaskEnd { proposal: Some(&third), ..task_end(TaskState::Succeeded, &[]) };
    store.finish_task(&claim, &end).await.unwrap();
    let dismissed_log = activity(org.id, s.id, "fix.dismissed", now());
    let dismissal = Decided { by: user.id, at: now(), activity: &dismissed_log };
    assert_eq!(
        store.dismiss_proposal(org.id, s.id, third.id, &dismissal).await.unwrap(),
        Some(ProposalDecision::Done { version: None })
    );
    assert_eq!(store.fix_proposal(org.id, s.id, third.id).await.unwrap().unwrap().state, ProposalState::Dismissed);
    assert_eq!(store.scrap(org.id, s.id).await.unwrap().unwrap().request, "second repair");

    // An `ai_fix` version applied by itself waits; approving it once is
    // all it takes, and a person's version never waits.
    let unapproved = ScriptVersion {
        id: ObjectId::new(),
        organization_id: org.id,
        scrap_id: s.id,
        number: 0,
        request: "applied by AI Fix".into(),
        source: VersionSource::AiFix,
        history_id: Some(failed.id),
        restored_from: None,
        created_at: now(),
        approved_at: None,
        approved_by: None,
    };
    let fix = Task { scrap_id: Some(s.id), history_id: Some(failed.id), ..task(&org, None, TaskKind::AiFix, t0) };
    store.insert_task(&fix).await.unwrap();
    let claim = store.claim_tasks(now(), now() + Duration::minutes(5), 3, 10, "lost").await.unwrap().remove(0);
    let amended = HistoryRow { status_detail: Some(StatusDetail::Success), ..failed.clone() };
    let end = TaskEnd {
        fix: Some(AppliedFix {
            scrap_id: s.id,
            replaced: "second repair",
            version: &unapproved,
            row: &amended,
            deliveries: &[],
        }),
        ..task_end(TaskState::Succeeded, &[])
    };
    assert!(matches!(store.finish_task(&claim, &end).await.unwrap(), TaskFinish::Done { version: Some(_) }));
    let current = store.current_version(org.id, s.id).await.unwrap().unwrap();
    assert!(current.id == unapproved.id && current.awaits_approval());
    assert!(store.run_scrap(org.id, s.id).await.unwrap().unwrap().awaits_approval, "a run reads it with its scrap");
    assert_eq!(store.approve_version(other.id, s.id, unapproved.id, &by_them).await.unwrap(), None);
    let approval_log = activity(org.id, s.id, "fix.approved", now());
    let approval = Decided { by: user.id, at: now(), activity: &approval_log };
    let approved = store.approve_version(org.id, s.id, unapproved.id, &approval).await.unwrap().expect("approved");
    assert_eq!((approved.approved_at, approved.approved_by), (Some(approval.at), Some(user.id)));
    assert!(!store.current_version(org.id, s.id).await.unwrap().unwrap().awaits_approval());
    assert!(!store.run_scrap(org.id, s.id).await.unwrap().unwrap().awaits_approval);
    assert_eq!(store.approve_version(org.id, s.id, unapproved.id, &dismissal).await.unwrap(), None);
    assert_eq!(store.approve_version(org.id, s.id, made.id, &dismissal).await.unwrap(), None, "approved already");
    let first = store.script_versions(org.id, s.id, 0, 10).await.unwrap().items.pop().unwrap();
    assert_eq!(store.approve_version(org.id, s.id, first.id, &dismissal).await.unwrap(), None, "a person's");
    assert_eq!(store.current_version(other.id, s.id).await.unwrap(), None);

    // Deleting the scrap deletes its proposals.
    assert!(store.delete_scrap(org.id, s.id, &activity(org.id, s.id, "scrap.deleted", now())).await.unwrap());
    assert!(store.fix_proposals(org.id, s.id, false, 10).await.unwrap().is_empty());
}

async fn run_pages_are_replaced_and_read_in_order_scoped_by_organization(store: Arc<dyn Store>) {
    let (org, user) = account(&store, "pages@example.com").await;
    let (other, _) = account(&store, "other-pages@example.com").await;
    let t0 = now();
    let s = scrap(&user, "Catalog", t0);
    insert_scrap(&store, &s).await;
    let run = history(&s, t0);
    store.insert_history(&run).await.unwrap();
    let page = |position: i64, status: PageStatus| RunPage {
        organization_id: org.id,
        scrap_id: s.id,
        history_id: run.id,
        position,
        url: format!("https://shop.example/p/{position}"),
        label: (position > 0).then(|| "detail".to_string()),
        depth: position.min(1),
        status,
        items: position % 3,
        duration_ms: 10 + position,
        error: (status == PageStatus::Error).then(|| "HTTP 500".to_string()),
    };
    // More pages than one INSERT takes, written out of order.
    let mut pages: Vec<RunPage> = (0..620)
        .map(|i| {
            let status = match i % 4 {
                0 => PageStatus::Ok,
                1 => PageStatus::Error,
                2 => PageStatus::SkippedRobots,
                _ => PageStatus::SkippedLimit,
            };
            page(i, status)
        })
        .collect();
    pages.reverse();
    store.replace_run_pages(org.id, run.id, &pages).await.unwrap();
    pages.reverse();
    let first = store.run_pages(org.id, run.id, 0, 3).await.unwrap();
    assert_eq!(first, Page { items: pages[..3].to_vec(), total: 620 });
    let last = store.run_pages(org.id, run.id, 600, 100).await.unwrap();
    assert_eq!(last.items, pages[600..].to_vec());
    // Another organization sees none of them and cannot overwrite them.
    assert_eq!(store.run_pages(other.id, run.id, 0, 10).await.unwrap(), Page { items: vec![], total: 0 });
    store.replace_run_pages(other.id, run.id, &[]).await.unwrap();
    assert_eq!(store.run_pages(org.id, run.id, 0, 1).await.unwrap().total, 620);
    // Written again (a claim lost and run again): replaced, not added.
    store.replace_run_pages(org.id, run.id, &pages[..2]).await.unwrap();
    assert_eq!(store.run_pages(org.id, run.id, 0, 10).await.unwrap().items, pages[..2].to_vec());
    // Deleting the scrap deletes its runs' pages.
    assert!(store.delete_scrap(org.id, s.id, &activity(org.id, s.id, "scrap.deleted", now())).await.unwrap());
    assert_eq!(store.run_pages(org.id, run.id, 0, 10).await.unwrap().total, 0);
}

async fn ai_fix_makes_the_repaired_script_current(store: Arc<dyn Store>) {
    let (org, user) = account(&store, "fix@example.com").await;
    let t0 = now();
    let s = scrap(&user, "Broken", t0);
    insert_scrap(&store, &s).await;
    // The owner's edit is version 2; the run of version 2 fails.
    let edited = Scrap { request: "the prices, by .price".into(), updated_at: t0 + Duration::seconds(1), ..s.clone() };
    let edit_log = activity(org.id, s.id, "scrap.updated", t0 + Duration::seconds(1));
    assert!(store.update_scrap(org.id, &edited, &edit_log).await.unwrap());
    let hook = webhook(&org, "https://a.example/hook", t0);
    store.insert_webhook(&hook).await.unwrap();
    let pending = history(&s, t0 + Duration::seconds(2));
    let log = activity(org.id, s.id, "run.triggered", t0 + Duration::seconds(2));
    store.enqueue_run(&pending, &["main".to_string()], None, &log).await.unwrap();
    let run_claim = store.claim_run("main", "w-1", now() + Duration::minutes(5)).await.unwrap().unwrap();
    let failed = HistoryRow {
        status_detail: Some(StatusDetail::Error),
        time_ms: Some(1_200),
        costs: Some(Costs::of_loads(100, 0.01, true)),
        meter: Some(Meter::of_loads(1, 1, Some(0))),
        error_snapshot: Some(json!({"html": "<p>x</p>", "selector": ".price", "screenshot": null})),
        error: Some("selector .price matched nothing".into()),
        finished_at: Some(t0 + Duration::seconds(3)),
        ..pending.clone()
    };
    let finished = activity(org.id, s.id, "run.finished", t0 + Duration::seconds(3));
    assert!(store.finish_run(&run_claim, &FinishedRun::new(&failed, 1, &finished)).await.unwrap().is_some());
    assert_eq!(store.history_row(org.id, failed.id).await.unwrap(), Some(failed.clone()));

    let fix = Task { scrap_id: Some(s.id), history_id: Some(failed.id), ..task(&org, None, TaskKind::AiFix, t0) };
    store.insert_task(&fix).await.unwrap();
    let claim = store.claim_tasks(now(), now() + Duration::minutes(5), 3, 10, "lost").await.unwrap().remove(0);
    assert_eq!(claim.id, fix.id);

    let fixed_at = t0 + Duration::seconds(10);
    let version = ScriptVersion {
        id: ObjectId::new(),
        organization_id: org.id,
        scrap_id: s.id,
        number: 0,
        request: "the prices, by .amount".into(),
        source: VersionSource::AiFix,
        history_id: Some(failed.id),
        restored_from: None,
        created_at: fixed_at,
        approved_at: None,
        approved_by: None,
    };
    let amended = HistoryRow {
        status_detail: Some(StatusDetail::Success),
        data: r#"[{"price":1.5},{"price":2}]"#.into(),
        length: 2,
        digest: Some("two prices".into()),
        costs: Some(Costs { fix_ai: 0.05, ..Costs::of_loads(100, 0.01, true) }),
        meter: Some(Meter {
            breakdown: MeterBreakdown { fix_ai: Some(5), ..Meter::of_loads(1, 1, None).breakdown },
            ratio_version: 1,
        }),
        error_snapshot: None,
        error: None,
        fixed_at: Some(fixed_at),
        ..failed.clone()
    };
    let d = Delivery { event: WebhookEvent::ScrapSuccess, ..delivery(&hook, &failed) };
    let logs = [activity(org.id, s.id, "scrap.fixed", fixed_at)];
    let applied = |replaced| AppliedFix {
        scrap_id: s.id,
        replaced,
        version: &version,
        row: &amended,
        deliveries: std::slice::from_ref(&d),
    };
    let end = |replaced| TaskEnd {
        state: TaskState::Succeeded,
        result: Some(json!({"fixed": true})),
        error: None,
        row: None,
        units: 5,
        activities: &logs,
        fix: Some(applied(replaced)),
        proposal: None,
    };
    let before = balance(&store, org.id).await;

    // The script changed since the run failed: nothing is written, and the
    // task is still the runner's to end.
    assert_eq!(store.finish_task(&claim, &end("the list of items")).await.unwrap(), TaskFinish::ScriptChanged);
    assert_eq!(store.task(org.id, fix.id).await.unwrap(), Some(claim.clone()));
    assert_eq!(store.scrap(org.id, s.id).await.unwrap().unwrap().request, "the prices, by .price");
    assert_eq!(store.history_row(org.id, failed.id).await.unwrap(), Some(failed.clone()));
    assert_eq!(store.script_versions(org.id, s.id, 0, 10).await.unwrap().total, 2);
    assert_eq!(store.script_version(org.id, s.id, version.id).await.unwrap(), None);
    assert_eq!(balance(&store, org.id).await, before);
    assert_eq!(store.list_activities(org.id, s.id, 0, 10).await.unwrap().items[0], finished);
    let later = now() + Duration::seconds(1);
    assert!(store.claim_deliveries(later, later + Duration::minutes(1), 10).await.unwrap().is_empty(), "none queued");

    // The failed script is still current: applied.
    let done = store.finish_task(&claim, &end("the prices, by .price")).await.unwrap();
    let stored = ScriptVersion { number: 3, ..version.clone() };
    assert_eq!(done, TaskFinish::Done { version: Some(stored.clone()) });
    assert_eq!(store.scrap(org.id, s.id).await.unwrap().unwrap().request, "the prices, by .amount");
    assert_eq!(
        store.script_versions(org.id, s.id, 0, 1).await.unwrap(),
        Page { items: vec![stored.clone()], total: 3 }
    );
    assert_eq!(store.script_version(org.id, s.id, version.id).await.unwrap(), Some(stored.clone()));
    let row = store.history_row(org.id, failed.id).await.unwrap().unwrap();
    assert_eq!(row, HistoryRow { fix_version_id: Some(version.id.to_string()), ..amended.clone() });
    let ended = store.task(org.id, fix.id).await.unwrap().unwrap();
    assert_eq!(
        (ended.state, ended.result, ended.history_id),
        (TaskState::Succeeded, Some(json!({"fixed": true})), Some(failed.id))
    );
    assert_eq!(balance(&store, org.id).await, before - 5);
    assert_eq!(store.list_activities(org.id, s.id, 0, 10).await.unwrap().items[0], logs[0]);
    assert_eq!(store.last_success(org.id, s.id).await.unwrap(), Some(row.clone()));
    let later = now() + Duration::seconds(1);
    let queued = store.claim_deliveries(later, later + Duration::minutes(1), 10).await.unwrap();
    assert_eq!(queued.len(), 1);
    assert_eq!(queued[0].0, d);
    assert_eq!(queued[0].1.as_ref().map(|h| h.id), Some(hook.id));

    // A second end of the same claim writes nothing more.
    assert_eq!(store.finish_task(&claim, &end("the prices, by .amount")).await.unwrap(), TaskFinish::ClaimLost);
    assert_eq!(store.script_versions(org.id, s.id, 0, 10).await.unwrap().total, 3);

    // The owner saving the scrap as it now is adds no version.
    let current = store.scrap(org.id, s.id).await.unwrap().unwrap();
    let saved = Scrap { title: "Fixed".into(), ..current };
    assert!(store.update_scrap(org.id, &saved, &activity(org.id, s.id, "scrap.updated", now())).await.unwrap());
    assert_eq!(store.script_versions(org.id, s.id, 0, 10).await.unwrap().total, 3);

    // A fix of a scrap deleted meanwhile is refused too.
    let gone = scrap(&user, "Gone", t0);
    insert_scrap(&store, &gone).await;
    let gone_run = HistoryRow { status_detail: Some(StatusDetail::Error), ..history(&gone, t0) };
    store.insert_history(&gone_run).await.unwrap();
    let gone_fix =
        Task { scrap_id: Some(gone.id), history_id: Some(gone_run.id), ..task(&org, None, TaskKind::AiFix, t0) };
    store.insert_task(&gone_fix).await.unwrap();
    let gone_claim = store.claim_tasks(now(), now() + Duration::minutes(5), 3, 10, "lost").await.unwrap().remove(0);
    assert!(store.delete_scrap(org.id, gone.id, &activity(org.id, gone.id, "scrap.deleted", now())).await.unwrap());
    let gone_version = ScriptVersion { id: ObjectId::new(), scrap_id: gone.id, ..version.clone() };
    let gone_amended = HistoryRow { status_detail: Some(StatusDetail::Success), ..gone_run.clone() };
    let gone_end = TaskEnd {
        fix: Some(AppliedFix {
            scrap_id: gone.id,
            replaced: "the list of items",
            version: &gone_version,
            row: &gone_amended,
            deliveries: &[],
        }),
        ..task_end(TaskState::Succeeded, &[])
    };
    assert_eq!(store.finish_task(&gone_claim, &gone_end).await.unwrap(), TaskFinish::ScriptChanged);
    assert_eq!(store.script_versions(org.id, gone.id, 0, 10).await.unwrap().total, 0);
    assert_eq!(store.task(org.id, gone_fix.id).await.unwrap().unwrap().state, TaskState::Running);
}

// ---------------------------------------------------------------------------
// Migration 0007 on a database written before it
// ---------------------------------------------------------------------------

/// What a database held before migration 0007 (AI work): an organization
/// with a scrap and runs of it, as the statements that wrote them.
struct Before0007 {
    org: Organization,
    scrap: Scrap,
    runs: Vec<HistoryRow>,
}

/// A SQL literal: a quoted string, or NULL.
fn lit(value: Option<&str>) -> String {
    value.map_or("NULL".into(), |v| format!("'{}'", v.replace('\'', "''")))
}

fn lit_ms(value: Option<DateTime<Utc>>) -> String {
    value.map_or("NULL".into(), |t| t.timestamp_millis().to_string())
}

fn lit_json(value: Option<&serde_json::Value>) -> String {
    lit(value.map(|v| v.to_string()).as_deref())
}

/// `costs` as svc wrote it before the column had a type (integer zeros).
fn legacy_costs(c: &Costs) -> String {
    json!({"proxy": c.proxy, "captcha": 0, "ai": c.ai, "fixAi": c.fix_ai, "total": c.total(), "priced": c.priced, "bytes": c.bytes,
           "bytesSource": c.bytes_source, "provider": c.provider, "model": c.model})
    .to_string()
}

/// `meter` as svc wrote it before the column had a type.
fn legacy_meter(m: &Meter) -> String {
    let b = &m.breakdown;
    let mut breakdown = json!({"run": b.run, "transfer": b.transfer});
    for (key, value) in [("tier", b.tier), ("ai", b.ai), ("fixAi", b.fix_ai), ("fixRuns", b.fix_runs)] {
        if let Some(v) = value {
            breakdown[key] = json!(v);
        }
    }
    json!({"units": m.units(), "ratioVersion": m.ratio_version, "breakdown": breakdown}).to_string()
}

impl Before0007 {
    fn new() -> Before0007 {
        let (org, user) = {
            let account = new_account("before-ai@example.com");
            (account.organization, account.user)
        };
        let t0 = now() - Duration::days(30);
        let scrap = Scrap {
            description: "written by 0.x, it's old".into(),
            containers: vec!["main".into()],
            params: vec![ParamSet { key: "city".into(), value: json!("Paris") }],
            updated_at: t0 + Duration::seconds(5),
            ..scrap(&user, "Old scrap", t0)
        };
        let runs = vec![
            HistoryRow { run_type: RunType::ScrapRun, ..full_history(&scrap, t0 + Duration::seconds(10)) },
            HistoryRow { status_detail: Some(StatusDetail::Success), ..history(&scrap, t0 + Duration::seconds(20)) },
        ];
        let scrap = Scrap { history: runs.iter().rev().map(|r| r.id).collect(), ..scrap };
        Before0007 { org, scrap, runs }
    }

    fn sql(&self) -> String {
        let (o, s) = (&self.org, &self.scrap);
        let mut sql = format!(
            "INSERT INTO organizations (id, name, plan, balance, default_containers, created_at) \
             VALUES ('{}', {}, '{}', {}, {}, {});\n",
            o.id,
            lit(Some(&o.name)),
            o.plan.as_str(),
            o.balance,
            lit(Some(&serde_json::to_string(&o.default_containers).unwrap())),
            o.created_at.timestamp_millis(),
        );
        sql += &format!(
            "INSERT INTO scraps (id, organization_id, user_id, title, description, url, request, scrapper, \
             containers, params, cron, cron_timezone, alert, auto_fix, proxy_tier, last_tier_change_at, email_notif, \
             email_notif_recipient, email_notif_format, digest_enabled, digest_prompt, digest_recipient, banner, \
             created_at, updated_at, search_text, history_ids, next_fire_at) VALUES ('{}', '{}', '{}', {}, {}, {}, \
             {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, '{}', {}, {}, {}, {}, {}, {}, {}, {}, {});\n",
            s.id,
            s.organization_id,
            s.user_id,
            lit(Some(&s.title)),
            lit(Some(&s.description)),
            lit(Some(&s.url)),
            lit(Some(&s.request)),
            lit(Some(&s.scrapper)),
            lit(Some(&serde_json::to_string(&s.containers).unwrap())),
            lit(Some(&serde_json::to_string(&s.params).unwrap())),
            lit(s.cron.as_deref()),
            lit(Some(&s.cron_timezone)),
            lit(s.alert.as_deref()),
            s.auto_fix,
            lit(s.proxy_tier.as_deref()),
            lit_ms(s.last_tier_change_at),
            s.email_notif,
            lit(s.email_notif_recipient.as_deref()),
            s.email_notif_format.as_str(),
            s.digest_enabled,
            lit(s.digest_prompt.as_deref()),
            lit(s.digest_recipient.as_deref()),
            lit(Some(&s.banner)),
            s.created_at.timestamp_millis(),
            s.updated_at.timestamp_millis(),
            lit(Some(&format!("{}\n{}\n{}", s.title, s.description, s.url).to_lowercase())),
            lit(Some(&s.history.iter().map(HistoryId::to_string).collect::<Vec<_>>().join(","))),
            lit_ms(s.next_fire_at),
        );
        for h in &self.runs {
            sql += &format!(
                "INSERT INTO history (id, organization_id, scrap_id, status_detail, data, length, time_ms, digest, \
                 triggered_by, run_type, proxy_tier, costs, meter, fix_version_id, fixed_at, error_snapshot, retries, \
                 error, created_at, finished_at) VALUES ('{}', '{}', '{}', {}, {}, {}, {}, {}, '{}', '{}', {}, {}, {}, \
                 {}, {}, {}, {}, {}, {}, {});\n",
                h.id,
                h.organization_id,
                h.scrap_id.unwrap(),
                lit(h.status_detail.map(|d| d.as_str())),
                lit(Some(&h.data)),
                h.length,
                h.time_ms.map_or("NULL".into(), |t| t.to_string()),
                lit(h.digest.as_deref()),
                h.triggered_by.as_str(),
                h.run_type.as_str(),
                lit(Some(&h.proxy_tier)),
                lit(h.costs.as_ref().map(legacy_costs).as_deref()),
                lit(h.meter.as_ref().map(legacy_meter).as_deref()),
                lit(h.fix_version_id.as_deref()),
                lit_ms(h.fixed_at),
                lit_json(h.error_snapshot.as_ref()),
                h.retries,
                lit(h.error.as_deref()),
                h.created_at.timestamp_millis(),
                lit_ms(h.finished_at),
            );
        }
        sql
    }

    /// After migration 0007: everything reads as it was written, the
    /// scrap's script is its version 1, and rows of no scrap can be written.
    async fn check(&self, store: &Arc<dyn Store>) {
        let (org, s) = (self.org.id, &self.scrap);
        assert_eq!(store.organization(org).await.unwrap().as_ref(), Some(&self.org));
        assert_eq!(store.scrap(org, s.id).await.unwrap().as_ref(), Some(s));
        for row in &self.runs {
            assert_eq!(store.history_row(org, row.id).await.unwrap().as_ref(), Some(row));
        }
        let page =
            store.list_history(org, &HistoryFilter { scrap: Some(s.id), ..history_filter(0, 10) }).await.unwrap();
        assert_eq!(ids(&page.items, |h| h.id), s.history);
        let v1 = ScriptVersion {
            // Migration 0007 gave each scrap's first version the scrap's id.
            id: s.id.object_id(),
            organization_id: org,
            scrap_id: s.id,
            number: 1,
            request: s.request.clone(),
            source: VersionSource::User,
            history_id: None,
            restored_from: None,
            created_at: s.updated_at,
            // Migration 0015: a person's versions count as approved when made.
            approved_at: Some(s.updated_at),
            approved_by: None,
        };
        assert_eq!(store.script_versions(org, s.id, 0, 10).await.unwrap(), Page { items: vec![v1], total: 1 });

        // The scrap's next script is version 2; an AI row of no scrap is written.
        let at = now();
        let edited = Scrap { request: "a new script".into(), updated_at: at, ..s.clone() };
        assert!(store.update_scrap(org, &edited, &activity(org, s.id, "scrap.updated", at)).await.unwrap());
        let numbers: Vec<i64> =
            store.script_versions(org, s.id, 0, 10).await.unwrap().items.iter().map(|v| v.number).collect();
        assert_eq!(numbers, [2, 1]);
        let row = ai_row(&self.org, at);
        store.insert_history(&row).await.unwrap();
        assert_eq!(store.history_row(org, row.id).await.unwrap(), Some(row));
        assert_eq!(store.list_history(org, &history_filter(0, 10)).await.unwrap().total, 3);
    }
}

// ---------------------------------------------------------------------------
// Site accounts and sessions (logged-in scraping)
// ---------------------------------------------------------------------------

/// Every value of `column` in `table`, read with raw SQL (what a dump of
/// the database holds).
async fn raw_column(db: &TestDb, table: &str, column: &str) -> Vec<String> {
    let sql = format!("SELECT {column} FROM {table} ORDER BY scrap_id");
    if db.url.starts_with("sqlite:") {
        let pool = sqlx::SqlitePool::connect(&db.url).await.unwrap();
        let rows: Vec<(String,)> = sqlx::query_as(sqlx::AssertSqlSafe(sql)).fetch_all(&pool).await.unwrap();
        pool.close().await;
        rows.into_iter().map(|(v,)| v).collect()
    } else {
        let pool = sqlx::PgPool::connect(&db.url).await.unwrap();
        let rows: Vec<(String,)> = sqlx::query_as(sqlx::AssertSqlSafe(sql)).fetch_all(&pool).await.unwrap();
        pool.close().await;
        rows.into_iter().map(|(v,)| v).collect()
    }
}

fn site_account(username: &str, password: &str) -> SiteAccount {
    SiteAccount { username: username.into(), password: password.into() }
}

fn saved_session(state: &str, at: DateTime<Utc>, history_id: Option<HistoryId>) -> SavedSession {
    SavedSession { state: SessionState::new(state), saved_at: at, history_id }
}

async fn site_accounts_sealed_and_scoped(db: &TestDb) {
    let store = db.open().await;
    let (org, user) = account(&store, "ada@example.com").await;
    let (other_org, other_user) = account(&store, "eve@example.com").await;
    let t0 = now();
    let s = scrap(&user, "members", t0);
    insert_scrap(&store, &s).await;
    let theirs = scrap(&other_user, "theirs", t0);
    insert_scrap(&store, &theirs).await;
    let (username, password) = ("ada.lovelace@example.org", "Correct-Horse-Battery-Staple-7");

    assert_eq!(store.site_account(org.id, s.id).await.unwrap(), None);
    // A fresh activity entry per write (ids are unique).
    let act = |org: OrgId, kind: &str| activity(org, s.id, kind, t0);
    assert!(
        store
            .set_site_account(org.id, s.id, &site_account(username, password), t0, false, &act(org.id, "account.set"))
            .await
            .unwrap()
    );
    let stored = store.site_account(org.id, s.id).await.unwrap().unwrap();
    assert_eq!(stored.account, site_account(username, password));
    assert_eq!(stored.updated_at, t0);

    // Sealed at rest: what the database holds names the key and hides the values.
    let sealed_usernames = raw_column(db, "site_accounts", "username_sealed").await;
    let sealed_passwords = raw_column(db, "site_accounts", "password_sealed").await;
    assert_eq!((sealed_usernames.len(), sealed_passwords.len()), (1, 1));
    for sealed in sealed_usernames.iter().chain(&sealed_passwords) {
        assert!(Sealer::is_sealed(sealed), "{sealed}");
        assert_eq!(Sealer::key_id_of(sealed), Some(db.key().id()));
        assert!(!sealed.contains(username) && !sealed.contains(password) && !sealed.contains("ada.lovelace"));
    }

    // Another organization's ids: nothing read, nothing written.
    assert_eq!(store.site_account(other_org.id, s.id).await.unwrap(), None);
    assert!(
        !store
            .set_site_account(
                other_org.id,
                s.id,
                &site_account("eve", "x"),
                t0,
                true,
                &act(other_org.id, "account.set")
            )
            .await
            .unwrap()
    );
    assert!(
        !store
            .set_site_account(org.id, theirs.id, &site_account("eve", "x"), t0, true, &act(org.id, "account.set"))
            .await
            .unwrap()
    );
    assert!(
        !store
            .set_site_account(org.id, ScrapId::new(), &site_account("eve", "x"), t0, true, &act(org.id, "account.set"))
            .await
            .unwrap()
    );
    assert!(!store.delete_site_account(other_org.id, s.id, &act(other_org.id, "account.set")).await.unwrap());
    assert_eq!(store.site_account(org.id, s.id).await.unwrap().unwrap().account, site_account(username, password));
    assert_eq!(store.site_account(other_org.id, theirs.id).await.unwrap(), None);

    // A session, sealed too; scoped the same way.
    let cookie = r#"{"v":1,"cookies":[{"name":"members_sid","value":"sid-5f1d2b7c9e"}]}"#;
    let run = HistoryId::new();
    let t1 = t0 + Duration::seconds(1);
    let loginless = scrap(&user, "no login", t0);
    insert_scrap(&store, &loginless).await;
    assert!(
        !store.save_site_session(org.id, loginless.id, &saved_session(cookie, t1, None)).await.unwrap(),
        "a session is kept only beside a login"
    );
    assert!(store.save_site_session(org.id, s.id, &saved_session(cookie, t1, Some(run))).await.unwrap());
    assert_eq!(store.site_session(org.id, s.id).await.unwrap(), Some(saved_session(cookie, t1, Some(run))));
    let sealed = raw_column(db, "site_sessions", "session_sealed").await;
    assert_eq!(sealed.len(), 1);
    assert!(Sealer::is_sealed(&sealed[0]) && !sealed[0].contains("sid-5f1d2b7c9e") && !sealed[0].contains("cookies"));
    assert!(!store.save_site_session(other_org.id, s.id, &saved_session("{}", t1, None)).await.unwrap());
    assert!(!store.save_site_session(org.id, ScrapId::new(), &saved_session("{}", t1, None)).await.unwrap());
    assert_eq!(store.site_session(other_org.id, s.id).await.unwrap(), None);
    assert!(!store.delete_site_session(other_org.id, s.id, &act(other_org.id, "account.set")).await.unwrap());
    // Saving again replaces it.
    let t2 = t0 + Duration::seconds(2);
    assert!(store.save_site_session(org.id, s.id, &saved_session("{\"v\":1}", t2, None)).await.unwrap());
    assert_eq!(store.site_session(org.id, s.id).await.unwrap(), Some(saved_session("{\"v\":1}", t2, None)));

    // A new password keeps the session; `forget_session` drops it.
    assert!(
        store
            .set_site_account(org.id, s.id, &site_account(username, "new-pass"), t2, false, &act(org.id, "account.set"))
            .await
            .unwrap()
    );
    assert_eq!(store.site_account(org.id, s.id).await.unwrap().unwrap().account.password, "new-pass");
    assert_eq!(raw_column(db, "site_accounts", "password_sealed").await.len(), 1, "replaced, not added");
    assert!(store.site_session(org.id, s.id).await.unwrap().is_some());
    assert!(
        store
            .set_site_account(org.id, s.id, &site_account("bob", "pw"), t2, true, &act(org.id, "account.set"))
            .await
            .unwrap()
    );
    assert_eq!(store.site_session(org.id, s.id).await.unwrap(), None);

    // Forgetting a session, then removing the login (which drops its session too).
    assert!(store.save_site_session(org.id, s.id, &saved_session(cookie, t2, None)).await.unwrap());
    assert!(store.delete_site_session(org.id, s.id, &act(org.id, "session.forgotten")).await.unwrap());
    assert!(
        !store.delete_site_session(org.id, s.id, &act(org.id, "session.forgotten")).await.unwrap(),
        "nothing left to forget"
    );
    assert!(store.save_site_session(org.id, s.id, &saved_session(cookie, t2, None)).await.unwrap());
    assert!(store.delete_site_account(org.id, s.id, &act(org.id, "account.removed")).await.unwrap());
    assert_eq!(store.site_account(org.id, s.id).await.unwrap(), None);
    assert_eq!(store.site_session(org.id, s.id).await.unwrap(), None);
    assert!(!store.delete_site_account(org.id, s.id, &act(org.id, "account.removed")).await.unwrap());
    let kinds: Vec<String> =
        store.list_activities(org.id, s.id, 0, 20).await.unwrap().items.into_iter().map(|a| a.kind).collect();
    assert_eq!(
        kinds.iter().filter(|k| k.starts_with("account.") || k.starts_with("session.")).count(),
        5,
        "one entry per write that changed something: {kinds:?}"
    );
    assert_eq!(store.list_activities(other_org.id, s.id, 0, 20).await.unwrap().total, 0);

    // Deleting the scrap deletes its login and session.
    assert!(
        store
            .set_site_account(org.id, s.id, &site_account(username, password), t2, false, &act(org.id, "account.set"))
            .await
            .unwrap()
    );
    assert!(store.save_site_session(org.id, s.id, &saved_session(cookie, t2, None)).await.unwrap());
    assert!(store.delete_scrap(org.id, s.id, &activity(org.id, s.id, "scrap.deleted", t2)).await.unwrap());
    assert!(raw_column(db, "site_accounts", "scrap_id").await.is_empty());
    assert!(raw_column(db, "site_sessions", "scrap_id").await.is_empty());
    assert!(!store.save_site_session(org.id, s.id, &saved_session(cookie, t2, None)).await.unwrap(), "no orphan");

    // A store with another master key cannot open them.
    let kept = scrap(&user, "kept", t2);
    insert_scrap(&store, &kept).await;
    assert!(
        store
            .set_site_account(
                org.id,
                kept.id,
                &site_account(username, password),
                t2,
                false,
                &act(org.id, "account.set")
            )
            .await
            .unwrap()
    );
    assert!(store.save_site_session(org.id, kept.id, &saved_session(cookie, t2, None)).await.unwrap());
    let stranger = svc_storage::connect(&db.url, Sealer::new(MasterKey::generate())).await.unwrap();
    assert!(matches!(stranger.site_account(org.id, kept.id).await, Err(StoreError::Sealing(_))));
    assert!(matches!(stranger.site_session(org.id, kept.id).await, Err(StoreError::Sealing(_))));
    stranger.close().await;
    store.close().await;
}

mod migration_0007 {
    use std::str::FromStr;

    use sqlx::AssertSqlSafe;
    use svc_storage::testing::TestDb;

    use super::Before0007;

    #[tokio::test]
    async fn sqlite() {
        let db = TestDb::sqlite();
        let before = Before0007::new();
        let options = sqlx::sqlite::SqliteConnectOptions::from_str(&db.url).unwrap().create_if_missing(true);
        let pool = sqlx::SqlitePool::connect_with(options).await.unwrap();
        svc_storage::migrations::sqlite().run_to(6, &pool).await.unwrap();
        sqlx::raw_sql(AssertSqlSafe(before.sql())).execute(&pool).await.unwrap();
        pool.close().await;

        let store = db.open().await;
        before.check(&store).await;
        store.close().await;

        // The rebuilt table has its indexes again.
        let pool = sqlx::SqlitePool::connect(&db.url).await.unwrap();
        let indexes: Vec<(String,)> = sqlx::query_as(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'history' ORDER BY name",
        )
        .fetch_all(&pool)
        .await
        .unwrap();
        let indexes: Vec<&str> = indexes.iter().map(|(n,)| n.as_str()).collect();
        assert!(indexes.contains(&"history_by_org") && indexes.contains(&"history_by_scrap"), "{indexes:?}");
        pool.close().await;
    }

    #[tokio::test]
    async fn postgres() {
        let Some(db) = TestDb::postgres_unmigrated().await else {
            println!("skipped migration_0007::postgres: SVC_TEST_POSTGRES_URL is not set");
            return;
        };
        let before = Before0007::new();
        let pool = sqlx::PgPool::connect(&db.url).await.unwrap();
        svc_storage::migrations::postgres().run_to(6, &pool).await.unwrap();
        sqlx::raw_sql(AssertSqlSafe(before.sql())).execute(&pool).await.unwrap();
        pool.close().await;

        let store = db.open().await;
        before.check(&store).await;
        store.close().await;
    }
}

// ---------------------------------------------------------------------------
// Migration 0022 on a database written before it
// ---------------------------------------------------------------------------

mod migration_0022 {
    //! Migration 0022 (confirmed recipients) confirms every address scraps
    //! named before it, so that nobody stops receiving at the upgrade:
    //! trimmed and lowercased, once per organization, chat channels and URLs
    //! left out. The rows before it are written column by column, as the
    //! schema of migration 21 asks (every column that must have a value gets
    //! a blank of its type), so the test follows the schema as it was.
    use std::str::FromStr;

    use sqlx::AssertSqlSafe;
    use svc_domain::OrgId;
    use svc_domain::recipient::RecipientState;
    use svc_storage::Store;
    use svc_storage::testing::TestDb;

    const BEFORE: i64 = 21;

    /// A scrap written before the migration: (organization, alert,
    /// result-email recipient, digest recipient).
    type OldScrap = (usize, Option<&'static str>, Option<&'static str>, Option<&'static str>);

    const SCRAPS: [OldScrap; 5] = [
        (0, Some(" Ops@Example.com "), Some("team@example.com"), Some("TEAM@example.com")),
        (0, Some("https://hooks.example.com/alert"), None, Some("digest@example.com")),
        (0, Some("channel:0123456789abcdef01234567"), None, None),
        (0, None, None, None),
        (1, None, Some("team@example.com"), None),
    ];

    /// Each organization's addresses the migration must confirm.
    fn expected(org: usize) -> Vec<&'static str> {
        match org {
            0 => vec!["digest@example.com", "ops@example.com", "team@example.com"],
            _ => vec!["team@example.com"],
        }
    }

    /// An `INSERT` of `given` into `table`, every other column without a
    /// default that must not be NULL given a blank of its type.
    fn insert(table: &str, required: &[(String, String)], given: &[(&str, String)]) -> String {
        let mut columns: Vec<String> = given.iter().map(|(c, _)| c.to_string()).collect();
        let mut values: Vec<String> = given.iter().map(|(_, v)| v.clone()).collect();
        for (column, ty) in required {
            if columns.contains(column) {
                continue;
            }
            let ty = ty.to_ascii_lowercase();
            let blank = if ty.contains("int") || ty.contains("real") || ty.contains("double") || ty.contains("numeric")
            {
                "0"
            } else if ty.contains("bool") {
                "false"
            } else if ty.contains("json") {
                "'{}'"
            } else {
                "''"
            };
            columns.push(column.clone());
            values.push(blank.into());
        }
        format!("INSERT INTO {table} ({}) VALUES ({});\n", columns.join(", "), values.join(", "))
    }

    fn text(value: Option<&str>) -> String {
        super::lit(value)
    }

    /// The statements that write two organizations and [`SCRAPS`].
    fn rows(orgs: &[OrgId], org_required: &[(String, String)], scrap_required: &[(String, String)]) -> String {
        let mut sql = String::new();
        for org in orgs {
            sql += &insert("organizations", org_required, &[("id", text(Some(&org.to_string())))]);
        }
        for (n, (org, alert, result, digest)) in SCRAPS.iter().enumerate() {
            let given = [
                ("id", text(Some(&format!("{:024x}", 0xabc000 + n)))),
                ("organization_id", text(Some(&orgs[*org].to_string()))),
                ("alert", text(*alert)),
                ("email_notif_recipient", text(*result)),
                ("digest_recipient", text(*digest)),
            ];
            sql += &insert("scraps", scrap_required, &given);
        }
        sql
    }

    async fn check(store: &std::sync::Arc<dyn Store>, orgs: &[OrgId]) {
        for (n, org) in orgs.iter().enumerate() {
            let mut found = store.recipients(*org).await.unwrap();
            found.sort_by(|a, b| a.email.cmp(&b.email));
            let emails: Vec<&str> = found.iter().map(|r| r.email.as_str()).collect();
            assert_eq!(emails, expected(n), "organization {n}");
            assert!(
                found.iter().all(|r| r.state == RecipientState::Confirmed && r.organization_id == *org),
                "{found:?}"
            );
        }
    }

    /// Migrates `db` to [`BEFORE`], writes [`SCRAPS`] the way that schema
    /// asks, then opens the store (the rest of the migrations) and checks.
    async fn migrates(db: TestDb) {
        let orgs = [OrgId::new(), OrgId::new()];
        if db.url.starts_with("sqlite") {
            let options = sqlx::sqlite::SqliteConnectOptions::from_str(&db.url).unwrap().create_if_missing(true);
            let pool = sqlx::SqlitePool::connect_with(options).await.unwrap();
            svc_storage::migrations::sqlite().run_to(BEFORE, &pool).await.unwrap();
            let mut required = vec![];
            for table in ["organizations", "scraps"] {
                let sql = format!(
                    "SELECT name, type FROM pragma_table_info('{table}') WHERE \"notnull\" = 1 AND dflt_value IS NULL"
                );
                required.push(sqlx::query_as(AssertSqlSafe(sql)).fetch_all(&pool).await.unwrap());
            }
            sqlx::raw_sql(AssertSqlSafe(rows(&orgs, &required[0], &required[1]))).execute(&pool).await.unwrap();
            pool.close().await;
        } else {
            let pool = sqlx::PgPool::connect(&db.url).await.unwrap();
            svc_storage::migrations::postgres().run_to(BEFORE, &pool).await.unwrap();
            let mut required = vec![];
            for table in ["organizations", "scraps"] {
                let sql = format!(
                    "SELECT column_name::text, data_type::text FROM information_schema.columns \
                     WHERE table_schema = current_schema() AND table_name = '{table}' \
                     AND is_nullable = 'NO' AND column_default IS NULL"
                );
                required.push(sqlx::query_as(AssertSqlSafe(sql)).fetch_all(&pool).await.unwrap());
            }
            sqlx::raw_sql(AssertSqlSafe(rows(&orgs, &required[0], &required[1]))).execute(&pool).await.unwrap();
            pool.close().await;
        }
        let store = db.open().await;
        check(&store, &orgs).await;
        store.close().await;
    }

    #[tokio::test]
    async fn sqlite() {
        migrates(TestDb::sqlite()).await;
    }

    #[tokio::test]
    async fn postgres() {
        let Some(db) = TestDb::postgres_unmigrated().await else {
            println!("skipped migration_0022::postgres: SVC_TEST_POSTGRES_URL is not set");
            return;
        };
        migrates(db).await;
    }
}

// ---------------------------------------------------------------------------
// Secrets at rest (tests that reach the database's raw values: `db_tests!`)
// ---------------------------------------------------------------------------

mod raw {
    //! Plain SQL on a test database, beside the store: what a dump would show,
    //! and rows written the way older versions wrote them.
    use svc_storage::testing::TestDb;

    pub async fn pairs(db: &TestDb, sql: &str) -> Vec<(String, String)> {
        let sql = sqlx::AssertSqlSafe(sql.to_string());
        if db.url.starts_with("sqlite") {
            let pool = sqlx::SqlitePool::connect(&db.url).await.unwrap();
            let rows = sqlx::query_as(sql).fetch_all(&pool).await.unwrap();
            pool.close().await;
            rows
        } else {
            let pool = sqlx::PgPool::connect(&db.url).await.unwrap();
            let rows = sqlx::query_as(sql).fetch_all(&pool).await.unwrap();
            pool.close().await;
            rows
        }
    }

    pub async fn exec(db: &TestDb, sql: &str, binds: &[&str]) {
        let sql = sqlx::AssertSqlSafe(sql.to_string());
        if db.url.starts_with("sqlite") {
            let pool = sqlx::SqlitePool::connect(&db.url).await.unwrap();
            let mut q = sqlx::query(sql);
            for b in binds {
                q = q.bind(b.to_string());
            }
            q.execute(&pool).await.unwrap();
            pool.close().await;
        } else {
            let pool = sqlx::PgPool::connect(&db.url).await.unwrap();
            let mut q = sqlx::query(sql);
            for b in binds {
                q = q.bind(b.to_string());
            }
            q.execute(&pool).await.unwrap();
            pool.close().await;
        }
    }

    /// A webhook row as versions before sealing wrote it (or with any `secret`).
    pub async fn insert_webhook(db: &TestDb, org: &str, id: &str, secret: &str) {
        exec(
            db,
            "INSERT INTO webhooks (id, organization_id, url, events, scrap_ids, active, secret, created_at, updated_at) \
             VALUES ($1, $2, 'https://old.example/hook', '[\"scrap.success\"]', '[]', TRUE, $3, 0, 0)",
            &[id, org, secret],
        )
        .await;
    }

    /// Every sealed value where the sealed columns list puts them.
    pub async fn sealed_values(db: &TestDb) -> Vec<(String, String)> {
        let mut all = Vec::new();
        for c in svc_storage::SEALED_COLUMNS {
            let sql = format!("SELECT {}, {} FROM {} WHERE {} IS NOT NULL", c.id, c.column, c.table, c.column);
            all.extend(pairs(db, &sql).await);
        }
        for key in svc_storage::SEALED_SETTINGS {
            all.extend(pairs(db, &format!("SELECT key, value FROM settings WHERE key = '{key}'")).await);
        }
        all
    }
}

async fn webhook_secrets_are_sealed_in_the_database(db: &TestDb) {
    let store = db.open().await;
    let (org, _) = account(&store, "sealed@example.com").await;
    let hook = Webhook {
        secret: "whsec_cGxhaW50ZXh0LXdlYmhvb2stc2VjcmV0".into(),
        ..webhook(&org, "https://a.example/h", now())
    };
    store.insert_webhook(&hook).await.unwrap();
    assert_eq!(store.webhook(org.id, hook.id).await.unwrap(), Some(hook.clone()), "read back as plaintext");
    assert_eq!(store.list_webhooks(org.id, 0, 10).await.unwrap().items, vec![hook.clone()]);
    assert_eq!(store.active_webhooks(org.id).await.unwrap(), vec![hook.clone()]);
    let stored = raw::pairs(db, "SELECT id, secret FROM webhooks").await;
    assert_eq!(stored.len(), 1);
    let sealed = &stored[0].1;
    assert!(Sealer::is_sealed(sealed) && !sealed.contains("cGxhaW50ZXh0"), "{sealed}");
    assert_eq!(Sealer::key_id_of(sealed), Some(db.key().id()));
    // An update (which leaves the secret) keeps it sealed and readable.
    let off = Webhook { active: false, ..hook.clone() };
    assert!(store.update_webhook(org.id, &off).await.unwrap());
    assert_eq!(store.webhook(org.id, hook.id).await.unwrap(), Some(off));
    assert_eq!(&raw::pairs(db, "SELECT id, secret FROM webhooks").await[0].1, sealed);
    store.close().await;

    // Another key cannot read it.
    let other = db.open_with(Sealer::new(MasterKey::generate())).await;
    let err = other.webhook(org.id, hook.id).await.unwrap_err();
    assert!(matches!(err, StoreError::Sealing(_)), "{err}");
    assert!(err.to_string().contains(db.key().id()), "{err}");
    other.close().await;
}

async fn saved_channels_are_sealed_unique_and_scoped(db: &TestDb) {
    let store = db.open().await;
    let (org, _) = account(&store, "channels@example.com").await;
    let (other, _) = account(&store, "other-channels@example.com").await;
    let ops = svc_domain::channel::SavedChannel {
        id: svc_domain::ObjectId::new(),
        organization_id: org.id,
        name: "ops".into(),
        url: "slack://T0SECRETA/B0SECRETB/c0secretsecretsecret".into(),
        created_at: now(),
    };
    store.insert_channel(&ops).await.unwrap();
    assert_eq!(store.channel_named(org.id, "ops").await.unwrap(), Some(ops.clone()), "read back opened");
    assert_eq!(store.list_channels(org.id).await.unwrap(), vec![ops.clone()]);
    let again = svc_domain::channel::SavedChannel { id: svc_domain::ObjectId::new(), ..ops.clone() };
    assert!(
        matches!(store.insert_channel(&again).await, Err(StoreError::Conflict("channel"))),
        "one name per organization"
    );
    // Another organization sees none of it and may use the same name.
    assert_eq!(store.channel_named(other.id, "ops").await.unwrap(), None);
    assert!(store.list_channels(other.id).await.unwrap().is_empty());
    assert!(!store.delete_channel(other.id, ops.id).await.unwrap());
    assert_eq!(store.channel(other.id, ops.id).await.unwrap(), None);
    assert_eq!(store.channel(org.id, ops.id).await.unwrap(), Some(ops.clone()));
    let theirs =
        svc_domain::channel::SavedChannel { id: svc_domain::ObjectId::new(), organization_id: other.id, ..ops.clone() };
    store.insert_channel(&theirs).await.unwrap();
    let stored = raw::pairs(db, "SELECT id, url FROM channels").await;
    assert_eq!(stored.len(), 2);
    for (_, sealed) in &stored {
        assert!(Sealer::is_sealed(sealed) && !sealed.contains("secret"), "{sealed}");
    }
    assert!(store.delete_channel(org.id, ops.id).await.unwrap());
    assert_eq!(store.channel_named(org.id, "ops").await.unwrap(), None);
    assert_eq!(store.channel_named(other.id, "ops").await.unwrap(), Some(theirs));
    store.close().await;
}

async fn the_key_check_is_written_once_and_tells_keys_apart(db: &TestDb) {
    let store = db.open().await;
    assert_eq!(store.key_check().await.unwrap(), None, "a new database has none");
    store.init_key_check().await.unwrap();
    let check = store.key_check().await.unwrap().expect("written");
    assert!(key_check_opens(&Sealer::new(db.key().clone()), &check));
    store.init_key_check().await.unwrap();
    assert_eq!(store.key_check().await.unwrap(), Some(check.clone()), "written once");
    store.close().await;

    let other = db.open_with(Sealer::new(MasterKey::generate())).await;
    let err = other.init_key_check().await.unwrap_err().to_string();
    assert!(err.contains(db.key().id()), "names the database's key: {err}");
    assert_eq!(other.key_check().await.unwrap(), Some(check), "the stored check is left alone");
    other.close().await;
}

async fn secret_settings_are_sealed_and_written_once(db: &TestDb) {
    let store = db.open().await;
    assert_eq!(store.secret_setting_or_init("jwt_secret", "jwt-plaintext-one").await.unwrap(), "jwt-plaintext-one");
    assert_eq!(store.secret_setting_or_init("jwt_secret", "jwt-plaintext-two").await.unwrap(), "jwt-plaintext-one");
    let stored = raw::pairs(db, "SELECT key, value FROM settings WHERE key = 'jwt_secret'").await;
    assert!(Sealer::is_sealed(&stored[0].1) && !stored[0].1.contains("jwt-plaintext"), "{stored:?}");
    store.close().await;
}

async fn plaintext_from_before_sealing_is_sealed_once(db: &TestDb) {
    let store = db.open().await;
    let (org, _) = account(&store, "old@example.com").await;
    let (a, b) = (ObjectId::new().to_string(), ObjectId::new().to_string());
    raw::insert_webhook(db, &org.id.to_string(), &a, "whsec_b2xkLXBsYWludGV4dC1h").await;
    raw::insert_webhook(db, &org.id.to_string(), &b, "whsec_b2xkLXBsYWludGV4dC1i").await;
    raw::exec(db, "INSERT INTO settings (key, value) VALUES ('jwt_secret', 'old-plaintext-jwt-secret')", &[]).await;
    raw::exec(db, "INSERT INTO settings (key, value) VALUES ('unrelated', 'left-as-it-is')", &[]).await;
    // Readable before the pass (taken as plaintext).
    let a_id = WebhookId::parse(&a).unwrap();
    assert_eq!(store.webhook(org.id, a_id).await.unwrap().unwrap().secret, "whsec_b2xkLXBsYWludGV4dC1h");

    let report = store.seal_plaintext_secrets().await.unwrap();
    assert_eq!((report.sealed, report.resealed, report.unreadable.len()), (3, 0, 0), "{report:?}");
    for (id, value) in raw::sealed_values(db).await {
        assert!(Sealer::is_sealed(&value) && !value.contains("plaintext"), "{id}: {value}");
        assert_eq!(Sealer::key_id_of(&value), Some(db.key().id()));
    }
    assert_eq!(raw::pairs(db, "SELECT key, value FROM settings WHERE key = 'unrelated'").await[0].1, "left-as-it-is");
    assert_eq!(store.webhook(org.id, a_id).await.unwrap().unwrap().secret, "whsec_b2xkLXBsYWludGV4dC1h");
    assert_eq!(store.secret_setting_or_init("jwt_secret", "new").await.unwrap(), "old-plaintext-jwt-secret");

    let before = raw::sealed_values(db).await;
    let again = store.seal_plaintext_secrets().await.unwrap();
    assert_eq!(again, Default::default(), "idempotent");
    assert_eq!(raw::sealed_values(db).await, before, "nothing rewritten");
    store.close().await;
}

async fn values_of_a_previous_key_are_resealed_and_foreign_ones_reported(db: &TestDb) {
    let store = db.open().await;
    let (org, _) = account(&store, "prev@example.com").await;
    let hook = webhook(&org, "https://a.example/h", now());
    store.insert_webhook(&hook).await.unwrap();
    let foreign = ObjectId::new().to_string();
    let sealed_elsewhere = Sealer::new(MasterKey::generate()).seal("whsec_Zm9yZWlnbg==");
    raw::insert_webhook(db, &org.id.to_string(), &foreign, &sealed_elsewhere).await;
    store.close().await;

    let new_key = MasterKey::generate();
    let switched = db.open_with(Sealer::new(new_key.clone()).with_previous(db.key().clone())).await;
    let report = switched.seal_plaintext_secrets().await.unwrap();
    assert_eq!((report.sealed, report.resealed), (0, 1), "{report:?}");
    assert_eq!(report.unreadable.len(), 1, "{report:?}");
    assert!(report.unreadable[0].contains(&format!("webhooks.secret of {foreign}")), "{report:?}");
    let stored = raw::pairs(db, &format!("SELECT id, secret FROM webhooks WHERE id = '{}'", hook.id)).await;
    assert_eq!(Sealer::key_id_of(&stored[0].1), Some(new_key.id()));
    switched.close().await;
    let only_new = db.open_with(Sealer::new(new_key)).await;
    assert_eq!(only_new.webhook(org.id, hook.id).await.unwrap(), Some(hook));
    only_new.close().await;
}

async fn rotation_reseals_every_value_in_one_transaction(db: &TestDb) {
    let store = db.open().await;
    let (org, _) = account(&store, "rotate@example.com").await;
    store.init_key_check().await.unwrap();
    let jwt = store.secret_setting_or_init("jwt_secret", "the-jwt-secret-of-this-db").await.unwrap();
    let hooks = [webhook(&org, "https://a.example/1", now()), webhook(&org, "https://a.example/2", now())];
    for h in &hooks {
        store.insert_webhook(h).await.unwrap();
    }
    let old_plain = WebhookId::new();
    raw::insert_webhook(db, &org.id.to_string(), &old_plain.to_string(), "whsec_c3RpbGwtcGxhaW4=").await;

    let new_key = MasterKey::generate();
    let report = store.rotate_master_key(&new_key).await.unwrap();
    assert_eq!(report.from_key, db.key().id());
    assert_eq!(report.to_key, new_key.id());
    assert_eq!(report.resealed, 5, "three webhooks, the JWT secret and the key check: {report:?}");
    for (id, value) in raw::sealed_values(db).await {
        assert_eq!(Sealer::key_id_of(&value), Some(new_key.id()), "{id}");
    }
    store.close().await;

    let rotated = db.open_with(Sealer::new(new_key.clone())).await;
    assert!(key_check_opens(&Sealer::new(new_key.clone()), &rotated.key_check().await.unwrap().unwrap()));
    rotated.init_key_check().await.unwrap();
    for h in &hooks {
        assert_eq!(rotated.webhook(org.id, h.id).await.unwrap().as_ref(), Some(h));
    }
    assert_eq!(rotated.webhook(org.id, old_plain).await.unwrap().unwrap().secret, "whsec_c3RpbGwtcGxhaW4=");
    assert_eq!(rotated.secret_setting_or_init("jwt_secret", "x").await.unwrap(), jwt, "the JWT secret is unchanged");
    rotated.close().await;
    let old = db.open().await;
    assert!(old.webhook(org.id, hooks[0].id).await.is_err(), "the old key no longer opens them");
    assert!(old.init_key_check().await.is_err());
    old.close().await;

    // A value that does not open stops the rotation, which changes nothing.
    let rotated = db.open_with(Sealer::new(new_key.clone())).await;
    let foreign = ObjectId::new().to_string();
    raw::insert_webhook(db, &org.id.to_string(), &foreign, &Sealer::new(MasterKey::generate()).seal("whsec_eA=="))
        .await;
    let before = raw::sealed_values(db).await;
    let err = rotated.rotate_master_key(&MasterKey::generate()).await.unwrap_err().to_string();
    assert!(err.contains(&format!("webhooks.secret of {foreign}")), "{err}");
    assert_eq!(raw::sealed_values(db).await, before, "rolled back");
    rotated.close().await;
}

async fn rotation_of_a_database_without_a_key_check_adds_one(db: &TestDb) {
    let store = db.open().await;
    let new_key = MasterKey::generate();
    let report = store.rotate_master_key(&new_key).await.unwrap();
    assert_eq!(report.resealed, 1, "{report:?}");
    let check = store.key_check().await.unwrap().unwrap();
    assert!(key_check_opens(&Sealer::new(new_key), &check));
    store.close().await;
}

/// Tests that open their own store(s) and may read the database with raw
/// SQL: `(&TestDb)`, on both engines.
async fn feed_tokens_sealed_hashed_and_scoped(db: &TestDb) {
    let store = db.open().await;
    let (org, user) = account(&store, "ada@example.com").await;
    let (other_org, other_user) = account(&store, "eve@example.com").await;
    let t0 = now();
    let s = scrap(&user, "prices", t0);
    insert_scrap(&store, &s).await;
    let theirs = scrap(&other_user, "theirs", t0);
    insert_scrap(&store, &theirs).await;
    let (token, hash) = ("feed_Abc123Abc123Abc123Abc123Abc123Ab", "a1".repeat(32));

    assert_eq!(store.feed_token(org.id, s.id).await.unwrap(), None);
    assert!(store.insert_feed_token(org.id, s.id, token, &hash, t0).await.unwrap());
    assert_eq!(
        store.feed_token(org.id, s.id).await.unwrap(),
        Some(StoredFeedToken { token: token.into(), created_at: t0 })
    );
    // Made once: a second insert leaves the first.
    assert!(!store.insert_feed_token(org.id, s.id, "feed_other", &"b2".repeat(32), t0).await.unwrap());
    assert_eq!(store.feed_token(org.id, s.id).await.unwrap().unwrap().token, token);
    assert_eq!(store.feed_by_token_hash(&hash).await.unwrap(), Some((org.id, s.id)));
    assert_eq!(store.feed_by_token_hash(&"b2".repeat(32)).await.unwrap(), None);

    // Sealed at rest, and the hash is what is looked up.
    let sealed = raw_column(db, "scrap_feeds", "token_sealed").await;
    assert_eq!(sealed.len(), 1);
    assert!(Sealer::is_sealed(&sealed[0]) && !sealed[0].contains(token), "{}", sealed[0]);
    assert_eq!(Sealer::key_id_of(&sealed[0]), Some(db.key().id()));
    assert_eq!(raw_column(db, "scrap_feeds", "token_hash").await, std::slice::from_ref(&hash));

    // Another organization's ids: nothing read, nothing written.
    let act = |org: OrgId, scrap: ScrapId| activity(org, scrap, "feed.rotated", t0);
    assert_eq!(store.feed_token(other_org.id, s.id).await.unwrap(), None);
    assert!(!store.insert_feed_token(other_org.id, s.id, "feed_x", &"c3".repeat(32), t0).await.unwrap());
    assert!(!store.insert_feed_token(org.id, theirs.id, "feed_x", &"c3".repeat(32), t0).await.unwrap());
    assert!(!store.insert_feed_token(org.id, ScrapId::new(), "feed_x", &"c3".repeat(32), t0).await.unwrap());
    assert!(
        !store
            .replace_feed_token(other_org.id, s.id, "feed_x", &"c3".repeat(32), t0, &act(other_org.id, s.id))
            .await
            .unwrap()
    );
    assert_eq!(store.feed_by_token_hash(&hash).await.unwrap(), Some((org.id, s.id)));

    // Replacing: the old hash finds nothing, the new one the scrap; logged.
    let t1 = t0 + Duration::seconds(1);
    let (new_token, new_hash) = ("feed_Zzz999Zzz999Zzz999Zzz999Zzz999Zz", "d4".repeat(32));
    assert!(store.replace_feed_token(org.id, s.id, new_token, &new_hash, t1, &act(org.id, s.id)).await.unwrap());
    assert_eq!(store.feed_by_token_hash(&hash).await.unwrap(), None);
    assert_eq!(store.feed_by_token_hash(&new_hash).await.unwrap(), Some((org.id, s.id)));
    assert_eq!(
        store.feed_token(org.id, s.id).await.unwrap(),
        Some(StoredFeedToken { token: new_token.into(), created_at: t1 })
    );
    assert_eq!(raw_column(db, "scrap_feeds", "token_hash").await.len(), 1, "replaced, not added");
    let log = store.list_activities(org.id, s.id, 0, 10).await.unwrap();
    assert!(log.items.iter().any(|a| a.kind == "feed.rotated"), "{log:?}");

    // Deleting the scrap deletes its feed.
    assert!(store.delete_scrap(org.id, s.id, &act(org.id, s.id)).await.unwrap());
    assert_eq!(store.feed_by_token_hash(&new_hash).await.unwrap(), None);
    assert!(raw_column(db, "scrap_feeds", "token_hash").await.is_empty());
}

async fn recent_successes_newest_first_of_one_scrap(store: Arc<dyn Store>) {
    let (org, user) = account(&store, "ada@example.com").await;
    let (other_org, _) = account(&store, "eve@example.com").await;
    let t0 = now();
    let s = scrap(&user, "prices", t0);
    insert_scrap(&store, &s).await;
    let other = scrap(&user, "other", t0);
    insert_scrap(&store, &other).await;
    let finished = |scrap: &Scrap, secs: i64, detail: StatusDetail| HistoryRow {
        status_detail: Some(detail),
        data: format!("[{secs}]"),
        length: 1,
        finished_at: Some(t0 + Duration::seconds(secs)),
        ..history(scrap, t0 + Duration::seconds(secs))
    };
    let mut ids = Vec::new();
    for (secs, detail) in [
        (1, StatusDetail::Success),
        (2, StatusDetail::Error),
        (3, StatusDetail::Success),
        (4, StatusDetail::Empty),
        (5, StatusDetail::Success),
        (6, StatusDetail::Regression),
    ] {
        let row = finished(&s, secs, detail);
        store.insert_history(&row).await.unwrap();
        if detail == StatusDetail::Success {
            ids.push(row.id);
        }
    }
    store.insert_history(&finished(&other, 7, StatusDetail::Success)).await.unwrap();
    store.insert_history(&history(&s, t0 + Duration::seconds(8))).await.unwrap();
    ids.reverse();
    let found = store.recent_successes(org.id, s.id, 10).await.unwrap();
    assert_eq!(found.iter().map(|r| r.id).collect::<Vec<_>>(), ids, "successes only, newest first");
    assert!(found.iter().all(|r| r.status_detail == Some(StatusDetail::Success) && r.scrap_id == s.id));
    let two = store.recent_successes(org.id, s.id, 2).await.unwrap();
    assert_eq!(two.iter().map(|r| r.id).collect::<Vec<_>>(), ids[..2]);
    assert!(store.recent_successes(other_org.id, s.id, 10).await.unwrap().is_empty(), "another organization");
}

async fn banners_are_scoped_served_by_token_and_go_with_their_scrap(store: Arc<dyn Store>) {
    let (org, user) = account(&store, "ada@example.com").await;
    let (other_org, other_user) = account(&store, "eve@example.com").await;
    let t0 = now();
    let s = scrap(&user, "with a banner", t0);
    insert_scrap(&store, &s).await;
    let theirs = scrap(&other_user, "theirs", t0);
    insert_scrap(&store, &theirs).await;
    // Bytes that are not UTF-8, as an image's are.
    let image = BannerImage { content_type: "image/png".into(), bytes: vec![0x89, b'P', b'N', b'G', 0, 0xFF, 0xFE, 7] };
    let t1 = t0 + Duration::seconds(5);
    let act = |org: OrgId, scrap: ScrapId| activity(org, scrap, "banner.changed", t0);
    // Sets `image` under `token` at `/banners/{token}` as organization
    // `owner`, logged in the first organization's activity.
    let set = async |owner: OrgId, scrap: ScrapId, token: &str, image: &BannerImage, at: DateTime<Utc>| {
        let path = format!("/banners/{token}");
        let banner = NewBanner { token, path: &path, image, at };
        store.set_banner(owner, scrap, &banner, &act(org.id, s.id)).await.unwrap()
    };

    assert!(set(org.id, s.id, "tok1.png", &image, t1).await);
    let stored = store.scrap(org.id, s.id).await.unwrap().unwrap();
    assert_eq!((stored.banner.as_str(), stored.updated_at), ("/banners/tok1.png", t1));
    assert_eq!(store.banner_image("tok1.png", "/banners/tok1.png").await.unwrap(), Some(image.clone()));
    assert_eq!(store.banner_image("tok1.png", "/banners/other.png").await.unwrap(), None, "only at its own path");
    assert_eq!(store.banner_image("nope.png", "/banners/nope.png").await.unwrap(), None);

    // Another organization: nothing written, nothing removed.
    assert!(!set(other_org.id, s.id, "tok2.png", &image, t1).await);
    assert!(!set(org.id, theirs.id, "tok2.png", &image, t1).await);
    assert!(!store.remove_banner(other_org.id, s.id, t1, &act(other_org.id, s.id)).await.unwrap());
    assert_eq!(store.banner_image("tok2.png", "/banners/tok2.png").await.unwrap(), None);
    assert_eq!(store.scrap(other_org.id, theirs.id).await.unwrap().unwrap().banner, "");

    // A new image replaces the old one under a new token.
    let jpeg = BannerImage { content_type: "image/jpeg".into(), bytes: vec![0xFF, 0xD8, 0xFF, 0xD9] };
    assert!(set(org.id, s.id, "tok3.jpg", &jpeg, t1).await);
    assert_eq!(store.banner_image("tok1.png", "/banners/tok1.png").await.unwrap(), None);
    assert_eq!(store.banner_image("tok3.jpg", "/banners/tok3.jpg").await.unwrap(), Some(jpeg.clone()));
    // A banner written over by a scrap update is no longer served.
    let mut changed = store.scrap(org.id, s.id).await.unwrap().unwrap();
    changed.banner = "/uploads/elsewhere.png".into();
    assert!(store.update_scrap(org.id, &changed, &activity(org.id, s.id, "scrap.updated", t0)).await.unwrap());
    assert_eq!(store.banner_image("tok3.jpg", "/banners/tok3.jpg").await.unwrap(), None);

    assert!(set(org.id, s.id, "tok4.png", &image, t1).await);
    let t2 = t1 + Duration::seconds(5);
    assert!(store.remove_banner(org.id, s.id, t2, &act(org.id, s.id)).await.unwrap());
    let stored = store.scrap(org.id, s.id).await.unwrap().unwrap();
    assert_eq!((stored.banner.as_str(), stored.updated_at), ("", t2));
    assert_eq!(store.banner_image("tok4.png", "/banners/tok4.png").await.unwrap(), None);
    assert!(store.remove_banner(org.id, s.id, t2, &act(org.id, s.id)).await.unwrap(), "removing none is no error");
    let log = store.list_activities(org.id, s.id, 0, 20).await.unwrap();
    assert_eq!(log.items.iter().filter(|a| a.kind == "banner.changed").count(), 5, "one entry per write: {log:?}");

    // Deleting the scrap deletes its image.
    assert!(set(org.id, s.id, "tok5.png", &image, t2).await);
    assert!(store.delete_scrap(org.id, s.id, &act(org.id, s.id)).await.unwrap());
    assert_eq!(store.banner_image("tok5.png", "/banners/tok5.png").await.unwrap(), None);
    assert!(!set(org.id, s.id, "tok6.png", &image, t2).await);
}

macro_rules! db_tests {
    ($($name:ident),+ $(,)?) => {
        mod sqlite_db {
            $(
                #[tokio::test]
                async fn $name() {
                    let db = svc_storage::testing::TestDb::sqlite();
                    super::$name(&db).await;
                }
            )+
        }

        mod postgres_db {
            $(
                #[tokio::test]
                async fn $name() {
                    let Some(db) = svc_storage::testing::TestDb::postgres().await else {
                        println!("skipped postgres_db::{}: SVC_TEST_POSTGRES_URL is not set", stringify!($name));
                        return;
                    };
                    super::$name(&db).await;
                }
            )+
        }
    };
}

db_tests!(
    webhook_secrets_are_sealed_in_the_database,
    the_key_check_is_written_once_and_tells_keys_apart,
    secret_settings_are_sealed_and_written_once,
    plaintext_from_before_sealing_is_sealed_once,
    values_of_a_previous_key_are_resealed_and_foreign_ones_reported,
    rotation_reseals_every_value_in_one_transaction,
    rotation_of_a_database_without_a_key_check_adds_one,
    site_accounts_sealed_and_scoped,
    feed_tokens_sealed_hashed_and_scoped,
    saved_channels_are_sealed_unique_and_scoped,
);

macro_rules! storage_tests {
    ($($name:ident),+ $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test]
                async fn $name() {
                    let db = svc_storage::testing::TestDb::sqlite();
                    let store = db.open().await;
                    assert_eq!(store.backend(), "sqlite");
                    super::$name(store.clone()).await;
                    store.close().await;
                }
            )+
        }

        mod postgres {
            $(
                #[tokio::test]
                async fn $name() {
                    let Some(db) = svc_storage::testing::TestDb::postgres().await else {
                        println!(
                            "skipped postgres::{}: SVC_TEST_POSTGRES_URL is not set",
                            stringify!($name)
                        );
                        return;
                    };
                    let store = db.open().await;
                    assert_eq!(store.backend(), "postgres");
                    super::$name(store.clone()).await;
                    store.close().await;
                }
            )+
        }
    };
}

async fn engine_memory_is_per_scrap_and_scoped(store: Arc<dyn Store>) {
    let (org, user) = account(&store, "ada@example.com").await;
    let (other_org, other_user) = account(&store, "eve@example.com").await;
    let t0 = now();
    let s = scrap(&user, "auto", t0);
    insert_scrap(&store, &s).await;
    let theirs = scrap(&other_user, "theirs", t0);
    insert_scrap(&store, &theirs).await;
    let at = |minutes: i64| t0 + Duration::minutes(minutes);
    let memory = |engine: &str, checked: i64| EngineMemory {
        engine: engine.into(),
        fingerprint: "f1".into(),
        checked_at: at(checked),
    };

    assert_eq!(store.engine_memory(org.id, s.id).await.unwrap(), None);
    assert!(!store.claim_engine_check(org.id, s.id, "f1", at(60), at(60)).await.unwrap(), "nothing to claim yet");
    assert!(store.set_engine_memory(org.id, s.id, &memory("static", 0)).await.unwrap());
    assert!(store.set_engine_memory(org.id, s.id, &memory("static", 1)).await.unwrap());
    assert_eq!(store.engine_memory(org.id, s.id).await.unwrap(), Some(memory("static", 1)));
    assert!(store.set_engine_memory(org.id, s.id, &memory("puppeteer", 0)).await.unwrap());
    assert_eq!(store.engine_memory(org.id, s.id).await.unwrap(), Some(memory("puppeteer", 0)));
    // Another organization's scrap: neither read nor written.
    assert_eq!(store.engine_memory(other_org.id, s.id).await.unwrap(), None);
    assert!(!store.set_engine_memory(other_org.id, s.id, &memory("static", 5)).await.unwrap());
    assert!(!store.set_engine_memory(org.id, theirs.id, &memory("static", 5)).await.unwrap());
    assert_eq!(store.engine_memory(other_org.id, theirs.id).await.unwrap(), None);
    assert!(!store.claim_engine_check(other_org.id, s.id, "f1", at(60), at(60)).await.unwrap());
    assert_eq!(store.engine_memory(org.id, s.id).await.unwrap(), Some(memory("puppeteer", 0)));

    // A due comparison is taken once: checked at 0, due for runs that see it as checked at or before 0.
    assert!(!store.claim_engine_check(org.id, s.id, "f1", at(-1), at(59)).await.unwrap(), "not due yet");
    assert!(!store.claim_engine_check(org.id, s.id, "f2", at(0), at(60)).await.unwrap(), "another script's");
    let claims: Vec<_> = (0..4)
        .map(|_| {
            let store = store.clone();
            let (org, scrap, due, now) = (org.id, s.id, at(0), at(60));
            tokio::spawn(async move { store.claim_engine_check(org, scrap, "f1", due, now).await.unwrap() })
        })
        .collect();
    let mut taken = 0;
    for claim in claims {
        taken += usize::from(claim.await.unwrap());
    }
    assert_eq!(taken, 1, "one of four runs due at once compares");
    assert_eq!(store.engine_memory(org.id, s.id).await.unwrap(), Some(memory("puppeteer", 60)));

    // A finished run that compared writes it in its own transaction.
    let row = history(&s, t0);
    store.enqueue_run(&row, &["main".to_string()], None, &activity(org.id, s.id, "run.triggered", t0)).await.unwrap();
    let claim = store.claim_run("main", "w", now() + Duration::minutes(5)).await.unwrap().unwrap();
    let mut done = row.clone();
    done.status_detail = Some(StatusDetail::Success);
    done.finished_at = Some(now());
    let note = TierNote { tier: 0, remember: None, at: now(), engine: Some(memory("static", 61)) };
    let log = activity(org.id, s.id, "run.finished", now());
    assert!(
        store
            .finish_run(&claim, &FinishedRun { tier: Some(&note), ..FinishedRun::new(&done, 1, &log) })
            .await
            .unwrap()
            .is_some()
    );
    assert_eq!(store.engine_memory(org.id, s.id).await.unwrap(), Some(memory("static", 61)));
    // Gone with its scrap.
    assert!(store.delete_scrap(org.id, s.id, &activity(org.id, s.id, "scrap.deleted", t0)).await.unwrap());
    assert_eq!(store.engine_memory(org.id, s.id).await.unwrap(), None);
    assert!(!store.set_engine_memory(org.id, s.id, &memory("static", 0)).await.unwrap());
}

/// The current state of a sliding-log bucket, read by a refused take.
async fn rate_log(store: &Arc<dyn Store>, bucket: &str) -> String {
    let mut seen = String::new();
    let mut look = |stamps: &str| {
        seen = stamps.to_string();
        None
    };
    assert!(!store.take_rate_log(bucket, &mut look).await.unwrap());
    seen
}

/// One take of a GCRA bucket, which stores `tat + 45` if `allow`: whether
/// it was allowed, and the `tat` it was given.
async fn take_tat(store: &Arc<dyn Store>, bucket: &str, allow: bool) -> (bool, i64) {
    let mut seen = None;
    let mut decide = |tat| {
        seen = Some(tat);
        allow.then_some(tat + 45)
    };
    let allowed = store.take_rate_tat(bucket, &mut decide).await.unwrap();
    (allowed, seen.expect("decided once"))
}

/// A take gets the bucket's state (`[]`, `0` when new), stores what it
/// decides, or nothing when it refuses; buckets are separate.
async fn rate_buckets_store_what_a_take_decides(store: Arc<dyn Store>) {
    assert_eq!(rate_log(&store, "trigger:key:a").await, "[]", "a new bucket");
    assert!(store.take_rate_log("trigger:key:a", &mut |s| Some(format!("{}1]", &s[..s.len() - 1]))).await.unwrap());
    assert_eq!(rate_log(&store, "trigger:key:a").await, "[1]");
    assert!(store.take_rate_log("trigger:key:a", &mut |_| Some("[1,2]".into())).await.unwrap());
    assert_eq!(rate_log(&store, "trigger:key:a").await, "[1,2]");
    assert_eq!(rate_log(&store, "trigger:key:b").await, "[]", "buckets are separate");

    assert_eq!(take_tat(&store, "login:ip:a", true).await, (true, 0), "a new bucket");
    assert_eq!(take_tat(&store, "login:ip:a", false).await, (false, 45));
    assert_eq!(take_tat(&store, "login:ip:a", true).await, (true, 45), "a refusal stores nothing");
    assert_eq!(take_tat(&store, "login:ip:b", false).await, (false, 0), "buckets are separate");
}

/// Pruning removes the GCRA buckets whose `tat` has passed, which decide
/// like new ones, and keeps those that still refuse or slow requests.
async fn pruning_rate_buckets_keeps_every_bucket_that_still_decides(store: Arc<dyn Store>) {
    let set = |tat: i64| move |_: i64| Some(tat);
    assert!(store.take_rate_tat("login:ip:past", &mut set(1_000)).await.unwrap());
    assert!(store.take_rate_tat("login:ip:now", &mut set(2_000)).await.unwrap());
    assert!(store.take_rate_tat("login:ip:future", &mut set(3_000)).await.unwrap());
    assert!(store.take_rate_log("trigger:key:a", &mut |_| Some("[1]".into())).await.unwrap());

    assert_eq!(store.prune_rate_tats(2_000).await.unwrap(), 2, "at or before now");
    assert_eq!(take_tat(&store, "login:ip:future", false).await, (false, 3_000), "kept as it was");
    assert_eq!(take_tat(&store, "login:ip:past", false).await, (false, 0), "gone: as if never used");
    assert_eq!(take_tat(&store, "login:ip:now", false).await, (false, 0));
    assert_eq!(rate_log(&store, "trigger:key:a").await, "[1]", "sliding logs are not GCRA buckets");
    assert_eq!(store.prune_rate_tats(2_999).await.unwrap(), 0, "nothing more has passed");
    assert_eq!(store.prune_rate_tats(3_000).await.unwrap(), 1);
}

/// Takes go on deciding while buckets are pruned under them (another
/// process's housekeeping): none fails, whichever comes first. (The
/// interleaving that failed here, on PostgreSQL, a delete committed between
/// a take's insert and its locked read, is rare and cannot be forced; the
/// pruner deletes every bucket, in use or not, to make it likelier.)
async fn takes_never_fail_while_buckets_are_pruned(store: Arc<dyn Store>) {
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let pruner = {
        let (store, done) = (store.clone(), done.clone());
        tokio::spawn(async move {
            let mut pruned = 0;
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                // Far ahead: every bucket goes, as soon as it is there.
                pruned += store.prune_rate_tats(i64::MAX).await.unwrap();
            }
            pruned
        })
    };
    let mut work = tokio::task::JoinSet::new();
    for worker in 0..4 {
        let store = store.clone();
        work.spawn(async move {
            for i in 0..200 {
                let mut decide = |tat: i64| Some(tat + 1);
                let taken = store.take_rate_tat("login:ip:busy", &mut decide).await;
                assert!(matches!(taken, Ok(true)), "worker {worker}, take {i}: {taken:?}");
            }
        });
    }
    while let Some(finished) = work.join_next().await {
        finished.unwrap();
    }
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    assert!(pruner.await.unwrap() > 0, "buckets were pruned while they were taken");
}

/// Concurrent takes of one bucket (several server processes' requests)
/// are decided one after the other, each on what the previous one stored:
/// none is lost and none fails, where a read-then-swap would have to retry.
async fn concurrent_takes_of_a_rate_bucket_each_see_the_previous_one(store: Arc<dyn Store>) {
    const TAKES: i64 = 40;
    let mut takes = tokio::task::JoinSet::new();
    for i in 0..TAKES {
        let store = store.clone();
        takes.spawn(async move {
            let mut append = |stored: &str| {
                let mut stamps: Vec<i64> = serde_json::from_str(stored).unwrap();
                stamps.push(i);
                Some(serde_json::to_string(&stamps).unwrap())
            };
            assert!(store.take_rate_log("trigger:key:busy", &mut append).await.unwrap());
            assert!(take_tat(&store, "login:email:busy", true).await.0);
        });
    }
    while let Some(done) = takes.join_next().await {
        done.unwrap();
    }
    let mut stamps: Vec<i64> = serde_json::from_str(&rate_log(&store, "trigger:key:busy").await).unwrap();
    stamps.sort_unstable();
    assert_eq!(stamps, (0..TAKES).collect::<Vec<_>>());
    assert_eq!(take_tat(&store, "login:email:busy", false).await, (false, 45 * TAKES));
}

/// The backlog counts what is waiting across every organization: the run
/// queue by state with its oldest queued run, and the webhook and email
/// outboxes with the entries that failed once; finished work drops out.
async fn backlog_counts_what_waits_in_every_organization(store: Arc<dyn Store>) {
    let empty = store.backlog().await.unwrap();
    assert_eq!(empty, svc_storage::Backlog::default(), "a new database has nothing waiting");
    let (org, user) = account(&store, "backlog@example.com").await;
    let (other_org, other_user) = account(&store, "other-backlog@example.com").await;
    let s = scrap(&user, "Queued", now());
    let t = scrap(&other_user, "Also queued", now());
    insert_scrap(&store, &s).await;
    insert_scrap(&store, &t).await;
    let oldest = now() - Duration::minutes(3);
    let first = history(&s, oldest);
    let second = history(&t, now());
    for (row, owner) in [(&first, org.id), (&second, other_org.id)] {
        let log = activity(owner, row.scrap_id.unwrap(), "run.triggered", now());
        store.enqueue_run(row, &["main".to_string()], None, &log).await.unwrap();
    }
    let b = store.backlog().await.unwrap();
    assert_eq!((b.runs_queued, b.runs_running), (2, 0));
    assert_eq!(b.oldest_queued_at, Some(oldest), "the oldest queued run, of any organization");

    // Claimed: running, and the oldest queued is the other one.
    let claim = store.claim_run("main", "w", now() + Duration::minutes(5)).await.unwrap().unwrap();
    assert_eq!(claim.history_id, first.id, "the oldest is claimed first");
    let b = store.backlog().await.unwrap();
    assert_eq!((b.runs_queued, b.runs_running, b.oldest_queued_at), (1, 1, Some(second.created_at)));

    // Finished with a webhook delivery and an email queued.
    let hook = webhook(&org, "https://a.example/hook", now());
    store.insert_webhook(&hook).await.unwrap();
    let mut done = first.clone();
    done.status_detail = Some(StatusDetail::Success);
    done.finished_at = Some(now());
    let d = delivery(&hook, &first);
    let mail = email(org.id, Some(s.id), "ada@example.com", now());
    let log = activity(org.id, s.id, "run.finished", now());
    assert!(
        store
            .finish_run(
                &claim,
                &FinishedRun {
                    deliveries: std::slice::from_ref(&d),
                    emails: std::slice::from_ref(&mail),
                    ..FinishedRun::new(&done, 1, &log)
                }
            )
            .await
            .unwrap()
            .is_some()
    );
    let b = store.backlog().await.unwrap();
    assert_eq!((b.runs_queued, b.runs_running), (1, 0), "a finished run leaves the queue");
    assert_eq!((b.webhooks_pending, b.webhooks_retrying, b.emails_queued, b.emails_retrying), (1, 0, 1, 0));

    // Each fails once: still waiting, now retrying.
    let later = now() + Duration::seconds(1);
    let (claimed, _) = store.claim_deliveries(later, later + Duration::seconds(40), 10).await.unwrap().remove(0);
    let retry_at = later + Duration::seconds(60);
    let failed = attempt_of(&claimed, AttemptState::PendingRetry, Some(retry_at));
    assert!(store.record_attempt(&claimed, &failed, Some(retry_at)).await.unwrap());
    let claimed_mail = store.claim_emails(later, later + Duration::seconds(40), 10).await.unwrap();
    assert_eq!(claimed_mail.len(), 1);
    let retry = EmailOutcome::Retry { error: "421 later".into(), next: retry_at };
    assert!(store.record_email(mail.id, 0, &retry, None).await.unwrap());
    let b = store.backlog().await.unwrap();
    assert_eq!((b.webhooks_pending, b.webhooks_retrying, b.emails_queued, b.emails_retrying), (1, 1, 1, 1));

    // Delivered and sent: nothing waits in the outboxes.
    let (again, _) = store.claim_deliveries(retry_at, retry_at + Duration::seconds(40), 10).await.unwrap().remove(0);
    let delivered = DeliveryAttempt { response_status: Some(200), ..attempt_of(&again, AttemptState::Delivered, None) };
    assert!(store.record_attempt(&again, &delivered, None).await.unwrap());
    assert_eq!(store.claim_emails(retry_at, retry_at + Duration::seconds(40), 10).await.unwrap().len(), 1);
    assert!(store.record_email(mail.id, 1, &EmailOutcome::Sent { at: now() }, None).await.unwrap());
    let b = store.backlog().await.unwrap();
    assert_eq!((b.webhooks_pending, b.webhooks_retrying, b.emails_queued, b.emails_retrying), (0, 0, 0, 0));
    assert_eq!((b.runs_queued, b.oldest_queued_at), (1, Some(second.created_at)));

    // The pool: what is open is within the maximum, and idle within open.
    let pool = store.pool_use();
    assert!(pool.max >= 1 && pool.open <= pool.max && pool.idle <= pool.open, "{pool:?}");
    assert!(pool.open >= 1, "the queries above opened a connection: {pool:?}");
}

// ---------------------------------------------------------------------------
// Audit log and retention (issue 37, parts 2 and 5)
// ---------------------------------------------------------------------------

fn audit_entry(org: OrgId, actor: AuditActor, action: AuditAction, at: DateTime<Utc>) -> AuditEntry {
    AuditEntry {
        created_at: at,
        ..AuditEntry::new(org, actor, action, Some("detail".into()), Some("203.0.113.9".into()))
    }
}

async fn audit_entries_round_trip_scoped_paged_and_pruned(store: Arc<dyn Store>) {
    let (org, user) = account(&store, "audited@example.com").await;
    let (other, _) = account(&store, "other-audited@example.com").await;
    let t = now() - Duration::days(10);
    let by_user = AuditActor::User { id: user.id, email: user.email.clone() };
    let first = audit_entry(org.id, by_user.clone(), AuditAction::KeyCreated { key: KeyId::new() }, t);
    let second = AuditEntry {
        detail: None,
        address: None,
        ..audit_entry(
            org.id,
            AuditActor::Operator,
            AuditAction::PlanChanged { organization: org.id },
            t + Duration::days(1),
        )
    };
    let third = audit_entry(
        org.id,
        AuditActor::Key { id: KeyId::new() },
        AuditAction::ScrapDeleted { scrap: ScrapId::new() },
        t + Duration::days(2),
    );
    let foreign = audit_entry(other.id, by_user, AuditAction::PasswordChanged { user: user.id }, t);
    for e in [&first, &second, &third, &foreign] {
        store.insert_audit(e).await.unwrap();
    }
    let page = store.list_audit(org.id, 0, 2).await.unwrap();
    assert_eq!(page.total, 3);
    assert_eq!(page.items, vec![third.clone(), second.clone()], "newest first, every field round-trips");
    assert_eq!(store.list_audit(org.id, 2, 2).await.unwrap().items, vec![first.clone()]);
    assert_eq!(store.list_audit(other.id, 0, 10).await.unwrap().items, vec![foreign], "scoped by organization");

    // Older than a day after the first: the first of each organization, one per batch.
    let before = t + Duration::hours(12);
    assert_eq!(store.prune_audit(before, 1).await.unwrap(), 1);
    assert_eq!(store.prune_audit(before, 1).await.unwrap(), 1);
    assert_eq!(store.prune_audit(before, 1).await.unwrap(), 0);
    assert_eq!(store.list_audit(org.id, 0, 10).await.unwrap().items, vec![third, second]);
    assert_eq!(store.list_audit(other.id, 0, 10).await.unwrap().total, 0);
}

async fn login_addresses_are_new_once_per_user(store: Arc<dyn Store>) {
    let (org, user) = account(&store, "travels@example.com").await;
    let (other, stranger) = account(&store, "stays@example.com").await;
    let t = now();
    assert_eq!(store.remember_address(org.id, user.id, "192.0.2.1", t).await.unwrap(), AddressSeen::First);
    assert_eq!(store.remember_address(org.id, user.id, "192.0.2.1", t).await.unwrap(), AddressSeen::Known);
    assert_eq!(store.remember_address(org.id, user.id, "2001:db8::/64", t).await.unwrap(), AddressSeen::New);
    assert_eq!(store.remember_address(org.id, user.id, "2001:db8::/64", t).await.unwrap(), AddressSeen::Known);
    assert_eq!(
        store.remember_address(other.id, stranger.id, "192.0.2.1", t).await.unwrap(),
        AddressSeen::First,
        "per user"
    );
    // An address unused for longer than the audit retention is forgotten.
    store.remember_address(org.id, user.id, "2001:db8::/64", t + Duration::days(100)).await.unwrap();
    store.prune_audit(t + Duration::days(50), 100).await.unwrap();
    assert_eq!(
        store.remember_address(org.id, user.id, "192.0.2.1", t + Duration::days(100)).await.unwrap(),
        AddressSeen::New
    );
    assert_eq!(
        store.remember_address(org.id, user.id, "2001:db8::/64", t + Duration::days(100)).await.unwrap(),
        AddressSeen::Known
    );
}

/// Each outbox and log loses its old rows, a batch at a time, and keeps
/// what is still pending. The clock is faked by pruning "as of" a later time.
async fn retention_prunes_old_rows_in_batches_and_keeps_pending_ones(store: Arc<dyn Store>) {
    let (org, user) = account(&store, "kept@example.com").await;
    let t = now();
    let later = t + Duration::days(31);

    // Activities: three, pruned two at a time.
    for i in 0..3 {
        let s = scrap(&user, &format!("s{i}"), t);
        store.insert_scrap(&s, &activity(org.id, s.id, "scrap.created", t)).await.unwrap();
    }
    assert_eq!(store.prune_activities(t, 2).await.unwrap(), 0, "none older than t");
    assert_eq!(store.prune_activities(later, 2).await.unwrap(), 2);
    assert_eq!(store.prune_activities(later, 2).await.unwrap(), 1);
    assert_eq!(store.prune_activities(later, 2).await.unwrap(), 0);

    // Emails: the sent one goes, the queued one stays.
    let s = scrap(&user, "mailed", t);
    insert_scrap(&store, &s).await;
    let sent = email(org.id, Some(s.id), "a@example.com", t);
    let queued = email(org.id, Some(s.id), "b@example.com", t);
    store.queue_emails(std::slice::from_ref(&sent), t).await.unwrap();
    store.queue_emails(std::slice::from_ref(&queued), later + Duration::days(1)).await.unwrap();
    store.claim_emails(t, t + Duration::minutes(1), 10).await.unwrap();
    assert!(store.record_email(sent.id, 0, &EmailOutcome::Sent { at: t }, None).await.unwrap());
    assert_eq!(store.prune_emails(later, 100).await.unwrap(), 1);
    assert_eq!(store.prune_emails(later, 100).await.unwrap(), 0, "the queued email stays");
    let left = store.scrap_emails(org.id, s.id, 10).await.unwrap();
    assert_eq!(left.iter().map(|r| r.email.id).collect::<Vec<_>>(), vec![queued.id]);

    // Webhook deliveries: the delivered one goes with its attempts, the pending one stays.
    let hook = webhook(&org, "https://a.example/hook", t);
    store.insert_webhook(&hook).await.unwrap();
    let row = HistoryRow { status_detail: Some(StatusDetail::Success), ..history(&s, t) };
    let done = delivery(&hook, &row);
    store.insert_deliveries(std::slice::from_ref(&done), t).await.unwrap();
    let (claimed, _) = store.claim_deliveries(t, t + Duration::seconds(40), 10).await.unwrap().remove(0);
    let attempt = DeliveryAttempt { response_status: Some(200), ..attempt_of(&claimed, AttemptState::Delivered, None) };
    assert!(store.record_attempt(&claimed, &attempt, None).await.unwrap());
    let pending = delivery(&hook, &row);
    store.insert_deliveries(std::slice::from_ref(&pending), later + Duration::days(1)).await.unwrap();
    assert_eq!(store.prune_deliveries(later, 100).await.unwrap(), 1);
    assert!(store.delivery(org.id, done.id).await.unwrap().is_none());
    assert!(store.attempt(org.id, hook.id, attempt.id).await.unwrap().is_none(), "its attempts go with it");
    assert!(store.delivery(org.id, pending.id).await.unwrap().is_some(), "a pending delivery stays");

    // AI tasks: the finished one goes, the queued one stays.
    let finished =
        Task { state: TaskState::Succeeded, finished_at: Some(t), ..task(&org, Some(&user), TaskKind::AiWizard, t) };
    let open = task(&org, Some(&user), TaskKind::AiGenerate, t);
    store.insert_task(&finished).await.unwrap();
    store.insert_task(&open).await.unwrap();
    assert_eq!(store.prune_tasks(later, 100).await.unwrap(), 1);
    assert!(store.task(org.id, finished.id).await.unwrap().is_none());
    assert!(store.task(org.id, open.id).await.unwrap().is_some());

    // Sliding-log rate buckets: gone once unused since `before`.
    assert!(store.take_rate_log("login:email:x", &mut |_| Some("[1]".into())).await.unwrap());
    assert_eq!(store.prune_rate_logs(t - Duration::hours(1), 100).await.unwrap(), 0, "used since");
    assert_eq!(store.prune_rate_logs(now() + Duration::hours(1), 100).await.unwrap(), 1);

    // Renewal records: by the week they renewed.
    let growth = account_on(&store, "renewed-growth@example.com", Plan::Growth, 0).await;
    let week = week_of(t) + Duration::days(7);
    assert!(!store.renew_plans(week, &WEEKLY, 100).await.unwrap().is_empty());
    assert_eq!(store.prune_renewals(week, 100).await.unwrap(), 0, "the week itself is kept");
    assert_eq!(store.prune_renewals(week + Duration::days(1), 100).await.unwrap(), 1);
    let _ = growth;
}

/// History is kept unless the organization sets an age limit; then old
/// finished runs go, but never a pending run nor a scrap's newest success.
async fn history_age_limit_keeps_pending_runs_and_the_latest_success(store: Arc<dyn Store>) {
    let (org, user) = account(&store, "history-limit@example.com").await;
    let (other, other_user) = account(&store, "history-kept@example.com").await;
    assert_eq!(store.history_retention(org.id).await.unwrap(), None, "kept by default");
    assert!(store.set_history_retention(org.id, Some(30)).await.unwrap());
    assert_eq!(store.history_retention(org.id).await.unwrap(), Some(30));
    assert!(!store.set_history_retention(OrgId::new(), Some(30)).await.unwrap());
    assert_eq!(store.history_limits(None, 10).await.unwrap(), vec![(org.id, 30)]);
    assert!(store.history_limits(Some(org.id), 10).await.unwrap().iter().all(|(o, _)| *o != org.id));

    let t = now() - Duration::days(60);
    let s = scrap(&user, "Old runs", t);
    insert_scrap(&store, &s).await;
    let finished = |detail: StatusDetail, at: DateTime<Utc>| HistoryRow {
        status_detail: Some(detail),
        finished_at: Some(at),
        ..history(&s, at)
    };
    let old_success = finished(StatusDetail::Success, t);
    let old_error = finished(StatusDetail::Error, t + Duration::seconds(1));
    let latest_success = finished(StatusDetail::Success, t + Duration::seconds(2));
    let old_pending = history(&s, t + Duration::seconds(3));
    let old_empty = finished(StatusDetail::Empty, t + Duration::seconds(4));
    let recent = finished(StatusDetail::Error, now());
    for row in [&old_success, &old_error, &latest_success, &old_pending, &old_empty, &recent] {
        store.insert_history(row).await.unwrap();
    }
    let foreign_scrap = scrap(&other_user, "Theirs", t);
    insert_scrap(&store, &foreign_scrap).await;
    let foreign = HistoryRow { status_detail: Some(StatusDetail::Error), ..history(&foreign_scrap, t) };
    store.insert_history(&foreign).await.unwrap();

    let cutoff = now() - Duration::days(30);
    assert_eq!(store.prune_history(org.id, cutoff, 2).await.unwrap(), 2, "a batch at a time");
    assert_eq!(store.prune_history(org.id, cutoff, 2).await.unwrap(), 1);
    assert_eq!(store.prune_history(org.id, cutoff, 2).await.unwrap(), 0);
    let left = store.list_history(org.id, &history_filter(0, 100)).await.unwrap();
    assert_eq!(set(ids(&left.items, |r| r.id)), set([latest_success.id, old_pending.id, recent.id]));
    assert!(store.history_row(other.id, foreign.id).await.unwrap().is_some(), "another organization's rows stay");
    // A newer success makes the old latest one prunable.
    let newer = finished(StatusDetail::Success, cutoff - Duration::days(1));
    store.insert_history(&newer).await.unwrap();
    assert_eq!(store.prune_history(org.id, cutoff, 100).await.unwrap(), 1);
    assert!(store.history_row(org.id, latest_success.id).await.unwrap().is_none());
    assert!(store.set_history_retention(org.id, None).await.unwrap());
    assert!(store.history_limits(None, 10).await.unwrap().is_empty());
}

/// The reads every request makes go through connections kept beside the
/// pool on SQLite (`sql/readers.rs`): more of them at once than there are
/// such connections still succeed, and reads cut off in flight leave
/// nothing behind that would hide a later write.
async fn hot_reads_in_crowds_or_cut_off_see_every_write(store: Arc<dyn Store>) {
    let (org, user) = account(&store, "ada@example.com").await;
    let at = now();
    let first = scrap(&user, "first", at);
    insert_scrap(&store, &first).await;
    let session = login_session(&user, "laptop", at);
    store.insert_session(&session).await.unwrap();

    let crowd: Vec<_> = (0..32)
        .map(|_| {
            let store = store.clone();
            tokio::spawn(async move {
                let live = store.live_session(org.id, user.id, session.id, at).await.unwrap().map(|(u, ..)| u.id);
                let read = store.scrap(org.id, first.id).await.unwrap().map(|s| s.title);
                (live, read)
            })
        })
        .collect();
    for read in crowd {
        assert_eq!(read.await.unwrap(), (Some(user.id), Some("first".to_string())));
    }

    for round in 0..3 {
        for _ in 0..8 {
            // Polled once and dropped: a read cut off in flight, as when the
            // client of a request goes away.
            let _ = store.live_session(org.id, user.id, session.id, at).now_or_never();
            let _ = store.scrap(org.id, first.id).now_or_never();
        }
        let later = scrap(&user, &format!("written after the cut-off reads of round {round}"), at);
        insert_scrap(&store, &later).await;
        for _ in 0..8 {
            let read = store.scrap(org.id, later.id).await.unwrap().map(|s| s.title);
            assert_eq!(read.as_deref(), Some(later.title.as_str()), "round {round}");
        }
    }
    assert!(store.end_session(org.id, user.id, session.id, at).await.unwrap());
    for _ in 0..8 {
        assert_eq!(store.live_session(org.id, user.id, session.id, at).await.unwrap(), None, "ended: refused at once");
    }
}

storage_tests!(
    banners_are_scoped_served_by_token_and_go_with_their_scrap,
    accounts_round_trip,
    recent_successes_newest_first_of_one_scrap,
    members_roles_and_the_last_owner,
    concurrent_demotions_keep_an_owner,
    invites_are_single_use_until_they_expire,
    recipients_confirm_per_organization_and_resend_at_most_hourly,
    audit_entries_round_trip_scoped_paged_and_pruned,
    login_addresses_are_new_once_per_user,
    retention_prunes_old_rows_in_batches_and_keeps_pending_ones,
    history_age_limit_keeps_pending_runs_and_the_latest_success,
    engine_memory_is_per_scrap_and_scoped,
    organization_updates,
    password_and_email_changes,
    sessions_live_until_ended_or_expired,
    hot_reads_in_crowds_or_cut_off_see_every_write,
    scrap_round_trip,
    scraps_scoped_by_organization,
    list_scraps_pages_newest_first,
    list_scraps_search,
    list_scraps_search_non_ascii,
    list_scraps_only,
    list_scraps_failing,
    history_rows,
    run_summaries_of_the_organization,
    run_neighbours_in_creation_order,
    scrap_history_lists_most_recent_ids,
    scrap_history_follows_each_new_run,
    delete_scrap_removes_history_keeps_activities,
    api_keys,
    activities_newest_first,
    run_queue_claims,
    a_run_queued_claimed_is_its_workers_like_any_claim,
    an_enqueue_that_fails_or_is_abandoned_leaves_the_writer_usable,
    run_claims_tell_the_trigger_and_whether_more_are_queued,
    finished_among_reports_the_finished_runs_of_each_organization,
    run_scrap_reads_what_a_run_needs,
    run_queue_claims_near_warm_pages,
    queue_state_follows_a_run,
    schedule_ticks_fire_once,
    update_moves_next_fire_only_when_the_schedule_changes,
    concurrent_schedulers_fire_each_tick_once,
    renewal_tops_up_growth_and_pro_once_a_week,
    a_plan_change_counts_as_renewed_for_its_week,
    concurrent_renewals_renew_each_organization_once,
    webhooks_round_trip_scoped_by_organization,
    webhook_outbox_claims_records_and_skips,
    concurrent_dispatchers_claim_each_delivery_once,
    email_outbox_claims_and_records_once,
    concurrent_mailers_claim_each_email_once,
    finished_runs_queue_their_emails,
    run_streak_counts_failures_since_the_last_success,
    announcement_recipients_and_unsubscribe,
    script_versions_follow_every_script_change,
    tasks_round_trip_scoped_by_organization,
    task_claims_under_a_lease,
    concurrent_task_runners_claim_each_task_once,
    finish_task_once_per_claim,
    finished_tasks_write_ai_rows_of_no_scrap,
    count_tasks_by_organization_kind_and_time,
    ai_fix_makes_the_repaired_script_current,
    ai_fix_proposals_and_approvals_wait_for_a_person,
    run_pages_are_replaced_and_read_in_order_scoped_by_organization,
    rate_buckets_store_what_a_take_decides,
    pruning_rate_buckets_keeps_every_bucket_that_still_decides,
    takes_never_fail_while_buckets_are_pruned,
    concurrent_takes_of_a_rate_bucket_each_see_the_previous_one,
    backlog_counts_what_waits_in_every_organization,
);
