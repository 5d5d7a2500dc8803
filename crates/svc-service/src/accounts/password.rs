//! Argon2id password hashing (PHC strings). CPU-heavy: callers run these on
//! a blocking thread.

use argon2::Argon2;
use argon2::password_hash::phc::PasswordHash;
use argon2::password_hash::{PasswordHasher, PasswordVerifier};

pub fn hash(password: &str) -> String {
    Argon2::default().hash_password(password.as_bytes()).expect("argon2 hashing of a bounded password").to_string()
}

/// False for a wrong password and for a malformed stored hash.
pub fn verify(password: &str, phc: &str) -> bool {
    PasswordHash::new(phc).is_ok_and(|parsed| Argon2::default().verify_password(password.as_bytes(), &parsed).is_ok())
}

#[cfg(test)]
mod tests {
    #[test]
    fn hashes_are_argon2id_and_verify() {
        let h = super::hash("correct horse");
        assert!(h.starts_with("$argon2id$"));
        assert!(super::verify("correct horse", &h));
        assert!(!super::verify("wrong horse", &h));
        assert!(!super::verify("correct horse", "not a hash"));
    }
}
