//! The key check: a known value sealed with the master key and kept in
//! `settings` (`secret_key_check`), written at the first start. It tells a
//! database sealed with another key (refused at start, naming both key ids)
//! and a database that holds sealed secrets while the key is missing (svc
//! then refuses to generate a new one) from a database that holds none yet.
//! The value is not secret: it is a fixed text, sealed.

use crate::Sealer;

/// The `settings` key of the key check.
pub const KEY_CHECK_SETTING: &str = "secret_key_check";

/// What the key check holds once opened.
const KNOWN: &str = "svc master key check";

/// A new key check sealed with `sealer`'s current key.
pub fn seal_key_check(sealer: &Sealer) -> String {
    sealer.seal(KNOWN)
}

/// Whether the stored key check opens with one of `sealer`'s keys.
pub fn key_check_opens(sealer: &Sealer, stored: &str) -> bool {
    sealer.open(stored).is_ok_and(|known| known == KNOWN)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MasterKey;

    #[test]
    fn a_key_check_opens_with_its_key_only() {
        let key = MasterKey::generate();
        let check = seal_key_check(&Sealer::new(key.clone()));
        assert!(key_check_opens(&Sealer::new(key.clone()), &check));
        assert!(!key_check_opens(&Sealer::new(MasterKey::generate()), &check));
        assert!(key_check_opens(&Sealer::new(key).rotating_to(MasterKey::generate()), &check));
        assert!(!key_check_opens(&Sealer::new(MasterKey::generate()), "svc master key check"), "plaintext is no check");
    }
}
