//! The secrets of links mailed to someone (invitations, recipient
//! confirmations): random alphanumerics, kept only as their SHA-256.

use rand::Rng;
use rand::distr::Alphanumeric;
use sha2::{Digest, Sha256};

/// Random characters of a link's secret (~238 bits).
pub(crate) const TOKEN_LEN: usize = 40;

/// A new secret for a link.
pub(crate) fn new_token() -> String {
    rand::rng().sample_iter(&Alphanumeric).take(TOKEN_LEN).map(char::from).collect()
}

/// Hex SHA-256 of a link's secret (surrounding whitespace, which a pasted
/// link may bring, left out): what the store finds it by.
pub(crate) fn token_hash(token: &str) -> String {
    hex::encode(Sha256::digest(token.trim().as_bytes()))
}
