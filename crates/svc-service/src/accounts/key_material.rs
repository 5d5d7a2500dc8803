//! Plain API keys and what is stored of them. A key is `svc_` followed by 40
//! random alphanumeric characters (~238 bits), so a fast hash (SHA-256) is
//! enough to store it: there is nothing to brute-force.

use rand::Rng;
use rand::distr::Alphanumeric;
use sha2::{Digest, Sha256};

pub const PREFIX: &str = "svc_";
pub const RANDOM_LEN: usize = 40;
/// How much of the plain key lists show (`svc_` and 8 characters).
const SHOWN_LEN: usize = PREFIX.len() + 8;

pub fn generate() -> String {
    let mut key = String::with_capacity(PREFIX.len() + RANDOM_LEN);
    key.push_str(PREFIX);
    key.extend(rand::rng().sample_iter(&Alphanumeric).take(RANDOM_LEN).map(char::from));
    key
}

/// Whether `s` has the shape of a plain key (checked before any lookup).
pub fn is_well_formed(s: &str) -> bool {
    s.len() == PREFIX.len() + RANDOM_LEN
        && s.starts_with(PREFIX)
        && s[PREFIX.len()..].bytes().all(|b| b.is_ascii_alphanumeric())
}

/// Hex SHA-256 of the plain key: what the store keeps.
pub fn hash(plain: &str) -> String {
    hex::encode(Sha256::digest(plain.as_bytes()))
}

pub fn shown_prefix(plain: &str) -> String {
    plain[..SHOWN_LEN].to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_keys_have_the_contract_shape() {
        let k = generate();
        assert_eq!(k.len(), 44);
        assert!(is_well_formed(&k));
        assert_ne!(generate(), k);
        assert_eq!(shown_prefix(&k), &k[..12]);
        assert_eq!(hash(&k).len(), 64);
        assert!(!is_well_formed("svc_short"));
        assert!(!is_well_formed(&format!("xyz_{}", &k[4..])));
        assert!(!is_well_formed(&format!("svc_{}!", &k[4..43])));
    }
}
