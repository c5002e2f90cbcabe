//! Pure rules of the paiju games. Nothing here does IO, reads a clock or draws randomness:
//! given the options, the dealt deck and the actions, every engine yields the same states,
//! events and settlements.

pub mod cards;
pub mod chehuzi;
pub mod chexuan;
pub mod dazha;
pub mod engine;
#[cfg(test)]
mod event_check;
pub mod fixtures;
#[cfg(test)]
mod golden;
pub mod progress;
pub mod sandaha;
pub mod shengji;
pub mod shuffle;
#[cfg(test)]
mod test_rng;
pub mod trick;

pub use engine::{DynGame, DynState, Game, Registered};

/// Every game the service can run. Adding a game is one line here.
static GAMES: [&dyn DynGame; 5] = [
    &Registered::<chexuan::Chexuan>::new(),
    &Registered::<dazha::Dazha>::new(),
    &Registered::<shengji::Shengji>::new(),
    &Registered::<sandaha::Sandaha>::new(),
    &Registered::<chehuzi::Chehuzi>::new(),
];

/// Every game the service can run, in the order clients are told about them.
pub fn all() -> &'static [&'static dyn DynGame] {
    &GAMES
}

/// The names clients use, for error messages and documents.
pub fn names() -> Vec<&'static str> {
    GAMES.iter().map(|g| g.name()).collect()
}

/// The engine of the game called `name`.
pub fn game(name: &str) -> Option<&'static dyn DynGame> {
    GAMES.iter().find(|g| g.name() == name).copied()
}
