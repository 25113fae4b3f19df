//! Board tokens: JWTs signed with HS256, `aud` = `board`, `exp` required (AUTH-3). Apps that
//! have their own sign-in mint them with the shared `--token-secret` (docs/SECURITY.md).

use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use protocol::Role;
use serde::{Deserialize, Serialize};

/// The audience every board token names.
pub const AUDIENCE: &str = "board";

/// Default lifetime of a minted token, seconds.
pub const DEFAULT_TTL: i64 = 3600;
/// Longest lifetime a minted token may ask for, seconds (30 days).
pub const MAX_TTL: i64 = 30 * 24 * 3600;
/// Seconds past `exp` a token is still accepted, for clocks that differ a little: at hello, on
/// HTTP, and by the deadline of a socket opened with it (AUTH-18).
pub const LEEWAY: i64 = 5;

/// The claims of a board token.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Claims {
    /// The user id (what `hello.user.id` must say).
    pub sub: String,
    /// Display name.
    #[serde(default)]
    pub name: String,
    /// A board id, or `*` for every board.
    pub board: String,
    pub role: Role,
    #[serde(default)]
    pub iat: i64,
    pub exp: i64,
    pub aud: String,
    /// The session a token was minted from (its stored hash, from which the cookie cannot be
    /// derived): the token is valid only while that session is (AUTH-19). Absent on tokens the
    /// admin or an app mints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sid: Option<String>,
}

impl Claims {
    /// Whether the token names `board` (or every board).
    pub fn covers(&self, board: &str) -> bool {
        self.board == "*" || self.board == board
    }
}

/// The signing key, both ways.
pub struct Keys {
    enc: EncodingKey,
    dec: DecodingKey,
    validation: Validation,
}

impl Keys {
    pub fn new(secret: &[u8]) -> Keys {
        let mut validation = Validation::new(Algorithm::HS256);
        validation.algorithms = vec![Algorithm::HS256];
        validation.set_audience(&[AUDIENCE]);
        validation.set_required_spec_claims(&["exp", "aud"]);
        validation.leeway = LEEWAY.unsigned_abs();
        Keys {
            enc: EncodingKey::from_secret(secret),
            dec: DecodingKey::from_secret(secret),
            validation,
        }
    }

    /// Signs a token.
    pub fn mint(&self, claims: &Claims) -> Result<String, jsonwebtoken::errors::Error> {
        jsonwebtoken::encode(&Header::new(Algorithm::HS256), claims, &self.enc)
    }

    /// Checks a token: HS256 only, this key, not expired, `aud` = `board`, a known role.
    pub fn verify(&self, token: &str) -> Result<Claims, jsonwebtoken::errors::Error> {
        jsonwebtoken::decode::<Claims>(token, &self.dec, &self.validation).map(|d| d.claims)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claims(exp: i64) -> Claims {
        Claims {
            sub: "ann".into(),
            name: "Ann".into(),
            board: "b1".into(),
            role: Role::Editor,
            iat: 0,
            exp,
            aud: AUDIENCE.into(),
            sid: None,
        }
    }

    fn now() -> i64 {
        super::super::now()
    }

    #[test]
    fn auth_3_a_minted_token_verifies_and_forgeries_do_not() {
        let k = Keys::new(b"secret");
        let t = k.mint(&claims(now() + 60)).unwrap();
        assert_eq!(k.verify(&t).unwrap().sub, "ann");
        // Another key.
        assert!(Keys::new(b"other").verify(&t).is_err());
        // Expired.
        assert!(k.verify(&k.mint(&claims(now() - 60)).unwrap()).is_err());
        // Wrong audience.
        let mut c = claims(now() + 60);
        c.aud = "other".into();
        assert!(k.verify(&k.mint(&c).unwrap()).is_err());
        // `alg: none`, unsigned.
        let body = t.split('.').nth(1).unwrap();
        let none = format!("eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.{body}.");
        assert!(k.verify(&none).is_err());
        // No `aud` at all.
        #[derive(Serialize)]
        struct NoAud {
            sub: &'static str,
            board: &'static str,
            role: &'static str,
            exp: i64,
        }
        let t = jsonwebtoken::encode(
            &Header::new(Algorithm::HS256),
            &NoAud {
                sub: "ann",
                board: "b1",
                role: "editor",
                exp: now() + 60,
            },
            &EncodingKey::from_secret(b"secret"),
        )
        .unwrap();
        assert!(k.verify(&t).is_err());
        // HS512 with the same key: another algorithm.
        let t = jsonwebtoken::encode(
            &Header::new(Algorithm::HS512),
            &claims(now() + 60),
            &EncodingKey::from_secret(b"secret"),
        )
        .unwrap();
        assert!(k.verify(&t).is_err());
    }
}
