//! Weekly plan renewal end to end: Growth and Pro balances topped up to
//! their weekly amount once per organization and week (Monday 00:00 UTC),
//! with two servers on one database, across a restart, and by the running
//! scheduler. Driven through `Scheduler::renew(now)` with chosen instants.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use chrono::{DateTime, Utc};
use common::{Account, TestApp};
use reqwest::StatusCode;
use serde_json::json;
use svc_domain::account::{Organization, User};
use svc_domain::plan::Plan;
use svc_domain::{OrgId, UserId};
use svc_service::schedule::renewal;
use svc_storage::{NewAccount, PlanRenewal, RenewalOutcome};

/// The scheduler is driven by the test.
const MANUAL: [(&str, &str); 2] = [("SVC_SCHEDULER", "false"), ("SVC_EMBEDDED_WORKER", "false")];

/// The organization's plan and balance as `GET /api/auth/me` shows them.
async fn me(app: &TestApp, account: &Account) -> (String, i64) {
    let (status, body) = app.get("/api/auth/me", &account.token).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let org = &body["organization"];
    (org["plan"].as_str().unwrap().to_string(), org["balance"].as_i64().unwrap())
}

async fn renew(app: &TestApp, now: DateTime<Utc>) -> Vec<PlanRenewal> {
    app.services.scheduler.renew(now).await.expect("renew")
}

/// How many times each organization was renewed, over several passes.
fn renewed<'a>(passes: impl IntoIterator<Item = &'a [PlanRenewal]>) -> BTreeMap<OrgId, usize> {
    let mut count = BTreeMap::new();
    for r in passes.into_iter().flatten().filter(|r| r.outcome == RenewalOutcome::Renewed) {
        *count.entry(r.organization_id).or_default() += 1;
    }
    count
}

/// A new account moved to `plan` by the operator (`svc admin set-plan`), with
/// `balance` units.
async fn on_plan(app: &TestApp, email: &str, plan: Plan, balance: i64) -> Account {
    let account = app.signup(email).await;
    app.services.admin.set_plan(email, plan).await.unwrap();
    app.services.admin.add_balance(email, balance - 1_000).await.unwrap();
    account
}

#[tokio::test]
async fn two_servers_renew_each_growth_and_pro_organization_once_a_week() {
    let a = TestApp::start_with(&MANUAL).await;
    let b = a.another_on_same_db(&MANUAL).await;
    let free = a.signup("free@example.com").await;
    let mut growth = Vec::new();
    for i in 0..12 {
        growth.push(on_plan(&a, &format!("g{i}@example.com"), Plan::Growth, 1_000 - 100 * i).await);
    }
    let rich = on_plan(&a, "rich@example.com", Plan::Pro, 150_000).await;
    let pro = on_plan(&a, "pro@example.com", Plan::Pro, -20).await;

    // Moved to their plans this week: renewed from next Monday on, not now.
    let now = Utc::now();
    let (ra, rb) = tokio::join!(renew(&a, now), renew(&b, now));
    assert!(ra.is_empty() && rb.is_empty(), "{ra:?} {rb:?}");
    assert_eq!(me(&a, &growth[0]).await, ("growth".into(), 1_000));

    // Both servers reach next Monday 00:00 UTC at once: each paid
    // organization is renewed by one of them, once.
    let monday = renewal::next_renewal(now);
    let (ra, rb) = tokio::join!(renew(&a, monday), renew(&b, monday));
    let count = renewed([ra.as_slice(), rb.as_slice()]);
    let paid: BTreeSet<OrgId> = growth.iter().map(|g| g.org()).chain([rich.org(), pro.org()]).collect();
    assert_eq!(count.keys().copied().collect::<BTreeSet<_>>(), paid, "Growth and Pro only");
    assert!(count.values().all(|n| *n == 1), "{count:?}");
    assert!(!ra.is_empty() || !rb.is_empty());
    assert!(ra.iter().chain(&rb).all(|r| r.week_start == monday));
    for g in &growth {
        assert_eq!(me(&b, g).await, ("growth".into(), 10_000), "topped up to the weekly amount");
    }
    assert_eq!(me(&b, &rich).await, ("pro".into(), 150_000), "never lowered");
    assert_eq!(me(&b, &pro).await, ("pro".into(), 100_000));
    assert_eq!(me(&b, &free).await, ("free".into(), 1_000), "Free keeps its one-shot grant");

    // Later passes that week, on either server, change nothing.
    app_spends(&a, &growth[0], 4_000).await;
    assert!(renew(&a, monday).await.is_empty());
    assert!(renew(&b, monday + chrono::Duration::hours(30)).await.is_empty());

    // A restart mid-week (a new process on the database, the old ones
    // stopped) does not renew again.
    let c = b.another_on_same_db(&MANUAL).await;
    let _db = a.stop();
    b.stop();
    assert!(renew(&c, monday + chrono::Duration::days(3)).await.is_empty());
    let sunday_night = monday + chrono::Duration::days(7) - chrono::Duration::seconds(1);
    assert!(renew(&c, sunday_night).await.is_empty());
    assert_eq!(me(&c, &growth[0]).await.1, 6_000);

    // The following Monday renews again, once.
    let next_monday = monday + chrono::Duration::days(7);
    let first = renew(&c, next_monday).await;
    let again = renew(&c, next_monday).await;
    assert_eq!(renewed([first.as_slice()]).len(), paid.len());
    assert!(again.is_empty());
    assert_eq!(me(&c, &growth[0]).await.1, 10_000);
    assert_eq!(me(&c, &free).await.1, 1_000);
}

/// Spends `units` of the account's balance (as runs would).
async fn app_spends(app: &TestApp, account: &Account, units: i64) {
    app.services.admin.add_balance(&account.email, -units).await.unwrap();
}

#[tokio::test]
async fn the_weekly_amounts_come_from_the_configuration_and_the_plan_at_renewal_time() {
    let settings = [MANUAL[0], MANUAL[1], ("SVC_GROWTH_WEEKLY", "2500"), ("SVC_PRO_WEEKLY", "40000")];
    let app = TestApp::start_with(&settings).await;
    let growth = on_plan(&app, "growth@example.com", Plan::Growth, 1_000).await;
    let upgraded = on_plan(&app, "upgraded@example.com", Plan::Growth, 1_000).await;
    let downgraded = on_plan(&app, "downgraded@example.com", Plan::Pro, 1_000).await;
    let monday = renewal::next_renewal(Utc::now());
    let renewals = renew(&app, monday).await;
    assert_eq!(renewed([renewals.as_slice()]).len(), 3);
    assert_eq!(me(&app, &growth).await.1, 2_500);
    assert_eq!(me(&app, &downgraded).await.1, 40_000);

    // Plan changes after that renewal take effect at the next one: the plan
    // held then decides the amount.
    app.services.admin.set_plan("upgraded@example.com", Plan::Pro).await.unwrap();
    app.services.admin.set_plan("downgraded@example.com", Plan::Free).await.unwrap();
    app_spends(&app, &growth, 2_000).await;
    let renewals = renew(&app, monday + chrono::Duration::days(7)).await;
    let count = renewed([renewals.as_slice()]);
    assert_eq!(count.keys().copied().collect::<BTreeSet<_>>(), BTreeSet::from([growth.org(), upgraded.org()]));
    assert_eq!(me(&app, &growth).await, ("growth".into(), 2_500));
    assert_eq!(me(&app, &upgraded).await, ("pro".into(), 40_000));
    assert_eq!(me(&app, &downgraded).await, ("free".into(), 40_000), "Free is not renewed, nor lowered");
    let pro = renewals.iter().find(|r| r.organization_id == upgraded.org()).unwrap();
    assert_eq!((pro.plan, pro.units, pro.balance_before), (Plan::Pro, 40_000, 2_500));
}

#[tokio::test]
async fn the_running_scheduler_renews_an_organization_due_this_week() {
    let app = TestApp::start_with(&[("SVC_EMBEDDED_WORKER", "false")]).await;
    // On Growth since before this week began (as after an upgrade, or a
    // server that was down across Monday): due at the next pass.
    let created = renewal::week_start(Utc::now()) - chrono::Duration::days(2);
    let org = Organization {
        id: OrgId::new(),
        name: "early".into(),
        plan: Plan::Growth,
        balance: 300,
        default_containers: vec!["default".into()],
        created_at: created,
    };
    let user = User {
        id: UserId::new(),
        organization_id: org.id,
        email: "early@example.com".into(),
        name: "early".into(),
        is_admin: false,
        created_at: created,
    };
    let hash = svc_service::accounts::password::hash("password-123");
    app.store.create_account(&NewAccount { organization: org, user, password_hash: hash }).await.unwrap();
    let (status, body) = app
        .send(
            app.request(reqwest::Method::POST, "/api/auth/login", None)
                .json(&json!({"email": "early@example.com", "password": "password-123"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let early = Account {
        token: body["token"].as_str().unwrap().to_string(),
        user_id: String::new(),
        org_id: String::new(),
        email: "early@example.com".into(),
    };
    // The loop looks at least every 5 s.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(15);
    while me(&app, &early).await.1 != 10_000 {
        assert!(tokio::time::Instant::now() < deadline, "not renewed by the running scheduler");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    // Once: a pass now finds nothing left to do this week.
    assert!(renew(&app, Utc::now()).await.is_empty());
}
