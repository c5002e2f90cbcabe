use std::collections::HashMap;
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
    /// The account's token generation when the token was issued: a password change starts a
    /// new one and refuses every token of the generations before it. Tokens issued before
    /// generations existed carry none and count as generation 0.
    #[serde(default, rename = "gen")]
    pub generation: i64,
}

/// Accounts whose older tokens are refused within a token's lifetime: deleted accounts (every
/// token) and accounts whose password changed (the tokens of earlier generations). Filled from
/// the database at start and whenever the notification listener (re)connects
/// ([`Revoked::reload`]), from the `paiju_tokens_revoked` notification every deletion and
/// password change sends (every process), and at once by the process that made the change.
#[derive(Clone)]
pub struct Revoked {
    /// The oldest token generation still accepted, by account ([`DELETED`] for none).
    users: Arc<Mutex<HashMap<Uuid, i64>>>,
    /// A token's lifetime: how far back [`Revoked::reload`] reads deletions.
    ttl: Duration,
}

/// The generation no token reaches: a deleted account's.
const DELETED: i64 = i64::MAX;

impl Revoked {
    fn new(ttl: Duration) -> Revoked {
        Revoked {
            users: Arc::default(),
            ttl,
        }
    }

    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<Uuid, i64>> {
        self.users.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `user`'s account was deleted: none of its tokens is accepted.
    pub fn add(&self, user: Uuid) {
        self.refuse_before(user, DELETED);
    }

    /// `user`'s tokens of generations before `generation` are refused.
    pub fn refuse_before(&self, user: Uuid, generation: i64) {
        let mut map = self.map();
        let oldest = map.entry(user).or_insert(generation);
        *oldest = (*oldest).max(generation);
    }

    /// Whether `user`'s account was deleted.
    pub fn contains(&self, user: Uuid) -> bool {
        self.map().get(&user) == Some(&DELETED)
    }

    /// Whether a token of `user`'s generation `generation` is refused.
    pub fn refuses(&self, user: Uuid, generation: i64) -> bool {
        self.map()
            .get(&user)
            .is_some_and(|&oldest| generation < oldest)
    }

    /// Reads the accounts deleted, and the password changes made, within a token's lifetime
    /// and a minute (older ones hold no token still accepted, even with the verification's
    /// leeway and a clock apart).
    pub async fn reload(&self, pool: &sqlx::PgPool) -> sqlx::Result<()> {
        let rows: Vec<(Uuid, Option<i64>)> = sqlx::query_as(
            "SELECT id, CASE WHEN deleted_at IS NULL THEN token_gen END FROM users
              WHERE deleted_at > now() - make_interval(secs => $1 + 60)
                 OR tokens_revoked_at > now() - make_interval(secs => $1 + 60)",
        )
        .bind(self.ttl.as_secs_f64())
        .fetch_all(pool)
        .await?;
        *self.map() = rows
            .into_iter()
            .map(|(id, generation)| (id, generation.unwrap_or(DELETED)))
            .collect();
        Ok(())
    }
}

/// What [`Jwt::verify`] found.
#[derive(Debug)]
pub enum Checked {
    /// A token this process checked before, account included.
    Known(Claims),
    /// A valid token seen for the first time: its account's existence is not checked yet.
    New(Claims),
}

impl Checked {
    pub fn claims(&self) -> &Claims {
        match self {
            Checked::Known(c) | Checked::New(c) => c,
        }
    }
}

/// Tokens remembered as verified (about half a kilobyte each). Every connected player's token
/// must fit, or each of their requests checks its account again: at 10,000 players the earlier
/// bound of 10,000 emptied the memory over and over, and every move and seating queued a
/// lookup on the pool (docs/performance.md § Connected players). When full, the expired are
/// dropped first; the memory is emptied only when none has.
const VERIFIED_CAPACITY: usize = 200_000;

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

    /// The accounts whose older tokens are refused.
    pub fn revoked(&self) -> &Revoked {
        &self.revoked
    }

    /// A token for account `id` of token generation `generation`.
    pub fn issue(
        &self,
        id: Uuid,
        name: &str,
        role: Role,
        generation: i64,
    ) -> anyhow::Result<String> {
        let now = chrono::Utc::now().timestamp();
        let claims = Claims {
            sub: id,
            name: name.to_string(),
            role,
            iss: ISSUER.into(),
            aud: AUDIENCE.into(),
            iat: now,
            exp: now + self.ttl.as_secs() as i64,
            generation,
        };
        Ok(encode(
            &Header::new(Algorithm::HS256),
            &claims,
            &self.encoding,
        )?)
    }

    /// The token's claims, when it is signed by this secret, unexpired and of a generation
    /// its account still accepts (not deleted, no password change since). `Checked::New` for a
    /// token this process has not seen: the caller checks that its account exists, then
    /// [`Jwt::remember`]s it.
    pub fn verify(&self, token: &str) -> Result<Checked, ApiError> {
        let checked = self.verify_signature(token)?;
        let claims = checked.claims();
        if self.revoked.refuses(claims.sub, claims.generation) {
            return Err(ApiError::Unauthorized(
                if self.revoked.contains(claims.sub) {
                    "the account this token was issued to has been deleted".into()
                } else {
                    "the password was changed after this token was issued; log in again".into()
                },
            ));
        }
        Ok(checked)
    }

    fn verify_signature(&self, token: &str) -> Result<Checked, ApiError> {
        let now = chrono::Utc::now().timestamp();
        let leeway = self.validation.leeway as i64;
        if let Ok(verified) = self.verified.lock()
            && let Some(c) = verified.get(token)
            && c.exp + leeway > now
        {
            return Ok(Checked::Known(c.clone()));
        }
        self.decode(token).map(Checked::New)
    }

    /// Remembers a token whose account was found, so later requests need not look it up.
    pub fn remember(&self, token: &str, claims: &Claims) {
        self.remember_within(token, claims, VERIFIED_CAPACITY);
    }

    fn remember_within(&self, token: &str, claims: &Claims, capacity: usize) {
        if let Ok(mut verified) = self.verified.lock() {
            if verified.len() >= capacity {
                let now = chrono::Utc::now().timestamp();
                let leeway = self.validation.leeway as i64;
                verified.retain(|_, c| c.exp + leeway > now);
                if verified.len() >= capacity {
                    verified.clear();
                }
            }
            verified.insert(token.to_string(), claims.clone());
        }
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
        let t = jwt().issue(id, "ann", Role::Organiser, 0).unwrap();
        let c = jwt().verify(&t).unwrap().claims().clone();
        assert_eq!(
            (c.sub, c.role, c.name.as_str()),
            (id, Role::Organiser, "ann")
        );
    }

    /// Whether `token` is one this process remembers as verified.
    fn known(jwt: &Jwt, token: &str) -> bool {
        matches!(jwt.verify(token), Ok(Checked::Known(_)))
    }

    /// The token of a new account, verified and remembered as its first request would.
    fn remembered(jwt: &Jwt, capacity: usize) -> String {
        let t = jwt.issue(Uuid::new_v4(), "p", Role::Player, 0).unwrap();
        let c = jwt.verify(&t).unwrap().claims().clone();
        jwt.remember_within(&t, &c, capacity);
        t
    }

    #[test]
    fn ten_thousand_players_tokens_stay_remembered() {
        let jwt = jwt();
        let tokens: Vec<String> = (0..10_001)
            .map(|_| remembered(&jwt, VERIFIED_CAPACITY))
            .collect();
        assert!(
            tokens.iter().all(|t| known(&jwt, t)),
            "every player's next request needs no lookup of their account"
        );
    }

    #[test]
    fn a_full_memory_drops_expired_tokens_first() {
        let jwt = jwt();
        // An expired token's claims, remembered before it expired.
        let old = jwt.issue(Uuid::new_v4(), "old", Role::Player, 0).unwrap();
        let mut c = jwt.verify(&old).unwrap().claims().clone();
        c.exp = chrono::Utc::now().timestamp() - 60;
        jwt.remember_within(&old, &c, 3);
        let live = remembered(&jwt, 3);
        let also = remembered(&jwt, 3);
        // Full: the expired one goes, the live ones stay.
        let newest = remembered(&jwt, 3);
        assert!([&live, &also, &newest].iter().all(|t| known(&jwt, t)));
        assert_eq!(jwt.verified.lock().unwrap().len(), 3);
        assert!(!jwt.verified.lock().unwrap().contains_key(&old));
    }

    #[test]
    fn tokens_of_a_deleted_account_are_refused_even_when_verified_before() {
        let jwt = jwt();
        let (gone, kept) = (Uuid::new_v4(), Uuid::new_v4());
        let t = jwt.issue(gone, "gone", Role::Player, 0).unwrap();
        let other = jwt.issue(kept, "kept", Role::Player, 0).unwrap();
        assert!(jwt.verify(&t).is_ok());
        jwt.revoked().add(gone);
        let err = jwt.verify(&t).unwrap_err();
        assert!(err.to_string().contains("deleted"), "{err}");
        assert!(jwt.verify(&other).is_ok());
    }

    #[test]
    fn a_password_change_refuses_the_older_generations_only() {
        let jwt = jwt();
        let user = Uuid::new_v4();
        let old = jwt.issue(user, "ann", Role::Player, 0).unwrap();
        jwt.revoked().refuse_before(user, 1);
        let err = jwt.verify(&old).unwrap_err();
        assert!(err.to_string().contains("password was changed"), "{err}");
        let new = jwt.issue(user, "ann", Role::Player, 1).unwrap();
        assert!(jwt.verify(&new).is_ok());
        // A late notification of an older change does not bring old tokens back.
        jwt.revoked().refuse_before(user, 0);
        assert!(jwt.verify(&old).is_err());
        jwt.revoked().add(user);
        assert!(
            jwt.verify(&new).is_err(),
            "a deletion refuses every generation"
        );
    }

    #[test]
    fn tokens_signed_with_another_secret_or_alg_none_are_refused() {
        let t = Jwt::new(b"other", Duration::from_secs(60))
            .issue(Uuid::new_v4(), "x", Role::Admin, 0)
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
            .verify(&j.issue(Uuid::new_v4(), "x", Role::Player, 0).unwrap())
            .unwrap()
            .claims()
            .clone();
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
        let t = j.issue(Uuid::new_v4(), "x", Role::Player, 0).unwrap();
        let mut claims = j.verify(&t).unwrap().claims().clone();
        assert!(
            matches!(j.verify(&t), Ok(Checked::New(_))),
            "not remembered before its account was found"
        );
        j.remember(&t, &claims);
        assert!(matches!(j.verify(&t), Ok(Checked::Known(_))), "remembered");
        // A remembered token past its expiry is checked in full again (and this one, signed
        // with another secret, then fails).
        let other = Jwt::new(b"other", Duration::from_secs(60))
            .issue(Uuid::new_v4(), "y", Role::Admin, 0)
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
