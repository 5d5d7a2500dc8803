use serde::de::IgnoredAny;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use svc_domain::scrap::{PROXY_TIERS, ParamSet, SCRAPPERS, Scrap};
use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, SchemaType, Type};
use utoipa::{PartialSchema, ToSchema};

use crate::iso;

/// The read-only fields of a `ScrapBody` are never serialized.
fn never_sent(_: &Option<IgnoredAny>) -> bool {
    true
}

/// Never called (see [`never_sent`]).
fn unit<S: Serializer>(_: &Option<IgnoredAny>, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_unit()
}

/// The schema of `params`: `[{key, value}]`, `value` any JSON (the domain's
/// `ParamSet` has no schema of its own).
fn param_sets() -> ArrayBuilder {
    let set = ObjectBuilder::new()
        .property("key", ObjectBuilder::new().schema_type(Type::String).min_length(Some(1)).max_length(Some(200)))
        .property("value", serde_json::Value::schema())
        .required("key")
        .required("value");
    ArrayBuilder::new().items(set).max_items(Some(MAX_PARAM_SETS))
}

/// Parameter sets of a scrap at most (`svc_service::scraps::input::check_params`).
const MAX_PARAM_SETS: usize = 100;

fn one_of(values: &[&str]) -> ObjectBuilder {
    ObjectBuilder::new().schema_type(Type::String).enum_values(Some(values.iter().copied()))
}

/// `scrapper`: one of svc's engines.
fn engines() -> ObjectBuilder {
    one_of(&SCRAPPERS).description(Some("The engine; default `puppeteer`."))
}

/// `emailNotifFormat`: `json` or `csv`.
fn email_formats() -> ObjectBuilder {
    one_of(&["json", "csv"])
}

/// `proxyTier`: a tier or `null` (none).
fn proxy_tiers() -> ObjectBuilder {
    let mut values: Vec<serde_json::Value> = PROXY_TIERS.iter().map(|t| serde_json::json!(t)).collect();
    values.push(serde_json::Value::Null);
    ObjectBuilder::new()
        .schema_type(SchemaType::from_iter([Type::String, Type::Null]))
        .enum_values(Some(values))
        .description(Some("The proxy tier; the static and auto engines run direct only (`tier0` or `null`)."))
}

/// `containers`: 1 to 20 worker ids (compared trimmed and lowercased).
fn containers() -> ArrayBuilder {
    let id = ObjectBuilder::new().schema_type(Type::String).pattern(Some(r"^\s*[A-Za-z0-9._-]{1,64}\s*$"));
    ArrayBuilder::new().items(id).min_items(Some(1)).max_items(Some(20))
}

/// `Some(None)` for an explicit `null`, `None` when the field is absent.
fn nullable<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<Option<T>>, D::Error> {
    Option::<T>::deserialize(d).map(Some)
}

/// A present value; an explicit `null` is refused (the field is not nullable).
fn non_null<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

/// The body of `POST /api/scraps` (create) and `PUT /api/scraps/:id` (a
/// partial update): only the fields present are set. Unknown fields are
/// refused (a typo must not be silently ignored); the read-only fields of
/// the Scrap shape are accepted and ignored, so that a client can send back
/// what it read. A nullable field is `Option<Option<_>>`: `None` absent (not
/// sent), `Some(None)` an explicit `null` (clears it); the other fields
/// refuse `null`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(description = "The body of `POST /api/scraps` (create: `title`, `url` and `request` required) and \
    `PUT`/`PATCH /api/scraps/{id}` (a partial update: only the fields present are set). A nullable field \
    set to `null` is cleared; the others refuse `null`. Unknown fields are refused; the read-only fields of \
    the Scrap shape (`id`, `history`, `user`, `organizationId`, `createdAt`, `updatedAt`, \
    `lastTierChangeAt`) are accepted and ignored, so that a client can send back what it read. \
    Besides what the properties say, the scrap as saved must have: an absolute http(s) `url` with a host; \
    a `cron` of five fields (six with seconds, or an `@` alias) that fires at most once per \
    `SVC_CRON_MIN_INTERVAL` (blank: none); an IANA `cronTimezone`; email addresses (one `@`, no spaces; \
    blank: none) in `alert`, `emailNotifRecipient` and `digestRecipient`; unique parameter keys; \
    a `proxyTier` the operator configured, and none but `tier0` with the `static` or `auto` engine; \
    `// svc:load` directives of known kinds in `request`. Strings are trimmed where the Scrap shape \
    shows them trimmed (title, url, containers, cron, cronTimezone, email fields).")]
pub struct ScrapBody {
    #[serde(default, deserialize_with = "non_null", skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false, min_length = 1, max_length = 200, pattern = r"\S")]
    pub title: Option<String>,
    #[serde(default, deserialize_with = "non_null", skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false, max_length = 10000)]
    pub description: Option<String>,
    #[serde(default, deserialize_with = "non_null", skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false, max_length = 2048, pattern = r"^\s*[Hh][Tt][Tt][Pp][Ss]?://[^\s/?#]")]
    pub url: Option<String>,
    #[serde(default, deserialize_with = "non_null", skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false, min_length = 1, max_length = 1000000, pattern = r"\S")]
    pub request: Option<String>,
    #[serde(default, deserialize_with = "non_null", skip_serializing_if = "Option::is_none")]
    #[schema(schema_with = engines)]
    pub scrapper: Option<String>,
    #[serde(default, deserialize_with = "non_null", skip_serializing_if = "Option::is_none")]
    #[schema(schema_with = containers)]
    pub containers: Option<Vec<String>>,
    #[serde(default, deserialize_with = "non_null", skip_serializing_if = "Option::is_none")]
    #[schema(schema_with = param_sets)]
    pub params: Option<Vec<ParamSet>>,
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "Option::is_none")]
    pub cron: Option<Option<String>>,
    #[serde(default, deserialize_with = "non_null", skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub cron_timezone: Option<String>,
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "Option::is_none")]
    #[schema(max_length = 254)]
    pub alert: Option<Option<String>>,
    #[serde(default, deserialize_with = "non_null", skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub auto_fix: Option<bool>,
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "Option::is_none")]
    #[schema(schema_with = proxy_tiers)]
    pub proxy_tier: Option<Option<String>>,
    #[serde(default, deserialize_with = "non_null", skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub email_notif: Option<bool>,
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "Option::is_none")]
    #[schema(max_length = 254)]
    pub email_notif_recipient: Option<Option<String>>,
    #[serde(default, deserialize_with = "non_null", skip_serializing_if = "Option::is_none")]
    #[schema(schema_with = email_formats)]
    pub email_notif_format: Option<String>,
    #[serde(default, deserialize_with = "non_null", skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub digest_enabled: Option<bool>,
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "Option::is_none")]
    #[schema(max_length = 10000)]
    pub digest_prompt: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "Option::is_none")]
    #[schema(max_length = 254)]
    pub digest_recipient: Option<Option<String>>,
    #[serde(default, deserialize_with = "non_null", skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false, max_length = 2048)]
    pub banner: Option<String>,
    // Read-only fields of the Scrap shape: accepted, ignored, never sent
    // (and in the schema, which refuses unknown fields).
    #[serde(default, skip_serializing_if = "never_sent", serialize_with = "unit")]
    /// Read-only: accepted and ignored.
    #[schema(value_type = serde_json::Value)]
    pub id: Option<IgnoredAny>,
    #[serde(default, skip_serializing_if = "never_sent", serialize_with = "unit")]
    /// Read-only: accepted and ignored.
    #[schema(value_type = serde_json::Value)]
    pub history: Option<IgnoredAny>,
    #[serde(default, skip_serializing_if = "never_sent", serialize_with = "unit")]
    /// Read-only: accepted and ignored.
    #[schema(value_type = serde_json::Value)]
    pub user: Option<IgnoredAny>,
    #[serde(default, skip_serializing_if = "never_sent", serialize_with = "unit")]
    /// Read-only: accepted and ignored.
    #[schema(value_type = serde_json::Value)]
    pub organization_id: Option<IgnoredAny>,
    #[serde(default, skip_serializing_if = "never_sent", serialize_with = "unit")]
    /// Read-only: accepted and ignored.
    #[schema(value_type = serde_json::Value)]
    pub created_at: Option<IgnoredAny>,
    #[serde(default, skip_serializing_if = "never_sent", serialize_with = "unit")]
    /// Read-only: accepted and ignored.
    #[schema(value_type = serde_json::Value)]
    pub updated_at: Option<IgnoredAny>,
    #[serde(default, skip_serializing_if = "never_sent", serialize_with = "unit")]
    /// Read-only: accepted and ignored.
    #[schema(value_type = serde_json::Value)]
    pub last_tier_change_at: Option<IgnoredAny>,
}

/// The Scrap shape: exactly these fields.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScrapView {
    pub id: String,
    pub title: String,
    pub description: String,
    pub url: String,
    pub request: String,
    pub scrapper: String,
    pub containers: Vec<String>,
    #[schema(schema_with = param_sets)]
    pub params: Vec<ParamSet>,
    pub history: Vec<String>,
    pub cron: Option<String>,
    pub cron_timezone: String,
    pub alert: Option<String>,
    pub auto_fix: bool,
    pub proxy_tier: Option<String>,
    pub last_tier_change_at: Option<String>,
    pub email_notif: bool,
    pub email_notif_recipient: Option<String>,
    pub email_notif_format: String,
    pub digest_enabled: bool,
    pub digest_prompt: Option<String>,
    pub digest_recipient: Option<String>,
    pub banner: String,
    pub user: String,
    pub organization_id: String,
    pub created_at: String,
    pub updated_at: String,
}

impl From<Scrap> for ScrapView {
    fn from(s: Scrap) -> Self {
        ScrapView {
            id: s.id.to_string(),
            title: s.title,
            description: s.description,
            url: s.url,
            request: s.request,
            scrapper: s.scrapper,
            containers: s.containers,
            params: s.params,
            history: s.history.iter().map(ToString::to_string).collect(),
            cron: s.cron,
            cron_timezone: s.cron_timezone,
            alert: s.alert,
            auto_fix: s.auto_fix,
            proxy_tier: s.proxy_tier,
            last_tier_change_at: s.last_tier_change_at.map(iso),
            email_notif: s.email_notif,
            email_notif_recipient: s.email_notif_recipient,
            email_notif_format: s.email_notif_format.as_str().to_string(),
            digest_enabled: s.digest_enabled,
            digest_prompt: s.digest_prompt,
            digest_recipient: s.digest_recipient,
            banner: s.banner,
            user: s.user_id.to_string(),
            organization_id: s.organization_id.to_string(),
            created_at: iso(s.created_at),
            updated_at: iso(s.updated_at),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn absent_and_null_stay_apart_both_ways() {
        let body: ScrapBody = serde_json::from_value(json!({"title": "T", "cron": null})).unwrap();
        assert_eq!((body.title.as_deref(), body.cron.clone(), body.alert.clone()), (Some("T"), Some(None), None));
        assert_eq!(serde_json::to_value(&body).unwrap(), json!({"title": "T", "cron": null}));
        assert!(serde_json::from_value::<ScrapBody>(json!({"title": null})).is_err(), "title is not nullable");
    }

    #[test]
    fn read_only_fields_are_accepted_and_never_sent_unknown_ones_refused() {
        let read = json!({"id": "x", "history": [], "user": "u", "organizationId": "o", "createdAt": "t",
            "updatedAt": "t", "lastTierChangeAt": null, "url": "https://example.com"});
        let body: ScrapBody = serde_json::from_value(read).unwrap();
        assert_eq!(serde_json::to_value(&body).unwrap(), json!({"url": "https://example.com"}));
        let typo = serde_json::from_value::<ScrapBody>(json!({"titel": "T"})).unwrap_err();
        assert!(typo.to_string().contains("unknown field `titel`"), "{typo}");
    }
}
