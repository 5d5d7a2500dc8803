//! The typed client (`svc-client`, over `svc-api-types`) against the real
//! server: every answer the client reads decodes into the shared types, so
//! the server's JSON and the client's types cannot drift apart unnoticed.

use crate::common;

use common::TestApp;
use serde_json::json;
use svc_client::types::{NewKeyBody, ScrapBody, WebhookBody};
use svc_client::{Client, ClientError, Credential, RunAnswer};
use svc_domain::scrap::ParamSet;

#[tokio::test]
async fn every_answer_decodes_into_the_shared_types() {
    let app = TestApp::start_with(&[("SVC_EMBEDDED_WORKER", "false"), ("SVC_ALLOW_PRIVATE_NETWORKS", "true")]).await;
    let alice = app.signup("alice@example.com").await;
    app.store.set_plan(alice.org(), svc_domain::plan::Plan::Growth).await.unwrap();
    let anonymous = Client::new(&app.base, None);
    let token = anonymous.login("alice@example.com", "password-123").await.unwrap();
    assert!(!token.token.is_empty());
    let client = Client::new(&app.base, Some(Credential::Session(token.token)));

    let me = client.me().await.unwrap();
    assert_eq!((me.user.email.as_str(), me.organization.plan.as_str()), ("alice@example.com", "growth"));
    let scrap = client
        .create_scrap(&ScrapBody {
            title: Some("Typed".into()),
            url: Some("https://example.com".into()),
            request: Some("returnData([1])".into()),
            params: Some(vec![ParamSet { key: "a".into(), value: json!({"x": 1}) }]),
            ..ScrapBody::default()
        })
        .await
        .unwrap();
    assert_eq!(scrap.params[0].key, "a");
    let updated = client
        .update_scrap(&scrap.id, &ScrapBody { cron: Some(Some("0 9 * * *".into())), ..ScrapBody::default() })
        .await
        .unwrap();
    assert_eq!(updated.cron.as_deref(), Some("0 9 * * *"));
    assert_eq!(client.scraps(Some("typ"), None, None).await.unwrap().total, 1);
    assert_eq!(client.scrap(&scrap.id).await.unwrap(), updated);

    let pending = match client.run_scrap(&scrap.id, None, Some("a")).await.unwrap() {
        RunAnswer::Pending(p) => p,
        RunAnswer::Finished(row) => panic!("no worker runs here: {row:?}"),
    };
    assert_eq!(pending.triggered_by, "user");
    let row = client.history_row(&pending.history_id).await.unwrap();
    assert_eq!((row.status, row.costs.clone()), (None, None));
    assert_eq!(client.history(Some(&scrap.id), None, None).await.unwrap().data, vec![row]);
    let pages = client.history_pages(&pending.history_id, Some(1), Some(100)).await.unwrap();
    assert_eq!((pages.total, pages.page, pages.per_page, pages.data), (0, 1, 100, vec![]));

    let key = client
        .create_key(&NewKeyBody {
            name: Some("typed".into()),
            scopes: Some(vec!["svc:scraps:read".into()]),
            ..NewKeyBody::default()
        })
        .await
        .unwrap();
    assert!(key.plain_key.starts_with("svc_"));
    assert_eq!(client.keys(None, None).await.unwrap().data, vec![key.key.clone()]);
    let hook = client
        .create_webhook(&WebhookBody {
            url: Some("https://hooks.example.com/x".into()),
            events: Some(vec!["scrap.failure".into()]),
            ..WebhookBody::default()
        })
        .await
        .unwrap();
    assert_eq!(client.webhooks(None, None).await.unwrap().data, vec![hook.webhook.clone()]);
    let off = client
        .update_webhook(&hook.webhook.id, &WebhookBody { active: Some(false), ..WebhookBody::default() })
        .await
        .unwrap();
    assert!(!off.active);
    assert_eq!(client.deliveries(&hook.webhook.id, None, None).await.unwrap().total, 0);
    client.delete_webhook(&hook.webhook.id).await.unwrap();
    client.revoke_key(&key.key.id).await.unwrap();

    // Refusals decode into the error shape.
    match client.scrap("0123456789abcdef01234567").await {
        Err(ClientError::Api { status: 404, body }) => assert_eq!(body.code, "NOT_FOUND"),
        other => panic!("{other:?}"),
    }
    let as_key = Client::new(&app.base, Some(Credential::ApiKey(key.plain_key)));
    match as_key.scraps(None, None, None).await {
        Err(ClientError::Api { status: 401, body }) => assert_eq!(body.code, "UNAUTHORIZED"),
        other => panic!("a revoked key: {other:?}"),
    }
    client.delete_scrap(&scrap.id).await.unwrap();
}
