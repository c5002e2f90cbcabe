use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation, decode, encode};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::Role;
use crate::error::ApiError;

const ISSUER: &str = "paiju";
const AUDIENCE: &str = "paiju-api";

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Claims {
    pub sub: Uuid,
    pub name: String,
    pub role: Role,
    pub iss: String,
    pub aud: String,
    pub iat: i64,
    pub exp: i64,
}

/// Tokens remembered as verified before the memory is emptied.
const VERIFIED_CAPACITY: usize = 10_000;

/// HS256 only: the algorithm is pinned, so `alg: none` and algorithm-confusion tokens fail.
pub struct Jwt {
    encoding: EncodingKey,
    decoding: DecodingKey,
    validation: Validation,
    ttl: Duration,
    /// Claims of tokens whose signature this process checked: a client sends the same token
    /// with every request, and only its expiry needs checking again.
    verified: Mutex<HashMap<String, Claims>>,
}

impl Jwt {
    pub fn new(secret: &[u8], ttl: Duration) -> Jwt {
        let mut validation = Validation::new(Algorithm::HS256);
        validation.set_issuer(&[ISSUER]);
        validation.set_audience(&[AUDIENCE]);
        validation.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
        validation.leeway = 5;
        Jwt {
            encoding: EncodingKey::from_secret(secret),
            decoding: DecodingKey::from_secret(secret),
            validation,
            ttl,
            verified: Mutex::new(HashMap::new()),
        }
    }

    pub fn issue(&self, id: Uuid, name: &str, role: Role) -> anyhow::Result<String> {
        let now = chrono::Utc::now().timestamp();
        let claims = Claims {
            sub: id,
            name: name.to_string(),
            role,
            iss: ISSUER.into(),
            aud: AUDIENCE.into(),
            iat: now,
            exp: now + self.ttl.as_secs() as i64,
        };
        Ok(encode(
            &Header::new(Algorithm::HS256),
            &claims,
            &self.encoding,
        )?)
    }

    pub fn verify(&self, token: &str) -> Result<Claims, ApiError> {
        let now = chrono::Utc::now().timestamp();
        let leeway = self.validation.leeway as i64;
        if let Ok(verified) = self.verified.lock()
            && let Some(c) = verified.get(token)
            && c.exp + leeway > now
        {
            return Ok(c.clone());
        }
        let claims = self.decode(token)?;
        if let Ok(mut verified) = self.verified.lock() {
            if verified.len() >= VERIFIED_CAPACITY {
                verified.clear();
            }
            verified.insert(token.to_string(), claims.clone());
        }
        Ok(claims)
    }

    fn decode(&self, token: &str) -> Result<Claims, ApiError> {
        decode::<Claims>(token, &self.decoding, &self.validation)
            .map(|d| d.claims)
            .map_err(|e| {
                use jsonwebtoken::errors::ErrorKind;
                let why = match e.kind() {
                    ErrorKind::ExpiredSignature => "the token has expired; log in again",
                    ErrorKind::InvalidSignature => "the token signature is not valid",
                    ErrorKind::InvalidAlgorithm => "the token must be signed with HS256",
                    ErrorKind::InvalidIssuer | ErrorKind::InvalidAudience => {
                        "the token was not issued for this API"
                    }
                    _ => "the token is malformed",
                };
                ApiError::Unauthorized(why.into())
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jwt() -> Jwt {
        Jwt::new(b"test secret", Duration::from_secs(60))
    }

    #[test]
    fn issued_tokens_verify_and_carry_the_role() {
        let id = Uuid::new_v4();
        let t = jwt().issue(id, "ann", Role::Organiser).unwrap();
        let c = jwt().verify(&t).unwrap();
        assert_eq!(
            (c.sub, c.role, c.name.as_str()),
            (id, Role::Organiser, "ann")
        );
    }

    #[test]
    fn tokens_signed_with_another_secret_or_alg_none_are_refused() {
        let t = Jwt::new(b"other", Duration::from_secs(60))
            .issue(Uuid::new_v4(), "x", Role::Admin)
            .unwrap();
        assert!(jwt().verify(&t).is_err());
        // {"alg":"none"} header with the same claims and an empty signature.
        let claims = t.split('.').nth(1).unwrap();
        let none = format!("eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.{claims}.");
        assert!(jwt().verify(&none).is_err());
    }

    #[test]
    fn expired_tokens_are_refused() {
        let j = Jwt::new(b"s", Duration::from_secs(0));
        let mut c = j
            .verify(&j.issue(Uuid::new_v4(), "x", Role::Player).unwrap())
            .unwrap();
        c.exp -= 120;
        let t = encode(
            &Header::new(Algorithm::HS256),
            &c,
            &EncodingKey::from_secret(b"s"),
        )
        .unwrap();
        assert!(j.verify(&t).is_err());
    }

    #[test]
    fn a_remembered_token_still_expires() {
        let j = jwt();
        let t = j.issue(Uuid::new_v4(), "x", Role::Player).unwrap();
        let mut claims = j.verify(&t).unwrap();
        assert!(j.verified.lock().unwrap().contains_key(&t), "remembered");
        // A remembered token past its expiry is checked in full again (and this one, signed
        // with another secret, then fails).
        let other = Jwt::new(b"other", Duration::from_secs(60))
            .issue(Uuid::new_v4(), "y", Role::Admin)
            .unwrap();
        claims.exp = chrono::Utc::now().timestamp() - 120;
        j.verified.lock().unwrap().insert(other.clone(), claims);
        assert!(j.verify(&other).is_err(), "expiry checked on every use");
        assert!(
            j.verify(&format!("{t}x")).is_err(),
            "only the exact token is remembered"
        );
    }
}
