//! Golden-JSON recording shared by the engines' tests: the text a client receives for every
//! view and legal-action list, and one line per event and settlement.

use crate::engine::{Game, Outcome};

/// Every view (each seat and a spectator) and every seat's legal actions, one JSON text a line.
/// Legal actions are written as JSON values (sorted keys): a tagged enum writes `type` first,
/// which changes no field or value of the JSON the contract was written against.
pub fn render<G: Game>(state: &G::State, seats: usize, text: &mut String) {
    for viewer in (0..seats).map(Some).chain([None]) {
        *text += &serde_json::to_string(&G::view(state, viewer)).unwrap();
        text.push('\n');
    }
    for seat in 0..seats {
        let legal = serde_json::to_value(G::legal_actions(state, seat)).unwrap();
        *text += &legal.to_string();
        text.push('\n');
    }
}

/// The events and the settlement of one step, one line each.
pub fn record(out: &Outcome, text: &mut String) {
    record_events(out, text);
    record_end(out, text);
}

pub fn record_events(out: &Outcome, text: &mut String) {
    for e in &out.events {
        *text += &format!("event {} {:?} {:?} {}\n", e.kind, e.seat, e.to, e.data);
    }
}

pub fn record_end(out: &Outcome, text: &mut String) {
    if let Some(r) = &out.hand_end {
        *text += &format!(
            "hand_end {} {:?} {:?} {:?} {}\n",
            r.hand_no, r.points, r.units, r.coins, r.detail
        );
    }
}

/// Reads `json`, a state as an earlier version stored it, and checks that it saves back byte
/// for byte.
pub fn stored<G: Game>(json: &str) -> G::State {
    let state: G::State = serde_json::from_str(json).unwrap();
    assert_eq!(serde_json::to_string(&state).unwrap(), json);
    state
}
