//! The AI routes against a local server speaking the OpenAI Chat Completions
//! protocol: script generation validated by running each script (a failing
//! first attempt is fed back, the second wins), the wizard's proposals, the
//! rows they write, the task route's rules, and what a missing, failing or
//! babbling provider does.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::common::openai::{Answer, OpenAiStandIn};
use crate::common::{Account, TestApp, assert_error, fixture};

const PRIVATE_OK: (&str, &str) = ("SVC_ALLOW_PRIVATE_NETWORKS", "true");
const WORKING: &str = "const items = [...document.querySelectorAll('li.item')];\nreturnData(items.map(li => ({name: li.textContent.trim()})));";

async fn app_with_model(ai: &OpenAiStandIn) -> TestApp {
    TestApp::start_with(&[
        PRIVATE_OK,
        ("SVC_AI_BASE_URL", ai.base_url.as_str()),
        ("SVC_AI_API_KEY", "sk-test-secret"),
        ("SVC_AI_MODEL", "tiny-model"),
        ("SVC_AI_PRICE_INPUT", "1"),
        ("SVC_AI_PRICE_OUTPUT", "2"),
    ])
    .await
}

fn fenced(lang: &str, code: &str) -> String {
    format!("Here you go:\n\n```{lang}\n{code}\n```\n")
}

/// Posts an AI route and waits for its task (with the route's `wait`).
async fn task_of(app: &TestApp, account: &Account, path: &str, body: Value) -> Value {
    let (status, accepted) = app.post(path, &account.token, body).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{accepted}");
    let id = accepted["taskId"].as_str().expect("a task id");
    let (status, task) = app.get(&format!("/api/tasks/{id}?wait=60"), &account.token).await;
    assert_eq!(status, StatusCode::OK, "{task}");
    assert_eq!(task["id"], id);
    task
}

#[tokio::test]
async fn generation_feeds_a_failing_script_back_and_the_second_one_wins() {
    let ai = OpenAiStandIn::start().await;
    let site = fixture::start().await;
    let app = app_with_model(&ai).await;
    let alice = app.signup("alice@example.com").await;
    ai.answer([
        Answer::content(&fenced("javascript", "throw new Error('no .product cards on this page');"), 3000, 40),
        Answer::content(&fenced("js", WORKING), 3200, 60),
    ]);
    let url = format!("{}/items/5", site.base);
    let body = json!({"url": url, "description": "The names of the items", "fields": ["name"]});
    let task = task_of(&app, &alice, "/api/ai/generate", body).await;
    assert_eq!(task["type"], "ai_generate");
    assert_eq!(task["status"], "succeeded", "{task}");
    let result = &task["result"];
    assert_eq!(result["script"], WORKING);
    assert_eq!(result["attempts"], 2);
    assert_eq!(result["length"], 5);
    assert_eq!(result["preview"][0], json!({"name": "Item 0"}));
    assert!(result["failedAttempts"][0]["problem"].as_str().unwrap().contains("no .product cards on this page"));

    let asked = ai.asked();
    assert_eq!(asked.len(), 2);
    assert_eq!(asked[0].authorization.as_deref(), Some("Bearer sk-test-secret"));
    assert_eq!(asked[0].body["model"], "tiny-model");
    let first = asked[0].prompt();
    assert!(first.contains(&url), "the prompt names the page");
    assert!(first.contains("Item 3"), "the prompt carries the page snapshot: {first}");
    assert!(first.contains("The names of the items") && first.contains("name"));
    let second = asked[1].prompt();
    assert!(second.contains("throw new Error('no .product cards on this page');"), "the failed script goes back");
    assert!(second.contains("no .product cards on this page"), "with what went wrong");

    // The operation's own row: no scrap, its data, what it cost (admin-only).
    let history_id = result["historyId"].as_str().unwrap();
    assert_eq!(task["historyId"], history_id);
    let (status, row) = app.get(&format!("/api/historys/{history_id}"), &alice.token).await;
    assert_eq!(status, StatusCode::OK, "{row}");
    assert_eq!(row["type"], "ai_generate");
    assert_eq!(row["scrap"], Value::Null);
    assert_eq!(row["status"], true);
    assert_eq!(row["length"], 5);
    assert!(row.get("costs").is_none(), "costs are admin-only");
    let stored = app.store.history_row(alice.org(), svc_domain::HistoryId::parse(history_id).unwrap()).await.unwrap();
    let stored = stored.unwrap();
    let costs = stored.costs.unwrap();
    let expected = (3000.0 + 3200.0) * 1.0 / 1e6 + (40.0 + 60.0) * 2.0 / 1e6;
    assert!((costs.ai - expected).abs() < 1e-12, "{costs:?}");
    assert_eq!(costs.model.as_deref(), Some("tiny-model"));
    let meter = stored.meter.unwrap();
    assert_eq!(meter.breakdown.ai, Some(8), "3,040 and 3,260 tokens: 4 units each");
    assert_eq!(meter.breakdown.run, 3, "the page load for the model and two candidate runs");
    // It is in the organization's history, not in any scrap's.
    let (_, all) = app.get("/api/historys", &alice.token).await;
    assert!(all["data"].as_array().unwrap().iter().any(|r| r["id"] == history_id));
}

#[tokio::test]
async fn the_wizard_proposes_fields_from_the_page() {
    let ai = OpenAiStandIn::start().await;
    let site = fixture::start().await;
    let app = app_with_model(&ai).await;
    let alice = app.signup("alice@example.com").await;
    let fields = json!([{"name": "name", "description": "The item's name", "example": "Item 1"},
                        {"name": "position", "description": "Its place in the list", "example": 1}]);
    ai.answer([Answer::content(&fenced("json", &fields.to_string()), 900, 80)]);
    let url = format!("{}/items/4", site.base);
    let task = task_of(&app, &alice, "/api/ai/wizard", json!({"url": url})).await;
    assert_eq!(task["type"], "ai_wizard");
    assert_eq!(task["status"], "succeeded", "{task}");
    assert_eq!(task["result"]["fields"], fields);
    let prompt = ai.asked()[0].prompt();
    assert!(prompt.contains("Item 3"), "the prompt carries the page: {prompt}");
    let (_, row) = app.get(&format!("/api/historys/{}", task["historyId"].as_str().unwrap()), &alice.token).await;
    assert_eq!(row["type"], "ai_wizard");
    assert_eq!(row["length"], 2);
    assert_eq!(serde_json::from_str::<Value>(row["data"].as_str().unwrap()).unwrap(), fields);
}

#[tokio::test]
async fn generation_gives_up_after_three_attempts_and_says_why() {
    let ai = OpenAiStandIn::start().await;
    let site = fixture::start().await;
    let app = app_with_model(&ai).await;
    let alice = app.signup("alice@example.com").await;
    // Prose without a fence is taken as the script (docs/ai.md): it does not parse.
    ai.answer([
        Answer::content("I am not sure what you mean.", 100, 10),
        Answer::content(&fenced("js", "returnData([]);"), 100, 10),
        Answer::content(&fenced("js", "returnData([{title: 'x'}]);"), 100, 10),
    ]);
    let body = json!({"url": format!("{}/items/2", site.base), "description": "names", "fields": ["name"]});
    let task = task_of(&app, &alice, "/api/ai/generate", body).await;
    assert_eq!(task["status"], "failed", "{task}");
    let error = task["error"].as_str().unwrap();
    assert!(error.contains("3 attempts"), "{error}");
    let failed = task["result"]["failedAttempts"].as_array().unwrap();
    assert_eq!(failed.len(), 3);
    assert!(failed[0]["problem"].as_str().unwrap().contains("SyntaxError"), "{failed:?}");
    assert!(failed[1]["problem"].as_str().unwrap().contains("no items"), "{failed:?}");
    assert!(failed[2]["problem"].as_str().unwrap().contains("name"), "{failed:?}");
    let (_, row) = app.get(&format!("/api/historys/{}", task["historyId"].as_str().unwrap()), &alice.token).await;
    assert_eq!(row["statusDetail"], "error");
    assert!(row["error"].as_str().unwrap().contains("3 attempts"));
}

#[tokio::test]
async fn a_provider_that_fails_or_answers_garbage_fails_the_task_cleanly() {
    let ai = OpenAiStandIn::start().await;
    let site = fixture::start().await;
    let app = app_with_model(&ai).await;
    let alice = app.signup("alice@example.com").await;
    let url = format!("{}/items/2", site.base);
    ai.answer([Answer::raw(503, "{\"error\": {\"message\": \"overloaded\"}}")]);
    let task = task_of(&app, &alice, "/api/ai/wizard", json!({"url": url})).await;
    assert_eq!(task["status"], "failed");
    assert!(task["error"].as_str().unwrap().contains("provider"), "{task}");
    // A body that is not a completion, then prose without fields: two attempts, no crash.
    ai.answer([Answer::raw(200, "<html>not json</html>"), Answer::content("Nice page!", 10, 3)]);
    let task = task_of(&app, &alice, "/api/ai/wizard", json!({"url": url})).await;
    assert_eq!(task["status"], "failed", "{task}");
    ai.answer([Answer::content("Nice page!", 10, 3), Answer::content("Still nice.", 10, 3)]);
    let task = task_of(&app, &alice, "/api/ai/wizard", json!({"url": url})).await;
    assert_eq!(task["status"], "failed", "{task}");
    assert!(task["error"].as_str().unwrap().contains("did not propose fields"), "{task}");
    // The server still answers.
    let (status, _) = app.get("/api/auth/me", &alice.token).await;
    assert_eq!(status, StatusCode::OK);
    // A page that cannot be loaded is said so, and the model is not asked.
    let before = ai.asked().len();
    let task = task_of(&app, &alice, "/api/ai/wizard", json!({"url": format!("{}/status/404", site.base)})).await;
    assert_eq!(task["status"], "failed");
    assert!(task["error"].as_str().unwrap().contains("could not be loaded"), "{task}");
    assert_eq!(ai.asked().len(), before);
}

#[tokio::test]
async fn ai_routes_refuse_what_they_cannot_do() {
    // Without a provider: 503 AI_NOT_CONFIGURED, nothing queued.
    let app = TestApp::start_with(&[PRIVATE_OK]).await;
    let alice = app.signup("alice@example.com").await;
    let (status, body) = app.post("/api/ai/wizard", &alice.token, json!({"url": "https://example.com/"})).await;
    assert_error(status, &body, StatusCode::SERVICE_UNAVAILABLE, "AI_NOT_CONFIGURED");
    let body = json!({"url": "https://example.com/", "description": "titles"});
    let (status, err) = app.post("/api/ai/generate", &alice.token, body).await;
    assert_error(status, &err, StatusCode::SERVICE_UNAVAILABLE, "AI_NOT_CONFIGURED");

    let ai = OpenAiStandIn::start().await;
    let app = app_with_model(&ai).await;
    let alice = app.signup("alice@example.com").await;
    let eve = app.signup("eve@example.com").await;
    for (path, body, field) in [
        ("/api/ai/wizard", json!({"url": "not a url"}), "url"),
        ("/api/ai/generate", json!({"url": "https://example.com/", "description": "  "}), "description"),
        ("/api/ai/generate", json!({"url": "https://example.com/", "description": "x", "fields": [""]}), "fields"),
    ] {
        let (status, err) = app.post(path, &alice.token, body).await;
        assert_error(status, &err, StatusCode::UNPROCESSABLE_ENTITY, "VALIDATION");
        assert!(err.to_string().contains(field), "{err}");
    }
    let (status, err) = app.post("/api/ai/wizard", &alice.token, json!({"link": "https://example.com/"})).await;
    assert!(status.is_client_error(), "{status} {err}");
    // Tasks are JWT-only, scoped by organization.
    let (status, accepted) = app.post("/api/ai/wizard", &alice.token, json!({"url": "https://example.com/"})).await;
    assert_eq!(status, StatusCode::ACCEPTED);
    let id = accepted["taskId"].as_str().unwrap();
    let (status, err) = app.get(&format!("/api/tasks/{id}"), &eve.token).await;
    assert_error(status, &err, StatusCode::NOT_FOUND, "NOT_FOUND");
    let (_, key) = app.create_key(&alice, json!({"name": "ci"})).await;
    let (status, _) = app.get(&format!("/api/tasks/{id}"), &key).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "tasks are JWT-only");
    let (status, _) = app.post("/api/ai/wizard", &key, json!({"url": "https://example.com/"})).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "AI routes are JWT-only");
    let (status, err) = app.get(&format!("/api/tasks/{id}?wait=soon"), &alice.token).await;
    assert_error(status, &err, StatusCode::UNPROCESSABLE_ENTITY, "VALIDATION");
    let (status, err) = app.get("/api/tasks/123", &alice.token).await;
    assert_error(status, &err, StatusCode::UNPROCESSABLE_ENTITY, "VALIDATION");
    let (status, err) = app.get(&format!("/api/tasks/{}", svc_domain::ObjectId::new()), &alice.token).await;
    assert_error(status, &err, StatusCode::NOT_FOUND, "NOT_FOUND");
    // No balance: 402, nothing queued.
    app.store.add_balance(alice.org(), -1_000_000).await.unwrap();
    let (status, err) = app.post("/api/ai/wizard", &alice.token, json!({"url": "https://example.com/"})).await;
    assert_error(status, &err, StatusCode::PAYMENT_REQUIRED, "INSUFFICIENT_BALANCE");
}
