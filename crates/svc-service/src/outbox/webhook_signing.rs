//! Webhook secrets and signatures (pure functions).
//!
//! - `X-Webhook-Signature`: hex HMAC-SHA256 of the raw body, keyed with the
//!   whole `whsec_...` string's bytes.
//! - Standard Webhooks `webhook-signature`: `v1,<base64 HMAC-SHA256 of
//!   "{id}.{timestamp}.{body}">`, keyed with the base64-decoded part after
//!   `whsec_`.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use hmac::{Hmac, Mac};
use sha2::Sha256;

type HmacSha256 = Hmac<Sha256>;

/// How far a Standard Webhooks timestamp may be from now (seconds).
pub const TOLERANCE_SECS: i64 = 5 * 60;

/// `whsec_` + base64 of 32 random bytes.
pub fn new_secret() -> String {
    format!("whsec_{}", STANDARD.encode(rand::random::<[u8; 32]>()))
}

fn mac(key: &[u8], parts: &[&[u8]]) -> Vec<u8> {
    let mut mac = HmacSha256::new_from_slice(key).expect("HMAC takes any key length");
    for p in parts {
        mac.update(p);
    }
    mac.finalize().into_bytes().to_vec()
}

/// The `X-Webhook-Signature` value.
pub fn hex_signature(secret: &str, body: &[u8]) -> String {
    hex::encode(mac(secret.as_bytes(), &[body]))
}

/// The Standard Webhooks key: the decoded bytes after `whsec_` (the whole
/// string's bytes if it does not decode).
fn standard_key(secret: &str) -> Vec<u8> {
    secret.strip_prefix("whsec_").and_then(|b| STANDARD.decode(b).ok()).unwrap_or_else(|| secret.as_bytes().to_vec())
}

/// The `webhook-signature` value.
pub fn standard_signature(secret: &str, id: &str, timestamp: i64, body: &[u8]) -> String {
    let ts = timestamp.to_string();
    format!("v1,{}", STANDARD.encode(mac(&standard_key(secret), &[id.as_bytes(), b".", ts.as_bytes(), b".", body])))
}

/// What a receiver does with `X-Webhook-Signature` (constant-time).
pub fn verify_hex(secret: &str, body: &[u8], signature: &str) -> bool {
    let Ok(given) = hex::decode(signature.trim()) else { return false };
    let mut m = HmacSha256::new_from_slice(secret.as_bytes()).expect("any key length");
    m.update(body);
    m.verify_slice(&given).is_ok()
}

/// What a Standard Webhooks receiver does: any `v1,` signature of the
/// header list matches, and the timestamp is within the tolerance of `now`.
pub fn verify_standard(secret: &str, id: &str, timestamp: i64, body: &[u8], header: &str, now: i64) -> bool {
    // `abs_diff`: `now - timestamp` overflows for timestamps far from now
    // (a panic in debug builds, a wrap that passes the check in release).
    if now.abs_diff(timestamp) > TOLERANCE_SECS.unsigned_abs() {
        return false;
    }
    let ts = timestamp.to_string();
    header.split_whitespace().filter_map(|s| s.strip_prefix("v1,")).any(|sig| {
        let Ok(given) = STANDARD.decode(sig) else { return false };
        let mut m = HmacSha256::new_from_slice(&standard_key(secret)).expect("any key length");
        for p in [id.as_bytes(), b".", ts.as_bytes(), b".", body] {
            m.update(p);
        }
        m.verify_slice(&given).is_ok()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_have_the_documented_shape() {
        let s = new_secret();
        let raw = STANDARD.decode(s.strip_prefix("whsec_").unwrap()).unwrap();
        assert_eq!(raw.len(), 32);
        assert_ne!(new_secret(), s);
    }

    #[test]
    fn hex_signature_is_hmac_of_the_raw_body_with_the_whole_secret() {
        // RFC 4231 test case 2: key "Jefe".
        assert_eq!(
            hex_signature("Jefe", b"what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        let secret = new_secret();
        let sig = hex_signature(&secret, b"{\"a\":1}");
        assert!(verify_hex(&secret, b"{\"a\":1}", &sig));
        assert!(!verify_hex(&secret, b"{\"a\":2}", &sig));
        assert!(!verify_hex("whsec_other", b"{\"a\":1}", &sig));
    }

    #[test]
    fn standard_webhooks_signature_matches_the_reference_example() {
        // The example of the Standard Webhooks specification's reference libraries.
        let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
        let body = br#"{"test": 2432232314}"#;
        let sig = standard_signature(secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body);
        assert_eq!(sig, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
        assert!(verify_standard(secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body, &sig, 1614265330 + 299));
        assert!(!verify_standard(secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body, &sig, 1614265330 + 301));
        assert!(!verify_standard(secret, "msg_other", 1614265330, body, &sig, 1614265330));
    }

    #[test]
    fn timestamps_at_the_ends_of_i64_are_refused_without_overflow() {
        // `now - timestamp` overflowed here: a panic in debug builds, and in
        // release a difference of 2^63 s or more wrapped past the tolerance check.
        let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
        let body = b"{}";
        let now = 1614265330;
        // `now - 2^63`: the difference wrapped to i64::MIN, whose `abs()` (i64::MIN again) passed.
        let wrapped = now + i64::MIN;
        for (timestamp, now) in
            [(i64::MIN, now), (i64::MAX, now), (wrapped, now), (i64::MIN, i64::MAX), (i64::MAX, i64::MIN)]
        {
            let sig = standard_signature(secret, "msg_1", timestamp, body);
            assert!(!verify_standard(secret, "msg_1", timestamp, body, &sig, now), "{timestamp} at {now}");
        }
        for at in [i64::MIN, i64::MAX] {
            let sig = standard_signature(secret, "msg_1", at, body);
            assert!(verify_standard(secret, "msg_1", at, body, &sig, at), "a signature made at {at} verifies then");
        }
        let near_max = i64::MAX - TOLERANCE_SECS;
        let sig = standard_signature(secret, "msg_1", i64::MAX, body);
        assert!(verify_standard(secret, "msg_1", i64::MAX, body, &sig, near_max), "exactly the tolerance");
        assert!(!verify_standard(secret, "msg_1", i64::MAX, body, &sig, near_max - 1));
    }
}
