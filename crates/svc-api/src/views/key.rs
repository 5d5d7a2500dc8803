use serde::Serialize;
use svc_domain::api_key::ApiKey;
use svc_service::keys::CreatedKey;

use super::iso;

/// A key as lists show it: never the plain key, only its `prefix`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct KeyView {
    id: String,
    name: String,
    prefix: String,
    scopes: Vec<&'static str>,
    scrap_ids: Vec<String>,
    expires_at: Option<String>,
    created_at: String,
}

impl From<ApiKey> for KeyView {
    fn from(k: ApiKey) -> Self {
        KeyView {
            id: k.id.to_string(),
            name: k.name,
            prefix: k.prefix,
            scopes: k.scopes.iter().map(|s| s.as_str()).collect(),
            scrap_ids: k.scrap_ids.iter().map(ToString::to_string).collect(),
            expires_at: k.expires_at.map(iso),
            created_at: iso(k.created_at),
        }
    }
}

/// The creation response: the key plus `plainKey`, shown this once.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct CreatedKeyView {
    #[serde(flatten)]
    key: KeyView,
    plain_key: String,
}

impl From<CreatedKey> for CreatedKeyView {
    fn from(c: CreatedKey) -> Self {
        CreatedKeyView { key: c.key.into(), plain_key: c.plain_key }
    }
}
