use serde::{Deserialize, Serialize};
use svc_domain::api_key::ApiKey;
use svc_domain::scope::Scope;
use utoipa::ToSchema;
use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, SchemaType, Type};

use crate::iso;

/// The body of `POST /api/developers/keys`. Unknown fields are refused: a
/// misspelt `scopes` must not silently create an all-powerful key. Absent
/// and `null` are alike here (no `scopes`: every scope).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(description = "The body of `POST /api/developers/keys`: `name` (not blank, at most 100 characters \
    once trimmed) is required; `expiresAt` (RFC 3339) must be in the future and at most 2 years ahead \
    (default 1 year); `scrapIds` must name scraps of the caller's organization. `null` is taken as absent.")]
pub struct NewKeyBody {
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(required = true, nullable = false, min_length = 1, max_length = 100, pattern = r"\S")]
    pub name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(format = DateTime)]
    pub expires_at: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(schema_with = scope_names)]
    pub scopes: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(schema_with = crate::ids_or_null)]
    pub scrap_ids: Option<Vec<String>>,
}

/// `scopes`: scope names, or `null` (every scope).
fn scope_names() -> ArrayBuilder {
    let name = ObjectBuilder::new().schema_type(Type::String).enum_values(Some(Scope::ALL.map(|s| s.as_str())));
    ArrayBuilder::new().schema_type(SchemaType::from_iter([Type::Array, Type::Null])).items(name)
}

/// A key as lists show it: never the plain key, only its `prefix`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct KeyView {
    pub id: String,
    pub name: String,
    pub prefix: String,
    pub scopes: Vec<String>,
    pub scrap_ids: Vec<String>,
    pub expires_at: Option<String>,
    pub created_at: String,
}

impl From<ApiKey> for KeyView {
    fn from(k: ApiKey) -> Self {
        KeyView {
            id: k.id.to_string(),
            name: k.name,
            prefix: k.prefix,
            scopes: k.scopes.iter().map(|s| s.as_str().to_string()).collect(),
            scrap_ids: k.scrap_ids.iter().map(ToString::to_string).collect(),
            expires_at: k.expires_at.map(iso),
            created_at: iso(k.created_at),
        }
    }
}

/// The creation response: the key plus `plainKey`, shown this once.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreatedKeyView {
    #[serde(flatten)]
    pub key: KeyView,
    pub plain_key: String,
}
