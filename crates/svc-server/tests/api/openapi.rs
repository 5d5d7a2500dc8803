//! The OpenAPI document at `/api/openapi.json` against the routes: every
//! route of svc-api's route table under `/api/` (the REST API, docs/api.md)
//! has exactly one documented operation and the document has no other; the
//! live router agrees on the methods of every documented path; and what the
//! document says of credentials, scopes, errors and answers is what the
//! routes do.

use std::collections::{BTreeSet, HashMap};

use crate::common;

use common::{Account, TestApp};
use reqwest::{Method, StatusCode, header};
use serde_json::{Value, json};
use svc_domain::ObjectId;

/// The methods a route can be asked for (HEAD follows GET, OPTIONS is not routed).
const METHODS: [Method; 5] = [Method::GET, Method::POST, Method::PUT, Method::PATCH, Method::DELETE];

async fn document(app: &TestApp) -> Value {
    let response = app.request(Method::GET, "/api/openapi.json", None).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let content_type = response.headers().get(header::CONTENT_TYPE).unwrap().to_str().unwrap().to_string();
    assert!(content_type.starts_with("application/json"), "{content_type}");
    response.json().await.unwrap()
}

/// `(METHOD, path)` of every operation of the document, with the operation.
fn operations(doc: &Value) -> Vec<(Method, String, Value)> {
    let mut all = Vec::new();
    for (path, item) in doc["paths"].as_object().expect("paths") {
        for (key, operation) in item.as_object().unwrap() {
            if let Ok(method) = Method::from_bytes(key.to_ascii_uppercase().as_bytes())
                && ["get", "put", "post", "delete", "options", "head", "patch", "trace"].contains(&key.as_str())
            {
                all.push((method, path.clone(), operation.clone()));
            }
        }
    }
    all
}

/// The path with every `{parameter}` replaced by `value`.
fn filled(path: &str, value: &str) -> String {
    let mut out = String::new();
    let mut rest = path;
    while let Some(start) = rest.find('{') {
        let end = rest[start..].find('}').expect("a closed parameter") + start;
        out.push_str(&rest[..start]);
        out.push_str(value);
        rest = &rest[end + 1..];
    }
    out + rest
}

fn path_parameters(path: &str) -> BTreeSet<String> {
    path.split('/').filter_map(|s| s.strip_prefix('{')?.strip_suffix('}')).map(str::to_string).collect()
}

/// The value at a local `$ref` (`#/components/...`).
fn resolve<'a>(doc: &'a Value, reference: &str) -> &'a Value {
    let pointer = reference.strip_prefix('#').unwrap_or_else(|| panic!("not a local $ref: {reference}"));
    doc.pointer(pointer).unwrap_or_else(|| panic!("$ref {reference} resolves to nothing"))
}

/// Every `$ref` in `value`.
fn references(value: &Value, found: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(r)) = map.get("$ref") {
                found.push(r.clone());
            }
            map.values().for_each(|v| references(v, found));
        }
        Value::Array(items) => items.iter().for_each(|v| references(v, found)),
        _ => {}
    }
}

/// Why `value` does not match `schema` (the JSON Schema subset utoipa
/// writes: `$ref`, `type`, `properties`, `required`, `items`,
/// `additionalProperties: false`, `allOf`, `oneOf`), or `None`.
fn mismatch(doc: &Value, schema: &Value, value: &Value, at: &str) -> Option<String> {
    if let Some(r) = schema["$ref"].as_str() {
        return mismatch(doc, resolve(doc, r), value, at);
    }
    if let Some(all) = schema["allOf"].as_array() {
        return all.iter().find_map(|s| mismatch(doc, s, value, at));
    }
    if let Some(one) = schema["oneOf"].as_array() {
        return if one.iter().any(|s| mismatch(doc, s, value, at).is_none()) {
            None
        } else {
            Some(format!("{at}: {value} matches none of {schema}"))
        };
    }
    let types: Vec<&str> = match &schema["type"] {
        Value::String(t) => vec![t.as_str()],
        Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
        _ => vec![],
    };
    let kind = match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    };
    let fits = types.is_empty() || types.contains(&kind) || (kind == "integer" && types.contains(&"number"));
    if !fits {
        return Some(format!("{at}: {value} is not of type {types:?}"));
    }
    if let Value::Object(map) = value {
        for name in schema["required"].as_array().into_iter().flatten().filter_map(Value::as_str) {
            if !map.contains_key(name) {
                return Some(format!("{at}: required `{name}` is missing"));
            }
        }
        let properties = schema["properties"].as_object();
        for (name, v) in map {
            match properties.and_then(|p| p.get(name)) {
                Some(s) => {
                    if let Some(why) = mismatch(doc, s, v, &format!("{at}.{name}")) {
                        return Some(why);
                    }
                }
                None if schema["additionalProperties"] == false => {
                    return Some(format!("{at}: `{name}` is not in the schema"));
                }
                None => {}
            }
        }
    }
    if let (Value::Array(items), Some(item)) = (value, schema.get("items")) {
        return items.iter().enumerate().find_map(|(i, v)| mismatch(doc, item, v, &format!("{at}[{i}]")));
    }
    None
}

/// A body for an operation's request schema: its required fields, each of
/// a placeholder value of its type.
fn minimal_body(doc: &Value, operation: &Value) -> Option<Value> {
    let mut schema = operation.pointer("/requestBody/content/application~1json/schema")?;
    while let Some(r) = schema["$ref"].as_str() {
        schema = resolve(doc, r);
    }
    let mut body = serde_json::Map::new();
    for name in schema["required"].as_array().into_iter().flatten().filter_map(Value::as_str) {
        let property = &schema["properties"][name];
        let kind = match &property["type"] {
            Value::Array(ts) => ts.first().cloned().unwrap_or(Value::Null),
            t => t.clone(),
        };
        let placeholder = match kind.as_str() {
            Some("integer") | Some("number") => json!(1),
            Some("boolean") => json!(false),
            Some("array") => json!([]),
            Some("object") => json!({}),
            _ => json!("x"),
        };
        body.insert(name.to_string(), placeholder);
    }
    Some(Value::Object(body))
}

struct Answer {
    status: StatusCode,
    challenge: Option<String>,
    body: Value,
}

async fn call(app: &TestApp, doc: &Value, method: &Method, path: &str, op: &Value, bearer: Option<&str>) -> Answer {
    let mut request = app.request(method.clone(), path, bearer);
    if let Some(body) = minimal_body(doc, op) {
        request = request.json(&body);
    }
    let response = request.send().await.expect("request");
    let status = response.status();
    let challenge = response.headers().get(header::WWW_AUTHENTICATE).map(|v| v.to_str().unwrap().to_string());
    let text = response.text().await.unwrap();
    let body = if text.is_empty() { Value::Null } else { serde_json::from_str(&text).unwrap_or(Value::String(text)) };
    Answer { status, challenge, body }
}

/// The answer is one the operation documents: its status, and for an
/// error its code (`x-svc-codes`) and the `ErrorBody` shape; for a
/// success, the body matches the documented schema.
fn assert_documented(doc: &Value, op: &Value, what: &str, answer: &Answer) {
    let response = &op["responses"][answer.status.as_str()];
    assert!(response.is_object(), "{what}: answered {} {}, which is not documented", answer.status, answer.body);
    if answer.status.is_client_error() || answer.status.is_server_error() {
        let code = answer.body["code"].as_str().unwrap_or_else(|| panic!("{what}: no error code: {}", answer.body));
        let codes = response["x-svc-codes"].as_array().unwrap_or_else(|| panic!("{what}: no x-svc-codes"));
        assert!(
            codes.iter().any(|c| c == code),
            "{what}: {} {code} is not among the documented {codes:?}",
            answer.status
        );
    }
    if let Some(schema) = response.pointer("/content/application~1json/schema") {
        if let Some(why) = mismatch(doc, schema, &answer.body, "body") {
            panic!("{what}: the {} answer does not match its schema: {why}", answer.status);
        }
    } else {
        assert!(
            answer.body.is_null(),
            "{what}: {} has a body the document does not show: {}",
            answer.status,
            answer.body
        );
    }
}

/// A key of `account` holding exactly `scopes`.
async fn key_with(app: &TestApp, account: &Account, scopes: &[&str]) -> String {
    app.create_key(account, json!({"name": format!("scopes {scopes:?}"), "scopes": scopes})).await.1
}

#[tokio::test]
async fn the_document_is_openapi_3_1_and_every_ref_resolves() {
    let app = TestApp::start().await;
    let doc = document(&app).await;
    assert!(doc["openapi"].as_str().is_some_and(|v| v.starts_with("3.1")), "{}", doc["openapi"]);
    assert_eq!(doc["servers"][0]["url"], app.services.public_url());

    let mut refs = Vec::new();
    references(&doc, &mut refs);
    assert!(refs.iter().any(|r| r == "#/components/schemas/ErrorBody"), "errors refer to the error shape");
    for r in &refs {
        resolve(&doc, r);
    }

    let mut ids = BTreeSet::new();
    for (method, path, op) in operations(&doc) {
        let what = format!("{method} {path}");
        let id = op["operationId"].as_str().unwrap_or_else(|| panic!("{what}: no operationId"));
        assert!(ids.insert(id.to_string()), "{what}: operationId {id} is used twice");
        let declared: BTreeSet<String> = op["parameters"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|p| p["in"] == "path")
            .map(|p| p["name"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(declared, path_parameters(&path), "{what}: path parameters");
        for scheme in op["security"].as_array().into_iter().flatten().flat_map(|s| s.as_object().unwrap().keys()) {
            assert!(doc["components"]["securitySchemes"][scheme].is_object(), "{what}: unknown scheme {scheme}");
        }
    }

    // The OpenAPI 3.1 schema itself, when its Python validator is installed.
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), serde_json::to_vec(&doc).unwrap()).unwrap();
    let probe = std::process::Command::new("python3").args(["-c", "import openapi_spec_validator"]).output();
    if probe.is_ok_and(|o| o.status.success()) {
        let checked = std::process::Command::new("python3")
            .arg("-m")
            .arg("openapi_spec_validator")
            .arg(file.path())
            .output()
            .unwrap();
        assert!(
            checked.status.success(),
            "{}{}",
            String::from_utf8_lossy(&checked.stdout),
            String::from_utf8_lossy(&checked.stderr)
        );
    } else {
        eprintln!("openapi_spec_validator is not installed for python3: the schema check is skipped");
    }
}

#[tokio::test]
async fn every_rest_route_has_one_documented_operation() {
    let app = TestApp::start().await;
    let doc = document(&app).await;
    let documented: BTreeSet<(String, String)> =
        operations(&doc).into_iter().map(|(m, p, _)| (m.to_string(), p)).collect();
    let rest: BTreeSet<(String, String)> = svc_api::rest_routes()
        .into_iter()
        .filter(|(_, path)| path.starts_with("/api/"))
        .map(|(m, p)| (m.to_string(), p.to_string()))
        .collect();
    assert!(rest.len() > 30, "the route table: {rest:?}");
    let undocumented: Vec<_> = rest.difference(&documented).collect();
    let unrouted: Vec<_> = documented.difference(&rest).collect();
    assert!(undocumented.is_empty(), "routes without a documented operation: {undocumented:?}");
    assert!(unrouted.is_empty(), "documented operations that no route of the table serves: {unrouted:?}");

    // The live router (REST, MCP and the web app merged) agrees on the
    // methods of every documented path: a documented one reaches a
    // handler, another gets 405.
    let id = ObjectId::new().to_string();
    let paths: BTreeSet<&String> = documented.iter().map(|(_, p)| p).collect();
    for path in paths {
        for method in METHODS {
            let response = app.request(method.clone(), &filled(path, &id), None).send().await.unwrap();
            let status = response.status();
            let body: Value = response.json().await.unwrap_or(Value::Null);
            let what = format!("{method} {path}: {status} {body}");
            if documented.contains(&(method.to_string(), path.clone())) {
                assert_ne!(status, StatusCode::METHOD_NOT_ALLOWED, "{what}");
                assert_ne!(body["description"], "no such route", "{what}");
            } else {
                assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED, "{what}");
            }
        }
    }
}

#[tokio::test]
async fn credentials_scopes_and_errors_are_as_documented() {
    let app = TestApp::start().await;
    let doc = document(&app).await;
    let mut account = app.signup("openapi@example.com").await;
    let unscoped = key_with(&app, &account, &["svc:tasks:read"]).await;
    let other = app.create_scrap(&account, "the only scrap of a fenced key").await;
    let fenced = app.create_key(&account, json!({"name": "fenced", "scrapIds": [other["id"]]})).await.1;
    let outside = app.create_scrap(&account, "outside the fenced key").await["id"].as_str().unwrap().to_string();
    let mut fenced_refusals = 0;
    let mut keys: HashMap<String, String> = HashMap::new();
    let unknown = ObjectId::new().to_string();

    for (method, path, op) in operations(&doc) {
        let what = format!("{method} {path}");
        let has_id = path.contains('{');
        let statuses: Vec<&String> = op["responses"].as_object().unwrap().keys().collect();
        assert!(statuses.iter().any(|s| s.starts_with('2')), "{what}: no success answer");
        for status in ["500", "503"] {
            assert!(op["responses"][status]["x-svc-codes"].is_array(), "{what}: {status} is not documented");
        }
        if has_id {
            for status in ["404", "422"] {
                assert!(op["responses"][status].is_object(), "{what}: an id route documents {status}");
            }
            // A malformed id, by the owner.
            let answer = call(&app, &doc, &method, &filled(&path, "nope"), &op, Some(&account.token)).await;
            if op["x-svc-auth"] != "none" {
                assert_eq!(
                    (answer.status, &answer.body["code"]),
                    (StatusCode::UNPROCESSABLE_ENTITY, &json!("VALIDATION")),
                    "{what}"
                );
            }
            assert_documented(&doc, &op, &format!("{what} with a malformed id"), &answer);
        }
        let target = filled(&path, &unknown);

        // No credential.
        let answer = call(&app, &doc, &method, &target, &op, None).await;
        assert_documented(&doc, &op, &format!("{what} without a credential"), &answer);
        match op["x-svc-auth"].as_str() {
            Some("none") => {
                assert!(op["security"].as_array().is_some_and(|s| s.is_empty()), "{what}");
                // The credential plays no part.
                let with = call(&app, &doc, &method, &target, &op, Some(&account.token)).await;
                assert_eq!(with.status, answer.status, "{what}: {} then {}", answer.body, with.body);
            }
            Some("key") => {
                assert_eq!(answer.status, StatusCode::UNAUTHORIZED, "{what}: {}", answer.body);
                let scope = op["x-svc-scope"].as_str().unwrap_or_else(|| panic!("{what}: a key route names its scope"));
                assert!(
                    op["security"].as_array().unwrap().iter().any(|s| s["apiKey"] == json!([scope])),
                    "{what}: the apiKey requirement holds {scope}"
                );
                assert!(op["security"].as_array().unwrap().iter().any(|s| s["session"] == json!([])), "{what}");
                // A key without the scope: 403, naming the scope.
                let answer = call(&app, &doc, &method, &target, &op, Some(&unscoped)).await;
                assert_documented(&doc, &op, &format!("{what} with a key lacking {scope}"), &answer);
                assert_eq!(
                    (answer.status, &answer.body["code"]),
                    (StatusCode::FORBIDDEN, &json!("INSUFFICIENT_SCOPE")),
                    "{what}"
                );
                let challenge = answer.challenge.unwrap_or_default();
                assert!(challenge.contains(&format!("scope=\"{scope}\"")), "{what}: {challenge}");
                // A key with only that scope gets past the scope check.
                if !keys.contains_key(scope) {
                    keys.insert(scope.to_string(), key_with(&app, &account, &[scope]).await);
                }
                let answer = call(&app, &doc, &method, &target, &op, Some(&keys[scope])).await;
                assert_documented(&doc, &op, &format!("{what} with a key holding {scope}"), &answer);
                assert!(
                    answer.body["code"] != "INSUFFICIENT_SCOPE" && answer.status != StatusCode::UNAUTHORIZED,
                    "{what}: {}",
                    answer.body
                );
                // A key whose allow-list leaves out the organization's scrap `outside`.
                let answer = call(&app, &doc, &method, &filled(&path, &outside), &op, Some(&fenced)).await;
                assert_documented(&doc, &op, &format!("{what} with a key fenced off the scrap"), &answer);
                fenced_refusals += usize::from(answer.body["code"] == "SCRAP_NOT_IN_KEY_SCOPE");
            }
            Some("session") => {
                assert_eq!(answer.status, StatusCode::UNAUTHORIZED, "{what}: {}", answer.body);
                assert!(op["x-svc-scope"].is_null(), "{what}");
                assert!(op["security"].as_array().unwrap().iter().all(|s| s.get("apiKey").is_none()), "{what}");
                // Even a key holding every scope is refused.
                let every = keys.entry("*".into()).or_default();
                if every.is_empty() {
                    *every = app.create_key(&account, json!({"name": "every scope"})).await.1;
                }
                let answer = call(&app, &doc, &method, &target, &op, Some(&keys["*"])).await;
                assert_documented(&doc, &op, &format!("{what} with an API key"), &answer);
                assert_eq!(
                    (answer.status, &answer.body["code"]),
                    (StatusCode::UNAUTHORIZED, &json!("UNAUTHORIZED")),
                    "{what}"
                );
            }
            other => panic!("{what}: x-svc-auth is {other:?}"),
        }

        // The owner's session, on resources that do not exist.
        let answer = call(&app, &doc, &method, &target, &op, Some(&account.token)).await;
        assert_documented(&doc, &op, &format!("{what} by the owner"), &answer);
        if has_id && op["x-svc-auth"] != "none" {
            assert!(
                [StatusCode::NOT_FOUND, StatusCode::FORBIDDEN, StatusCode::UNPROCESSABLE_ENTITY]
                    .contains(&answer.status),
                "{what} on an unknown id: {} {}",
                answer.status,
                answer.body
            );
        }
        // Logging out and signing out everywhere end the owner's session:
        // the next operations get a new one.
        if ["logout", "endAllSessions"].contains(&op["operationId"].as_str().unwrap_or_default()) {
            assert_eq!(answer.status, StatusCode::NO_CONTENT, "{what}: {}", answer.body);
            account.token = log_in(&app, &account.email).await;
        }
    }
    assert!(fenced_refusals >= 5, "the allow-list was checked {fenced_refusals} times");
}

#[tokio::test]
async fn answers_with_data_match_their_schemas() {
    let app = TestApp::start().await;
    let doc = document(&app).await;
    let account = app.signup("shapes@example.com").await;
    let scrap = app.create_scrap(&account, "shapes").await["id"].as_str().unwrap().to_string();
    let run = app.insert_run(&account, &scrap, Some(svc_domain::history::StatusDetail::Success)).await.id.to_string();
    app.create_key(&account, json!({"name": "listed", "scopes": ["svc:scraps:read"], "scrapIds": [scrap]})).await;
    let (_, versions) = app.get(&format!("/api/scraps/{scrap}/versions"), &account.token).await;
    let version = versions["data"][0]["id"].as_str().expect("the first version").to_string();

    let by_path: HashMap<(String, String), Value> =
        operations(&doc).into_iter().map(|(m, p, op)| ((m.to_string(), p), op)).collect();
    for (path, concrete) in [
        ("/api/auth/me", "/api/auth/me".to_string()),
        ("/api/scraps", "/api/scraps".to_string()),
        ("/api/scraps/{id}", format!("/api/scraps/{scrap}")),
        ("/api/scraps/{id}/activities", format!("/api/scraps/{scrap}/activities")),
        ("/api/scraps/{id}/account", format!("/api/scraps/{scrap}/account")),
        ("/api/scraps/{id}/versions", format!("/api/scraps/{scrap}/versions")),
        ("/api/scraps/{id}/versions/{version}", format!("/api/scraps/{scrap}/versions/{version}")),
        ("/api/historys", format!("/api/historys?scrap={scrap}")),
        ("/api/historys/{id}", format!("/api/historys/{run}")),
        ("/api/developers/keys", "/api/developers/keys".to_string()),
    ] {
        let op = &by_path[&("GET".to_string(), path.to_string())];
        let answer = call(&app, &doc, &Method::GET, &concrete, op, Some(&account.token)).await;
        assert_eq!(answer.status, StatusCode::OK, "{path}: {}", answer.body);
        let data = &answer.body["data"];
        assert!(!data.is_array() || !data.as_array().unwrap().is_empty(), "{path}: an empty list checks little");
        assert_documented(&doc, op, path, &answer);
    }
}

/// The schema of a body property (`#/components/schemas/{schema}`).
fn property<'a>(doc: &'a Value, schema: &str, name: &str) -> &'a Value {
    let found = &doc["components"]["schemas"][schema]["properties"][name];
    assert!(found.is_object(), "{schema}.{name} is not in the document");
    found
}

/// What the request schemas say of required fields, enums, bounds and
/// nullability is what the server enforces: each constraint is read from
/// the document, then a value just outside it is refused naming the field
/// and the boundary value is accepted.
#[tokio::test]
async fn request_schemas_state_what_the_server_enforces() {
    let app = TestApp::start_with(&[("SVC_EMBEDDED_WORKER", "false")]).await;
    let doc = document(&app).await;
    let account = app.signup("schemas@example.com").await;
    let token = account.token.as_str();

    // Creation needs `title`, `url` and `request`; an update needs none.
    let create = &doc["paths"]["/api/scraps"]["post"]["requestBody"]["content"]["application/json"]["schema"];
    assert_eq!(create["$ref"], "#/components/schemas/NewScrapBody");
    let required: BTreeSet<&str> = doc["components"]["schemas"]["NewScrapBody"]["required"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(required, BTreeSet::from(["title", "url", "request"]));
    assert!(doc["components"]["schemas"]["ScrapBody"]["required"].as_array().is_none_or(|r| r.is_empty()));
    let valid = json!({"title": "t", "url": "https://example.com", "request": "returnData([])"});
    for field in &required {
        let mut body = valid.clone();
        body.as_object_mut().unwrap().remove(*field);
        let (status, answer) = app.post("/api/scraps", token, body).await;
        assert_eq!((status, answer["field"].as_str()), (StatusCode::UNPROCESSABLE_ENTITY, Some(*field)), "{answer}");
    }
    let id = app.scrap_with(&account, valid.clone()).await;

    // Enums: every listed value is taken, another is refused.
    for (field, outside) in [("scrapper", "chrome"), ("emailNotifFormat", "xml"), ("proxyTier", "tier5")] {
        let values =
            property(&doc, "ScrapBody", field)["enum"].as_array().unwrap_or_else(|| panic!("{field}: no enum"));
        for value in values {
            let body = if field == "proxyTier" {
                json!({field: value, "scrapper": "puppeteer"})
            } else {
                json!({field: value})
            };
            let (status, answer) = app.put(&format!("/api/scraps/{id}"), token, body).await;
            let unconfigured = answer["description"].as_str().is_some_and(|d| d.contains("not configured"));
            assert!(status == StatusCode::OK || unconfigured, "{field} = {value}: {answer}");
        }
        let (status, answer) = app.put(&format!("/api/scraps/{id}"), token, json!({field: outside})).await;
        assert_eq!((status, answer["field"].as_str()), (StatusCode::UNPROCESSABLE_ENTITY, Some(field)), "{answer}");
    }
    assert!(property(&doc, "ScrapBody", "proxyTier")["enum"].as_array().unwrap().contains(&Value::Null));

    // Lengths and counts: the bound is taken, one more is refused.
    for (field, key, unit) in [
        ("title", "maxLength", json!("é")),
        ("description", "maxLength", json!("d")),
        ("digestPrompt", "maxLength", json!("p")),
        ("containers", "maxItems", json!("w")),
    ] {
        let bound = property(&doc, "ScrapBody", field)[key].as_u64().unwrap_or_else(|| panic!("{field}: no {key}"));
        let value = |n: u64| match key {
            "maxLength" => json!(unit.as_str().unwrap().repeat(n as usize)),
            _ => json!((0..n).map(|i| format!("{}{i}", unit.as_str().unwrap())).collect::<Vec<_>>()),
        };
        let (status, answer) = app.put(&format!("/api/scraps/{id}"), token, json!({field: value(bound)})).await;
        assert_eq!(status, StatusCode::OK, "{field} of {bound}: {answer}");
        let (status, answer) = app.put(&format!("/api/scraps/{id}"), token, json!({field: value(bound + 1)})).await;
        assert_eq!((status, answer["field"].as_str()), (StatusCode::UNPROCESSABLE_ENTITY, Some(field)), "{answer}");
    }
    let (status, answer) = app.put(&format!("/api/scraps/{id}"), token, json!({"title": "   "})).await;
    assert_eq!((status, answer["field"].as_str()), (StatusCode::UNPROCESSABLE_ENTITY, Some("title")), "{answer}");
    assert_eq!(property(&doc, "ScrapBody", "title")["pattern"], "\\S", "a blank title is refused");

    // A key's name is required and not nullable.
    assert!(doc["components"]["schemas"]["NewKeyBody"]["required"].as_array().unwrap().contains(&json!("name")));
    assert_eq!(property(&doc, "NewKeyBody", "name")["type"], "string");
    for body in [json!({}), json!({"name": null}), json!({"name": " "})] {
        let (status, answer) = app.post("/api/developers/keys", token, body).await;
        assert_eq!((status, answer["field"].as_str()), (StatusCode::UNPROCESSABLE_ENTITY, Some("name")), "{answer}");
    }
    let scopes = property(&doc, "NewKeyBody", "scopes")["items"]["enum"].as_array().unwrap();
    assert_eq!(scopes.len(), svc_domain::scope::Scope::ALL.len());

    // A webhook's creation needs `url` and `events`; its update, neither.
    let required: BTreeSet<&str> = doc["components"]["schemas"]["NewWebhookBody"]["required"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(required, BTreeSet::from(["url", "events"]));
    assert_eq!(property(&doc, "NewWebhookBody", "url")["type"], "string");

    // A site login needs both fields.
    let required = doc["components"]["schemas"]["SiteAccountBody"]["required"].as_array().unwrap();
    assert!(required.contains(&json!("username")) && required.contains(&json!("password")), "{required:?}");
    for body in
        [json!({"password": "p"}), json!({"username": "", "password": "p"}), json!({"username": null, "password": "p"})]
    {
        let (status, answer) = app.put(&format!("/api/scraps/{id}/account"), token, body).await;
        assert_eq!(
            (status, answer["field"].as_str()),
            (StatusCode::UNPROCESSABLE_ENTITY, Some("username")),
            "{answer}"
        );
    }

    // `wait`: an integer from 0 to 120, as the trigger answers.
    let trigger = &doc["paths"]["/api/scraps/worker/{id}"]["post"]["parameters"];
    let wait = trigger.as_array().unwrap().iter().find(|p| p["name"] == "wait").unwrap();
    assert_eq!(
        (wait["schema"]["minimum"].as_u64(), wait["schema"]["maximum"].as_u64()),
        (Some(0), Some(120)),
        "{wait}"
    );
    assert_eq!(wait["schema"]["type"], "integer");
}

/// A new session token of the account of `email` (password `password-123`).
async fn log_in(app: &TestApp, email: &str) -> String {
    let body = json!({"email": email, "password": "password-123"});
    let (status, body) = app.send(app.request(Method::POST, "/api/auth/login", None).json(&body)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body["token"].as_str().unwrap().to_string()
}

/// Answers whether `pattern` matches each of `texts`, as the regular
/// expressions of `program` (`node` or `python`) do.
fn pattern_matches(program: &str, pattern: &str, texts: &[String]) -> Vec<bool> {
    let script = match program {
        "node" => {
            "const [p, ...xs] = JSON.parse(process.argv[1]); const r = new RegExp(p, 'u'); \
                   console.log(JSON.stringify(xs.map(x => r.test(x))))"
        }
        _ => {
            "import json, re, sys\np, *xs = json.loads(sys.argv[1])\nr = re.compile(p)\n\
              print(json.dumps([r.search(x) is not None for x in xs]))"
        }
    };
    let flag = if program == "node" { "-e" } else { "-c" };
    let binary = match program {
        "node" => std::env::var("SVC_TEST_CLIENTS_NODE").unwrap(),
        _ => std::env::var("SVC_TEST_READERS_PYTHON").unwrap(),
    };
    let mut input = vec![pattern.to_string()];
    input.extend(texts.iter().cloned());
    let out = std::process::Command::new(binary)
        .args([flag, script, &serde_json::to_string(&input).unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The email pattern the document gives a body says what the server
/// accepts, character for character, as ECMAScript (JSON Schema's regular
/// expressions) and Python (Schemathesis's) read it: white space around an
/// address is ignored, none within, whatever each engine's `\s` holds.
#[tokio::test]
async fn the_email_pattern_accepts_what_the_server_accepts_in_every_engine() {
    let (Ok(_), Ok(_)) = (std::env::var("SVC_TEST_CLIENTS_NODE"), std::env::var("SVC_TEST_READERS_PYTHON")) else {
        println!("skipped: SVC_TEST_CLIENTS_NODE or SVC_TEST_READERS_PYTHON is not set (scripts/test.sh sets both)");
        return;
    };
    let app = TestApp::start().await;
    let owner = app.signup("owner@example.com").await;
    let doc = document(&app).await;
    let schemas = &doc["components"]["schemas"];
    let pattern = schemas["InviteBody"]["properties"]["email"]["pattern"].as_str().unwrap().to_string();
    for body in ["SignupBody", "ResendBody"] {
        assert_eq!(schemas[body]["properties"]["email"]["pattern"], pattern.as_str(), "{body}: one rule, one pattern");
    }

    // Characters some engine's `\s` holds and another's not, and a few
    // every engine agrees on.
    let odd = ['\u{85}', '\u{feff}', '\u{1c}', '\u{1f}', '\u{a0}', '\u{2028}', '\u{3000}', '\u{200b}', '\t', ' '];
    let mut texts = Vec::new();
    for (n, c) in odd.iter().enumerate() {
        texts.push(format!("{c}lead{n}@example.com"));
        texts.push(format!("trail{n}@example.com{c}"));
        texts.push(format!("in{c}side{n}@example.com"));
    }
    let mut accepted = Vec::new();
    for text in &texts {
        let (status, body) =
            app.post("/api/organization/invites", &owner.token, json!({"email": text, "role": "viewer"})).await;
        assert!(
            status == StatusCode::CREATED || status == StatusCode::UNPROCESSABLE_ENTITY,
            "{text:?}: {status} {body}"
        );
        accepted.push(status == StatusCode::CREATED);
    }
    assert!(accepted.iter().any(|a| *a) && accepted.iter().any(|a| !*a), "{accepted:?}");
    for program in ["node", "python"] {
        let matched = pattern_matches(program, &pattern, &texts);
        let differ: Vec<_> = texts.iter().zip(accepted.iter().zip(&matched)).filter(|(_, (a, m))| a != m).collect();
        assert!(differ.is_empty(), "{program}: (text, (server accepts, pattern matches)) differ: {differ:?}");
    }
}
