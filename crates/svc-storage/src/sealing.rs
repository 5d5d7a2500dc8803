//! Secrets at rest. Every secret the store keeps (webhook secrets, the
//! generated JWT secret, site account credentials and session cookies) is
//! sealed with the operator's master key before it is written and opened
//! when read, so a dump of the database holds none of them.
//!
//! XChaCha20-Poly1305 (random 192-bit nonces, so a nonce never repeats in
//! practice), from the RustCrypto `chacha20poly1305` crate. A sealed value is
//! text: `svcenc:1:<key id>:<base64 of nonce ‖ ciphertext>`. The key id (the
//! first 8 bytes of SHA-256 of the key, in hex) names the key that sealed
//! it, so that a rotation can tell old values from new and a wrong key is
//! told apart from tampering.

use std::fmt;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use chacha20poly1305::aead::{Aead, AeadCore, KeyInit, OsRng};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};
use sha2::{Digest, Sha256};

use crate::StoreError;

const PREFIX: &str = "svcenc:1:";
const NONCE_LEN: usize = 24;

/// A 32-byte master key. Its `Debug` shows only its id.
#[derive(Clone)]
pub struct MasterKey {
    id: String,
    cipher: XChaCha20Poly1305,
    bytes: [u8; 32],
}

impl fmt::Debug for MasterKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "MasterKey({})", self.id)
    }
}

/// Why a key could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    #[error("the key is not base64")]
    NotBase64,
    #[error("the key is {0} bytes long; it must be exactly 32 (base64 of 32 random bytes)")]
    Length(usize),
}

impl MasterKey {
    pub fn from_bytes(bytes: [u8; 32]) -> MasterKey {
        let digest = Sha256::digest(bytes);
        let id = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
        MasterKey { id, cipher: XChaCha20Poly1305::new(&bytes.into()), bytes }
    }

    /// A new random key.
    pub fn generate() -> MasterKey {
        let key = XChaCha20Poly1305::generate_key(&mut OsRng);
        MasterKey::from_bytes(key.into())
    }

    /// A key from its base64 text (surrounding whitespace ignored).
    pub fn from_base64(text: &str) -> Result<MasterKey, KeyError> {
        let bytes = STANDARD.decode(text.trim()).map_err(|_| KeyError::NotBase64)?;
        let bytes: [u8; 32] = bytes.as_slice().try_into().map_err(|_| KeyError::Length(bytes.len()))?;
        Ok(MasterKey::from_bytes(bytes))
    }

    /// The key as base64 text, for a key file or `SVC_SECRET_KEY`.
    pub fn to_base64(&self) -> String {
        STANDARD.encode(self.bytes)
    }

    /// 16 hex digits naming the key (not secret).
    pub fn id(&self) -> &str {
        &self.id
    }
}

/// Seals with the current key, opens with it or with the previous keys a
/// rotation still needs to read.
#[derive(Clone, Debug)]
pub struct Sealer {
    current: MasterKey,
    previous: Vec<MasterKey>,
}

impl Sealer {
    pub fn new(current: MasterKey) -> Sealer {
        Sealer { current, previous: Vec::new() }
    }

    /// Also opens values sealed with `previous` (during a rotation).
    pub fn with_previous(mut self, previous: MasterKey) -> Sealer {
        self.previous.push(previous);
        self
    }

    pub fn key_id(&self) -> &str {
        self.current.id()
    }

    /// The sealer of a rotation to `new`: seals with `new`, opens with it
    /// and with every key this sealer opens with.
    pub fn rotating_to(&self, new: MasterKey) -> Sealer {
        let mut previous = vec![self.current.clone()];
        previous.extend(self.previous.iter().cloned());
        Sealer { current: new, previous }
    }

    /// Whether `stored` is sealed with this sealer's current key (else it is
    /// plaintext or sealed with another key, and a re-sealing pass rewrites it).
    pub fn is_current(&self, stored: &str) -> bool {
        Sealer::key_id_of(stored) == Some(self.current.id())
    }

    /// Whether `stored` is a sealed value (else it is plaintext from before sealing).
    pub fn is_sealed(stored: &str) -> bool {
        stored.starts_with(PREFIX)
    }

    /// The key id a sealed value names.
    pub fn key_id_of(stored: &str) -> Option<&str> {
        stored.strip_prefix(PREFIX)?.split(':').next()
    }

    pub fn seal(&self, plaintext: &str) -> String {
        let nonce = XChaCha20Poly1305::generate_nonce(&mut OsRng);
        let ciphertext =
            self.current.cipher.encrypt(&nonce, plaintext.as_bytes()).expect("XChaCha20-Poly1305 seals any length");
        let mut blob = Vec::with_capacity(NONCE_LEN + ciphertext.len());
        blob.extend_from_slice(&nonce);
        blob.extend_from_slice(&ciphertext);
        format!("{PREFIX}{}:{}", self.current.id, STANDARD.encode(blob))
    }

    /// The plaintext of a sealed value. Fails (`StoreError::Sealing`) for a
    /// value sealed with a key this sealer does not have, or altered.
    pub fn open(&self, stored: &str) -> Result<String, StoreError> {
        let rest = stored.strip_prefix(PREFIX).ok_or_else(|| StoreError::Sealing("the value is not sealed".into()))?;
        let (id, body) =
            rest.split_once(':').ok_or_else(|| StoreError::Sealing("a sealed value without its key id".into()))?;
        let key = std::iter::once(&self.current).chain(&self.previous).find(|k| k.id == id).ok_or_else(|| {
            StoreError::Sealing(format!(
                "a value is sealed with master key {id}, and this server has key {} (SVC_SECRET_KEY)",
                self.current.id
            ))
        })?;
        let blob = STANDARD.decode(body).map_err(|_| StoreError::Sealing("a sealed value is damaged".into()))?;
        if blob.len() < NONCE_LEN {
            return Err(StoreError::Sealing("a sealed value is damaged".into()));
        }
        let (nonce, ciphertext) = blob.split_at(NONCE_LEN);
        let nonce: [u8; NONCE_LEN] = nonce.try_into().expect("the length was checked");
        let plaintext = key
            .cipher
            .decrypt(&XNonce::from(nonce), ciphertext)
            .map_err(|_| StoreError::Sealing(format!("a value sealed with key {id} does not open: it was altered")))?;
        String::from_utf8(plaintext).map_err(|_| StoreError::Sealing("a sealed value is not text".into()))
    }

    /// A stored value as plaintext: opened when sealed, as it is when it
    /// predates sealing (the start-up pass seals those).
    pub fn open_or_plain(&self, stored: &str) -> Result<String, StoreError> {
        if Sealer::is_sealed(stored) { self.open(stored) } else { Ok(stored.to_string()) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sealed_values_open_with_their_key_only() {
        let sealer = Sealer::new(MasterKey::generate());
        let sealed = sealer.seal("whsec_abc");
        assert!(Sealer::is_sealed(&sealed));
        assert!(!sealed.contains("whsec_abc"));
        assert_eq!(Sealer::key_id_of(&sealed), Some(sealer.key_id()));
        assert_eq!(sealer.open(&sealed).unwrap(), "whsec_abc");
        assert_ne!(sealer.seal("whsec_abc"), sealed, "a fresh nonce every time");
        let other = Sealer::new(MasterKey::generate());
        let err = other.open(&sealed).unwrap_err().to_string();
        assert!(err.contains(sealer.key_id()) && err.contains(other.key_id()), "{err}");
        // A rotation reads both.
        let rotating = Sealer::new(MasterKey::generate()).with_previous(sealer.current.clone());
        assert_eq!(rotating.open(&sealed).unwrap(), "whsec_abc");
        let rotated = sealer.rotating_to(MasterKey::generate());
        assert_eq!(rotated.open(&sealed).unwrap(), "whsec_abc");
        assert!(sealer.is_current(&sealed) && !rotated.is_current(&sealed));
        assert!(rotated.is_current(&rotated.seal("x")) && !rotated.is_current("plain"));
    }

    #[test]
    fn altered_values_do_not_open() {
        let sealer = Sealer::new(MasterKey::generate());
        let sealed = sealer.seal("password");
        let (head, body) = sealed.rsplit_once(':').unwrap();
        let mut blob = STANDARD.decode(body).unwrap();
        let last = blob.len() - 1;
        blob[last] ^= 1;
        let altered = format!("{head}:{}", STANDARD.encode(blob));
        assert!(sealer.open(&altered).unwrap_err().to_string().contains("altered"));
        assert!(sealer.open("svcenc:1:").is_err());
        assert!(sealer.open("svcenc:1:abcd:!!!").is_err());
        assert!(sealer.open("plain").is_err());
        assert_eq!(sealer.open_or_plain("plain").unwrap(), "plain");
    }

    #[test]
    fn keys_round_trip_as_base64_and_hide_in_debug() {
        let key = MasterKey::generate();
        let again = MasterKey::from_base64(&format!(" {}\n", key.to_base64())).unwrap();
        assert_eq!(again.id(), key.id());
        assert_eq!(format!("{key:?}"), format!("MasterKey({})", key.id()));
        assert!(!format!("{key:?}").contains(&key.to_base64()));
        assert_eq!(MasterKey::from_base64("not base64!").unwrap_err(), KeyError::NotBase64);
        assert_eq!(MasterKey::from_base64(&STANDARD.encode([1u8; 16])).unwrap_err(), KeyError::Length(16));
    }
}
