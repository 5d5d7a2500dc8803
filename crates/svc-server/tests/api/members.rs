//! Members and roles (issue #37, part 1): invitations, roles that bound
//! sessions and keys, the last owner, removal that ends sessions and keys,
//! moving between organizations at log-in, and `SVC_SIGNUP=invite`.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::common::smtp::SmtpServer;
use crate::common::{Account, TestApp, assert_error};

/// Invites `email` with `role` as `by`; answers the invitation.
async fn invite(app: &TestApp, by: &Account, email: &str, role: &str) -> Value {
    let (status, body) = app.post("/api/organization/invites", &by.token, json!({"email": email, "role": role})).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    body
}

fn token_of(invite: &Value) -> String {
    invite["link"].as_str().unwrap().split("token=").nth(1).unwrap().to_string()
}

/// `who` accepts `invite`: their session token in the organization joined.
async fn accept(app: &TestApp, who: &Account, invite: &Value) -> String {
    let (status, body) = app.post("/api/invites/accept", &who.token, json!({"token": token_of(invite)})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body["token"].as_str().unwrap().to_string()
}

/// `account` with another of its session tokens.
fn with_token(account: &Account, token: &str) -> Account {
    Account {
        token: token.to_string(),
        user_id: account.user_id.clone(),
        org_id: account.org_id.clone(),
        email: account.email.clone(),
    }
}

fn assert_role_refused(status: StatusCode, body: &Value, role: &str) {
    assert_error(status, body, StatusCode::FORBIDDEN, "FORBIDDEN");
    let description = body["description"].as_str().unwrap();
    assert!(description.contains(&format!("the {role} role")), "{body}");
}

#[tokio::test]
async fn members_invite_accept_roles_and_removal() {
    let app = TestApp::start().await;
    let ada = app.signup("ada@example.com").await;
    let bob = app.signup("bob@example.com").await;
    let cat = app.signup("cat@example.com").await;
    let scrap = app.create_scrap(&ada, "Prices").await["id"].as_str().unwrap().to_string();

    // The signup user is the owner, the only member.
    let (status, list) = app.get("/api/organization/members", &ada.token).await;
    assert_eq!(status, StatusCode::OK, "{list}");
    assert_eq!((list["total"].as_i64(), list["page"].as_i64(), list["perPage"].as_i64()), (Some(1), Some(1), Some(20)));
    let me = &list["data"][0];
    assert_eq!(
        (me["userId"].as_str(), me["email"].as_str(), me["role"].as_str()),
        (Some(ada.user_id.as_str()), Some("ada@example.com"), Some("owner"))
    );
    assert!(me["name"].is_string() && me["joinedAt"].is_string(), "{me}");

    let bobs = invite(&app, &ada, "bob@example.com", "editor").await;
    assert_eq!((bobs["email"].as_str(), bobs["role"].as_str()), (Some("bob@example.com"), Some("editor")));
    assert!(bobs["link"].as_str().unwrap().contains("/invites/accept?token="), "{bobs}");
    assert!(bobs["id"].is_string() && bobs["expiresAt"].is_string());
    let cats = invite(&app, &ada, "cat@example.com", "viewer").await;
    let (status, pending) = app.get("/api/organization/invites", &ada.token).await;
    assert_eq!((status, pending["total"].as_i64()), (StatusCode::OK, Some(2)), "{pending}");

    // Accepting needs the invited address's account; the link is single-use.
    let (status, body) = app.post("/api/invites/accept", &cat.token, json!({"token": token_of(&bobs)})).await;
    assert_error(status, &body, StatusCode::FORBIDDEN, "FORBIDDEN");
    let (status, joined) = app.post("/api/invites/accept", &bob.token, json!({"token": token_of(&bobs)})).await;
    assert_eq!(status, StatusCode::OK, "{joined}");
    assert_eq!(
        (joined["organization"]["id"].as_str(), joined["role"].as_str()),
        (Some(ada.org_id.as_str()), Some("editor"))
    );
    let bob_there = joined["token"].as_str().unwrap().to_string();
    let (status, body) = app.post("/api/invites/accept", &bob.token, json!({"token": token_of(&bobs)})).await;
    assert_error(status, &body, StatusCode::NOT_FOUND, "NOT_FOUND");
    let cat_there = accept(&app, &cat, &cats).await;

    // The editor edits Ada's scrap; the viewer reads it but neither edits nor runs it.
    let (status, body) = app.put(&format!("/api/scraps/{scrap}"), &bob_there, json!({"title": "Prices (Bob)"})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, body) = app.get(&format!("/api/scraps/{scrap}"), &cat_there).await;
    assert_eq!((status, body["title"].as_str()), (StatusCode::OK, Some("Prices (Bob)")), "{body}");
    let (status, body) = app.put(&format!("/api/scraps/{scrap}"), &cat_there, json!({"title": "no"})).await;
    assert_role_refused(status, &body, "viewer");
    let (status, body) = app.post(&format!("/api/scraps/worker/{scrap}"), &cat_there, json!(null)).await;
    assert_role_refused(status, &body, "viewer");
    // A viewer's key is bounded by the role: it reads, it cannot run.
    let cat_account = with_token(&cat, &cat_there);
    let (_, cat_key) = app.create_key(&cat_account, json!({"name": "cat's"})).await;
    let (status, _) = app.get(&format!("/api/scraps/{scrap}"), &cat_key).await;
    assert_eq!(status, StatusCode::OK);
    let (status, body) =
        app.send(app.request(Method::POST, &format!("/api/scraps/worker/{scrap}"), Some(&cat_key))).await;
    assert_role_refused(status, &body, "viewer");
    let (status, body) = app.get(&format!("/api/scraps/load/{scrap}"), &cat_key).await;
    assert_role_refused(status, &body, "viewer");
    // Keys never reach the member routes (JWT only).
    let (status, body) = app.get("/api/organization/members", &cat_key).await;
    assert_error(status, &body, StatusCode::UNAUTHORIZED, "UNAUTHORIZED");

    // Members management: an editor may not; an admin may, except owners.
    let (status, body) =
        app.post("/api/organization/invites", &bob_there, json!({"email": "x@example.com", "role": "viewer"})).await;
    assert_role_refused(status, &body, "editor");
    let (status, body) = app.get("/api/organization/invites", &cat_there).await;
    assert_role_refused(status, &body, "viewer");
    let (status, body) =
        app.put(&format!("/api/organization/members/{}", bob.user_id), &ada.token, json!({"role": "admin"})).await;
    assert_eq!((status, body["role"].as_str()), (StatusCode::OK, Some("admin")), "{body}");
    let (status, body) =
        app.put(&format!("/api/organization/members/{}", ada.user_id), &bob_there, json!({"role": "viewer"})).await;
    assert_role_refused(status, &body, "admin");
    let (status, body) =
        app.post("/api/organization/invites", &bob_there, json!({"email": "o@example.com", "role": "owner"})).await;
    assert_role_refused(status, &body, "admin");
    let (status, body) =
        app.put(&format!("/api/organization/members/{}", cat.user_id), &bob_there, json!({"role": "editor"})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, body) =
        app.put(&format!("/api/organization/members/{}", cat.user_id), &bob_there, json!({"role": "boss"})).await;
    assert_error(status, &body, StatusCode::UNPROCESSABLE_ENTITY, "VALIDATION");
    assert_eq!(body["field"], "role");
    let (status, body) =
        app.post("/api/organization/invites", &ada.token, json!({"email": "bob@example.com", "role": "viewer"})).await;
    assert_error(status, &body, StatusCode::CONFLICT, "ALREADY_MEMBER");

    // The organization keeps an owner.
    let (status, body) =
        app.put(&format!("/api/organization/members/{}", ada.user_id), &ada.token, json!({"role": "admin"})).await;
    assert_error(status, &body, StatusCode::CONFLICT, "LAST_OWNER");
    let (status, body) = app.delete(&format!("/api/organization/members/{}", ada.user_id), &ada.token).await;
    assert_error(status, &body, StatusCode::CONFLICT, "LAST_OWNER");

    // Removing Bob ends his session there and revokes the keys he made there.
    let bob_account = with_token(&bob, &bob_there);
    let (_, bob_key) = app.create_key(&bob_account, json!({"name": "bob's"})).await;
    let (status, _) = app.get("/api/scraps", &bob_key).await;
    assert_eq!(status, StatusCode::OK);
    let (status, body) = app.delete(&format!("/api/organization/members/{}", bob.user_id), &ada.token).await;
    assert_eq!(status, StatusCode::NO_CONTENT, "{body}");
    let (status, body) = app.get("/api/scraps", &bob_there).await;
    assert_error(status, &body, StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
    let (status, body) = app.get("/api/scraps", &bob_key).await;
    assert_error(status, &body, StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
    let (status, _) = app.get("/api/auth/me", &bob.token).await;
    assert_eq!(status, StatusCode::OK, "Bob's own organization is untouched");
    let (status, body) = app.delete(&format!("/api/organization/members/{}", bob.user_id), &ada.token).await;
    assert_error(status, &body, StatusCode::NOT_FOUND, "NOT_FOUND");
    let (_, list) = app.get("/api/organization/members", &ada.token).await;
    assert_eq!(list["total"], 2, "{list}");
}

async fn org_of(app: &TestApp, token: &str) -> String {
    app.get("/api/auth/me", token).await.1["organization"]["id"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn login_enters_the_last_used_or_the_chosen_organization() {
    let app = TestApp::start().await;
    let ada = app.signup("ada@example.com").await;
    let bob = app.signup("bob@example.com").await;
    let eve = app.signup("eve@example.com").await;
    let bobs = invite(&app, &ada, "bob@example.com", "viewer").await;
    accept(&app, &bob, &bobs).await;

    let login = |org: Option<&str>| {
        let mut body = json!({"email": "bob@example.com", "password": "password-123"});
        if let Some(org) = org {
            body["organizationId"] = json!(org);
        }
        app.request(Method::POST, "/api/auth/login", None).json(&body)
    };
    let (status, body) = app.send(login(None)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(org_of(&app, body["token"].as_str().unwrap()).await, ada.org_id, "the one joined last");
    let (_, body) = app.send(login(Some(&bob.org_id))).await;
    assert_eq!(org_of(&app, body["token"].as_str().unwrap()).await, bob.org_id);
    let (_, body) = app.send(login(None)).await;
    assert_eq!(org_of(&app, body["token"].as_str().unwrap()).await, bob.org_id, "now the one used last");
    let (status, body) = app.send(login(Some(&eve.org_id))).await;
    assert_error(status, &body, StatusCode::FORBIDDEN, "FORBIDDEN");
    let (status, body) = app.send(login(Some("nope"))).await;
    assert_error(status, &body, StatusCode::UNPROCESSABLE_ENTITY, "VALIDATION");
    assert_eq!(body["field"], "organizationId");

    // A withdrawn invitation's link stops working.
    let eves = invite(&app, &ada, "eve@example.com", "editor").await;
    let (status, body) =
        app.delete(&format!("/api/organization/invites/{}", eves["id"].as_str().unwrap()), &ada.token).await;
    assert_eq!(status, StatusCode::NO_CONTENT, "{body}");
    let (status, body) = app.post("/api/invites/accept", &eve.token, json!({"token": token_of(&eves)})).await;
    assert_error(status, &body, StatusCode::NOT_FOUND, "NOT_FOUND");
}

#[tokio::test]
async fn signup_by_invitation_only() {
    let app = TestApp::start_with(&[("SVC_SIGNUP", "invite")]).await;
    let signup = |email: &str| {
        app.request(Method::POST, "/api/auth/signup", None).json(&json!({"email": email, "password": "password-123"}))
    };
    let (status, body) = app.send(signup("stranger@example.com")).await;
    assert_error(status, &body, StatusCode::FORBIDDEN, "FORBIDDEN");
    assert!(body["description"].as_str().unwrap().contains("invitation"), "{body}");

    // The operator's first account (made while open) invites a colleague,
    // who signs up with the invited address and joins.
    let open = app.another_on_same_db(&[("SVC_SIGNUP", "open")]).await;
    let ada = open.signup("ada@example.com").await;
    let bobs = invite(&app, &ada, "bob@example.com", "editor").await;
    let (status, body) = app.send(signup("bob@example.com")).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let bob = Account {
        token: body["token"].as_str().unwrap().to_string(),
        user_id: body["user"]["id"].as_str().unwrap().to_string(),
        org_id: body["organization"]["id"].as_str().unwrap().to_string(),
        email: "bob@example.com".into(),
    };
    let there = accept(&app, &bob, &bobs).await;
    let (_, me) = app.get("/api/auth/me", &there).await;
    assert_eq!(me["organization"]["id"].as_str(), Some(ada.org_id.as_str()));
    // The invitation is used up: the address cannot sign up twice.
    let (status, body) = app.send(signup("bob2@example.com")).await;
    assert_error(status, &body, StatusCode::FORBIDDEN, "FORBIDDEN");
}

#[tokio::test]
async fn an_invitation_is_emailed_through_the_outbox_when_email_is_on() {
    let smtp = SmtpServer::start().await;
    let url = smtp.url();
    let app = TestApp::start_with(&[("SVC_SMTP_URL", url.as_str())]).await;
    let ada = app.signup("ada@example.com").await;
    let invited = invite(&app, &ada, "bob@example.com", "viewer").await;
    let link = invited["link"].as_str().unwrap();
    let mails = smtp.wait_for(1, std::time::Duration::from_secs(30)).await;
    assert_eq!(mails[0].to, vec!["bob@example.com".to_string()]);
    let message = mails[0].parsed();
    assert!(message.subject().unwrap().contains("invited to join ada"), "{:?}", message.subject());
    let text = message.body_text(0).unwrap();
    assert!(text.contains(link) && text.contains("as a viewer"), "{text}");
}
