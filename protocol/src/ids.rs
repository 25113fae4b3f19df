//! Typed identifiers, validated at the edge.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::sync::Arc;

/// Longest id accepted for boards, objects and users.
pub const MAX_ID_LEN: usize = 64;

/// Longest id a client chooses for its own requests: commit, `ai` and question ids (WIRE-4).
/// They are echoed in replies and remembered for idempotency, so they are bounded like every
/// other id, but any characters are allowed.
pub const MAX_CLIENT_ID_LEN: usize = 128;

/// Whether a client-chosen id is within [`MAX_CLIENT_ID_LEN`] characters.
pub fn client_id_fits(s: &str) -> bool {
    s.len() <= MAX_CLIENT_ID_LEN || s.chars().count() <= MAX_CLIENT_ID_LEN
}

/// Why a string is not a valid id.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IdError {
    #[error("id is empty")]
    Empty,
    #[error("id is longer than {MAX_ID_LEN} characters")]
    TooLong,
    #[error("id may only contain letters, digits, '_' and '-'")]
    BadChar,
}

/// Checks the shared id rule: 1-64 characters of `[A-Za-z0-9_-]`.
pub fn check_id(s: &str) -> Result<(), IdError> {
    if s.is_empty() {
        return Err(IdError::Empty);
    }
    if s.len() > MAX_ID_LEN {
        return Err(IdError::TooLong);
    }
    if !s
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    {
        return Err(IdError::BadChar);
    }
    Ok(())
}

/// Reads an id from any string a deserializer offers (borrowed or owned) without an
/// intermediate `String`.
struct IdVisitor;

impl serde::de::Visitor<'_> for IdVisitor {
    type Value = Arc<str>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an id string")
    }

    fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Arc<str>, E> {
        check_id(s).map_err(E::custom)?;
        Ok(Arc::from(s))
    }
}

// Ids are shared, immutable strings: an id is copied into every op, change, undo entry and
// command that names it, and a clone is a reference count, not an allocation (the board's
// thread cloned and dropped one string per id per update).
macro_rules! typed_id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(Arc<str>);

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(&self.0)
            }
        }

        impl $name {
            /// The id as a string slice.
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl TryFrom<String> for $name {
            type Error = IdError;
            fn try_from(s: String) -> Result<Self, IdError> {
                Self::try_from(s.as_str())
            }
        }

        impl TryFrom<&str> for $name {
            type Error = IdError;
            fn try_from(s: &str) -> Result<Self, IdError> {
                check_id(s)?;
                Ok(Self(Arc::from(s)))
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                d.deserialize_str(IdVisitor).map(Self)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl std::borrow::Borrow<str> for $name {
            fn borrow(&self) -> &str {
                &self.0
            }
        }
    };
}

typed_id!(
    /// A board: 1-64 characters of `[A-Za-z0-9_-]`.
    BoardId
);
typed_id!(
    /// An object on a board. The server assigns a UUID when a create names none.
    ObjectId
);
typed_id!(
    /// A user, as the client names itself in `hello`.
    UserId
);

impl ObjectId {
    /// A fresh random id (UUID v4, hyphenated).
    pub fn random() -> Self {
        Self(Arc::from(
            uuid::Uuid::new_v4()
                .hyphenated()
                .encode_lower(&mut uuid::Uuid::encode_buffer()) as &str,
        ))
    }
}

impl BoardId {
    /// A fresh random board id.
    pub fn random() -> Self {
        Self(Arc::from(
            uuid::Uuid::new_v4()
                .simple()
                .encode_lower(&mut uuid::Uuid::encode_buffer()) as &str,
        ))
    }
}

/// A board's command sequence number: gap-free, from 1.
pub type Seq = u64;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn id_rules() {
        assert!(BoardId::try_from("abc-DEF_09").is_ok());
        assert_eq!(BoardId::try_from(""), Err(IdError::Empty));
        assert_eq!(BoardId::try_from("a".repeat(65)), Err(IdError::TooLong));
        assert!(BoardId::try_from("a".repeat(64)).is_ok());
        assert_eq!(BoardId::try_from("a b"), Err(IdError::BadChar));
        assert_eq!(BoardId::try_from("../x"), Err(IdError::BadChar));
        assert!(ObjectId::try_from(ObjectId::random().to_string()).is_ok());
        let bad: Result<UserId, _> = serde_json::from_str("\"no/slash\"");
        assert!(bad.is_err());
    }

    #[test]
    fn ids_read_from_any_string_and_write_back_as_one() {
        // Borrowed from the text, unescaped into a scratch buffer, and owned (a `Value`).
        let plain: ObjectId = serde_json::from_str("\"note-1\"").unwrap();
        let escaped: ObjectId = serde_json::from_str("\"note\\u002d1\"").unwrap();
        let owned: ObjectId = serde_json::from_value(serde_json::json!("note-1")).unwrap();
        assert_eq!(plain, escaped);
        assert_eq!(plain, owned);
        assert_eq!(serde_json::to_string(&plain).unwrap(), "\"note-1\"");
        // The id rule holds on every path; a number is not an id.
        assert!(serde_json::from_str::<ObjectId>("\"a\\u0020b\"").is_err());
        assert!(serde_json::from_value::<ObjectId>(serde_json::json!("a b")).is_err());
        assert!(serde_json::from_str::<ObjectId>("12").is_err());
        // A clone shares the string.
        let copy = plain.clone();
        assert!(std::ptr::eq(copy.as_str(), plain.as_str()));
        assert_eq!(format!("{plain:?}"), "ObjectId(\"note-1\")");
    }
}
