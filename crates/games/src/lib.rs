//! Pure rules of the paiju games. Nothing here does IO, reads a clock or draws randomness:
//! given the options, the dealt deck and the actions, every engine yields the same states,
//! events and settlements.

pub mod cards;
pub mod chexuan;
pub mod dazha;
pub mod engine;
pub mod shuffle;
#[cfg(test)]
mod test_rng;

pub use engine::{DynGame, DynState, Game, Registered};

/// Every game the service can run, by the name clients use.
pub const GAME_NAMES: &[&str] = &[chexuan::Chexuan::NAME, dazha::Dazha::NAME];

/// The engine of the game called `name`.
pub fn game(name: &str) -> Option<&'static dyn DynGame> {
    static CHEXUAN: Registered<chexuan::Chexuan> = Registered::new();
    static DAZHA: Registered<dazha::Dazha> = Registered::new();
    match name {
        chexuan::Chexuan::NAME => Some(&CHEXUAN),
        dazha::Dazha::NAME => Some(&DAZHA),
        _ => None,
    }
}
