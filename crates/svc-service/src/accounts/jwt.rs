//! HS256 session tokens: `sub` = user id, `org` = organization id, `sid` =
//! the session's row (`svc_domain::login_session`), which decides whether
//! the token is still accepted.

use chrono::{DateTime, Duration, Utc};
use hmac::{Hmac, Mac};
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};
use sha2::Sha256;
use svc_domain::{OrgId, SessionId, UserId};

pub const LIFETIME: Duration = Duration::hours(24);

#[derive(Debug, Serialize, Deserialize)]
struct Claims {
    sub: String,
    org: String,
    sid: String,
    iat: i64,
    exp: i64,
}

/// A verified token's subject.
#[derive(Debug, PartialEq)]
pub struct TokenSubject {
    pub user: UserId,
    pub org: OrgId,
    pub session: SessionId,
}

/// What a CSRF token is the MAC of, before the session token: no other MAC
/// keyed with the secret covers a message that starts so.
const CSRF_DOMAIN: &[u8] = b"svc-csrf\0";
/// The same for unsubscribe tokens.
const UNSUBSCRIBE_DOMAIN: &[u8] = b"svc-unsubscribe\0";

pub struct JwtKeys {
    encoding: EncodingKey,
    decoding: DecodingKey,
    validation: Validation,
    /// HMAC-SHA256 keyed with the secret, for CSRF tokens.
    csrf: Hmac<Sha256>,
}

impl JwtKeys {
    pub fn new(secret: &[u8]) -> Self {
        let mut validation = Validation::new(Algorithm::HS256);
        validation.leeway = 0;
        validation.set_required_spec_claims(&["exp", "sub"]);
        // `sid` is required too: `Claims` has no default for it, so a token
        // issued before sessions were kept (without one) fails to decode.
        JwtKeys {
            encoding: EncodingKey::from_secret(secret),
            decoding: DecodingKey::from_secret(secret),
            validation,
            csrf: Hmac::new_from_slice(secret).expect("HMAC takes any key length"),
        }
    }

    fn csrf_mac(&self, session_token: &str) -> Hmac<Sha256> {
        let mut mac = self.csrf.clone();
        mac.update(CSRF_DOMAIN);
        mac.update(session_token.as_bytes());
        mac
    }

    /// The CSRF token bound to a web session: hex HMAC-SHA256 of
    /// `"svc-csrf\0" + session_token`, keyed with the secret.
    pub fn csrf_token(&self, session_token: &str) -> String {
        hex::encode(self.csrf_mac(session_token).finalize().into_bytes())
    }

    /// Whether `presented` is the CSRF token of `session_token` (compared in
    /// constant time); false for an empty session token.
    pub fn csrf_valid(&self, session_token: &str, presented: &str) -> bool {
        if session_token.is_empty() {
            return false;
        }
        let Ok(given) = hex::decode(presented) else { return false };
        self.csrf_mac(session_token).verify_slice(&given).is_ok()
    }

    /// The one-click unsubscribe token of a user: `<org>.<user>.<hex
    /// HMAC-SHA256 of "svc-unsubscribe\0<org>.<user>">`, keyed with the secret.
    /// It never expires: it only stops announcements.
    pub fn unsubscribe_token(&self, org: OrgId, user: UserId) -> String {
        let subject = format!("{org}.{user}");
        let mut mac = self.csrf.clone();
        mac.update(UNSUBSCRIBE_DOMAIN);
        mac.update(subject.as_bytes());
        format!("{subject}.{}", hex::encode(mac.finalize().into_bytes()))
    }

    /// The (organization, user) an unsubscribe token was made for, if it is one of ours.
    pub fn unsubscribe_subject(&self, token: &str) -> Option<(OrgId, UserId)> {
        let (subject, tag) = token.rsplit_once('.')?;
        let (org, user) = subject.split_once('.')?;
        let (org, user) = (OrgId::parse(org)?, UserId::parse(user)?);
        let mut mac = self.csrf.clone();
        mac.update(UNSUBSCRIBE_DOMAIN);
        mac.update(subject.as_bytes());
        mac.verify_slice(&hex::decode(tag).ok()?).ok()?;
        Some((org, user))
    }

    /// The token and its expiry.
    pub fn sign(&self, user: UserId, org: OrgId, session: SessionId, now: DateTime<Utc>) -> (String, DateTime<Utc>) {
        let exp = now + LIFETIME;
        let claims = Claims {
            sub: user.to_string(),
            org: org.to_string(),
            sid: session.to_string(),
            iat: now.timestamp(),
            exp: exp.timestamp(),
        };
        let token = jsonwebtoken::encode(&Header::new(Algorithm::HS256), &claims, &self.encoding)
            .expect("HS256 signing cannot fail");
        (token, exp)
    }

    /// `None` for a bad signature, an expired token or malformed claims.
    pub fn verify(&self, token: &str) -> Option<TokenSubject> {
        let data = jsonwebtoken::decode::<Claims>(token, &self.decoding, &self.validation).ok()?;
        Some(TokenSubject {
            user: UserId::parse(&data.claims.sub)?,
            org: OrgId::parse(&data.claims.org)?,
            session: SessionId::parse(&data.claims.sid)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signed_tokens_verify_and_tampering_fails() {
        let keys = JwtKeys::new(b"secret-one");
        let (user, org, session) = (UserId::new(), OrgId::new(), SessionId::new());
        let (token, exp) = keys.sign(user, org, session, Utc::now());
        assert!(exp > Utc::now() + Duration::hours(23));
        assert_eq!(keys.verify(&token), Some(TokenSubject { user, org, session }));
        assert_eq!(JwtKeys::new(b"secret-two").verify(&token), None);
        assert_eq!(keys.verify("garbage"), None);
        let mut tampered = token.clone();
        tampered.pop();
        assert_eq!(keys.verify(&tampered), None);
    }

    #[test]
    fn csrf_tokens_are_bound_to_their_session_and_secret() {
        let keys = JwtKeys::new(b"secret-one");
        let (session, _) = keys.sign(UserId::new(), OrgId::new(), SessionId::new(), Utc::now());
        let (other, _) = keys.sign(UserId::new(), OrgId::new(), SessionId::new(), Utc::now());
        let token = keys.csrf_token(&session);
        assert_eq!(token.len(), 64, "hex of 32 bytes: {token}");
        assert_eq!(keys.csrf_token(&session), token, "stable for a session");
        assert!(keys.csrf_valid(&session, &token));
        assert!(!keys.csrf_valid(&other, &token), "another session's token");
        assert!(!keys.csrf_valid(&session, &keys.csrf_token(&other)));
        assert!(!JwtKeys::new(b"secret-two").csrf_valid(&session, &token), "another secret");
        assert_ne!(JwtKeys::new(b"secret-two").csrf_token(&session), token);
        // Not the plain HMAC of the session token: the message is domain-separated.
        let mut plain = Hmac::<Sha256>::new_from_slice(b"secret-one").unwrap();
        plain.update(session.as_bytes());
        assert!(!keys.csrf_valid(&session, &hex::encode(plain.finalize().into_bytes())));
    }

    #[test]
    fn tampered_and_empty_csrf_tokens_fail() {
        let keys = JwtKeys::new(b"secret-one");
        let (session, _) = keys.sign(UserId::new(), OrgId::new(), SessionId::new(), Utc::now());
        let token = keys.csrf_token(&session);
        let mut flipped = token.clone().into_bytes();
        flipped[10] = if flipped[10] == b'0' { b'1' } else { b'0' };
        let flipped = String::from_utf8(flipped).unwrap();
        for bad in [String::new(), flipped, token[..62].to_string(), format!("{token}00"), "not hex at all".to_string()]
        {
            assert!(!keys.csrf_valid(&session, &bad), "{bad:?}");
        }
        assert!(!keys.csrf_valid("", &keys.csrf_token("")), "an empty session has no CSRF token");
        assert!(!keys.csrf_valid(&session, " "));
    }

    #[test]
    fn unsubscribe_tokens_name_their_user_and_cannot_be_forged() {
        let keys = JwtKeys::new(b"secret-one");
        let (org, user) = (OrgId::new(), UserId::new());
        let token = keys.unsubscribe_token(org, user);
        assert_eq!(keys.unsubscribe_subject(&token), Some((org, user)));
        let other = UserId::new();
        let forged = token.replacen(&user.to_string(), &other.to_string(), 1);
        assert_eq!(keys.unsubscribe_subject(&forged), None);
        assert_eq!(JwtKeys::new(b"secret-two").unsubscribe_subject(&token), None);
        assert_eq!(keys.unsubscribe_subject("garbage"), None);
        assert_ne!(keys.csrf_token(&format!("{org}.{user}")), token.rsplit_once('.').unwrap().1, "domain-separated");
    }

    #[test]
    fn tokens_without_a_session_fail() {
        // A token of the kind svc issued before sessions were kept.
        #[derive(Serialize)]
        struct Old {
            sub: String,
            org: String,
            iat: i64,
            exp: i64,
        }
        let now = Utc::now();
        let old = Old {
            sub: UserId::new().to_string(),
            org: OrgId::new().to_string(),
            iat: now.timestamp(),
            exp: (now + LIFETIME).timestamp(),
        };
        let token =
            jsonwebtoken::encode(&Header::new(Algorithm::HS256), &old, &EncodingKey::from_secret(b"s")).unwrap();
        assert_eq!(JwtKeys::new(b"s").verify(&token), None);
    }

    #[test]
    fn expired_tokens_fail() {
        let keys = JwtKeys::new(b"s");
        let (token, _) = keys.sign(UserId::new(), OrgId::new(), SessionId::new(), Utc::now() - Duration::hours(25));
        assert_eq!(keys.verify(&token), None);
    }
}
