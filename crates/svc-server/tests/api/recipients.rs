//! Confirmed recipients (issue 37): result emails, digests and alerts go
//! only to members' own addresses or to addresses that confirmed through the
//! link mailed to them, through a local SMTP server speaking the real
//! protocol. A confirmation belongs to one organization; mails are at most
//! one an hour per address; the link's page confirms only on its button.

use std::time::Duration;

use chrono::Utc;
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::common::smtp::SmtpServer;
use crate::common::{Account, TestApp, assert_error, fixture};

const PRIVATE_OK: (&str, &str) = ("SVC_ALLOW_PRIVATE_NETWORKS", "true");
const ITEMS: &str = "returnData([...document.querySelectorAll('li.item')].map(li => ({name: li.textContent})))";
const WITHIN: Duration = Duration::from_secs(60);

async fn recipients(app: &TestApp, account: &Account) -> Vec<Value> {
    let (status, page) = app.get("/api/organization/recipients", &account.token).await;
    assert_eq!(status, StatusCode::OK, "{page}");
    page["data"].as_array().unwrap().clone()
}

#[tokio::test]
async fn a_stranger_receives_only_after_confirming_and_only_for_that_organization() {
    let smtp = SmtpServer::start().await;
    let site = fixture::start().await;
    let url = smtp.url();
    let app = TestApp::start_with(&[PRIVATE_OK, ("SVC_SMTP_URL", url.as_str()), ("SVC_SCHEDULER", "false")]).await;
    let alice = app.signup("alice@example.com").await;
    let bob = app.signup("bob@example.com").await;
    let body = json!({"title": "Shop items", "url": format!("{}/items/3", site.base), "request": ITEMS,
                      "cron": "* * * * *", "emailNotif": true, "emailNotifRecipient": "sam@example.com",
                      "alert": " Sam@Example.com "});
    let sid = app.scrap_with(&alice, body).await;

    // One confirmation mail for the address, named twice.
    let mails = smtp.wait_for(1, WITHIN).await;
    assert_eq!(mails[0].to, ["sam@example.com"]);
    let ask = mails[0].parsed();
    let subject = ask.subject().unwrap();
    assert!(subject.starts_with("Confirm that ") && subject.ends_with(" on svc may email you"), "{subject}");
    assert!(ask.body_text(0).unwrap().contains("Nothing is sent to this address until you confirm"));
    let listed = recipients(&app, &alice).await;
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!((listed[0]["email"].as_str(), listed[0]["state"].as_str()), (Some("sam@example.com"), Some("pending")));
    assert!(listed[0]["sentAt"].is_string() && listed[0]["resendAt"].is_string(), "{listed:?}");
    // The Scrap shape is unchanged: the field holds what was saved.
    let (_, scrap) = app.get(&format!("/api/scraps/{sid}"), &alice.token).await;
    assert!(scrap.get("recipientState").is_none() && scrap["emailNotifRecipient"].is_string(), "{scrap}");

    // A cron run while pending: nothing to sam, and the run's activity says why.
    app.services.scheduler.tick(Utc::now() + chrono::Duration::seconds(61)).await.unwrap();
    let skipped = app.activities_of(&alice, &sid, "email.skipped", 1).await;
    assert!(skipped[0]["message"].as_str().unwrap().contains("sam@example.com"), "{skipped:?}");
    assert_eq!(smtp.messages().len(), 1, "only the confirmation mail");

    // Send again within the hour: refused, no second mail.
    let (status, err) =
        app.post("/api/organization/recipients/resend", &alice.token, json!({"email": "sam@example.com"})).await;
    assert_error(status, &err, StatusCode::CONFLICT, "CONFIRMATION_RECENTLY_SENT");
    // A member's own address needs no confirmation.
    let (status, err) =
        app.post("/api/organization/recipients/resend", &alice.token, json!({"email": "alice@example.com"})).await;
    assert_error(status, &err, StatusCode::CONFLICT, "ALREADY_CONFIRMED");

    // The link's page only asks (a mail scanner following it confirms nothing).
    let token = mails[0].confirmation_token();
    let page = app.http.get(format!("{}/recipients/confirm?token={token}", app.base)).send().await.unwrap();
    assert_eq!(page.status(), StatusCode::OK);
    let text = page.text().await.unwrap();
    assert!(text.contains("Confirm sam@example.com") && text.contains("method=\"post\""), "{text}");
    assert_eq!(recipients(&app, &alice).await[0]["state"], "pending");
    let (status, _) = app.confirm_recipient("not-a-token").await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    // Bob's organization names sam too: its own pending address, its own mail.
    let theirs = json!({"title": "Other", "url": format!("{}/items/1", site.base), "request": ITEMS,
                        "alert": "sam@example.com"});
    app.scrap_with(&bob, theirs).await;
    let mails = smtp.wait_for(2, WITHIN).await;
    assert_eq!(mails[1].to, ["sam@example.com"]);

    app.confirm_by_mail(&mails[0]).await;
    assert_eq!(recipients(&app, &alice).await[0]["state"], "confirmed");
    assert_eq!(recipients(&app, &bob).await[0]["state"], "pending", "a confirmation is for one organization");

    // Confirmed: the next cron run's result goes to sam.
    app.services.scheduler.tick(Utc::now() + chrono::Duration::seconds(121)).await.unwrap();
    let mails = smtp.wait_for(3, WITHIN).await;
    assert_eq!(mails[2].to, ["sam@example.com"]);
    assert_eq!(mails[2].parsed().subject(), Some("Shop items: 3 items"));

    // A member's own address: no confirmation asked, never listed.
    let own = json!({"title": "Own", "url": format!("{}/items/1", site.base), "request": ITEMS,
                     "digestRecipient": "alice@example.com"});
    app.scrap_with(&alice, own).await;
    assert_eq!(recipients(&app, &alice).await.len(), 1);
}

#[tokio::test]
async fn without_email_addresses_wait_pending_and_send_again_says_why() {
    let app = TestApp::start().await;
    let alice = app.signup("alice@example.com").await;
    let body = json!({"title": "Shop", "url": "https://example.org/", "request": ITEMS,
                      "digestRecipient": "boss@example.com", "alert": "channel:ops"});
    let (status, _) = app.post("/api/scraps", &alice.token, body).await;
    // `channel:ops` is not saved: the channel rule answers first.
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    let body = json!({"title": "Shop", "url": "https://example.org/", "request": ITEMS,
                      "digestRecipient": "boss@example.com", "alert": "slack://T1/B2/xyz"});
    let (status, created) = app.post("/api/scraps", &alice.token, body).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let listed = recipients(&app, &alice).await;
    assert_eq!(listed.len(), 1, "channels are not addresses: {listed:?}");
    assert_eq!((listed[0]["state"].as_str(), listed[0]["sentAt"].is_null()), (Some("pending"), true));
    let (status, err) =
        app.post("/api/organization/recipients/resend", &alice.token, json!({"email": "boss@example.com"})).await;
    assert_error(status, &err, StatusCode::CONFLICT, "EMAIL_OFF");
    let (status, err) = app.post("/api/organization/recipients/resend", &alice.token, json!({"email": "nope"})).await;
    assert_error(status, &err, StatusCode::UNPROCESSABLE_ENTITY, "VALIDATION");
}

#[tokio::test]
async fn every_member_reads_recipients_only_editors_send_again_and_other_organizations_see_none() {
    let smtp = SmtpServer::start().await;
    let url = smtp.url();
    let app = TestApp::start_with(&[("SVC_SMTP_URL", url.as_str())]).await;
    let ada = app.signup("ada@example.com").await;
    let (status, invite) =
        app.post("/api/organization/invites", &ada.token, json!({"email": "cat@example.com", "role": "viewer"})).await;
    assert_eq!(status, StatusCode::CREATED, "{invite}");
    let token = invite["link"].as_str().unwrap().split("token=").nth(1).unwrap().to_string();
    let cat = app.signup("cat@example.com").await;
    let (status, joined) = app.post("/api/invites/accept", &cat.token, json!({"token": token})).await;
    assert_eq!(status, StatusCode::OK, "{joined}");
    let cat_there = joined["token"].as_str().unwrap().to_string();
    let body = json!({"title": "Shop", "url": "https://example.org/", "request": ITEMS, "alert": "sam@example.com"});
    app.scrap_with(&ada, body).await;

    let (status, page) = app.get("/api/organization/recipients", &cat_there).await;
    assert_eq!(status, StatusCode::OK, "{page}");
    assert_eq!(page["total"], 1, "{page}");
    let (status, err) =
        app.post("/api/organization/recipients/resend", &cat_there, json!({"email": "sam@example.com"})).await;
    assert_error(status, &err, StatusCode::FORBIDDEN, "FORBIDDEN");
    assert!(err["description"].as_str().unwrap().contains("viewer"), "{err}");
    // Cat's own organization has none; an API key is not a web session.
    let (_, theirs) = app.get("/api/organization/recipients", &cat.token).await;
    assert_eq!(theirs["total"], 0, "{theirs}");
    let (status, key) = app.post("/api/developers/keys", &ada.token, json!({"name": "k"})).await;
    assert_eq!(status, StatusCode::OK, "{key}");
    let (status, _) = app.get("/api/organization/recipients", key["plainKey"].as_str().unwrap()).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    // The member's own address and the invited one needed no confirmation mail.
    let mails = smtp.wait_for(2, WITHIN).await;
    let to: Vec<&str> = mails.iter().map(|m| m.to[0].as_str()).collect();
    assert_eq!(to.iter().filter(|t| **t == "sam@example.com").count(), 1, "{to:?}");
}

/// Makes the database refuse every new email (a trigger), or accept them
/// again: a real failure of the statement that queues a confirmation mail.
async fn refuse_emails(db_url: &str, refuse: bool) {
    let statements: &[&str] = match (db_url.starts_with("sqlite"), refuse) {
        (true, true) => {
            &["CREATE TRIGGER refuse_emails BEFORE INSERT ON emails BEGIN SELECT RAISE(ABORT, 'refused'); END"]
        }
        (true, false) => &["DROP TRIGGER refuse_emails"],
        (false, true) => &[
            "CREATE OR REPLACE FUNCTION refuse_emails() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'refused'; END $$ LANGUAGE plpgsql",
            "CREATE TRIGGER refuse_emails BEFORE INSERT ON emails FOR EACH ROW EXECUTE FUNCTION refuse_emails()",
        ],
        (false, false) => &["DROP TRIGGER refuse_emails ON emails"],
    };
    for sql in statements {
        let sql = sqlx::AssertSqlSafe(sql.to_string());
        if db_url.starts_with("sqlite") {
            let pool = sqlx::SqlitePool::connect(db_url).await.unwrap();
            sqlx::query(sql).execute(&pool).await.unwrap();
            pool.close().await;
        } else {
            let pool = sqlx::PgPool::connect(db_url).await.unwrap();
            sqlx::query(sql).execute(&pool).await.unwrap();
            pool.close().await;
        }
    }
}

#[tokio::test]
async fn a_scrap_whose_confirmation_mail_cannot_be_queued_is_not_saved_and_saving_again_works() {
    let smtp = SmtpServer::start().await;
    let url = smtp.url();
    let app = TestApp::start_with(&[("SVC_SMTP_URL", url.as_str()), ("SVC_SCHEDULER", "false")]).await;
    let alice = app.signup("alice@example.com").await;
    let body = json!({"title": "Shop", "url": "https://example.org/", "request": ITEMS,
                      "emailNotif": true, "emailNotifRecipient": "sam@example.com"});
    let count = || async { app.get("/api/scraps", &alice.token).await.1["data"].as_array().unwrap().len() };

    refuse_emails(&app.db_url, true).await;
    let (status, err) = app.post("/api/scraps", &alice.token, body.clone()).await;
    assert_error(status, &err, StatusCode::INTERNAL_SERVER_ERROR, "INTERNAL");
    assert_eq!(count().await, 0, "an error means the scrap was not saved");

    refuse_emails(&app.db_url, false).await;
    let (status, created) = app.post("/api/scraps", &alice.token, body).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    assert_eq!(count().await, 1, "saving again makes one scrap");
    let mails = smtp.wait_for(1, WITHIN).await;
    assert_eq!(mails[0].to, ["sam@example.com"]);

    // An edit that names a new address: refused as a whole, then saved.
    let sid = created["id"].as_str().unwrap();
    refuse_emails(&app.db_url, true).await;
    let change = json!({"alert": "kim@example.com"});
    let (status, err) = app.put(&format!("/api/scraps/{sid}"), &alice.token, change.clone()).await;
    assert_error(status, &err, StatusCode::INTERNAL_SERVER_ERROR, "INTERNAL");
    let (_, stored) = app.get(&format!("/api/scraps/{sid}"), &alice.token).await;
    assert!(stored["alert"].is_null(), "the edit was not saved: {stored}");
    refuse_emails(&app.db_url, false).await;
    let (status, saved) = app.put(&format!("/api/scraps/{sid}"), &alice.token, change).await;
    assert_eq!((status, saved["alert"].as_str()), (StatusCode::OK, Some("kim@example.com")), "{saved}");
    let mails = smtp.wait_for(2, WITHIN).await;
    assert_eq!(mails[1].to, ["kim@example.com"]);
}
