//! Names the API document gives to what the service sends, below every module that uses them
//! (the document itself, `openapi`, is generated above the routes): markers for values typed
//! per game (`MatchView`, `AnyAction`, `RuleCode`, `GameName`, …) and the platform's own refusal
//! codes (`PlatformRule`).

use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{AdditionalProperties, ObjectBuilder, Schema, Type};
use utoipa::{PartialSchema, ToSchema};

/// The platform's own refusals of an action, named like the games' rules (`Problem.rule`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlatformRule {
    /// An action on a match that is not being played (waiting, finished, aborted).
    MatchNotPlaying,
    /// `resume` from a seat that is not under automatic play (托管).
    NotInAuto,
}

impl games::engine::RuleCode for PlatformRule {
    const ALL: &'static [Self] = &[PlatformRule::MatchNotPlaying, PlatformRule::NotInAuto];
    fn code(self) -> &'static str {
        match self {
            PlatformRule::MatchNotPlaying => "match_not_playing",
            PlatformRule::NotInAuto => "not_in_auto",
        }
    }
}

/// A card (api.md § Card notation).
pub struct Card;

impl PartialSchema for Card {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .description(Some(
                "rank then suit (10H, QD, 3S), RJ/BJ jokers, s1…s10 / b1…b10 / W paper cards",
            ))
            .into()
    }
}

impl ToSchema for Card {}

/// `{"type":"resume"}`: ends automatic play (托管) for the caller's seat, in every game.
pub struct Resume;

impl PartialSchema for Resume {
    fn schema() -> RefOr<Schema> {
        let resume = ObjectBuilder::new()
            .schema_type(Type::String)
            .enum_values(Some(["resume"]));
        ObjectBuilder::new()
            .schema_type(Type::Object)
            .property("type", resume)
            .required("type")
            .additional_properties(Some(AdditionalProperties::FreeForm(false)))
            .description(Some(
                "ends automatic play (托管) for the caller's seat, in every game",
            ))
            .into()
    }
}

impl ToSchema for Resume {}

/// A served game's name.
pub struct GameName;

impl PartialSchema for GameName {
    fn schema() -> RefOr<Schema> {
        names_of(|_| true)
    }
}

impl ToSchema for GameName {}

/// A game a tournament can be played in (one with a fixed table size).
pub struct TournamentGame;

impl PartialSchema for TournamentGame {
    fn schema() -> RefOr<Schema> {
        names_of(|g| g.table_size().is_some())
    }
}

impl ToSchema for TournamentGame {}

fn names_of(keep: fn(&dyn games::DynGame) -> bool) -> RefOr<Schema> {
    let names: Vec<&str> = games::all()
        .iter()
        .filter(|g| keep(**g))
        .map(|g| g.name())
        .collect();
    ObjectBuilder::new()
        .schema_type(Type::String)
        .enum_values(Some(names))
        .into()
}

/// The rule a game's refusal names: every game's codes (each game's own are `<Game>RuleCode`).
pub struct RuleCode;

impl PartialSchema for RuleCode {
    fn schema() -> RefOr<Schema> {
        use games::engine::RuleCode as _;
        let platform = PlatformRule::ALL.iter().map(|r| r.code());
        let mut codes: Vec<&str> = games::all()
            .iter()
            .flat_map(|g| g.rule_codes())
            .chain(platform)
            .collect();
        codes.sort_unstable();
        codes.dedup();
        ObjectBuilder::new()
            .schema_type(Type::String)
            .description(Some(
                "the rule a game's refusal names, stable: clients key on it (docs/rules/<game>.md \
                 lists each game's)",
            ))
            .enum_values(Some(codes))
            .into()
    }
}

impl ToSchema for RuleCode {}

/// The match view: which game's is told by `game` (the `oneOf` is filled in per game).
pub struct MatchView;

impl PartialSchema for MatchView {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new().into()
    }
}

impl ToSchema for MatchView {}

/// An action of any game: the match's game decides which (filled in per game).
pub struct AnyAction;

impl PartialSchema for AnyAction {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new().into()
    }
}

impl ToSchema for AnyAction {}
