//! Webhook signatures (svc_service::outbox::webhook_signing): verification never
//! panics whatever it is given; a signature made over a body verifies
//! (within the timestamp tolerance), and flipping any byte of the body, the
//! signature, the message id or the timestamp makes it fail.

#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use svc_service::outbox::webhook_signing::{
    TOLERANCE_SECS, hex_signature, standard_signature, verify_hex, verify_standard,
};

#[derive(Arbitrary, Debug)]
struct Input {
    secret: String,
    id: String,
    timestamp: i64,
    /// How far from the timestamp the receiver's clock is (reduced into
    /// the tolerance), and an arbitrary clock.
    skew: i64,
    now: i64,
    body: Vec<u8>,
    /// Other text for the signature header, verified as it is.
    header: String,
    /// Which byte to flip and how.
    at: usize,
    mask: u8,
}

/// `bytes` with the byte at `at` (modulo the length) XORed with `mask`
/// (never 0); `None` when empty.
fn flipped(bytes: &[u8], at: usize, mask: u8) -> Option<Vec<u8>> {
    if bytes.is_empty() {
        return None;
    }
    let mut out = bytes.to_vec();
    out[at % bytes.len()] ^= mask.max(1);
    Some(out)
}

fuzz_target!(|input: Input| {
    let Input { secret, id, timestamp, skew, now, body, header, at, mask } = &input;
    let (secret, id, timestamp, body, at, mask) =
        (secret.as_str(), id.as_str(), *timestamp, body.as_slice(), *at, *mask);

    // Anything at all: an answer, not a panic.
    let _ = verify_standard(secret, id, timestamp, body, header, *now);
    let _ = verify_hex(secret, body, header);

    // `X-Webhook-Signature`.
    let hex = hex_signature(secret, body);
    assert!(verify_hex(secret, body, &hex));
    if let Some(other) = flipped(body, at, mask) {
        assert!(!verify_hex(secret, &other, &hex), "a flipped body byte verifies (hex)");
    }
    let other = String::from_utf8(flipped(hex.as_bytes(), at, mask).unwrap());
    if let Ok(other) = other {
        // Hex is read in either case: only a change of case may still verify.
        let same_bytes = hex::decode(other.trim()).is_ok_and(|b| hex::decode(&hex).unwrap() == b);
        assert!(!verify_hex(secret, body, &other) || same_bytes, "a flipped signature byte verifies: {other}");
    }

    // Standard Webhooks `webhook-signature`, checked at a clock within the tolerance.
    let sig = standard_signature(secret, id, timestamp, body);
    let clock = timestamp.saturating_add(skew.rem_euclid(2 * TOLERANCE_SECS + 1) - TOLERANCE_SECS);
    let within = clock.abs_diff(timestamp) <= TOLERANCE_SECS.unsigned_abs();
    assert_eq!(verify_standard(secret, id, timestamp, body, &sig, clock), within);
    // Among other signatures, as a rotated secret sends them.
    let list = format!("v1,AAAA {sig} v2,x");
    assert_eq!(verify_standard(secret, id, timestamp, body, &list, clock), within);
    // Outside the tolerance, never.
    if now.abs_diff(timestamp) > TOLERANCE_SECS.unsigned_abs() {
        assert!(!verify_standard(secret, id, timestamp, body, &sig, *now), "{timestamp} verifies at {now}");
    }

    if let Some(other) = flipped(body, at, mask) {
        assert!(!verify_standard(secret, id, timestamp, &other, &sig, clock), "a flipped body byte verifies");
    }
    if let Ok(other) = String::from_utf8(flipped(sig.as_bytes(), at, mask).unwrap()) {
        assert!(
            !verify_standard(secret, id, timestamp, body, &other, clock),
            "a flipped signature byte verifies: {other}"
        );
    }
    if let Some(Ok(other)) = flipped(id.as_bytes(), at, mask).map(String::from_utf8) {
        assert!(!verify_standard(secret, &other, timestamp, body, &sig, clock), "a flipped id byte verifies");
    }
    let byte = (at % 8) * 8;
    let other_timestamp = timestamp ^ (i64::from(mask.max(1)) << byte);
    assert!(
        !verify_standard(secret, id, other_timestamp, body, &sig, clock),
        "the signature of {timestamp} verifies for {other_timestamp}"
    );
});
