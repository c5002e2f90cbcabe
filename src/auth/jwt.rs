use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
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

/// Accounts deleted within a token's lifetime: tokens issued to them before the deletion may
/// still be unexpired, and are refused. Filled from the database at start and whenever the
/// notification listener (re)connects ([`Revoked::reload`]), from the `paiju_user_deleted`
/// notification every deletion sends (every process), and at once by the process that
/// deleted the account.
#[derive(Clone)]
pub struct Revoked {
    users: Arc<Mutex<HashSet<Uuid>>>,
    /// A token's lifetime: how far back [`Revoked::reload`] reads deletions.
    ttl: Duration,
}

impl Revoked {
    fn new(ttl: Duration) -> Revoked {
        Revoked {
            users: Arc::default(),
            ttl,
        }
    }

    fn set(&self) -> std::sync::MutexGuard<'_, HashSet<Uuid>> {
        self.users.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `user`'s account was deleted.
    pub fn add(&self, user: Uuid) {
        self.set().insert(user);
    }

    pub fn contains(&self, user: Uuid) -> bool {
        self.set().contains(&user)
    }

    /// Reads the accounts deleted within a token's lifetime and a minute (older ones hold no
    /// token still accepted, even with the verification's leeway and a clock apart: a deleted
    /// account cannot log in).
    pub async fn reload(&self, pool: &sqlx::PgPool) -> sqlx::Result<()> {
        let users: Vec<Uuid> = sqlx::query_scalar(
            "SELECT id FROM users WHERE deleted_at > now() - make_interval(secs => $1 + 60)",
        )
        .bind(self.ttl.as_secs_f64())
        .fetch_all(pool)
        .await?;
        *self.set() = users.into_iter().collect();
        Ok(())
    }
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
    revoked: Revoked,
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
            revoked: Revoked::new(ttl),
        }
    }

    /// The deleted accounts whose tokens are refused.
    pub fn revoked(&self) -> &Revoked {
        &self.revoked
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

    /// The token's claims: signed by this secret, unexpired, issued to an account that was not
    /// deleted since.
    pub fn verify(&self, token: &str) -> Result<Claims, ApiError> {
        let claims = self.verify_signature(token)?;
        if self.revoked.contains(claims.sub) {
            return Err(ApiError::Unauthorized(
                "the account this token was issued to has been deleted".into(),
            ));
        }
        Ok(claims)
    }

    fn verify_signature(&self, token: &str) -> Result<Claims, ApiError> {
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
    fn tokens_of_a_deleted_account_are_refused_even_when_verified_before() {
        let jwt = jwt();
        let (gone, kept) = (Uuid::new_v4(), Uuid::new_v4());
        let t = jwt.issue(gone, "gone", Role::Player).unwrap();
        let other = jwt.issue(kept, "kept", Role::Player).unwrap();
        assert!(jwt.verify(&t).is_ok());
        jwt.revoked().add(gone);
        let err = jwt.verify(&t).unwrap_err();
        assert!(err.to_string().contains("deleted"), "{err}");
        assert!(jwt.verify(&other).is_ok());
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
