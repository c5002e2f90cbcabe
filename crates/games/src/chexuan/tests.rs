//! Whole hands driven through the `Game` interface: the seed's settlement examples, betting,
//! escapes and views, and a long random run that checks the invariants after every step.

use crate::engine::{coins_at_table, parse_options, view_json};
use crate::event_check::{EventCheck, Plan, play_match};
use crate::test_rng::Rng;
use std::collections::HashSet;

use serde_json::{Value, json};

use super::*;
use crate::cards::canonical;
use crate::engine::{HandResult, RuleErrorKind, Visibility};

const T0: i64 = 1_700_000_000_000;

fn ctx(now_ms: i64) -> Ctx {
    Ctx { now_ms }
}

pub(super) fn opts(raw: Value) -> Options {
    parse_options::<Chexuan>(3, &raw).expect("valid options")
}

/// Every card mentioned anywhere in a JSON value.
fn cards_in(v: &Value) -> Vec<Card> {
    match v {
        Value::String(s) => Card::parse(s).into_iter().collect(),
        Value::Array(a) => a.iter().flat_map(cards_in).collect(),
        Value::Object(o) => o.values().flat_map(cards_in).collect(),
        _ => Vec::new(),
    }
}

/// A match together with the wallets, the house and the escrow its money moves, and the cards
/// each seat has been shown; every step is checked against the invariants.
pub(super) struct Table {
    pub(super) state: State,
    wallets: Vec<i64>,
    scores: Vec<i64>,
    house: i64,
    escrow: i64,
    total: i64,
    now: i64,
    stakes: i64,
    payouts: i64,
    forfeits: i64,
    wallet_change: Vec<i64>,
    /// Cards shown to each seat by this hand's events; index `n` is the spectators.
    known: Vec<HashSet<Card>>,
    results: Vec<HandResult>,
}

impl Table {
    pub(super) fn new(opts: Options, wallets: Vec<i64>) -> Table {
        let n = wallets.len();
        Table {
            state: Chexuan::new_match(opts, n),
            total: wallets.iter().sum(),
            wallets,
            scores: vec![0; n],
            house: 0,
            escrow: 0,
            now: T0,
            stakes: 0,
            payouts: 0,
            forfeits: 0,
            wallet_change: vec![0; n],
            known: vec![HashSet::new(); n + 1],
            results: Vec::new(),
        }
    }

    fn n(&self) -> usize {
        self.wallets.len()
    }

    pub(super) fn hand(&self) -> &Hand {
        self.state.hand().expect("a hand")
    }

    pub(super) fn deal(&mut self, deck: Vec<Card>) -> Outcome {
        let start = HandStart {
            deck,
            ctx: ctx(self.now),
            wallets: self.wallets.clone(),
            scores: self.scores.clone(),
        };
        self.known = vec![HashSet::new(); self.n() + 1];
        let out = Chexuan::start_hand(&mut self.state, start);
        self.absorb(&out);
        self.check();
        out
    }

    fn try_act(&mut self, seat: SeatNo, action: Action) -> Result<Outcome, RuleError> {
        let before = serde_json::to_string(&self.state).unwrap();
        let sent = cards_in(&serde_json::to_value(&action).unwrap());
        match Chexuan::apply(&mut self.state, seat, action, ctx(self.now)) {
            Ok(out) => {
                self.absorb(&out);
                self.check();
                Ok(out)
            }
            Err(e) => {
                assert_eq!(
                    before,
                    serde_json::to_string(&self.state).unwrap(),
                    "a refused action leaves the state unchanged"
                );
                crate::engine::checks::refusal::<Chexuan>(&e);
                self.check_secret_free(seat, &e.detail);
                self.check_secret_free(seat, &e.detail_zh);
                for c in &e.cards {
                    assert!(sent.contains(c), "{} names {c}, which was not sent", e.rule);
                }
                Err(e)
            }
        }
    }

    pub(super) fn act(&mut self, seat: SeatNo, action: Action) -> Outcome {
        self.try_act(seat, action.clone())
            .unwrap_or_else(|e| panic!("{action:?} by seat {seat}: {e}"))
    }

    pub(super) fn refuse(&mut self, seat: SeatNo, action: Action) -> RuleError {
        self.try_act(seat, action.clone())
            .err()
            .unwrap_or_else(|| panic!("{action:?} by seat {seat} should be refused"))
    }

    /// The seat leaves with its wallet as the table knows it (nothing spent elsewhere).
    fn leave(&mut self, seat: SeatNo) -> Outcome {
        let wallet = self.wallets[seat];
        self.leave_with(seat, wallet)
    }

    /// The seat leaves with `wallet` coins left in its wallet.
    fn leave_with(&mut self, seat: SeatNo, wallet: i64) -> Outcome {
        let out = Chexuan::leave(&mut self.state, seat, ctx(self.now), wallet);
        self.absorb(&out);
        self.check();
        out
    }

    pub(super) fn bobos(&mut self, amounts: &[i64]) {
        for (seat, &amount) in amounts.iter().enumerate() {
            if amount > 0 {
                self.act(seat, Action::SetBobo { amount });
            }
        }
    }

    pub(super) fn turn(&self) -> SeatNo {
        let to_act = Chexuan::to_act(&self.state);
        assert_eq!(to_act.len(), 1, "one seat speaks at a time: {to_act:?}");
        to_act[0]
    }

    fn absorb(&mut self, out: &Outcome) {
        for m in &out.money {
            match *m {
                Money::Stake { seat, amount } => {
                    assert!(amount > 0 && self.wallets[seat] >= amount, "{m:?}");
                    self.wallets[seat] -= amount;
                    self.escrow += amount;
                    self.stakes += amount;
                    self.wallet_change[seat] -= amount;
                }
                Money::Payout { seat, amount } => {
                    assert!(amount > 0 && self.escrow >= amount, "{m:?}");
                    self.escrow -= amount;
                    self.wallets[seat] += amount;
                    self.payouts += amount;
                    self.wallet_change[seat] += amount;
                }
                Money::Forfeit { amount, .. } => {
                    assert!(amount > 0 && self.escrow >= amount, "{m:?}");
                    self.escrow -= amount;
                    self.house += amount;
                    self.forfeits += amount;
                }
                Money::Penalty { seat, amount } => {
                    assert!(amount > 0 && self.wallets[seat] >= amount, "{m:?}");
                    self.wallets[seat] -= amount;
                    self.house += amount;
                    self.wallet_change[seat] -= amount;
                }
            }
        }
        assert_eq!(
            self.wallets.iter().sum::<i64>() + self.house + self.escrow,
            self.total,
            "wallets + house + escrow never change in total"
        );
        let n = self.n();
        for e in &out.events {
            let to: Vec<usize> = match &e.to {
                Visibility::All => (0..=n).collect(),
                Visibility::Seats(s) => s.clone(),
            };
            for v in to {
                self.known[v].extend(cards_in(&e.data));
            }
        }
        if let Some(r) = &out.hand_end {
            assert_eq!(self.escrow, 0, "the escrow is empty after a hand");
            assert_eq!(
                self.stakes,
                self.payouts + self.forfeits,
                "stakes = payouts + forfeits"
            );
            assert_eq!(
                r.coins, self.wallet_change,
                "coins are the net wallet changes"
            );
            assert_eq!(r.units, vec![0; n]);
            assert_eq!(r.hand_no, self.state.hand_no);
            let escape = &r.detail["escape"];
            if escape.is_null() {
                assert_eq!(
                    r.points.iter().sum::<i64>(),
                    0,
                    "points are zero-sum: {r:?}"
                );
                assert_eq!(r.coins.iter().sum::<i64>(), 0, "coins are zero-sum: {r:?}");
            } else {
                let e = escape["seat"].as_u64().unwrap() as usize;
                let bonus = escape["bonus_points"].as_i64().unwrap();
                assert!(r.points[e] <= 0);
                for s in (0..n).filter(|&s| s != e) {
                    assert!(r.points[s] == 0 || r.points[s] == bonus, "{r:?}");
                    assert_eq!(r.coins[s], 0);
                }
            }
            for (s, p) in r.points.iter().enumerate() {
                self.scores[s] += p;
            }
            self.stakes = 0;
            self.payouts = 0;
            self.forfeits = 0;
            self.wallet_change = vec![0; n];
            self.results.push(r.clone());
        }
    }

    /// The cards `viewer` may see now: its own hidden cards, every face-up card and the hands
    /// revealed at a showdown.
    fn allowed(&self, viewer: Option<SeatNo>) -> HashSet<Card> {
        let mut ok = HashSet::new();
        if let Some(h) = self.state.hand() {
            for (s, sh) in h.seats.iter().enumerate() {
                ok.extend(&sh.face_up);
                if viewer == Some(s) || h.revealed(s) {
                    ok.extend(&sh.hidden);
                }
            }
        }
        ok
    }

    fn check_secret_free(&self, seat: SeatNo, text: &str) {
        for c in deck_cards() {
            if !self.allowed(Some(seat)).contains(&c) {
                assert!(!text.contains(&c.to_string()), "{text:?} names {c}");
            }
        }
    }

    fn check(&self) {
        let n = self.n();
        if let Some(h) = self.state.hand() {
            let held: Vec<Card> = h.seats.iter().flat_map(|s| s.cards()).collect();
            assert_eq!(
                canonical(&held),
                canonical(&h.deck[..h.dealt]),
                "every dealt card is held exactly once"
            );
            assert_eq!(canonical(&h.deck), canonical(&deck_cards()));
        }
        for v in (0..n).map(Some).chain([None]) {
            let idx = v.unwrap_or(n);
            let allowed = self.allowed(v);
            for c in cards_in(&view_json::<Chexuan>(&self.state, v)) {
                assert!(
                    self.known[idx].contains(&c),
                    "view {v:?} shows {c} never dealt to it"
                );
                assert!(allowed.contains(&c), "view {v:?} shows {c}");
            }
            for c in &self.known[idx] {
                assert!(allowed.contains(c), "events showed {c} to {v:?}");
            }
        }
        for s in 0..n {
            assert!(
                cards_in(&json!(Chexuan::legal_actions(&self.state, s))).is_empty(),
                "legal actions never name cards"
            );
        }
    }
}

/// The seat's legal actions as the JSON a client receives.
pub(super) fn legal(state: &State, seat: SeatNo) -> Vec<Value> {
    Chexuan::legal_actions(state, seat)
        .iter()
        .map(|a| serde_json::to_value(a).unwrap())
        .collect()
}

pub(super) fn cards(v: &[&str]) -> Vec<Card> {
    v.iter().map(|c| Card::parse(c).unwrap()).collect()
}

pub(super) fn split_of(hand: &[Card]) -> Action {
    Action::Split {
        head: [hand[0], hand[1]],
        tail: [hand[2], hand[3]],
    }
}

/// Every seat sets its bobo, everyone goes all in at the first chance, then everyone splits its
/// cards as dealt: [0..2] the head, [2..4] the tail.
fn all_in_showdown(opt: Value, bobos: &[i64], hands: &[Vec<Card>]) -> (Table, HandResult) {
    let mut t = Table::new(opts(opt), vec![1000; hands.len()]);
    t.deal(deck_for_hands(hands));
    t.bobos(bobos);
    while t.state.phase() == Phase::Betting {
        let s = t.turn();
        t.act(s, Action::AllIn {});
    }
    assert_eq!(t.state.phase(), Phase::Showdown);
    for (s, h) in hands.iter().enumerate() {
        t.act(s, split_of(h));
    }
    let r = t.results.last().cloned().expect("the hand ended");
    (t, r)
}

pub(super) fn seed_abc() -> Vec<Vec<Card>> {
    vec![
        cards(&["QH", "QD", "2D", "4S"]), // a: 天牌 / 6 points
        cards(&["8H", "8D", "2H", "5S"]), // b: 人牌 / 7 points
        cards(&["9S", "9C", "5C", "7S"]), // c: 杂对 / 2 points
    ]
}

#[test]
fn seed_example_b_takes_c_and_a_gets_nothing_in_a_whole_hand() {
    let (t, r) = all_in_showdown(json!({}), &[100, 100, 100], &seed_abc());
    assert_eq!(r.coins, vec![0, 100, -100]);
    assert_eq!(t.wallets, vec![1000, 1100, 900]);
    assert_eq!(
        r.detail["transfers"],
        json!([{ "from": 2, "to": 1, "amount": 100 }])
    );
    // b collected first, so b deals the next hand.
    assert_eq!(t.state.dealer, 1);
    assert_eq!(r.detail["next_dealer"], json!(1));
}

#[test]
fn seed_example_c_at_150_leaves_50_for_a_in_a_whole_hand() {
    let (t, r) = all_in_showdown(json!({}), &[100, 100, 150], &seed_abc());
    assert_eq!(r.coins, vec![50, 100, -150]);
    assert_eq!(t.wallets, vec![1050, 1100, 850]);
}

#[test]
fn seed_example_equal_tails_share_c_in_a_whole_hand() {
    let hands = vec![
        cards(&["10S", "10C", "2D", "5S"]),
        cards(&["4S", "4C", "2H", "5C"]),
        cards(&["9S", "9C", "3H", "7S"]),
    ];
    let (_, r) = all_in_showdown(json!({}), &[100, 100, 100], &hands);
    assert_eq!(r.coins, vec![50, 50, -100]);
}

#[test]
fn seed_example_50_200_150_in_a_whole_hand() {
    let hands = vec![
        cards(&["QH", "QD", "2D", "5S"]),
        cards(&["8H", "8D", "4S", "2H"]),
        cards(&["9S", "9C", "3H", "7S"]),
    ];
    let (t, r) = all_in_showdown(json!({ "min_bobo": 50 }), &[50, 200, 150], &hands);
    let mut transfers: Vec<(u64, u64, i64)> = r.detail["transfers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["from"].as_u64().unwrap(),
                t["to"].as_u64().unwrap(),
                t["amount"].as_i64().unwrap(),
            )
        })
        .collect();
    transfers.sort();
    assert_eq!(transfers, vec![(1, 0, 50), (2, 0, 50), (2, 1, 100)]);
    assert_eq!(r.coins, vec![100, 50, -150]);
    assert_eq!(t.wallets, vec![1100, 1050, 850]);
    // Points: base 10, ante 10: c loses 150 coins → 150 points; a and b share 150 as 100:50.
    assert_eq!(r.points, vec![100, 50, -150]);
}

#[test]
fn deck_for_hands_deals_each_seat_its_four_cards() {
    let hands = seed_abc();
    let deck = deck_for_hands(&hands);
    assert_eq!(canonical(&deck), canonical(&deck_cards()));
    let mut t = Table::new(opts(json!({})), vec![1000; 3]);
    t.deal(deck);
    t.bobos(&[100, 100, 100]);
    for (s, h) in hands.iter().enumerate() {
        assert_eq!(t.hand().seats[s].hidden, h[..2]);
    }
    // Bet and call through rounds 1 and 2 so that nobody folds before the fourth card.
    for _ in 0..2 {
        let s = t.turn();
        t.act(s, Action::Raise { to: 10 });
        for _ in 0..2 {
            let s = t.turn();
            t.act(s, Action::Call {});
        }
    }
    for (s, h) in hands.iter().enumerate() {
        assert_eq!(t.hand().seats[s].face_up, h[2..]);
    }
}

#[test]
fn the_deck_is_the_32_cards_of_the_rulings() {
    let deck = Chexuan::deck(&opts(json!({})));
    assert_eq!(deck.len(), 32);
    assert_eq!(
        canonical(&deck).windows(2).filter(|w| w[0] == w[1]).count(),
        0
    );
    assert_eq!(deck[0], Card::parse("QH").unwrap());
    assert_eq!(deck[31], Card::parse("RJ").unwrap());
}

/// Two or three seats with bobo 100 each, dealt from the rulings' order, at round 1.
pub(super) fn betting_table(seats: usize) -> Table {
    let mut t = Table::new(opts(json!({})), vec![1000; seats]);
    t.deal(deck_cards());
    t.bobos(&vec![100; seats]);
    assert_eq!(t.state.phase(), Phase::Betting);
    t
}

#[test]
fn check_is_only_allowed_while_nobody_has_bet() {
    let mut t = betting_table(2);
    // Seat 1 (after the dealer) opens.
    assert_eq!(t.turn(), 1);
    assert!(legal(&t.state, 1).contains(&json!({ "type": "check" })));
    t.act(1, Action::Raise { to: 10 });
    let e = t.refuse(0, Action::Check {});
    assert_eq!(e.kind, RuleErrorKind::Illegal);
    assert!(e.detail.contains("check"));
    assert_eq!(
        legal(&t.state, 0),
        vec![
            json!({ "type": "call", "amount": 10 }),
            json!({ "type": "raise", "min": 20, "max": 90 }),
            json!({ "type": "all_in", "amount": 90 }),
            json!({ "type": "fold" }),
        ]
    );
}

#[test]
fn raise_must_reach_level_plus_ante_and_stay_within_the_bobo() {
    let mut t = betting_table(2);
    assert_eq!(
        t.refuse(1, Action::Raise { to: 9 }).kind,
        RuleErrorKind::Illegal
    );
    assert_eq!(
        t.refuse(1, Action::Raise { to: 91 }).kind,
        RuleErrorKind::InsufficientCoins
    );
    t.act(1, Action::Raise { to: 30 });
    assert_eq!(
        t.refuse(0, Action::Raise { to: 39 }).kind,
        RuleErrorKind::Illegal
    );
    t.act(0, Action::Raise { to: 40 });
    assert_eq!(t.hand().level, 40);
    t.act(1, Action::Call {});
    // Round 2 begins: levels count only this round.
    assert_eq!(t.hand().round, 2);
    assert_eq!(t.hand().level, 0);
    assert_eq!(t.hand().seats[1].put_in, 50);
    assert_eq!(t.hand().seats[1].left, 50);
}

#[test]
fn all_in_seat_stops_betting_and_the_remaining_cards_are_dealt() {
    let mut t = Table::new(opts(json!({})), vec![1000; 3]);
    t.deal(deck_cards());
    t.bobos(&[300, 100, 300]);
    t.act(1, Action::AllIn {});
    assert!(t.hand().seats[1].all_in);
    t.act(2, Action::Call {});
    t.act(0, Action::Call {});
    // Seat 1 is all in: seats 2 and 0 bet on without it.
    assert_eq!(t.hand().round, 2);
    assert_eq!(t.turn(), 2);
    t.act(2, Action::Raise { to: 10 });
    t.act(0, Action::Call {});
    assert_eq!(t.turn(), 2);
    t.act(2, Action::AllIn {});
    assert_eq!(t.turn(), 0);
    t.act(0, Action::AllIn {});
    // Nobody can bet any more: the fourth card is dealt and the showdown begins.
    assert_eq!(t.state.phase(), Phase::Showdown);
    assert_eq!(Chexuan::to_act(&t.state), vec![0, 1, 2]);
    for s in 0..3 {
        assert_eq!(t.hand().seats[s].face_up.len(), 2);
    }
}

#[test]
fn nobody_left_to_answer_means_no_raise_but_all_in_stays_open() {
    let mut t = Table::new(opts(json!({})), vec![1000; 2]);
    t.deal(deck_cards());
    t.bobos(&[300, 100]);
    t.act(1, Action::AllIn {});
    assert_eq!(
        legal(&t.state, 0),
        vec![
            json!({ "type": "call", "amount": 90 }),
            json!({ "type": "all_in", "amount": 290 }),
            json!({ "type": "fold" })
        ]
    );
    assert_eq!(
        t.refuse(0, Action::Raise { to: 200 }).kind,
        RuleErrorKind::Illegal
    );
    t.act(0, Action::Call {});
    assert_eq!(t.state.phase(), Phase::Showdown);
}

/// The rulings' example: a (50) and c (150) both beat b, and b 敲 its whole 200 last, when
/// everyone else is already all in for less. b loses 200: 50 to a and 150 to c.
#[test]
fn all_in_past_every_other_stake_can_be_lost_to_several_winners() {
    let hands = vec![
        cards(&["QH", "QD", "2D", "5S"]), // a: 天牌 / 7 points
        cards(&["9S", "9C", "3H", "7S"]), // b: 杂对 / 0 points
        cards(&["8H", "8D", "4S", "2H"]), // c: 人牌 / 6 points
    ];
    let mut t = Table::new(opts(json!({ "min_bobo": 50 })), vec![1000; 3]);
    t.deal(deck_for_hands(&hands));
    t.bobos(&[50, 200, 150]);
    t.act(1, Action::Check {});
    t.act(2, Action::AllIn {});
    t.act(0, Action::AllIn {});
    assert!(legal(&t.state, 1).contains(&json!({ "type": "all_in", "amount": 190 })));
    t.act(1, Action::AllIn {});
    assert_eq!(t.state.phase(), Phase::Showdown);
    for (s, h) in hands.iter().enumerate() {
        t.act(s, split_of(h));
    }
    let r = t.results.last().unwrap();
    assert_eq!(r.coins, vec![100, -200, 100]);
    let from_b: Vec<Value> = r.detail["transfers"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| x["from"] == 1)
        .cloned()
        .collect();
    assert_eq!(
        from_b,
        vec![
            json!({ "from": 1, "to": 0, "amount": 50 }),
            json!({ "from": 1, "to": 2, "amount": 150 })
        ]
    );
}

#[test]
fn all_check_round_is_a_draw_that_refunds_everything() {
    let mut t = betting_table(3);
    for s in [1, 2, 0] {
        t.act(s, Action::Check {});
    }
    let r = t.results.last().unwrap();
    assert_eq!(r.detail["draw"], json!(true));
    assert_eq!(r.coins, vec![0; 3]);
    assert_eq!(r.points, vec![0; 3]);
    assert_eq!(t.wallets, vec![1000; 3]);
    assert_eq!(Chexuan::stage(&t.state), Stage::NeedsDeal);
    assert_eq!(Chexuan::phase(&t.state), "settled");
    assert_eq!(
        t.state.dealer, 0,
        "the dealer stays after a hand without showdown"
    );
}

#[test]
fn draw_in_a_later_round_refunds_earlier_bets_too() {
    let mut t = betting_table(2);
    t.act(1, Action::Raise { to: 20 });
    t.act(0, Action::Call {});
    t.act(1, Action::Check {});
    t.act(0, Action::Check {});
    let r = t.results.last().unwrap();
    assert_eq!(r.detail["draw"], json!(true));
    assert_eq!(t.wallets, vec![1000; 2]);
}

#[test]
fn a_fold_in_an_otherwise_checked_round_is_not_a_draw() {
    let mut t = betting_table(3);
    t.act(1, Action::Check {});
    t.act(2, Action::Fold {});
    t.act(0, Action::Check {});
    assert!(t.results.is_empty());
    assert_eq!(t.hand().round, 2);
}

#[test]
fn last_man_standing_wins_without_showdown_and_the_dealer_stays() {
    let mut t = betting_table(3);
    t.act(1, Action::Raise { to: 30 });
    t.act(2, Action::Fold {});
    t.act(0, Action::Fold {});
    let r = t.results.last().unwrap().clone();
    assert_eq!(r.detail["ending"], json!("uncontested"));
    // Seat 1 put in 40; each folded seat put in only its ante of 10.
    assert_eq!(r.coins, vec![-10, 20, -10]);
    assert_eq!(r.points, vec![-10, 20, -10]);
    assert!(t.hand().seats.iter().all(|s| s.face_up.is_empty()));
    assert_eq!(t.state.dealer, 0);
    // Nobody's hidden cards are revealed.
    for v in [None, Some(0), Some(2)] {
        assert_eq!(
            view_json::<Chexuan>(&t.state, v)["seats"][1]["hidden"],
            Value::Null
        );
    }
}

#[test]
fn showdown_winner_who_collected_first_deals_the_next_hand() {
    let (mut t, _) = all_in_showdown(json!({}), &[100, 100, 100], &seed_abc());
    assert_eq!(t.state.dealer, 1);
    let deck = deck_cards();
    t.deal(deck.clone());
    t.bobos(&[100, 100, 100]);
    // Dealing starts with the dealer, seat 1, one card at a time.
    assert_eq!(t.hand().seats[1].hidden, vec![deck[0], deck[3]]);
    assert_eq!(t.hand().seats[2].hidden, vec![deck[1], deck[4]]);
    assert_eq!(t.hand().seats[0].hidden, vec![deck[2], deck[5]]);
    assert_eq!(t.turn(), 2);
}

#[test]
fn seat_below_min_bobo_sits_out_and_is_not_dealt() {
    let mut t = Table::new(opts(json!({})), vec![1000, 99, 1000]);
    t.deal(deck_cards());
    assert_eq!(Chexuan::to_act(&t.state), vec![0, 2]);
    assert!(legal(&t.state, 1).is_empty());
    assert_eq!(
        t.refuse(1, Action::SetBobo { amount: 99 }).kind,
        RuleErrorKind::NotYourTurn
    );
    t.bobos(&[100, 0, 100]);
    assert!(t.hand().seats[1].hidden.is_empty());
    assert_eq!(coins_at_table::<Chexuan>(&t.state, Some(1), 1), None);
    assert_eq!(coins_at_table::<Chexuan>(&t.state, Some(0), 0), Some(90));
    assert_eq!(t.turn(), 2);
    assert_eq!(
        view_json::<Chexuan>(&t.state, Some(1))["seats"][1]["playing"],
        json!(false)
    );
}

#[test]
fn fewer_than_two_playable_seats_finish_the_match() {
    let mut t = Table::new(opts(json!({})), vec![1000, 99]);
    let out = t.deal(deck_cards());
    assert_eq!(Chexuan::stage(&t.state), Stage::Finished);
    assert_eq!(Chexuan::hand_no(&t.state), 0);
    assert!(out.money.is_empty());
    assert!(Chexuan::to_act(&t.state).is_empty());
}

#[test]
fn bobo_must_be_between_min_bobo_and_the_wallet() {
    let mut t = Table::new(opts(json!({})), vec![1000, 500]);
    t.deal(deck_cards());
    assert_eq!(
        legal(&t.state, 1),
        vec![
            json!({ "type": "set_bobo", "min": 100, "max": 500 }),
            json!({ "type": "sit_out" })
        ]
    );
    assert_eq!(
        t.refuse(1, Action::SetBobo { amount: 99 }).kind,
        RuleErrorKind::Illegal
    );
    assert_eq!(
        t.refuse(1, Action::SetBobo { amount: 501 }).kind,
        RuleErrorKind::InsufficientCoins
    );
    assert_eq!(t.refuse(1, Action::Check {}).kind, RuleErrorKind::Illegal);
    let out = t.act(1, Action::SetBobo { amount: 500 });
    assert_eq!(
        out.money,
        vec![Money::Stake {
            seat: 1,
            amount: 500
        }]
    );
    assert_eq!(Chexuan::to_act(&t.state), vec![0]);
    assert_eq!(
        t.refuse(1, Action::SetBobo { amount: 100 }).kind,
        RuleErrorKind::NotYourTurn
    );
}

#[test]
fn timeouts_sit_out_in_bobo_then_fold() {
    let mut t = Table::new(opts(json!({})), vec![1000; 3]);
    t.deal(deck_cards());
    let a = Chexuan::auto_action(&t.state, 1);
    assert_eq!(a, Action::SitOut {});
    let out = t.act(1, a);
    assert!(out.money.is_empty(), "sitting out stakes nothing");
    assert_eq!(Chexuan::to_act(&t.state), vec![0, 2]);
    t.bobos(&[100, 0, 100]);
    assert_eq!(t.state.phase(), Phase::Betting);
    assert!(
        t.hand().seats[1].hidden.is_empty(),
        "a seat sitting out is not dealt"
    );
    assert_eq!(t.hand().seats[1].put_in, 0, "nor does it post the ante");
    assert_eq!(t.turn(), 2);
    let a = Chexuan::auto_action(&t.state, 2);
    assert_eq!(a, Action::Fold {});
    t.act(2, a);
    assert_eq!(t.results.last().unwrap().coins, vec![10, 0, -10]);
}

#[test]
fn sitting_out_with_fewer_than_two_left_ends_the_hand_as_a_draw() {
    let mut t = Table::new(opts(json!({})), vec![1000; 2]);
    t.deal(deck_cards());
    t.act(0, Action::SetBobo { amount: 300 });
    let out = t.act(1, Action::SitOut {});
    assert_eq!(
        out.money,
        vec![Money::Payout {
            seat: 0,
            amount: 300
        }]
    );
    let r = out.hand_end.expect("the hand ends");
    assert_eq!(r.coins, vec![0, 0]);
    assert_eq!(r.points, vec![0, 0]);
    assert_eq!(r.detail["ending"], json!("draw"));
    assert_eq!(Chexuan::stage(&t.state), Stage::NeedsDeal);
    assert_eq!(t.state.dealer, 0);
    assert_eq!(t.wallets, vec![1000, 1000]);
}

#[test]
fn showdown_timeout_applies_the_servers_split() {
    let hands = vec![
        cards(&["2H", "2D", "7S", "8H"]),
        cards(&["QH", "7C", "8S", "JS"]),
    ];
    let mut t = Table::new(opts(json!({})), vec![1000; 2]);
    t.deal(deck_for_hands(&hands));
    t.bobos(&[100, 100]);
    t.act(1, Action::AllIn {});
    t.act(0, Action::Call {});
    for (s, h) in hands.iter().enumerate() {
        let a = Chexuan::auto_action(&t.state, s);
        let want = ranking::server_split(h.clone().try_into().unwrap());
        assert_eq!(
            a,
            Action::Split {
                head: want.head,
                tail: want.tail
            }
        );
        t.act(s, a);
    }
    // Seat 0 gets 地杠 / 地关九, seat 1 天关九 / 乌龙九: seat 0 is stronger in both halves.
    assert_eq!(t.results.last().unwrap().coins, vec![100, -100]);
}

#[test]
fn head_weaker_than_tail_is_swapped_when_split() {
    let hands = vec![
        cards(&["5S", "2H", "QH", "QD"]),
        cards(&["8H", "8D", "9S", "9C"]),
    ];
    let mut t = Table::new(opts(json!({})), vec![1000; 2]);
    t.deal(deck_for_hands(&hands));
    t.bobos(&[100, 100]);
    t.act(1, Action::AllIn {});
    t.act(0, Action::Call {});
    t.act(0, split_of(&hands[0]));
    let own = view_json::<Chexuan>(&t.state, Some(0));
    assert_eq!(own["seats"][0]["split"]["swapped"], json!(true));
    assert_eq!(own["seats"][0]["split"]["head"], json!(["QH", "QD"]));
    // Others learn only that seat 0 has split.
    let other = view_json::<Chexuan>(&t.state, Some(1));
    assert_eq!(other["seats"][0]["split_submitted"], json!(true));
    assert_eq!(other["seats"][0]["split"], Value::Null);
    t.act(1, split_of(&hands[1]));
    // 天牌 / 7 points against 人牌 / 杂对 (8H 8D / 9S 9C): heads 天 > 人, tails 7 < 杂对: a tie.
    assert_eq!(t.results.last().unwrap().coins, vec![0, 0]);
    let spectator = view_json::<Chexuan>(&t.state, None);
    assert_eq!(spectator["seats"][0]["split"]["head_name"], json!("天牌"));
    assert_eq!(spectator["seats"][1]["hidden"], json!(["8H", "8D"]));
}

#[test]
fn split_must_use_exactly_the_seats_cards() {
    let hands = seed_abc();
    let mut t = Table::new(opts(json!({})), vec![1000; 3]);
    t.deal(deck_for_hands(&hands));
    t.bobos(&[100, 100, 100]);
    for s in [1, 2, 0] {
        t.act(s, Action::AllIn {});
    }
    let h = &hands[0];
    let wrong = Action::Split {
        head: [h[0], h[1]],
        tail: [h[2], hands[1][0]],
    };
    let e = t.refuse(0, wrong);
    assert_eq!(e.kind, RuleErrorKind::Illegal);
    let twice = Action::Split {
        head: [h[0], h[0]],
        tail: [h[2], h[3]],
    };
    assert_eq!(t.refuse(0, twice).kind, RuleErrorKind::Illegal);
    assert_eq!(t.refuse(0, Action::Fold {}).kind, RuleErrorKind::Illegal);
    t.act(0, split_of(h));
    assert_eq!(t.refuse(0, split_of(h)).kind, RuleErrorKind::NotYourTurn);
}

#[test]
fn sanhua_player_gets_everything_back_at_showdown() {
    let hands = vec![
        cards(&["10S", "10H", "JS", "QH"]), // 三花十
        cards(&["3H", "RJ", "2H", "2D"]),   // 丁皇 / 地牌
        cards(&["9S", "9C", "5C", "7S"]),
    ];
    let (_, r) = all_in_showdown(json!({}), &[100, 100, 100], &hands);
    assert_eq!(r.coins, vec![0, 100, -100]);
    assert_eq!(r.detail["hands"][0]["sanhua"], json!("三花十"));
}

fn escape_table(wallets: Vec<i64>) -> Table {
    let mut t = Table::new(opts(json!({})), wallets);
    t.deal(deck_cards());
    t.bobos(&[100, 100, 100]);
    t.act(1, Action::Raise { to: 50 });
    t.act(2, Action::Call {});
    t.act(0, Action::Call {});
    assert_eq!(t.hand().pot(), 180);
    t
}

#[test]
fn escape_pays_the_table_total_from_bobo_then_wallet() {
    let mut t = escape_table(vec![1000; 3]);
    t.now += 29_999;
    let out = t.leave(2);
    assert_eq!(
        out.money,
        vec![
            Money::Forfeit {
                seat: 2,
                amount: 100
            },
            Money::Penalty {
                seat: 2,
                amount: 80
            },
            Money::Payout {
                seat: 0,
                amount: 100
            },
            Money::Payout {
                seat: 1,
                amount: 100
            },
        ]
    );
    let r = out.hand_end.unwrap();
    assert_eq!(r.coins, vec![0, 0, -180]);
    // 180 / 10 × 10; the hand lasted under 30 s: no bonus.
    assert_eq!(r.points, vec![0, 0, -180]);
    assert_eq!(t.wallets, vec![1000, 1000, 820]);
    assert_eq!(t.house, 180);
    assert_eq!(Chexuan::stage(&t.state), Stage::NeedsDeal);
    assert!(t.state.vacated[2]);
    assert_eq!(
        view_json::<Chexuan>(&t.state, None)["seats"][2]["vacated"],
        json!(true)
    );
}

#[test]
fn escape_penalty_stops_when_the_wallet_is_empty_but_points_count_the_table_total() {
    let mut t = escape_table(vec![1000, 1000, 120]);
    let out = t.leave(2);
    assert!(out.money.contains(&Money::Penalty {
        seat: 2,
        amount: 20
    }));
    assert_eq!(t.wallets[2], 0);
    // The wallet paid 120 of the table total 180; the points are 180 / 10 × 10.
    assert_eq!(out.hand_end.unwrap().points[2], -180);
}

/// The wallet the table knew at the deal was spent at another table before the escape: the
/// penalty takes what the wallet holds now, and the hand's record says what was taken.
#[test]
fn escape_penalty_takes_the_wallet_as_it_is_at_the_escape() {
    let mut t = escape_table(vec![1000; 3]);
    // Seat 2 staked 100 here; of its other 900, 880 went to another table meanwhile.
    let out = t.leave_with(2, 20);
    assert!(out.money.contains(&Money::Penalty {
        seat: 2,
        amount: 20
    }));
    let r = out.hand_end.unwrap();
    assert_eq!(
        r.coins,
        vec![0, 0, -120],
        "bobo 100 + the 20 the wallet held"
    );
    assert_eq!(r.detail["escape"]["from_bobo"], json!(100));
    assert_eq!(r.detail["escape"]["from_wallet"], json!(20));
    assert_eq!(r.detail["escape"]["table_total"], json!(180));
    assert_eq!(r.points[2], -180, "the points still count the table total");
    let out = escape_table(vec![1000; 3]).leave_with(2, 0);
    assert!(
        !out.money.iter().any(|m| matches!(m, Money::Penalty { .. })),
        "an empty wallet pays no penalty: {:?}",
        out.money
    );
}

#[test]
fn a_folded_seat_that_leaves_loses_its_stake_and_the_others_play_on() {
    let mut t = Table::new(opts(json!({})), vec![1000; 3]);
    t.deal(deck_cards());
    t.bobos(&[100, 100, 100]);
    t.act(1, Action::Raise { to: 30 });
    t.act(2, Action::Fold {});
    let out = t.leave(2);
    // Only the unused bobo goes home; the ante stays in the hand.
    assert_eq!(
        out.money,
        vec![Money::Payout {
            seat: 2,
            amount: 90
        }]
    );
    assert!(out.hand_end.is_none());
    assert_eq!(out.events[0].data, json!({ "escape": false }));
    assert!(t.state.vacated[2]);
    assert_eq!(Chexuan::stage(&t.state), Stage::InHand);
    assert_eq!(coins_at_table::<Chexuan>(&t.state, None, 2), Some(0));
    t.act(0, Action::Call {});
    assert_eq!(t.hand().round, 2);
    assert!(
        t.hand().seats[2].face_up.is_empty(),
        "nothing is dealt to the vacated seat"
    );
    assert_eq!(t.turn(), 1);
    t.act(1, Action::Raise { to: 10 });
    assert!(!Chexuan::to_act(&t.state).contains(&2));
    t.act(0, Action::Fold {});
    let r = t.results.last().unwrap();
    assert_eq!(r.detail["ending"], json!("uncontested"));
    assert_eq!(r.detail["escape"], Value::Null);
    // Seat 1 put in 50 and collects 40 from seat 0 and the folded 10 of seat 2.
    assert_eq!(r.coins, vec![-40, 50, -10]);
    assert_eq!(r.points, vec![-40, 50, -10]);
    assert_eq!(t.wallets, vec![960, 1050, 990]);
}

#[test]
fn escape_bonus_needs_the_hand_to_last_30_seconds() {
    let mut t = escape_table(vec![1000; 3]);
    t.now += 30_000;
    let r = t.leave(0).hand_end.unwrap();
    assert_eq!(r.points, vec![-180, 10, 10]);
    assert_eq!(r.detail["escape"]["bonus_points"], json!(10));
}

#[test]
fn escape_during_bobo_returns_every_bobo() {
    let mut t = Table::new(opts(json!({})), vec![1000; 3]);
    t.deal(deck_cards());
    t.act(0, Action::SetBobo { amount: 200 });
    t.act(2, Action::SetBobo { amount: 300 });
    let out = t.leave(0);
    assert_eq!(
        out.money,
        vec![
            Money::Payout {
                seat: 0,
                amount: 200
            },
            Money::Payout {
                seat: 2,
                amount: 300
            },
        ]
    );
    assert_eq!(out.hand_end.unwrap().coins, vec![0; 3]);
}

#[test]
fn leaving_between_hands_or_while_sitting_out_costs_nothing() {
    let mut t = Table::new(opts(json!({})), vec![1000, 50, 1000]);
    let out = t.leave(0);
    assert!(out.money.is_empty() && out.hand_end.is_none());
    assert_eq!(out.events.len(), 1);
    t.deal(deck_cards());
    assert!(
        !t.state.vacated[0],
        "start_hand treats every seat as present"
    );
    t.bobos(&[100, 0, 100]);
    let out = t.leave(1);
    assert!(out.money.is_empty() && out.hand_end.is_none());
    assert_eq!(Chexuan::stage(&t.state), Stage::InHand);
    assert_eq!(t.turn(), 2);
}

#[test]
fn views_hide_other_seats_hidden_cards_and_bobos_until_all_set() {
    let mut t = Table::new(opts(json!({})), vec![1000; 3]);
    t.deal(deck_cards());
    t.act(0, Action::SetBobo { amount: 150 });
    let other = view_json::<Chexuan>(&t.state, Some(1));
    assert_eq!(other["seats"][0]["bobo_set"], json!(true));
    assert_eq!(other["seats"][0]["bobo"], Value::Null);
    assert_eq!(
        view_json::<Chexuan>(&t.state, Some(0))["seats"][0]["bobo"],
        json!(150)
    );
    t.bobos(&[0, 100, 100]);
    let own = view_json::<Chexuan>(&t.state, Some(0));
    assert_eq!(
        own["seats"][0]["hidden"],
        json!(sorted(&t.hand().seats[0].hidden))
    );
    assert_eq!(own["seats"][1]["hidden"], Value::Null);
    assert_eq!(own["seats"][1]["hidden_count"], json!(2));
    assert_eq!(own["seats"][1]["bobo"], json!(100));
    assert_eq!(own["phase"], json!("betting"));
    assert_eq!(own["round"], json!(1));
    assert_eq!(own["turn"], json!(1));
    let spectator = view_json::<Chexuan>(&t.state, None);
    assert!(cards_in(&spectator).is_empty());
}

#[test]
fn hands_in_views_and_events_are_sorted_strongest_first() {
    let hands = vec![
        cards(&["9S", "QH", "5C", "2H"]),
        cards(&["8S", "8D", "4S", "2D"]),
    ];
    let mut t = Table::new(opts(json!({})), vec![1000; 2]);
    t.deal(deck_for_hands(&hands));
    t.act(0, Action::SetBobo { amount: 100 });
    let out = t.act(1, Action::SetBobo { amount: 100 });
    let dealt = out
        .events
        .iter()
        .find(|e| e.kind == "dealt" && e.seat == Some(0));
    assert_eq!(dealt.unwrap().data["cards"], json!(["QH", "9S"]));
    assert_eq!(
        view_json::<Chexuan>(&t.state, Some(0))["seats"][0]["hidden"],
        json!(["QH", "9S"])
    );
    t.act(1, Action::AllIn {});
    t.act(0, Action::Call {});
    t.act(0, split_of(&hands[0]));
    let split = &view_json::<Chexuan>(&t.state, Some(0))["seats"][0]["split"];
    assert_eq!(split["head"], json!(["QH", "9S"]));
    assert_eq!(split["head_name"], json!("奶狗"));
    assert_eq!(split["tail"], json!(["2H", "5C"]));
}

#[test]
fn not_your_turn_and_refused_actions_leave_the_state_unchanged() {
    let mut t = betting_table(3);
    let e = t.refuse(0, Action::Check {});
    assert_eq!(e.kind, RuleErrorKind::NotYourTurn);
    assert!(e.detail.contains("seat 1"));
    assert_eq!(
        t.refuse(7, Action::Fold {}).kind,
        RuleErrorKind::NotYourTurn
    );
    assert_eq!(t.refuse(1, Action::Call {}).kind, RuleErrorKind::Illegal);
    assert_eq!(
        t.refuse(1, Action::SetBobo { amount: 100 }).kind,
        RuleErrorKind::Illegal
    );
}

#[test]
fn options_have_defaults_and_ranges() {
    assert_eq!(
        parse_options::<Chexuan>(2, &json!({})).unwrap(),
        Options {
            ante: 10,
            min_bobo: 100,
            score_unit: 10
        }
    );
    assert_eq!(parse_options::<Chexuan>(2, &Value::Null).unwrap().ante, 10);
    let bad = |raw: Value, field: &str| {
        let e = parse_options::<Chexuan>(2, &raw).unwrap_err();
        assert_eq!(e.kind, RuleErrorKind::Invalid);
        assert!(e.detail.contains(field), "{raw}: {}", e.detail);
    };
    bad(json!({ "ante": 0 }), "ante");
    bad(json!({ "ante": 1_000_000_001 }), "ante");
    bad(json!({ "ante": 50, "min_bobo": 40 }), "min_bobo");
    bad(json!({ "score_unit": -1 }), "score_unit");
    bad(json!({ "turn_timeout_secs": 20 }), "turn_timeout_secs");
    bad(json!({ "ante": "ten" }), "ante");
    assert!(
        parse_options::<Chexuan>(2, &json!({ "ante": 5, "min_bobo": 5, "score_unit": 0 })).is_ok()
    );
}

#[test]
fn actions_have_the_agreed_json_shapes() {
    let parse = |v: Value| serde_json::from_value::<Action>(v);
    assert_eq!(parse(json!({ "type": "check" })).unwrap(), Action::Check {});
    assert_eq!(
        parse(json!({ "type": "all_in" })).unwrap(),
        Action::AllIn {}
    );
    assert_eq!(
        parse(json!({ "type": "raise", "to": 30 })).unwrap(),
        Action::Raise { to: 30 }
    );
    assert_eq!(
        parse(json!({ "type": "split", "head": ["QH", "QD"], "tail": ["3H", "RJ"] })).unwrap(),
        Action::Split {
            head: [Card::parse("QH").unwrap(), Card::parse("QD").unwrap()],
            tail: [Card::parse("3H").unwrap(), Card::parse("RJ").unwrap()],
        }
    );
    assert!(parse(json!({ "type": "check", "x": 1 })).is_err());
    assert!(parse(json!({ "type": "call", "amount": 5 })).is_err());
    assert!(parse(json!({ "type": "split", "head": ["QH"], "tail": ["3H", "RJ"] })).is_err());
    assert_eq!(
        serde_json::to_value(Action::SetBobo { amount: 100 }).unwrap(),
        json!({ "type": "set_bobo", "amount": 100 })
    );
    assert_eq!(
        serde_json::to_value(Action::Fold {}).unwrap(),
        json!({ "type": "fold" })
    );
}

#[test]
fn state_survives_a_json_round_trip() {
    let mut t = betting_table(3);
    t.act(1, Action::Raise { to: 20 });
    let text = serde_json::to_string(&t.state).unwrap();
    let back: State = serde_json::from_str(&text).unwrap();
    assert_eq!(serde_json::to_string(&back).unwrap(), text);
}

/// Every variant of the state's table survives a JSON round trip with its phase.
#[test]
fn state_survives_a_json_round_trip_in_every_phase() {
    fn round_trip(state: &State, phase: Phase) {
        assert_eq!(state.phase(), phase);
        let text = serde_json::to_string(state).unwrap();
        let back: State = serde_json::from_str(&text).unwrap();
        assert_eq!(serde_json::to_string(&back).unwrap(), text);
        assert_eq!(back.phase(), phase);
    }
    let mut t = Table::new(opts(json!({})), vec![1000; 3]);
    round_trip(&t.state, Phase::Waiting);
    t.deal(deck_cards());
    round_trip(&t.state, Phase::Bobo);
    let (t, _) = all_in_showdown(json!({}), &[100, 100, 100], &seed_abc());
    round_trip(&t.state, Phase::Settled);
    let mut t = Table::new(opts(json!({})), vec![0; 3]);
    t.deal(deck_cards());
    round_trip(&t.state, Phase::Finished);
}

fn shuffled_deck(rng: &mut Rng) -> Vec<Card> {
    let mut deck = deck_cards();
    let mut seed = [0u8; 32];
    for chunk in seed.chunks_mut(8) {
        chunk.copy_from_slice(&rng.next().to_le_bytes());
    }
    crate::shuffle::shuffle(&mut deck, &seed);
    deck
}

/// A legal action chosen at random from the seat's templates.
fn random_legal(t: &Table, seat: SeatNo, rng: &mut Rng) -> Action {
    let templates = legal(&t.state, seat);
    assert!(!templates.is_empty(), "a seat to act has legal actions");
    let pick = &templates[rng.below(templates.len())];
    let int = |k: &str| pick[k].as_i64().unwrap();
    match pick["type"].as_str().unwrap() {
        "set_bobo" => Action::SetBobo {
            amount: if rng.chance(50) {
                int("min")
            } else {
                rng.range(int("min"), int("max"))
            },
        },
        "raise" => Action::Raise {
            to: rng.range(int("min"), int("max")),
        },
        "split" => {
            let mut c = t.hand().seats[seat].cards();
            for i in (1..c.len()).rev() {
                c.swap(i, rng.below(i + 1));
            }
            split_of(&c)
        }
        other => serde_json::from_value(json!({ "type": other })).unwrap(),
    }
}

/// Any action at all, legal or not, for any seat.
pub(super) fn random_any(rng: &mut Rng, seats: usize) -> (SeatNo, Action) {
    let seat = rng.below(seats + 1);
    let deck = deck_cards();
    let mut card = || deck[rng.below(32)];
    let cards = [card(), card(), card(), card()];
    let amount = rng.range(-10, 3000);
    let action = match rng.below(7) {
        0 => Action::SetBobo { amount },
        1 => Action::Check {},
        2 => Action::Raise { to: amount },
        3 => Action::Call {},
        4 => Action::AllIn {},
        5 => Action::Fold {},
        _ => Action::Split {
            head: [cards[0], cards[1]],
            tail: [cards[2], cards[3]],
        },
    };
    (seat, action)
}

#[test]
fn random_hands_conserve_coins_cards_points_and_secrecy() {
    let mut rng = Rng(0x5eed_c4e5);
    let mut hands = 0;
    let mut endings = std::collections::BTreeMap::<String, usize>::new();
    while hands < 1_200 {
        let seats = rng.range(2, 6) as usize;
        let ante = rng.range(1, 20);
        let min_bobo = rng.range(ante, ante * 15);
        let options =
            opts(json!({ "ante": ante, "min_bobo": min_bobo, "score_unit": rng.range(0, 20) }));
        let wallets = (0..seats).map(|_| rng.range(0, min_bobo * 8)).collect();
        let mut t = Table::new(options, wallets);
        for _ in 0..10 {
            if Chexuan::stage(&t.state) != Stage::NeedsDeal {
                break;
            }
            // Between hands a seat may leave for free; the service refills it before dealing.
            if rng.chance(5) {
                let out = t.leave(rng.below(seats));
                assert!(out.money.is_empty() && out.hand_end.is_none());
            }
            let deck = shuffled_deck(&mut rng);
            t.deal(deck);
            if Chexuan::stage(&t.state) == Stage::Finished {
                break;
            }
            let hand_no = Chexuan::hand_no(&t.state);
            let mut steps = 0;
            while Chexuan::stage(&t.state) == Stage::InHand {
                steps += 1;
                assert!(steps < 500, "a hand ends");
                t.now += rng.range(0, 20_000);
                let to_act = Chexuan::to_act(&t.state);
                assert!(!to_act.is_empty(), "a hand in play waits for someone");
                if rng.chance(1) {
                    let seat = rng.below(seats);
                    let folded = t.hand().seats[seat].folded;
                    let out = t.leave(seat);
                    if out.hand_end.is_none() {
                        // Sitting out it is free; folded, the unused bobo goes home.
                        assert!(
                            out.money.iter().all(|m| folded
                                && matches!(m, Money::Payout { seat: s, .. } if *s == seat)),
                            "{:?}",
                            out.money
                        );
                    }
                    continue;
                }
                if rng.chance(10) {
                    let (seat, action) = random_any(&mut rng, seats);
                    // Accepted or refused, the table checks every invariant.
                    let _ = t.try_act(seat, action);
                    continue;
                }
                let seat = to_act[rng.below(to_act.len())];
                let action = if rng.chance(15) {
                    Chexuan::auto_action(&t.state, seat)
                } else {
                    random_legal(&t, seat, &mut rng)
                };
                t.act(seat, action);
            }
            assert_eq!(t.results.last().map(|r| r.hand_no), Some(hand_no));
            let ending = t.results.last().unwrap().detail["ending"].to_string();
            *endings.entry(ending).or_default() += 1;
            hands += 1;
        }
    }
    // The run reached every way a hand can end.
    for ending in ["showdown", "uncontested", "draw", "escape"] {
        assert!(
            endings.get(&format!("\"{ending}\"")).copied().unwrap_or(0) > 0,
            "{endings:?}"
        );
    }
}

// ---------------------------------------------------------------- bots

#[test]
fn bot_sets_a_bobo_its_wallet_affords_and_keeps_most_of_a_big_wallet() {
    let mut t = Table::new(opts(json!({"min_bobo": 100})), vec![1000, 150, 100_000]);
    t.deal(deck_cards());
    let amounts: Vec<Action> = (0..3).map(|s| Chexuan::bot_action(&t.state, s)).collect();
    assert_eq!(
        amounts,
        vec![
            Action::SetBobo { amount: 250 },
            Action::SetBobo { amount: 100 },
            Action::SetBobo { amount: 300 },
        ]
    );
    for (s, a) in amounts.into_iter().enumerate() {
        t.act(s, a);
    }
    assert_eq!(t.state.phase(), Phase::Betting);
}

/// Two seats with bobo 100, seat 0 dealing: seat 1 speaks first in every round.
fn two_seat_hand(seat0: &[&str], seat1: &[&str]) -> Table {
    let mut t = Table::new(opts(json!({})), vec![1000; 2]);
    t.deal(deck_for_hands(&[cards(seat0), cards(seat1)]));
    t.bobos(&[100, 100]);
    t
}

#[test]
fn bot_folds_a_weak_hand_facing_a_big_raise_and_checks_it_when_free() {
    // Seat 0: 红10 + 黑J, one point.
    let mut t = two_seat_hand(&["10H", "JS", "5S", "7C"], &["QH", "QD", "2H", "2D"]);
    assert_eq!(t.turn(), 1);
    t.act(1, Action::Raise { to: 60 });
    assert_eq!(Chexuan::bot_action(&t.state, 0), Action::Fold {});
    // Nobody has bet: the same weak hand checks.
    let t = two_seat_hand(&["QH", "QD", "2H", "2D"], &["10H", "JS", "5S", "7C"]);
    assert_eq!(Chexuan::bot_action(&t.state, 1), Action::Check {});
}

#[test]
fn bot_raises_with_a_strong_hand_and_calls_a_small_bet_with_a_middling_one() {
    // Seat 1 holds 天牌: it opens.
    let t = two_seat_hand(&["5S", "9C", "3H", "7C"], &["QH", "QD", "2H", "2D"]);
    assert_eq!(Chexuan::bot_action(&t.state, 1), Action::Raise { to: 20 });
    // Seat 0 holds 红2 + 黑5, seven points, a middling hand: it calls 10 but not 60.
    let mut t = two_seat_hand(&["2H", "5S", "3H", "7C"], &["QH", "QD", "10H", "10D"]);
    t.act(1, Action::Raise { to: 10 });
    assert_eq!(Chexuan::bot_action(&t.state, 0), Action::Call {});
    let mut t = two_seat_hand(&["2H", "5S", "3H", "7C"], &["QH", "QD", "10H", "10D"]);
    t.act(1, Action::Raise { to: 60 });
    assert_eq!(Chexuan::bot_action(&t.state, 0), Action::Fold {});
}

#[test]
fn bot_splits_its_best_arrangement_at_the_showdown() {
    // 红Q 红Q 黑8 黑9: 天牌 with 7 points, or 奶狗 with 天杠; the tail decides, so 奶狗/天杠.
    let mut t = two_seat_hand(&["QH", "QD", "8S", "9S"], &["2H", "2D", "4H", "4D"]);
    while t.state.phase() == Phase::Betting {
        let s = t.turn();
        let action = if legal(&t.state, s).contains(&json!({ "type": "check" })) {
            Action::Raise { to: 10 }
        } else {
            Action::Call {}
        };
        t.act(s, action);
    }
    assert_eq!(t.state.phase(), Phase::Showdown);
    let Action::Split { head, tail } = Chexuan::bot_action(&t.state, 0) else {
        panic!("a split at the showdown");
    };
    let name = |c: [Card; 2]| ranking::rank_pair(c[0], c[1]).1;
    assert_eq!((name(head), name(tail)), ("奶狗".into(), "天杠".into()));
    t.act(0, Action::Split { head, tail });
}

/// The state with cards `seat` cannot see moved: another seat's hidden card swapped with an
/// undealt card or with a third seat's hidden card.
fn hide_differently(st: &State, seat: SeatNo, rng: &mut Rng) -> State {
    let mut other = st.clone();
    let super::Table::InHand { hand: h, .. } = &mut other.table else {
        return other;
    };
    let mut slots: Vec<(Option<SeatNo>, usize)> =
        (h.dealt..h.deck.len()).map(|k| (None, k)).collect();
    for (s, sh) in h.seats.iter().enumerate() {
        if s != seat && !h.revealed(s) {
            slots.extend((0..sh.hidden.len()).map(|i| (Some(s), i)));
        }
    }
    if slots.len() < 2 {
        return other;
    }
    let a = slots.swap_remove(rng.below(slots.len()));
    let b = slots[rng.below(slots.len())];
    let get = |h: &Hand, (s, i): (Option<SeatNo>, usize)| match s {
        Some(s) => h.seats[s].hidden[i],
        None => h.deck[i],
    };
    let (ca, cb) = (get(h, a), get(h, b));
    for ((s, i), c) in [(a, cb), (b, ca)] {
        match s {
            Some(s) => h.seats[s].hidden[i] = c,
            None => h.deck[i] = c,
        }
    }
    other
}

// ---------------------------------------------------------------- event schemas

/// A random legal move of `seat`: the bot's, or one of its legal actions made concrete.
fn random_move(st: &State, seat: SeatNo, rng: &mut Rng) -> Action {
    if rng.chance(40) {
        return Chexuan::bot_action(st, seat);
    }
    let legal = Chexuan::legal_actions(st, seat);
    if let Legal::SetBobo { min, max } = legal[0] {
        // Sitting out now and then, not every other hand.
        return if rng.chance(10) {
            Action::SitOut {}
        } else {
            Action::SetBobo {
                amount: rng.range(min, max),
            }
        };
    }
    match &legal[rng.below(legal.len())] {
        Legal::SetBobo { .. } | Legal::SitOut => unreachable!("the 簸簸 phase is answered above"),
        Legal::Check => Action::Check {},
        Legal::Call { .. } => Action::Call {},
        Legal::Raise { min, max } => Action::Raise {
            to: rng.range(*min, *max),
        },
        Legal::AllIn { .. } => Action::AllIn {},
        Legal::Fold => Action::Fold {},
        Legal::Split => Chexuan::auto_action(st, seat),
    }
}

/// Whole matches of random legal moves, escapes and leaves: every event's kind has a schema in
/// `event_schemas`, its data is valid against it, and every kind is seen. The last deal of each
/// match finds too few wallets holding `min_bobo`, which ends it.
#[test]
fn every_event_of_random_matches_matches_its_schema() {
    let mut check = EventCheck::new::<Chexuan>();
    let mut rng = Rng(7);
    for m in 0..20 {
        let seats = 2 + m % 5;
        let options = opts(json!({ "ante": rng.range(1, 20), "min_bobo": 100 }));
        let hands = 4 + rng.below(4) as u32;
        let plan = Plan {
            options: &options,
            seats,
            hands,
            leaves: true,
        };
        play_match::<Chexuan>(&mut check, &mut rng, plan, random_move, |n, rng| {
            (0..seats)
                .map(|_| {
                    if n + 1 < hands {
                        rng.range(50, 3_000)
                    } else {
                        0
                    }
                })
                .collect()
        });
    }
    check.all_seen(&[]);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig {
        cases: 64,
        ..proptest::prelude::ProptestConfig::default()
    })]

    /// Bots in every seat: every bot action is accepted, every hand ends, coins, cards and
    /// points are conserved and secrets kept (the `Table` checks after every step), and a
    /// seat's bot decides the same when only cards it cannot see are moved.
    #[test]
    fn bots_play_whole_hands_legally_and_see_only_their_own_cards(
        seed in proptest::prelude::any::<u64>(),
    ) {
        let mut rng = Rng(seed);
        let seats = rng.range(2, 6) as usize;
        let ante = rng.range(1, 20);
        let min_bobo = rng.range(ante, ante * 15);
        let options = opts(json!({ "ante": ante, "min_bobo": min_bobo }));
        let wallets = (0..seats).map(|_| rng.range(0, min_bobo * 8)).collect();
        let mut t = Table::new(options, wallets);
        for _ in 0..6 {
            if Chexuan::stage(&t.state) != Stage::NeedsDeal {
                break;
            }
            t.deal(shuffled_deck(&mut rng));
            let mut steps = 0;
            while Chexuan::stage(&t.state) == Stage::InHand {
                steps += 1;
                assert!(steps < 500, "a hand ends");
                let seat = Chexuan::to_act(&t.state)[0];
                let action = Chexuan::bot_action(&t.state, seat);
                let blind = hide_differently(&t.state, seat, &mut rng);
                assert_eq!(Chexuan::bot_action(&blind, seat), action, "hidden cards moved");
                t.act(seat, action);
            }
        }
    }
}
