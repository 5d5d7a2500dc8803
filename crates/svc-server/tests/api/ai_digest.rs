//! AI digests against a local server speaking the OpenAI Chat Completions
//! protocol: the digest lands on the row (computed changes first, then the
//! model's words), with its cost and its email; the prompt carries the
//! scrap's instructions and the changes; a provider that is down or answers
//! garbage leaves the run as it was and the activity log says why; without a
//! provider the digest is skipped, said so.

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{Value, json};
use svc_domain::HistoryId;

use crate::common::openai::{Answer, OpenAiStandIn};
use crate::common::smtp::SmtpServer;
use crate::common::{Account, TestApp, fixture};

const PRIVATE_OK: (&str, &str) = ("SVC_ALLOW_PRIVATE_NETWORKS", "true");
const ITEMS: &str = "returnData([...document.querySelectorAll('li.item')].map(li => ({name: li.textContent, i: Number(li.dataset.i)})))";

async fn run(app: &TestApp, account: &Account, scrap: &str) -> Value {
    let (status, row) = app.run_and_wait(&account.token, scrap).await;
    assert_eq!(status, StatusCode::OK, "{row}");
    row
}

async fn activity(app: &TestApp, account: &Account, scrap: &str) -> Vec<Value> {
    let (_, page) = app.get(&format!("/api/scraps/{scrap}/activities?perPage=100"), &account.token).await;
    page["data"].as_array().unwrap().clone()
}

#[tokio::test]
async fn a_digest_lands_on_the_row_with_its_cost_and_email() {
    let ai = OpenAiStandIn::start().await;
    let smtp = SmtpServer::start().await;
    let site = fixture::start().await;
    let (ai_url, smtp_url) = (ai.base_url.clone(), smtp.url());
    let app = TestApp::start_with(&[
        PRIVATE_OK,
        ("SVC_AI_BASE_URL", ai_url.as_str()),
        ("SVC_AI_API_KEY", "sk-test-secret"),
        ("SVC_AI_MODEL", "tiny-model"),
        ("SVC_AI_PRICE_INPUT", "1.5"),
        ("SVC_AI_PRICE_OUTPUT", "6"),
        ("SVC_SMTP_URL", smtp_url.as_str()),
    ])
    .await;
    let alice = app.signup("alice@example.com").await;
    let body = json!({"title": "Shop items", "url": format!("{}/items/3", site.base), "request": ITEMS,
                      "digestEnabled": true, "digestPrompt": "Name the new items.", "digestRecipient": "boss@example.com"});
    let sid = app.scrap_with(&alice, body).await;
    // A stranger's address confirms first (issue 37).
    app.confirm_by_mail(&smtp.wait_for(1, Duration::from_secs(30)).await[0]).await;
    ai.answer([
        Answer::content("Three items, the shop opened.", 1000, 200),
        Answer::content("One new item: **Item 3**.", 2000, 100),
    ]);
    let first = run(&app, &alice, &sid).await;
    assert!(first["digest"].as_str().unwrap().starts_with("**What changed:** first successful run, 3 items."));
    let (status, _) =
        app.put(&format!("/api/scraps/{sid}"), &alice.token, json!({"url": format!("{}/items/4", site.base)})).await;
    assert_eq!(status, StatusCode::OK);
    let second = run(&app, &alice, &sid).await;
    let digest = second["digest"].as_str().expect("a digest on the row");
    assert!(
        digest.starts_with(
            "**What changed** since the previous successful run: 1 added, 0 removed, 0 changed, 3 unchanged."
        ),
        "the changes are computed, first: {digest}"
    );
    assert!(
        digest.contains("Added:\n- `{\"i\":3,\"name\":\"Item 3\"}`") && digest.ends_with("One new item: **Item 3**."),
        "{digest}"
    );

    // What the model was asked: the instructions, the changes, the data, with the key.
    let asked = ai.asked();
    assert_eq!(asked.len(), 2);
    assert_eq!(asked[1].authorization.as_deref(), Some("Bearer sk-test-secret"));
    assert_eq!(asked[1].body["model"], "tiny-model");
    let prompt = asked[1].prompt();
    assert!(
        prompt.contains("Name the new items.") && prompt.contains("1 added") && prompt.contains("\"Item 3\""),
        "{prompt}"
    );

    // Its cost, for admins: 2000 in at $1.5/M + 100 out at $6/M = $0.0036; 3 units for 2,100 tokens.
    let row = app
        .store
        .history_row(alice.org(), HistoryId::parse(second["id"].as_str().unwrap()).unwrap())
        .await
        .unwrap()
        .unwrap();
    let costs = row.costs.unwrap();
    assert!((costs.ai - 0.0036).abs() < 1e-9, "{costs:?}");
    assert_eq!((costs.provider.as_deref(), costs.model.as_deref()), (Some("127.0.0.1"), Some("tiny-model")));
    assert_eq!(row.meter.unwrap().breakdown.ai, Some(3));

    // The digest by email to its recipient.
    let mails = smtp.wait_for(3, Duration::from_secs(30)).await;
    let last = mails.iter().rev().find(|m| m.to == ["boss@example.com"]).unwrap().parsed();
    assert_eq!(last.subject(), Some("Shop items: digest"));
    assert!(last.body_text(0).unwrap().contains("One new item: **Item 3**."));
}

#[tokio::test]
async fn a_provider_that_fails_leaves_the_run_as_it_was_and_says_why() {
    let ai = OpenAiStandIn::start().await;
    let site = fixture::start().await;
    let ai_url = ai.base_url.clone();
    let app = TestApp::start_with(&[PRIVATE_OK, ("SVC_AI_BASE_URL", ai_url.as_str())]).await;
    let alice = app.signup("alice@example.com").await;
    let body =
        json!({"title": "Shop", "url": format!("{}/items/2", site.base), "request": ITEMS, "digestEnabled": true});
    let sid = app.scrap_with(&alice, body).await;
    ai.answer([
        Answer::raw(503, "{\"error\": {\"message\": \"overloaded\"}}"),
        Answer::raw(200, "<html>not json</html>"),
        Answer::raw(200, "{\"choices\": []}"),
    ]);
    for _ in 0..3 {
        let row = run(&app, &alice, &sid).await;
        assert_eq!((row["statusDetail"].clone(), row["digest"].clone()), (json!("success"), Value::Null), "{row}");
        assert_eq!(row["length"], 2, "the data is kept");
    }
    let log: Vec<String> = activity(&app, &alice, &sid)
        .await
        .iter()
        .filter(|a| a["type"] == "digest.failed")
        .map(|a| a["message"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(log.len(), 3, "{log:?}");
    assert!(log.iter().any(|m| m.contains("HTTP 503") && m.contains("overloaded")), "{log:?}");
    assert!(log.iter().any(|m| m.contains("not JSON")), "{log:?}");
    assert!(log.iter().any(|m| m.contains("no choices[0].message.content")), "{log:?}");
}

#[tokio::test]
async fn without_a_provider_the_digest_is_skipped_and_said_so() {
    let site = fixture::start().await;
    let app = TestApp::start_with(&[PRIVATE_OK]).await;
    let alice = app.signup("alice@example.com").await;
    let body =
        json!({"title": "Shop", "url": format!("{}/items/2", site.base), "request": ITEMS, "digestEnabled": true});
    let sid = app.scrap_with(&alice, body).await;
    let row = run(&app, &alice, &sid).await;
    assert_eq!((row["statusDetail"].clone(), row["digest"].clone()), (json!("success"), Value::Null));
    let log = activity(&app, &alice, &sid).await;
    assert!(
        log.iter().any(|a| a["type"] == "digest.skipped" && a["message"].as_str().unwrap().contains("SVC_AI_BASE_URL")),
        "{log:?}"
    );
}
