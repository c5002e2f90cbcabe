//! What a table's steps leave to write, and what was read for them: the step's output and its
//! one given besides the table, the input and the clock (`step.rs`); the writer writes the
//! one (`write.rs`), the executor reads the other (`exec.rs`).

use std::collections::HashMap;

use super::*;
use crate::ledger::Movement;

/// The wallets and 积分 (in the table's game) of its players as a transaction read them,
/// locked until it ends (or as the process knows them, assumed and checked by the statement):
/// what the steps may use, with the movements and 积分 they leave pending added.
#[derive(Clone, Debug, Default)]
pub struct Reads {
    pub wallets: HashMap<Uuid, i64>,
    pub scores: HashMap<Uuid, i64>,
}

/// Everything the steps since the table was loaded (or last saved) write, in order.
#[derive(Clone, Default)]
pub(super) struct Pending {
    pub events: Vec<PendingEvent>,
    pub actions: Vec<PendingAction>,
    /// Seats whose flags (托管, timeouts in a row) changed.
    pub dirty_seats: Vec<SeatNo>,
    /// Ledger movements, written as transactions in this order.
    pub money: Vec<Movement>,
    /// Hands ended: their `hands` rows' results and their 积分.
    pub ends: Vec<PendingEnd>,
    /// Hands dealt: their `hands` rows.
    pub deals: Vec<PendingHand>,
}

#[derive(Clone)]
pub(super) struct PendingEvent {
    pub hand_no: i32,
    pub kind: String,
    pub seat: Option<i32>,
    pub data: Value,
    pub visible_to: Option<Vec<Uuid>>,
}

#[derive(Clone)]
pub(super) struct PendingAction {
    pub hand_no: i32,
    pub seat: i32,
    pub kind: &'static str,
    pub action: Option<Value>,
    pub now_ms: i64,
}

/// A hand's end: its `hands` row's result and each seat's 积分 for it (the hand's settlement
/// is a movement of its own).
#[derive(Clone)]
pub(super) struct PendingEnd {
    pub hand_no: i32,
    pub result: Value,
    /// Each seat's player in the hand ([`Table::hand_player`]; none: nobody) and its 积分.
    pub users: Vec<Option<Uuid>>,
    pub points: Vec<i64>,
}

/// The `hands` row of a hand dealt.
#[derive(Clone)]
pub(super) struct PendingHand {
    pub hand_no: i32,
    /// Revealed with the replay (none for a deck fixed by the creator).
    pub seed: Option<Vec<u8>>,
    pub commitment: String,
    pub deck: Value,
    pub start_state: String,
    pub start_ms: i64,
    /// The players dealt in, by seat.
    pub users: Vec<Uuid>,
    /// How many of the pending movements and ends came before the deal: the row records
    /// each player's wallet and 积分 as the statement leaves them, less what comes after.
    pub money_before: usize,
    pub ends_before: usize,
    /// The wallets and 积分 the deal was made from, by seat, where the game's deal reads them
    /// ([`games::Game::DEAL_READS_PURSE`]): recorded as they are, since the replay deals from
    /// them (a concurrent hand end elsewhere may have moved the rows since they were read).
    pub dealt_from: Option<(Vec<i64>, Vec<i64>)>,
}
