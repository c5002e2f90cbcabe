//! A tournament's settings checked, as pure code (the time of the request comes in), and the
//! bracket format of its game.

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::CreateTournament;
use super::bracket::Format;
use crate::error::{ApiError, ApiResult};
use crate::matches::options::PlatformOptions;

const MAX_FEE: i64 = 1_000_000_000;

/// A round's hands: enough for any game's 局, few enough that a table of absent players
/// (paced at one hand per turn time) still ends its round in reasonable time.
const MAX_HANDS_PER_ROUND: u32 = 100;
/// A round's hands when the organiser does not say: the seed's 局 (金币场: 10把为一局).
pub const DEFAULT_HANDS_PER_ROUND: u32 = 10;

/// A tournament's settings, checked: what creating and editing it share.
pub(super) struct Settings {
    pub(super) game: &'static dyn games::DynGame,
    pub(super) name: String,
    pub(super) entry_fee: i64,
    pub(super) starts_at: DateTime<Utc>,
    pub(super) hands_per_round: u32,
    /// The game's options completed, with `turn_timeout_secs`.
    pub(super) options: Value,
}

/// Checks a tournament's settings at `now` (the time of the request).
pub(super) fn check_settings(req: CreateTournament, now: DateTime<Utc>) -> ApiResult<Settings> {
    let game = crate::matches::game_named(&req.game)?;
    let Some(format) = Format::of(game) else {
        return Err(ApiError::Validation(format!(
            "tournaments need a game played by a fixed number of seats; {} seats {} to {}",
            game.name(),
            game.seats().start(),
            game.seats().end()
        )));
    };
    if !(0..=MAX_FEE).contains(&req.entry_fee) {
        return Err(ApiError::Validation(format!(
            "entry_fee must be from 0 to {MAX_FEE}, got {}",
            req.entry_fee
        )));
    }
    let table_size = format.table_size;
    // Never one deal decides a round: at least as many hands as seats (rulings 7).
    let hands_per_round = req.hands_per_round.unwrap_or(DEFAULT_HANDS_PER_ROUND);
    if !(table_size as u32..=MAX_HANDS_PER_ROUND).contains(&hands_per_round) {
        return Err(ApiError::Validation(format!(
            "hands_per_round must be from {table_size} (the table size: a round is never \
             decided by one deal) to {MAX_HANDS_PER_ROUND}, got {hands_per_round}"
        )));
    }
    let earliest = now - chrono::Duration::days(1);
    let latest = now + chrono::Duration::days(366);
    if !(earliest..=latest).contains(&req.starts_at) {
        return Err(ApiError::Validation(format!(
            "starts_at must be between {} and {} (a time already past starts the tournament \
             at once), got {}",
            earliest.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            latest.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            req.starts_at
                .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
        )));
    }
    let name = req
        .name
        .unwrap_or_else(|| format!("{} knockout", game.name()));
    if name.is_empty() || name.chars().count() > 100 {
        return Err(ApiError::Validation(
            "name must be 1 to 100 characters".into(),
        ));
    }
    let (platform, raw) = PlatformOptions::split(req.options.as_ref())?;
    if platform.hands.is_some() || platform.room.is_some() {
        return Err(ApiError::Validation(
            "tournament options take turn_timeout_secs and the game's options; hands come from \
             hands_per_round and tournaments are not coin rooms"
                .into(),
        ));
    }
    let game_options = game.options(table_size, &raw)?;
    let mut stored = game_options.as_object().cloned().unwrap_or_default();
    stored.insert(
        "turn_timeout_secs".into(),
        platform.turn_timeout_secs.into(),
    );
    Ok(Settings {
        game,
        name,
        entry_fee: req.entry_fee,
        starts_at: req.starts_at,
        hands_per_round,
        options: Value::Object(stored),
    })
}

/// The bracket format of a tournament's game.
pub(super) fn format_of(game: &str) -> ApiResult<Format> {
    games::game(game).and_then(Format::of).ok_or_else(|| {
        ApiError::Internal(anyhow::anyhow!(
            "tournament of game {game}, which has no fixed table size"
        ))
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn now() -> DateTime<Utc> {
        "2026-12-04T19:00:00Z".parse().unwrap()
    }

    fn req(game: &str) -> CreateTournament {
        CreateTournament {
            game: game.into(),
            name: None,
            entry_fee: 50,
            starts_at: now() + chrono::Duration::hours(1),
            hands_per_round: None,
            options: None,
        }
    }

    /// The refusal's message, or a panic when the settings were accepted.
    fn refused(req: CreateTournament) -> String {
        match check_settings(req, now()) {
            Err(ApiError::Validation(m)) => m,
            Err(e) => panic!("refused, but not as a validation: {e}"),
            Ok(s) => panic!("accepted: {} {}", s.name, s.options),
        }
    }

    #[test]
    fn defaults_complete_the_settings() {
        let s = check_settings(req("dazha"), now()).unwrap();
        assert_eq!(s.game.name(), "dazha");
        assert_eq!(s.name, "dazha knockout");
        assert_eq!(s.entry_fee, 50);
        assert_eq!(s.starts_at, now() + chrono::Duration::hours(1));
        assert_eq!(s.hands_per_round, DEFAULT_HANDS_PER_ROUND);
        assert!(s.options["turn_timeout_secs"].is_u64(), "{}", s.options);
        let s = check_settings(
            CreateTournament {
                name: Some("Friday".into()),
                hands_per_round: Some(8),
                options: Some(json!({ "turn_timeout_secs": 20 })),
                ..req("dazha")
            },
            now(),
        )
        .unwrap();
        assert_eq!(
            (
                s.name.as_str(),
                s.hands_per_round,
                &s.options["turn_timeout_secs"]
            ),
            ("Friday", 8, &json!(20))
        );
    }

    #[test]
    fn a_game_without_a_fixed_table_size_has_no_tournaments() {
        let m = refused(req("chexuan"));
        assert!(m.contains("fixed number of seats"), "{m}");
        assert!(format_of("chexuan").is_err());
        assert_eq!(format_of("chehuzi").unwrap().table_size, 3);
        assert!(matches!(
            check_settings(req("no such game"), now()),
            Err(ApiError::Validation(_))
        ));
    }

    #[test]
    fn the_fee_is_from_zero_to_a_billion() {
        for fee in [0, MAX_FEE] {
            let r = CreateTournament {
                entry_fee: fee,
                ..req("dazha")
            };
            assert_eq!(check_settings(r, now()).unwrap().entry_fee, fee);
        }
        for fee in [-1, MAX_FEE + 1] {
            let m = refused(CreateTournament {
                entry_fee: fee,
                ..req("dazha")
            });
            assert!(m.starts_with("entry_fee"), "{m}");
        }
    }

    #[test]
    fn a_round_has_at_least_as_many_hands_as_seats() {
        let hands = |game: &str, n: u32| CreateTournament {
            hands_per_round: Some(n),
            ..req(game)
        };
        assert!(refused(hands("dazha", 3)).starts_with("hands_per_round must be from 4"));
        assert!(refused(hands("dazha", MAX_HANDS_PER_ROUND + 1)).starts_with("hands_per_round"));
        for (game, n) in [("dazha", 4), ("chehuzi", 3), ("dazha", MAX_HANDS_PER_ROUND)] {
            assert_eq!(
                check_settings(hands(game, n), now())
                    .unwrap()
                    .hands_per_round,
                n
            );
        }
    }

    #[test]
    fn the_start_is_from_a_day_ago_to_a_year_ahead() {
        let at = |d: chrono::Duration| CreateTournament {
            starts_at: now() + d,
            ..req("dazha")
        };
        for ok in [chrono::Duration::days(-1), chrono::Duration::days(366)] {
            assert!(check_settings(at(ok), now()).is_ok(), "{ok}");
        }
        for late in [
            chrono::Duration::days(-1) - chrono::Duration::seconds(1),
            chrono::Duration::days(366) + chrono::Duration::seconds(1),
        ] {
            let m = refused(at(late));
            assert!(
                m.starts_with("starts_at must be between 2026-12-03T19:00:00Z and"),
                "{m}"
            );
        }
    }

    #[test]
    fn a_name_is_one_to_a_hundred_characters() {
        let named = |n: &str| CreateTournament {
            name: Some(n.into()),
            ..req("dazha")
        };
        assert_eq!(refused(named("")), "name must be 1 to 100 characters");
        assert!(refused(named(&"比".repeat(101))).starts_with("name"));
        let hundred = "比".repeat(100);
        assert_eq!(
            check_settings(named(&hundred), now()).unwrap().name,
            hundred
        );
    }

    #[test]
    fn hands_and_coin_rooms_are_not_tournament_options() {
        for options in [
            json!({ "hands": 3 }),
            json!({ "room": "coin", "stake": 10 }),
        ] {
            let r = CreateTournament {
                options: Some(options.clone()),
                ..req("dazha")
            };
            match check_settings(r, now()) {
                Err(ApiError::Validation(m)) => {
                    assert!(m.starts_with("tournament options take"), "{options}: {m}")
                }
                Err(e) => panic!("{options}: {e}"),
                Ok(_) => panic!("{options} accepted"),
            }
        }
    }
}
