//! HS256 session tokens: `sub` = user id, `org` = organization id.

use chrono::{DateTime, Duration, Utc};
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};
use svc_domain::ObjectId;

pub const LIFETIME: Duration = Duration::hours(24);

#[derive(Debug, Serialize, Deserialize)]
struct Claims {
    sub: String,
    org: String,
    iat: i64,
    exp: i64,
}

/// A verified token's subject.
#[derive(Debug, PartialEq)]
pub struct TokenSubject {
    pub user: ObjectId,
    pub org: ObjectId,
}

pub struct JwtKeys {
    csrf: Vec<u8>,
    encoding: EncodingKey,
    decoding: DecodingKey,
    validation: Validation,
}

impl JwtKeys {
    pub fn new(secret: &[u8]) -> Self {
        let mut validation = Validation::new(Algorithm::HS256);
        validation.leeway = 0;
        validation.set_required_spec_claims(&["exp", "sub"]);
        JwtKeys {
            csrf: secret.to_vec(),
            encoding: EncodingKey::from_secret(secret),
            decoding: DecodingKey::from_secret(secret),
            validation,
        }
    }

    /// The token and its expiry.
    pub fn sign(&self, user: ObjectId, org: ObjectId, now: DateTime<Utc>) -> (String, DateTime<Utc>) {
        let exp = now + LIFETIME;
        let claims = Claims { sub: user.to_string(), org: org.to_string(), iat: now.timestamp(), exp: exp.timestamp() };
        let token = jsonwebtoken::encode(&Header::new(Algorithm::HS256), &claims, &self.encoding)
            .expect("HS256 signing cannot fail");
        (token, exp)
    }

    /// The CSRF token bound to a session token (TEMPORARY: replaced by the web-services branch).
    pub fn csrf_token(&self, token: &str) -> String {
        use hmac::{Hmac, Mac};
        let mut mac = Hmac::<sha2::Sha256>::new_from_slice(&self.csrf).expect("any key length");
        mac.update(b"svc-csrf\0");
        mac.update(token.as_bytes());
        hex::encode(mac.finalize().into_bytes())
    }

    /// `None` for a bad signature, an expired token or malformed claims.
    pub fn verify(&self, token: &str) -> Option<TokenSubject> {
        let data = jsonwebtoken::decode::<Claims>(token, &self.decoding, &self.validation).ok()?;
        Some(TokenSubject { user: ObjectId::parse(&data.claims.sub)?, org: ObjectId::parse(&data.claims.org)? })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signed_tokens_verify_and_tampering_fails() {
        let keys = JwtKeys::new(b"secret-one");
        let (user, org) = (ObjectId::new(), ObjectId::new());
        let (token, exp) = keys.sign(user, org, Utc::now());
        assert!(exp > Utc::now() + Duration::hours(23));
        assert_eq!(keys.verify(&token), Some(TokenSubject { user, org }));
        assert_eq!(JwtKeys::new(b"secret-two").verify(&token), None);
        assert_eq!(keys.verify("garbage"), None);
        let mut tampered = token.clone();
        tampered.pop();
        assert_eq!(keys.verify(&tampered), None);
    }

    #[test]
    fn expired_tokens_fail() {
        let keys = JwtKeys::new(b"s");
        let (token, _) = keys.sign(ObjectId::new(), ObjectId::new(), Utc::now() - Duration::hours(25));
        assert_eq!(keys.verify(&token), None);
    }
}
