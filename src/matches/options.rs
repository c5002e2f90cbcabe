//! Options the platform handles itself, taken out of a match's `options` before the rest goes
//! to the game engine.

use serde_json::{Map, Value};

use crate::error::ApiError;

pub const DEFAULT_TURN_TIMEOUT_SECS: u32 = 20;
const MAX_TURN_TIMEOUT_SECS: u64 = 86_400;
const MAX_HANDS: u64 = 100_000;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlatformOptions {
    /// Seconds a seat has to act before the server acts for it (≥ 1).
    pub turn_timeout_secs: u32,
    /// The match ends after this many hands; `None`: it goes on until the game ends it.
    pub hands: Option<u32>,
    /// Coins a player must hold to take a seat (the request's top-level `buy_in`).
    pub buy_in: i64,
}

impl PlatformOptions {
    const KEYS: [&'static str; 3] = ["turn_timeout_secs", "hands", "buy_in"];

    /// Splits client options into the platform's and the game's.
    pub fn split(raw: Option<&Value>) -> Result<(PlatformOptions, Value), ApiError> {
        let mut game = match raw {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(m)) => m.clone(),
            Some(_) => {
                return Err(ApiError::BadRequest("options must be a JSON object".into()));
            }
        };
        let int = |key: &str, v: &Value, min: u64, max: u64| -> Result<u64, ApiError> {
            v.as_u64()
                .filter(|n| (min..=max).contains(n))
                .ok_or_else(|| {
                    ApiError::Validation(format!(
                        "options.{key} must be a whole number from {min} to {max}, got {v}"
                    ))
                })
        };
        if game.contains_key("buy_in") {
            return Err(ApiError::Validation(
                "buy_in is a field of the request, not an option".into(),
            ));
        }
        let timeout = match game.remove("turn_timeout_secs") {
            None => DEFAULT_TURN_TIMEOUT_SECS,
            Some(v) => int("turn_timeout_secs", &v, 1, MAX_TURN_TIMEOUT_SECS)? as u32,
        };
        let hands = match game.remove("hands") {
            None | Some(Value::Null) => None,
            Some(v) => Some(int("hands", &v, 1, MAX_HANDS)? as u32),
        };
        Ok((
            PlatformOptions {
                turn_timeout_secs: timeout,
                hands,
                buy_in: 0,
            },
            Value::Object(game),
        ))
    }

    /// The full option set as stored and shown: the game's options with ours added.
    pub fn merge_into(&self, game_options: Value) -> Value {
        let mut m = match game_options {
            Value::Object(m) => m,
            _ => Map::new(),
        };
        m.insert("turn_timeout_secs".into(), self.turn_timeout_secs.into());
        m.insert("hands".into(), self.hands.into());
        m.insert("buy_in".into(), self.buy_in.into());
        Value::Object(m)
    }

    pub fn from_stored(options: &Value) -> PlatformOptions {
        PlatformOptions {
            turn_timeout_secs: options["turn_timeout_secs"]
                .as_u64()
                .map_or(DEFAULT_TURN_TIMEOUT_SECS, |v| v as u32),
            hands: options["hands"].as_u64().map(|v| v as u32),
            buy_in: options["buy_in"].as_i64().unwrap_or(0),
        }
    }

    /// The game's share of stored options.
    pub fn game_part(options: &Value) -> Value {
        let mut m = options.as_object().cloned().unwrap_or_default();
        for k in Self::KEYS {
            m.remove(k);
        }
        Value::Object(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn platform_keys_are_split_off_and_checked() {
        let (p, g) =
            PlatformOptions::split(Some(&json!({"turn_timeout_secs": 3, "ante": 5}))).unwrap();
        assert_eq!(p.turn_timeout_secs, 3);
        assert_eq!(g, json!({"ante": 5}));
        assert!(PlatformOptions::split(Some(&json!({"turn_timeout_secs": 0}))).is_err());
        assert!(PlatformOptions::split(Some(&json!({"turn_timeout_secs": -4}))).is_err());
        assert!(PlatformOptions::split(Some(&json!({"hands": "x"}))).is_err());
        assert!(PlatformOptions::split(Some(&json!([1]))).is_err());
        let stored = p.merge_into(g);
        assert_eq!(PlatformOptions::from_stored(&stored), p);
        assert_eq!(PlatformOptions::game_part(&stored), json!({"ante": 5}));
    }
}
