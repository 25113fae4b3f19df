//! Typed identifiers, validated at the edge.

use serde::{Deserialize, Deserializer, Serialize};
use std::fmt;

/// Longest id accepted for boards, objects and users.
pub const MAX_ID_LEN: usize = 64;

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

macro_rules! typed_id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
        #[serde(transparent)]
        pub struct $name(String);

        impl $name {
            /// The id as a string slice.
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl TryFrom<String> for $name {
            type Error = IdError;
            fn try_from(s: String) -> Result<Self, IdError> {
                check_id(&s)?;
                Ok(Self(s))
            }
        }

        impl TryFrom<&str> for $name {
            type Error = IdError;
            fn try_from(s: &str) -> Result<Self, IdError> {
                Self::try_from(s.to_owned())
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = String::deserialize(d)?;
                Self::try_from(s).map_err(serde::de::Error::custom)
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
        Self(uuid::Uuid::new_v4().to_string())
    }
}

impl BoardId {
    /// A fresh random board id.
    pub fn random() -> Self {
        Self(uuid::Uuid::new_v4().simple().to_string())
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
}
