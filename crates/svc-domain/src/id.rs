//! 24-character lowercase hex ObjectIds: 4 bytes of unix seconds, 5 random
//! bytes chosen once per process, 3 bytes of a counter. Sorting by id sorts
//! by creation second.
//!
//! The ids that travel most have a type of their own ([`OrgId`],
//! [`UserId`], [`ScrapId`], [`HistoryId`], [`KeyId`], [`WebhookId`]), so that
//! passing a scrap's id where an organization's is expected, or swapping
//! the two, does not compile. They share the ObjectId's text form; the
//! other ids (tasks, versions, deliveries, emails) are plain [`ObjectId`]s.

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

impl ObjectId {
    /// The 24 lowercase hex digits, encoded on the stack: a read of a
    /// scrap writes 50 run ids, and every query binds ids as text
    /// (docs/benchmarks.md, "With a session").
    fn hex(&self) -> [u8; 24] {
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        let mut out = [0u8; 24];
        for (i, b) in self.0.iter().enumerate() {
            out[2 * i] = DIGITS[usize::from(b >> 4)];
            out[2 * i + 1] = DIGITS[usize::from(b & 0x0f)];
        }
        out
    }
}

impl fmt::Display for ObjectId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let hex = self.hex();
        // Only ASCII hex digits were written.
        f.write_str(std::str::from_utf8(&hex).map_err(|_| fmt::Error)?)
    }
}

impl fmt::Debug for ObjectId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ObjectId({self})")
    }
}

/// What every id type has: the [`ObjectId`] it wraps. Converting through
/// it is deliberate (reading a stored column, an untyped path segment); code
/// that merely passes ids along never needs it.
pub trait TypedId: Copy + Sized {
    fn from_object_id(id: ObjectId) -> Self;
    fn object_id(self) -> ObjectId;
    /// Parses the 24-hex-digit text form, as [`ObjectId::parse`].
    fn parse_id(s: &str) -> Option<Self> {
        ObjectId::parse(s).map(Self::from_object_id)
    }
}

impl TypedId for ObjectId {
    fn from_object_id(id: ObjectId) -> Self {
        id
    }
    fn object_id(self) -> ObjectId {
        self
    }
}

macro_rules! typed_id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
        pub struct $name(ObjectId);

        impl $name {
            /// A new id, as [`ObjectId::new`].
            pub fn new() -> Self {
                Self(ObjectId::new())
            }

            /// Parses exactly 24 hex digits, as [`ObjectId::parse`].
            pub fn parse(s: &str) -> Option<Self> {
                ObjectId::parse(s).map(Self)
            }
        }

        impl TypedId for $name {
            fn from_object_id(id: ObjectId) -> Self {
                Self(id)
            }
            fn object_id(self) -> ObjectId {
                self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(&self.0, f)
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!(stringify!($name), "({})"), self.0)
            }
        }
    };
}

typed_id!(
    /// An organization: the tenant every stored object belongs to.
    OrgId
);
typed_id!(
    /// A user (a person who logs in; owner of keys and scraps).
    UserId
);
typed_id!(
    /// A scrap.
    ScrapId
);
typed_id!(
    /// A history row: a run of a scrap, or an AI operation's row.
    HistoryId
);
typed_id!(
    /// An API key.
    KeyId
);
typed_id!(
    /// A webhook subscription.
    WebhookId
);
typed_id!(
    /// A web session: one log-in, named by its JWT's `sid` claim.
    SessionId
);
typed_id!(
    /// An invitation to join an organization.
    InviteId
);

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
        let every_nibble = ObjectId([0x00, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0xf0, 0x0f, 0xff]);
        assert_eq!(every_nibble.to_string(), "000123456789abcdeff00fff");
        assert_eq!(format!("{every_nibble:?}"), "ObjectId(000123456789abcdeff00fff)");
        assert_eq!(ObjectId::parse("507f1f77bcf86cd79943901"), None);
        assert_eq!(ObjectId::parse("507f1f77bcf86cd79943901z"), None);
        assert_eq!(ObjectId::parse("507f1f77bcf86cd7994390111"), None);
        assert_eq!(ObjectId::parse("ééééééééééé"), None);
    }

    #[test]
    fn typed_ids_share_the_object_id_text_and_name_themselves_in_debug() {
        let scrap = ScrapId::new();
        let text = scrap.to_string();
        assert_eq!(text.len(), 24);
        assert_eq!(ScrapId::parse(&text), Some(scrap));
        assert_eq!(OrgId::parse(&text).map(|o| o.to_string()), Some(text.clone()));
        assert_eq!(format!("{scrap:?}"), format!("ScrapId({text})"));
        assert_eq!(ScrapId::parse("not an id"), None);
        assert_eq!(<KeyId as TypedId>::parse_id(&text).map(TypedId::object_id), ObjectId::parse(&text));
    }
}
