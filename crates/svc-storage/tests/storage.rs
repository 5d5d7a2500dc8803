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

use chrono::{DateTime, Duration, SubsecRound, Utc};
use serde_json::json;
use svc_domain::ObjectId;
use svc_domain::account::{Organization, User};
use svc_domain::activity::Activity;
use svc_domain::api_key::{ApiKey, KeyOwner};
use svc_domain::email::{Attachment, Email, EmailKind, EmailState};
use svc_domain::history::{HistoryRow, RunSummary, RunType, StatusDetail, TriggeredBy};
use svc_domain::plan::Plan;
use svc_domain::scope::Scope;
use svc_domain::scrap::{EmailFormat, HISTORY_IDS_CAP, ParamSet, Scrap};
use svc_domain::webhook::{AttemptState, Delivery, DeliveryAttempt, Webhook, WebhookEvent};
use svc_storage::{
    DueScrap, EmailOutcome, HistoryFilter, NewAccount, Page, PlannedTick, QueueState, RunNeighbours, RunStreak,
    ScrapFilter, Store, StoreError, TickAction, TickOutcome, TickPlan, TickPlanner,
};

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
        id: ObjectId::new(),
        name: format!("org of {email}"),
        plan: Plan::Free,
        balance: 500,
        default_containers: vec!["main".into(), "backup-eu".into()],
        created_at: at,
    };
    let user = User {
        id: ObjectId::new(),
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

fn activity(org: ObjectId, scrap: ObjectId, kind: &str, at: DateTime<Utc>) -> Activity {
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
        costs: Some(json!({"proxy": 0.1, "captcha": 0, "ai": 0.02, "total": 0.12, "priced": true})),
        meter: Some(json!({"units": 12, "ratioVersion": 3, "breakdown": {"proxy": 10, "ai": 2}})),
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
        id: ObjectId::new(),
        organization_id: user.organization_id,
        user_id: user.id,
        name: name.to_string(),
        prefix: format!("svc_{}", &name[..name.len().min(4)]),
        scopes: vec![Scope::ScrapsRead, Scope::HistoryRead],
        scrap_ids: vec![ObjectId::new(), ObjectId::new()],
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

fn ids<T>(items: &[T], id: impl Fn(&T) -> ObjectId) -> Vec<ObjectId> {
    items.iter().map(id).collect()
}

fn set(ids: impl IntoIterator<Item = ObjectId>) -> BTreeSet<ObjectId> {
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
    assert_eq!(store.organization(ObjectId::new()).await.unwrap(), None);
    assert_eq!(store.user(org.id, ObjectId::new()).await.unwrap(), None);

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
    assert!(!store.set_plan(ObjectId::new(), Plan::Pro).await.unwrap());
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
    assert_eq!(store.add_balance(ObjectId::new(), 10).await.unwrap(), None);

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
    assert!(store.set_password_hash(org.id, user.id, "$argon2id$new").await.unwrap());
    assert_eq!(store.password_hash(org.id, user.id).await.unwrap().as_deref(), Some("$argon2id$new"));
    assert_eq!(store.user_by_email("ada@example.com").await.unwrap().unwrap().1, "$argon2id$new");
    // Through another organization: not found, nothing changed.
    assert!(!store.set_password_hash(org.id, other_user.id, "$argon2id$stolen").await.unwrap());
    assert!(!store.set_password_hash(ObjectId::new(), user.id, "$argon2id$stolen").await.unwrap());
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
    let unknown = store.list_scraps(ObjectId::new(), &filter(0, 10)).await.unwrap();
    assert_eq!(unknown, Page { items: vec![], total: 0 });

    let asked = [mine.id, theirs.id, ObjectId::new(), mine2.id];
    assert_eq!(set(store.existing_scrap_ids(org.id, &asked).await.unwrap()), set([mine.id, mine2.id]));
    assert_eq!(store.existing_scrap_ids(other_org.id, &asked).await.unwrap(), [theirs.id]);
    assert_eq!(store.existing_scrap_ids(org.id, &[ObjectId::new()]).await.unwrap(), []);
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

    let only = |ids: Vec<ObjectId>| ScrapFilter { only: Some(ids), ..filter(0, 10) };
    let page = store.list_scraps(org.id, &only(vec![a[0].id, a[2].id, foreign.id, ObjectId::new()])).await.unwrap();
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
    assert_eq!(store.history_row(org.id, ObjectId::new()).await.unwrap(), None);

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

    let asked = [rows[2].id, foreign_row.id, ObjectId::new(), rows[0].id, rows[1].id, rows[0].id];
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

    let expected: Vec<ObjectId> = runs.iter().rev().take(HISTORY_IDS_CAP).map(|h| h.id).collect();
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
    let log_scrap = ObjectId::new();

    let key = ApiKey { scopes: vec![], scrap_ids: vec![], expires_at: None, ..api_key(&user, "ci", t0) };
    let created = activity(org.id, log_scrap, "key.created", t0);
    store.insert_key(&key, "hash-ci", std::slice::from_ref(&created)).await.unwrap();
    assert_eq!(store.key_by_hash("hash-ci").await.unwrap(), Some(KeyOwner { key: key.clone(), owner_is_admin: false }));
    assert_eq!(store.key_by_hash("hash-unknown").await.unwrap(), None);
    assert!(store.set_admin(org.id, user.id, true).await.unwrap());
    assert_eq!(store.key_by_hash("hash-ci").await.unwrap(), Some(KeyOwner { key: key.clone(), owner_is_admin: true }));
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

    let revoked2 = activity(org.id, ObjectId::new(), "key.revoked", at);
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
    assert!(!store.revoke_key(org.id, ObjectId::new(), at, &[]).await.unwrap());

    // A hash collision is a conflict; neither the key nor its activities are written.
    let clash = api_key(&user, "clash", t0 + Duration::seconds(20));
    let clash_activity = activity(org.id, ObjectId::new(), "key.created", t0);
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
            history_id: Some(ObjectId::new()),
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
    assert_eq!(store.list_activities(org.id, ObjectId::new(), 0, 10).await.unwrap().total, 0);
}

// ---------------------------------------------------------------------------
// One test per engine for each of the functions above
// ---------------------------------------------------------------------------

/// Concurrent claimers never get the same run; each claim is honoured once;
/// runs are taken only by workers serving one of the scrap's containers.
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
    let claimed: BTreeSet<ObjectId> = claims.iter().map(|c| c.history_id).collect();
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
    assert!(store.finish_run(claim, &done, 3, &log, &[], &[]).await.unwrap());
    assert!(!store.finish_run(claim, &done, 3, &log, &[], &[]).await.unwrap(), "a claim finishes once");
    let mut stranger = claims[1].clone();
    stranger.worker_id = "someone-else".into();
    assert!(!store.finish_run(&stranger, &done, 3, &log, &[], &[]).await.unwrap());
    assert_eq!(store.organization(s.organization_id).await.unwrap().unwrap().balance, before - 3);
    let stored = store.history_row(s.organization_id, claim.history_id).await.unwrap().unwrap();
    assert_eq!(stored.status_detail, Some(StatusDetail::Success));
    assert_eq!(store.last_success(s.organization_id, s.id).await.unwrap().unwrap().id, claim.history_id);

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
    assert!(store.finish_run(&again, &failed, 0, &log, &[], &[]).await.unwrap(), "the reaper finishes the lost claim");
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
        history: Option<ObjectId>,
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
    assert!(store.finish_run(&claim, &done, 1, &finished, &[], &[]).await.unwrap());
    assert_eq!(store.queue_state(org.id, row.id).await.unwrap(), None, "finished runs have left the queue");
}

fn email(org: ObjectId, scrap: Option<ObjectId>, to: &str, at: DateTime<Utc>) -> Email {
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
    assert!(store.finish_run(&claim, &done, 1, &log, &[], std::slice::from_ref(&mail)).await.unwrap());
    let queued = store.claim_emails(now() + Duration::seconds(1), now() + Duration::minutes(1), 10).await.unwrap();
    assert_eq!(queued.len(), 1);
    assert_eq!(queued[0].email.history_id, Some(row.id));
    // A lost claim writes neither the run nor its emails.
    let other = Email { history_id: Some(row.id), ..email(org.id, Some(s.id), "owner@example.com", now()) };
    assert!(!store.finish_run(&claim, &done, 1, &log, &[], &[other]).await.unwrap());
    assert_eq!(store.scrap_emails(org.id, s.id, 10).await.unwrap().len(), 1);
}

async fn run_streak_counts_failures_since_the_last_success(store: Arc<dyn Store>) {
    let (org, user) = account(&store, "streak@example.com").await;
    let s = scrap(&user, "Streaky", now());
    insert_scrap(&store, &s).await;
    let current = ObjectId::new();
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
    store.finish_run(&claim, &done, 1, &activity(org.id, s.id, "run.finished", now()), &[], &[]).await.unwrap();
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
// Webhooks
// ---------------------------------------------------------------------------

fn webhook(org: &Organization, url: &str, at: DateTime<Utc>) -> Webhook {
    Webhook {
        id: ObjectId::new(),
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
        scrap_ids: vec![ObjectId::new()],
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
    assert!(store.finish_run(&claim, &done, 1, &log, std::slice::from_ref(&d), &[]).await.unwrap());

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

storage_tests!(
    accounts_round_trip,
    organization_updates,
    password_and_email_changes,
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
    delete_scrap_removes_history_keeps_activities,
    api_keys,
    activities_newest_first,
    run_queue_claims,
    queue_state_follows_a_run,
    schedule_ticks_fire_once,
    update_moves_next_fire_only_when_the_schedule_changes,
    concurrent_schedulers_fire_each_tick_once,
    webhooks_round_trip_scoped_by_organization,
    webhook_outbox_claims_records_and_skips,
    concurrent_dispatchers_claim_each_delivery_once,
    email_outbox_claims_and_records_once,
    concurrent_mailers_claim_each_email_once,
    finished_runs_queue_their_emails,
    run_streak_counts_failures_since_the_last_success,
    announcement_recipients_and_unsubscribe,
);
