//! 24-character lowercase hex ObjectIds: 4 bytes of unix seconds, 5 random
//! bytes chosen once per process, 3 bytes of a counter. Sorting by id sorts
//! by creation second.

use std::fmt;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, Ordering};

#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObjectId([u8; 12]);

fn process_random() -> &'static [u8; 5] {
    static R: OnceLock<[u8; 5]> = OnceLock::new();
    R.get_or_init(rand::random)
}

fn counter() -> &'static AtomicU32 {
    static C: OnceLock<AtomicU32> = OnceLock::new();
    C.get_or_init(|| AtomicU32::new(rand::random::<u32>() & 0x00ff_ffff))
}

impl ObjectId {
    pub fn new() -> Self {
        let secs = chrono::Utc::now().timestamp() as u32;
        let n = counter().fetch_add(1, Ordering::Relaxed) & 0x00ff_ffff;
        let mut b = [0u8; 12];
        b[..4].copy_from_slice(&secs.to_be_bytes());
        b[4..9].copy_from_slice(process_random());
        b[9..].copy_from_slice(&n.to_be_bytes()[1..]);
        ObjectId(b)
    }

    /// Parses exactly 24 hex digits (either case); the canonical form is lowercase.
    pub fn parse(s: &str) -> Option<Self> {
        let bytes = s.as_bytes();
        if bytes.len() != 24 {
            return None;
        }
        let mut out = [0u8; 12];
        for (i, pair) in bytes.chunks(2).enumerate() {
            let hi = (pair[0] as char).to_digit(16)?;
            let lo = (pair[1] as char).to_digit(16)?;
            out[i] = (hi * 16 + lo) as u8;
        }
        Some(ObjectId(out))
    }
}

impl Default for ObjectId {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Display for ObjectId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for b in self.0 {
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for ObjectId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ObjectId({self})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_ids_are_24_lowercase_hex_and_unique() {
        let a = ObjectId::new().to_string();
        let b = ObjectId::new().to_string();
        assert_eq!(a.len(), 24);
        assert!(a.chars().all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()));
        assert_ne!(a, b);
    }

    #[test]
    fn parse_round_trips_and_rejects_garbage() {
        let id = ObjectId::new();
        assert_eq!(ObjectId::parse(&id.to_string()), Some(id));
        assert_eq!(ObjectId::parse("507F1F77BCF86CD799439011").unwrap().to_string(), "507f1f77bcf86cd799439011");
        assert_eq!(ObjectId::parse("507f1f77bcf86cd79943901"), None);
        assert_eq!(ObjectId::parse("507f1f77bcf86cd79943901z"), None);
        assert_eq!(ObjectId::parse("507f1f77bcf86cd7994390111"), None);
        assert_eq!(ObjectId::parse("ééééééééééé"), None);
    }
}
