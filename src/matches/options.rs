//! Options the platform handles itself, taken out of a match's `options` before the rest goes
//! to the game engine.

use serde_json::{Map, Value};

use crate::error::ApiError;

pub const DEFAULT_TURN_TIMEOUT_SECS: u32 = 20;
const MAX_TURN_TIMEOUT_SECS: u64 = 86_400;
/// The most hands a match may be asked to play (`hands`, `hands_per_game`): a long session's
/// worth, and a bound on what a table of absent players can write (docs/rules/README.md).
const MAX_HANDS: u64 = 1_000;
const MAX_COINS: u64 = 1_000_000_000;

/// 金币场: coins move after every hand by the game's units × `stake`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CoinRoom {
    pub stake: i64,
    /// Coins needed to enter; the room dissolves after a hand when anyone holds fewer.
    pub min_coins: i64,
    /// Paid by each player to the house at the start of every 局.
    pub room_fee: i64,
    /// Hands in one 局.
    pub hands_per_game: u32,
}

impl CoinRoom {
    pub const DEFAULT_MIN_COINS: i64 = 50;
    pub const DEFAULT_ROOM_FEE: i64 = 1;
    pub const DEFAULT_HANDS_PER_GAME: u32 = 10;

    pub fn with_stake(stake: i64) -> CoinRoom {
        CoinRoom {
            stake,
            min_coins: Self::DEFAULT_MIN_COINS,
            room_fee: Self::DEFAULT_ROOM_FEE,
            hands_per_game: Self::DEFAULT_HANDS_PER_GAME,
        }
    }
}

/// The platform's options as a match's `options` show them, beside the game's.
#[derive(serde::Serialize, utoipa::ToSchema)]
#[schema(as = PlatformOptions)]
pub struct ShownOptions {
    /// Seconds a seat has to act before the server acts for it (托管).
    #[schema(minimum = 1)]
    turn_timeout_secs: u32,
    /// The match ends after this many hands; null: it goes on until the game ends it.
    hands: Option<u32>,
    /// Coins a player must hold to take a seat.
    buy_in: i64,
    /// `coin` at a coin room (金币场), else null.
    room: Option<RoomKind>,
    /// A coin room's stake (底注): coins per unit won or lost.
    #[serde(skip_serializing_if = "Option::is_none")]
    stake: Option<i64>,
    /// A coin room's minimum wallet to sit down and to be dealt a hand.
    #[serde(skip_serializing_if = "Option::is_none")]
    min_coins: Option<i64>,
    /// A coin room's fee per player per game (台费).
    #[serde(skip_serializing_if = "Option::is_none")]
    room_fee: Option<i64>,
    /// A coin room's hands per game.
    #[serde(skip_serializing_if = "Option::is_none")]
    hands_per_game: Option<u32>,
}

#[derive(serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum RoomKind {
    Coin,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlatformOptions {
    /// Seconds a seat has to act before the server acts for it (≥ 1).
    pub turn_timeout_secs: u32,
    /// The match ends after this many hands; `None`: it goes on until the game ends it.
    pub hands: Option<u32>,
    /// Coins a player must hold to take a seat (the request's top-level `buy_in`).
    pub buy_in: i64,
    pub room: Option<CoinRoom>,
}

fn int(key: &str, v: &Value, min: u64, max: u64) -> Result<u64, ApiError> {
    v.as_u64()
        .filter(|n| (min..=max).contains(n))
        .ok_or_else(|| {
            ApiError::Validation(format!(
                "options.{key} must be a whole number from {min} to {max}, got {v}"
            ))
        })
}

impl PlatformOptions {
    const KEYS: [&'static str; 8] = [
        "turn_timeout_secs",
        "hands",
        "buy_in",
        "room",
        "stake",
        "min_coins",
        "room_fee",
        "hands_per_game",
    ];

    /// Splits client options into the platform's and the game's.
    pub fn split(raw: Option<&Value>) -> Result<(PlatformOptions, Value), ApiError> {
        let mut game = match raw {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(m)) => m.clone(),
            Some(_) => {
                return Err(ApiError::BadRequest("options must be a JSON object".into()));
            }
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
        let room = Self::split_room(&mut game)?;
        Ok((
            PlatformOptions {
                turn_timeout_secs: timeout,
                hands,
                buy_in: 0,
                room,
            },
            Value::Object(game),
        ))
    }

    fn split_room(game: &mut Map<String, Value>) -> Result<Option<CoinRoom>, ApiError> {
        let room = game.remove("room");
        let stake = game.remove("stake");
        let min_coins = game.remove("min_coins");
        let room_fee = game.remove("room_fee");
        let hands_per_game = game.remove("hands_per_game");
        match room {
            None | Some(Value::Null) => {
                if stake.is_some()
                    || min_coins.is_some()
                    || room_fee.is_some()
                    || hands_per_game.is_some()
                {
                    return Err(ApiError::Validation(
                        "stake, min_coins, room_fee and hands_per_game go with room: \"coin\""
                            .into(),
                    ));
                }
                Ok(None)
            }
            Some(Value::String(r)) if r == "coin" => {
                let stake = stake.ok_or_else(|| {
                    ApiError::Validation("a coin room needs options.stake".into())
                })?;
                let room = CoinRoom {
                    stake: int("stake", &stake, 1, MAX_COINS)? as i64,
                    min_coins: match min_coins {
                        None => CoinRoom::DEFAULT_MIN_COINS,
                        Some(v) => int("min_coins", &v, 0, MAX_COINS)? as i64,
                    },
                    room_fee: match room_fee {
                        None => CoinRoom::DEFAULT_ROOM_FEE,
                        Some(v) => int("room_fee", &v, 0, MAX_COINS)? as i64,
                    },
                    hands_per_game: match hands_per_game {
                        None => CoinRoom::DEFAULT_HANDS_PER_GAME,
                        Some(v) => int("hands_per_game", &v, 1, MAX_HANDS)? as u32,
                    },
                };
                if room.min_coins < room.room_fee {
                    return Err(ApiError::Validation(
                        "options.min_coins must be at least options.room_fee".into(),
                    ));
                }
                Ok(Some(room))
            }
            Some(other) => Err(ApiError::Validation(format!(
                "options.room must be \"coin\" or absent, got {other}"
            ))),
        }
    }

    /// The full option set as stored and shown: the game's options with ours added.
    pub fn merge_into(&self, game_options: Value) -> Value {
        let mut m = match game_options {
            Value::Object(m) => m,
            _ => Map::new(),
        };
        let room = self.room.as_ref();
        let shown = ShownOptions {
            turn_timeout_secs: self.turn_timeout_secs,
            hands: self.hands,
            buy_in: self.buy_in,
            room: room.map(|_| RoomKind::Coin),
            stake: room.map(|r| r.stake),
            min_coins: room.map(|r| r.min_coins),
            room_fee: room.map(|r| r.room_fee),
            hands_per_game: room.map(|r| r.hands_per_game),
        };
        if let Ok(Value::Object(ours)) = serde_json::to_value(shown) {
            m.extend(ours);
        }
        Value::Object(m)
    }

    pub fn from_stored(options: &Value) -> PlatformOptions {
        let i = |k: &str, d: i64| options[k].as_i64().unwrap_or(d);
        PlatformOptions {
            turn_timeout_secs: options["turn_timeout_secs"]
                .as_u64()
                .map_or(DEFAULT_TURN_TIMEOUT_SECS, |v| v as u32),
            hands: options["hands"].as_u64().map(|v| v as u32),
            buy_in: i("buy_in", 0),
            room: (options["room"] == "coin").then(|| CoinRoom {
                stake: i("stake", 1),
                min_coins: i("min_coins", CoinRoom::DEFAULT_MIN_COINS),
                room_fee: i("room_fee", CoinRoom::DEFAULT_ROOM_FEE),
                hands_per_game: i("hands_per_game", CoinRoom::DEFAULT_HANDS_PER_GAME as i64) as u32,
            }),
        }
    }

    /// Coins a player must hold to sit down: the buy-in, or a coin room's `min_coins`.
    pub fn entry_coins(&self) -> i64 {
        self.buy_in
            .max(self.room.as_ref().map_or(0, |r| r.min_coins))
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
        assert_eq!(p.room, None);
        assert_eq!(g, json!({"ante": 5}));
        assert!(PlatformOptions::split(Some(&json!({"turn_timeout_secs": 0}))).is_err());
        assert!(PlatformOptions::split(Some(&json!({"turn_timeout_secs": -4}))).is_err());
        assert!(PlatformOptions::split(Some(&json!({"hands": "x"}))).is_err());
        assert!(PlatformOptions::split(Some(&json!([1]))).is_err());
        let stored = p.merge_into(g);
        assert_eq!(PlatformOptions::from_stored(&stored), p);
        assert_eq!(PlatformOptions::game_part(&stored), json!({"ante": 5}));
    }

    #[test]
    fn coin_room_options_have_defaults_and_round_trip() {
        let (p, g) =
            PlatformOptions::split(Some(&json!({"room": "coin", "stake": 5, "base": 2}))).unwrap();
        assert_eq!(p.room, Some(CoinRoom::with_stake(5)));
        assert_eq!(g, json!({"base": 2}));
        let stored = p.merge_into(g);
        assert_eq!(stored["min_coins"], 50);
        assert_eq!(PlatformOptions::from_stored(&stored), p);
        assert_eq!(PlatformOptions::game_part(&stored), json!({"base": 2}));
        for bad in [
            json!({"room": "coin"}),
            json!({"room": "gold", "stake": 5}),
            json!({"stake": 5}),
            json!({"room": "coin", "stake": 0}),
            json!({"room": "coin", "stake": 5, "min_coins": 0, "room_fee": 3}),
        ] {
            assert!(PlatformOptions::split(Some(&bad)).is_err(), "{bad}");
        }
    }
}
