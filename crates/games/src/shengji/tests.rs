// Fixtures are written with `hand!`, which builds a Vec: borrowing one reads best.
#![allow(clippy::useless_vec)]

use proptest::prelude::*;
use serde_json::Value;

use super::*;
use crate::cards::canonical;
use crate::engine::{DynGame, HandResult, Registered, Visibility};
use crate::event_check::{EventCheck, Plan, play_match};
use crate::hand;
use crate::test_rng::Rng;
use crate::trick::{Formation, best_follow, classify, is_legal_follow};

pub(super) fn at(ms: i64) -> Ctx {
    Ctx { now_ms: ms }
}

fn c(s: &str) -> Card {
    Card::parse(s).unwrap()
}

/// A deck in dealing order in which each seat gets the listed cards (the rest shuffled by
/// `seed`): card i goes to seat i mod 4.
pub(super) fn rigged(wants: [&[&str]; 4], seed: u64) -> Vec<Card> {
    let mut rest = Shengji::deck(&Options::default());
    let mut hands: [Vec<Card>; 4] = Default::default();
    for (seat, want) in wants.iter().enumerate() {
        for w in *want {
            let i = rest
                .iter()
                .position(|&x| x == c(w))
                .expect("card left in deck");
            hands[seat].push(rest.swap_remove(i));
        }
    }
    let mut rng = Rng(seed);
    for i in (1..rest.len()).rev() {
        rest.swap(i, rng.below(i + 1));
    }
    for hand in &mut hands {
        while hand.len() < 54 {
            hand.push(rest.pop().unwrap());
        }
    }
    (0..216).map(|i| hands[i % 4][i / 4]).collect()
}

pub(super) fn shuffled(seed: u64) -> Vec<Card> {
    rigged([&[], &[], &[], &[]], seed)
}

pub(super) fn started(deck: Vec<Card>) -> State {
    let mut s = Shengji::new_match(Options::default(), 4);
    Shengji::start_hand(
        &mut s,
        HandStart {
            deck,
            ctx: at(0),
            wallets: vec![0; 4],
            scores: vec![0; 4],
        },
    );
    s
}

fn declare(s: &mut State, seat: SeatNo, cards: &[&str]) -> Result<Outcome, RuleError> {
    let cards = cards.iter().map(|x| c(x)).collect();
    Shengji::apply(s, seat, Action::Declare { cards }, at(1))
}

fn pass(s: &mut State, seat: SeatNo) {
    Shengji::apply(s, seat, Action::Pass {}, at(1)).unwrap();
}

pub(super) fn playing(s: &State) -> &Playing {
    match &s.table.hand().unwrap().phase {
        Phase::Playing(p) => p,
        Phase::Declaring(_) => panic!("still declaring"),
    }
}

/// Plays automatic actions until the hand ends; returns its result.
fn play_out(s: &mut State) -> HandResult {
    let mut t = 10;
    loop {
        let seat = Shengji::to_act(s)[0];
        let a = Shengji::auto_action(s, seat);
        t += 1;
        let out = Shengji::apply(s, seat, a, at(t)).expect("auto action accepted");
        if let Some(r) = out.hand_end {
            return r;
        }
    }
}

#[test]
fn the_deck_is_four_decks_with_jokers_and_card_i_goes_to_seat_i_mod_4() {
    let deck = Shengji::deck(&Options::default());
    assert_eq!(deck.len(), 216);
    assert_eq!(deck.iter().filter(|&&x| x == c("QH")).count(), 4);
    assert_eq!(deck.iter().filter(|&&x| x == c("RJ")).count(), 4);
    let d = shuffled(3);
    let s = started(d.clone());
    let h = s.table.hand().unwrap();
    for seat in 0..4 {
        let dealt: Vec<Card> = d.iter().skip(seat).step_by(4).copied().collect();
        assert_eq!(canonical(&h.hands[seat]), canonical(&dealt));
    }
}

#[test]
fn overriding_needs_more_cards_and_equal_counts_keep_the_first() {
    let mut s = started(rigged(
        [&["2H"], &["2S", "2S"], &["2D", "2D", "2D"], &["2C", "2C"]],
        1,
    ));
    declare(&mut s, 0, &["2H"]).unwrap();
    declare(&mut s, 1, &["2S", "2S"]).unwrap();
    let err = declare(&mut s, 2, &["2D", "2D"]).unwrap_err();
    assert!(err.detail.contains("show more"), "{err}");
    declare(&mut s, 2, &["2D", "2D", "2D"]).unwrap();
    let err = declare(&mut s, 3, &["2C", "2C"]).unwrap_err();
    assert_eq!(err.kind, crate::engine::RuleErrorKind::Illegal);
    pass(&mut s, 3);
    pass(&mut s, 0);
    pass(&mut s, 1);
    let p = playing(&s);
    assert_eq!(p.trump, Suit::D);
    assert_eq!(p.dealer, 2, "反底反桩: hand 1's final declarer deals");
    assert_eq!(Shengji::to_act(&s), vec![2]);
}

#[test]
fn a_declaration_must_be_identical_twos_held() {
    let mut s = started(rigged([&["2H", "2S", "3H", "3H"], &[], &[], &[]], 2));
    for bad in [
        &["2H", "2S"][..],
        &["3H", "3H"],
        &["2H", "2H", "2H", "2H", "2H"],
    ] {
        assert!(declare(&mut s, 0, bad).is_err(), "{bad:?}");
    }
    let held = s.table.hand().unwrap().hands[0]
        .iter()
        .filter(|&&x| x == c("2D"))
        .count();
    if held == 0 {
        assert!(
            declare(&mut s, 0, &["2D"])
                .unwrap_err()
                .detail
                .contains("hold")
        );
    }
}

#[test]
fn no_seat_may_override_its_own_declaration() {
    let d = declare::Declaring {
        turn: 1,
        passes: 0,
        standing: Some(Declaration {
            seat: 1,
            suit: Suit::H,
            count: 1,
        }),
    };
    let hand = hand!["2H", "2H", "2S", "2S", "2S"];
    assert!(declare::options(&d, &hand, 1).is_empty(), "不能自反主");
    assert_eq!(
        declare::options(&d, &hand, 2),
        vec![(Suit::S, vec![2, 3]), (Suit::H, vec![2])]
    );
}

#[test]
fn a_seat_that_passed_may_declare_later_and_three_passes_end_the_phase() {
    let mut s = started(rigged([&["2C", "2C"], &["2H"], &[], &[]], 4));
    pass(&mut s, 0);
    declare(&mut s, 1, &["2H"]).unwrap();
    pass(&mut s, 2);
    pass(&mut s, 3);
    declare(&mut s, 0, &["2C", "2C"]).unwrap();
    pass(&mut s, 1);
    pass(&mut s, 2);
    assert_eq!(Shengji::phase(&s), "declaring");
    pass(&mut s, 3);
    assert_eq!(Shengji::phase(&s), "playing");
    assert_eq!(playing(&s).trump, Suit::C);
    assert_eq!(playing(&s).dealer, 0);
}

#[test]
fn four_passes_first_make_spades_trump_and_seat_0_deal() {
    let mut s = started(shuffled(5));
    for seat in 0..4 {
        assert_eq!(Shengji::phase(&s), "declaring");
        pass(&mut s, seat);
    }
    assert_eq!(playing(&s).trump, Suit::S);
    assert_eq!(playing(&s).dealer, 0);
    assert!(playing(&s).declaration.is_none());
}

#[test]
fn the_declared_suit_is_hidden_from_the_others_until_the_phase_ends() {
    let mut s = started(rigged([&["2H"], &[], &[], &[]], 6));
    let out = declare(&mut s, 0, &["2H"]).unwrap();
    for e in &out.events {
        assert_eq!(e.to, Visibility::All);
        assert!(!e.data.to_string().contains('H'), "{:?}", e.data);
    }
    for viewer in [Some(1), Some(2), Some(3), None] {
        let v = Shengji::view(&s, viewer);
        let d = v.declaration.clone().unwrap();
        assert_eq!((d.seat, d.count, d.suit), (0, 1, None));
        assert_eq!(v.trump, None);
    }
    assert_eq!(
        Shengji::view(&s, Some(0)).declaration.unwrap().suit,
        Some(Suit::H)
    );
    pass(&mut s, 1);
    pass(&mut s, 2);
    let out = Shengji::apply(&mut s, 3, Action::Pass {}, at(2)).unwrap();
    assert!(out.events.iter().any(|e| e.kind == "trump"));
    let v = Shengji::view(&s, Some(2));
    assert_eq!(v.trump, Some(Suit::H));
    assert_eq!(v.declaration.unwrap().suit, Some(Suit::H));
}

#[test]
fn every_row_of_the_level_table() {
    let rows: [(u32, bool, u8); 12] = [
        (0, true, 3),
        (5, true, 2),
        (75, true, 2),
        (80, true, 1),
        (155, true, 1),
        (160, false, 0),
        (235, false, 0),
        (240, false, 1),
        (315, false, 1),
        (320, false, 2),
        (395, false, 2),
        (400, false, 3),
    ];
    for (p, dealers_won, gain) in rows {
        assert_eq!(level_change(p), (dealers_won, gain), "P = {p}");
    }
}

#[test]
fn the_dealers_partner_deals_after_a_win_else_the_next_seat() {
    assert_eq!(next_dealer(1, true), 3);
    assert_eq!(next_dealer(3, true), 1);
    assert_eq!(next_dealer(1, false), 2);
    assert_eq!(next_dealer(3, false), 0);
}

#[test]
fn a_played_hand_scores_zero_sum_and_the_next_hand_follows_the_result() {
    let mut s = started(shuffled(8));
    for seat in 0..4 {
        pass(&mut s, seat);
    }
    let r = play_out(&mut s);
    assert_eq!(r.points.iter().sum::<i64>(), 0);
    assert_eq!(r.points, r.units);
    let Some(Summary::Played {
        defenders_points,
        dealer,
        next_dealer: nd,
        gaining_team,
        levels_gained,
        levels_after,
        ..
    }) = s.table.last().cloned()
    else {
        panic!("a played summary");
    };
    assert_eq!(dealer, 0);
    let (won, gain) = level_change(defenders_points);
    assert_eq!(levels_gained, gain);
    assert_eq!(nd, next_dealer(0, won));
    assert_eq!(levels_after[gaining_team], 2 + gain);
    assert_eq!(
        r.points[0],
        if gaining_team == 0 { 1 } else { -1 } * i64::from(gain)
    );
    assert_eq!(Shengji::stage(&s), Stage::NeedsDeal);
    Shengji::start_hand(
        &mut s,
        HandStart {
            deck: shuffled(9),
            ctx: at(100),
            wallets: vec![0; 4],
            scores: vec![0; 4],
        },
    );
    assert_eq!(
        Shengji::to_act(&s),
        vec![1],
        "the seat after the last dealer declares first"
    );
    for seat in [1, 2, 3, 0] {
        pass(&mut s, seat);
    }
    assert_eq!(
        playing(&s).dealer,
        nd,
        "declarations only choose the suit after hand 1"
    );
}

#[test]
fn a_team_passing_ace_wins_the_match() {
    let mut s = started(shuffled(10));
    s.levels = [14, 14];
    for seat in 0..4 {
        pass(&mut s, seat);
    }
    let r = play_out(&mut s);
    let Some(Summary::Played {
        levels_gained,
        gaining_team,
        match_winner,
        ..
    }) = s.table.last().cloned()
    else {
        panic!()
    };
    if levels_gained > 0 {
        assert_eq!(match_winner, Some(gaining_team));
        assert_eq!(Shengji::stage(&s), Stage::Finished);
        assert_eq!(Shengji::view(&s, None).winner, Some(gaining_team));
    } else {
        assert_eq!(Shengji::stage(&s), Stage::NeedsDeal);
    }
    assert_eq!(r.points.iter().sum::<i64>(), 0);
}

#[test]
fn raise_stops_at_ace() {
    assert_eq!(levels::raise(12, 2), Some(14));
    assert_eq!(levels::raise(13, 2), None);
    assert_eq!(levels::raise(14, 1), None);
    assert_eq!(levels::raise(14, 0), Some(14));
}

#[test]
fn escape_loses_the_match_and_pays_three_to_each_other_player() {
    let mut s = started(shuffled(11));
    let out = Shengji::leave(&mut s, 1, at(29_999), 0);
    let r = out.hand_end.unwrap();
    assert_eq!(r.points, vec![3, -9, 3, 3]);
    assert_eq!(r.units, vec![3, -9, 3, 3]);
    assert_eq!(Shengji::stage(&s), Stage::Finished);
    assert_eq!(s.table.winner(), Some(0));

    let mut s = started(shuffled(12));
    pass(&mut s, 0);
    let r = Shengji::leave(&mut s, 2, at(30_000), 0).hand_end.unwrap();
    assert_eq!(
        r.points,
        vec![4, 4, -9, 4],
        "after 30 s the others gain 1 more"
    );
    assert_eq!(r.units, vec![3, 3, -6 - 3, 3]);
    assert_eq!(s.table.winner(), Some(1));
    assert!(Shengji::leave(&mut s, 0, at(40_000), 0).events.is_empty());
}

#[test]
fn leaving_before_the_first_deal_costs_nothing() {
    let mut s = Shengji::new_match(Options::default(), 4);
    let out = Shengji::leave(&mut s, 1, at(0), 0);
    assert!(out.hand_end.is_none());
    assert_eq!(Shengji::stage(&s), Stage::NeedsDeal);
}

#[test]
fn legal_actions_say_count_and_shapes() {
    let mut s = started(shuffled(13));
    for seat in 0..4 {
        pass(&mut s, seat);
    }
    assert_eq!(
        Shengji::legal_actions(&s, 0),
        vec![Legal::Play {
            count: None,
            lead: true,
            shapes: vec![]
        }]
    );
    assert!(Shengji::legal_actions(&s, 1).is_empty());
    let a = Shengji::auto_action(&s, 0);
    Shengji::apply(&mut s, 0, a.clone(), at(5)).unwrap();
    let Action::Play { cards } = a else { panic!() };
    let Legal::Play { count, lead, .. } = &Shengji::legal_actions(&s, 1)[0] else {
        panic!()
    };
    assert_eq!((*count, *lead), (Some(cards.len()), false));
    let json = serde_json::to_value(Shengji::legal_actions(&s, 1)).unwrap();
    assert_eq!(json[0]["type"], "play");
}

#[test]
fn actions_out_of_phase_or_turn_are_refused() {
    let mut s = started(shuffled(14));
    let err = Shengji::apply(&mut s, 1, Action::Pass {}, at(1)).unwrap_err();
    assert_eq!(err.kind, crate::engine::RuleErrorKind::NotYourTurn);
    let err = Shengji::apply(&mut s, 0, Action::Play { cards: vec![] }, at(1)).unwrap_err();
    assert!(err.detail.contains("declar"));
    for seat in 0..4 {
        pass(&mut s, seat);
    }
    assert!(Shengji::apply(&mut s, 0, Action::Pass {}, at(1)).is_err());
    let hand = s.table.hand().unwrap().hands[0].clone();
    let err = Shengji::apply(
        &mut s,
        0,
        Action::Play {
            cards: vec![hand[0], hand[53]],
        },
        at(1),
    );
    assert!(playing(&s).order().is_trump(hand[0]) && !playing(&s).order().is_trump(hand[53]));
    // The hand is sorted strongest first: its first card is a trump, its last a plain card.
    assert!(err.unwrap_err().detail.contains("one suit"));
    let err = Shengji::apply(&mut s, 0, Action::Play { cards: vec![] }, at(1)).unwrap_err();
    assert!(err.detail.contains("at least one card"));
}

// ---- random play ---------------------------------------------------------------------------

/// Card strings anywhere in `v`, with the top-level field they sit under.
fn card_strings(v: &Value, field: &str, out: &mut Vec<(String, Card)>) {
    match v {
        Value::String(s) => {
            if let Ok(card) = Card::parse(s) {
                out.push((field.to_string(), card));
            }
        }
        Value::Array(a) => a.iter().for_each(|x| card_strings(x, field, out)),
        Value::Object(m) => m
            .iter()
            .for_each(|(k, x)| card_strings(x, if field.is_empty() { k } else { field }, out)),
        _ => {}
    }
}

fn has_suit_letter(v: &Value) -> bool {
    match v {
        Value::String(s) => ["S", "H", "D", "C"].contains(&s.as_str()),
        Value::Array(a) => a.iter().any(has_suit_letter),
        Value::Object(m) => m.values().any(has_suit_letter),
        _ => false,
    }
}

fn played_cards(s: &State) -> Vec<Card> {
    match &s.table.hand().unwrap().phase {
        Phase::Declaring(_) => Vec::new(),
        Phase::Playing(p) => p
            .tricks
            .iter()
            .flat_map(|t| t.plays.iter())
            .chain(p.trick.iter())
            .flat_map(|x| x.cards.clone())
            .collect(),
    }
}

/// No view, legal action list or event of this step holds a card its viewer may not see, nor
/// the declared suit before the phase ends.
fn check_secrecy(s: &State, events: &[Event]) {
    let h = s.table.hand().unwrap();
    let declaring = matches!(h.phase, Phase::Declaring(_));
    let standing = match &h.phase {
        Phase::Declaring(d) => d.standing.map(|x| x.seat),
        Phase::Playing(_) => None,
    };
    let played = canonical(&played_cards(s));
    for viewer in [None, Some(0), Some(1), Some(2), Some(3)] {
        let json = serde_json::to_value(Shengji::view(s, viewer)).unwrap();
        let mut found = Vec::new();
        card_strings(&json, "", &mut found);
        let mut own = Vec::new();
        let mut public = Vec::new();
        for (field, card) in found {
            match field.as_str() {
                "hand" => own.push(card),
                "trick" | "tricks" => public.push(card),
                other => panic!("card {card} under {other}"),
            }
        }
        assert_eq!(canonical(&public), played);
        match viewer {
            Some(v) => assert_eq!(canonical(&own), canonical(&h.hands[v])),
            None => assert!(own.is_empty()),
        }
        if declaring && viewer != standing {
            assert!(!has_suit_letter(&json), "suit shown to {viewer:?}: {json}");
        }
    }
    for seat in 0..4 {
        let json = serde_json::to_value(Shengji::legal_actions(s, seat)).unwrap();
        let mut found = Vec::new();
        card_strings(&json, "", &mut found);
        assert!(found.is_empty());
    }
    for e in events {
        let mut found = Vec::new();
        card_strings(&e.data, "", &mut found);
        match &e.to {
            Visibility::All => {
                assert!(
                    found.is_empty() || e.kind == "play",
                    "{}: {}",
                    e.kind,
                    e.data
                );
                if !["trump", "hand_end", "escape"].contains(&e.kind) {
                    assert!(!has_suit_letter(&e.data), "{}: {}", e.kind, e.data);
                }
            }
            Visibility::Seats(seats) => {
                assert_eq!(seats.len(), 1);
                assert_eq!(e.kind, "dealt");
            }
        }
    }
}

/// A random lead: some copies of a random card, or a tractor the hand holds.
pub(super) fn random_lead(rng: &mut Rng, order: &Order, hand: &[Card]) -> Vec<Card> {
    let card = hand[rng.below(hand.len())];
    let held = hand.iter().filter(|&&x| x == card).count();
    let k = 1 + rng.below(held);
    let mut lead = vec![card; k];
    if k >= 2 && rng.chance(50) {
        // Extend upwards into a tractor while the next position holds as many.
        let eff = order.eff(card);
        let mut pos = order.pos(card);
        while let Some(&next) = hand.iter().find(|&&x| {
            order.eff(x) == eff
                && order.pos(x) == pos + 1
                && hand.iter().filter(|&&y| y == x).count() >= k
        }) {
            lead.extend(std::iter::repeat_n(next, k));
            pos += 1;
        }
    }
    lead
}

/// The rule written out against the auto follow as witness: suit first, then a formation
/// when the hand holds one, then (a six-card lead) a quad with a pair when the witness is one,
/// else the best structure.
fn oracle(order: &Order, hand: &[Card], lead: &[Card], play: &[Card]) -> bool {
    if play.len() != lead.len() || !crate::cards::holds_all(hand, play) {
        return false;
    }
    let suit = order.eff(lead[0]);
    let held = hand.iter().filter(|&&x| order.eff(x) == suit).count();
    let played = play.iter().filter(|&&x| order.eff(x) == suit).count();
    if held <= lead.len() {
        return played == held;
    }
    if played != play.len() {
        return false;
    }
    let (lead_form, _) = classify(order, lead).unwrap();
    let answers = lead_form.answers();
    let is_answer = |p: &[Card]| classify(order, p).is_some_and(|(f, _)| answers.contains(&f));
    let witness = best_follow(order, hand, lead);
    if is_answer(&witness) {
        return is_answer(play);
    }
    let quad_and_pair = |p: &[Card]| {
        let mut sizes: Vec<usize> = p
            .iter()
            .map(|&x| p.iter().filter(|&&y| y == x).count())
            .collect();
        sizes.sort_unstable();
        sizes == [2, 2, 4, 4, 4, 4]
    };
    if lead.len() == 6 && quad_and_pair(&witness) {
        return quad_and_pair(play);
    }
    crate::trick::follow_score(order, play) == crate::trick::follow_score(order, &witness)
}

#[test]
fn random_legal_play_keeps_every_invariant_over_ten_thousand_hands() {
    let mut rng = Rng(2026);
    let mut refused = 0usize;
    let mut accepted = 0usize;
    let full_deck = canonical(&Shengji::deck(&Options::default()));
    for hand_no in 0..10_000u64 {
        let deck = shuffled(hand_no);
        let mut s = started(deck);
        // A few hands are played to the end; the rest for three tricks.
        let full = hand_no % 500 == 0;
        let mut t = 0i64;
        while Shengji::phase(&s) == "declaring" {
            let seat = Shengji::to_act(&s)[0];
            let legal = Shengji::legal_actions(&s, seat);
            let action = match legal.first() {
                Some(Legal::Declare { options }) if rng.chance(40) => {
                    let o = &options[rng.below(options.len())];
                    let n = o.counts[rng.below(o.counts.len())];
                    Action::Declare {
                        cards: vec![Card::new(2, o.suit); n.into()],
                    }
                }
                _ => Action::Pass {},
            };
            t += 1;
            let out = Shengji::apply(&mut s, seat, action, at(t)).unwrap();
            if hand_no % 10 == 0 {
                check_secrecy(&s, &out.events);
            }
        }
        let tricks_wanted = if full { 54 } else { 3 };
        while s.table.hand().is_some() && playing(&s).tricks.len() < tricks_wanted {
            let p = playing(&s);
            let seat = p.turn;
            let order = p.order();
            let hand = s.table.hand().unwrap().hands[seat].clone();
            let lead = p.trick.first().map(|x| x.cards.clone());
            let cards = match &lead {
                None => random_lead(&mut rng, &order, &hand),
                Some(lead) if rng.chance(50) && hand.len() >= lead.len() => {
                    let mut pool = hand.clone();
                    let suit = order.eff(lead[0]);
                    if rng.chance(70) {
                        pool.retain(|&x| order.eff(x) == suit);
                    }
                    if pool.len() < lead.len() {
                        pool = hand.clone();
                    }
                    (0..lead.len())
                        .map(|_| pool.swap_remove(rng.below(pool.len())))
                        .collect()
                }
                Some(lead) => best_follow(&order, &hand, lead),
            };
            t += 1;
            let before = s.clone();
            match Shengji::apply(
                &mut s,
                seat,
                Action::Play {
                    cards: cards.clone(),
                },
                at(t),
            ) {
                Ok(out) => {
                    accepted += 1;
                    if let Some(lead) = &lead {
                        assert!(
                            oracle(&order, &hand, lead, &cards),
                            "{hand:?} {lead:?} {cards:?}"
                        );
                    } else {
                        assert!(crate::trick::check_lead(&order, &hand, &cards).is_ok());
                    }
                    if let Some(r) = &out.hand_end {
                        assert_eq!(r.points.iter().sum::<i64>(), 0);
                        let Some(Summary::Played {
                            defenders_points, ..
                        }) = s.table.last()
                        else {
                            panic!()
                        };
                        assert!(*defenders_points <= 400);
                        break;
                    }
                    if hand_no % 10 == 0 && out.events.iter().any(|e| e.kind == "trick") {
                        check_secrecy(&s, &out.events);
                    }
                }
                Err(e) => {
                    refused += 1;
                    assert_eq!(
                        serde_json::to_string(&s).unwrap(),
                        serde_json::to_string(&before).unwrap()
                    );
                    let lead = lead.expect("random leads are formations");
                    assert!(
                        !oracle(&order, &hand, &lead, &cards),
                        "{e}: {hand:?} {lead:?} {cards:?}"
                    );
                    assert!(is_legal_follow(&order, &hand, &lead, &cards).is_err());
                }
            }
            // No card created or lost; the 400 points are all somewhere. Checked as each trick
            // closes (a refused play was checked above to change nothing).
            if !playing(&s).trick.is_empty() {
                continue;
            }
            if let Some(last) = playing(&s).tricks.last() {
                assert_eq!(
                    playing(&s).turn,
                    last.winner,
                    "the winner leads the next trick"
                );
            }
            let h = s.table.hand().unwrap();
            let mut all: Vec<Card> = h.hands.iter().flatten().copied().collect();
            all.extend(played_cards(&s));
            assert_eq!(canonical(&all), full_deck);
            let p = playing(&s);
            let dealers: u32 = p
                .tricks
                .iter()
                .filter(|x| team(x.winner) == team(p.dealer))
                .map(|x| x.points)
                .sum();
            let in_play: u32 = h
                .hands
                .iter()
                .map(|x| crate::trick::points(x))
                .chain(p.trick.iter().map(|x| crate::trick::points(&x.cards)))
                .sum();
            assert_eq!(p.defenders_points + dealers + in_play, 400);
        }
    }
    assert!(
        accepted > 100_000 && refused > 1_000,
        "{accepted} {refused}"
    );
}

#[test]
fn auto_play_finishes_whole_matches() {
    for seed in 0..3u64 {
        let mut s = Shengji::new_match(Options::default(), 4);
        let mut n = 0u64;
        while Shengji::stage(&s) == Stage::NeedsDeal {
            Shengji::start_hand(
                &mut s,
                HandStart {
                    deck: shuffled(seed * 1000 + n),
                    ctx: at(0),
                    wallets: vec![0; 4],
                    scores: vec![0; 4],
                },
            );
            n += 1;
            while Shengji::phase(&s) == "declaring" {
                let seat = Shengji::to_act(&s)[0];
                let a = Shengji::auto_action(&s, seat);
                Shengji::apply(&mut s, seat, a, at(1)).unwrap();
            }
            let text = serde_json::to_string(&s).unwrap();
            let back: State = serde_json::from_str(&text).unwrap();
            assert_eq!(
                serde_json::to_string(&back).unwrap(),
                text,
                "state JSON round trip"
            );
            let r = play_out(&mut s);
            assert_eq!(r.points.iter().sum::<i64>(), 0);
            assert!(n < 200, "a match ends");
        }
        assert_eq!(Shengji::stage(&s), Stage::Finished);
        assert!(s.table.winner().is_some());
    }
}

#[test]
fn tractors_lead_and_follow_across_trump_positions_in_a_hand() {
    let mut s = started(rigged(
        [
            &["BJ", "BJ", "2H", "2H", "2S"],
            &["2S", "2S", "2D", "2D"],
            &[],
            &["2H"],
        ],
        15,
    ));
    declare(&mut s, 0, &["2H", "2H"]).unwrap();
    for seat in 1..4 {
        pass(&mut s, seat);
    }
    let o = playing(&s).order();
    assert_eq!(
        classify(&o, &hand!["BJ", "BJ", "2H", "2H"]).map(|x| x.0),
        Some(Formation::Tractor { size: 2, groups: 2 })
    );
    Shengji::apply(
        &mut s,
        0,
        Action::Play {
            cards: hand!["BJ", "BJ", "2H", "2H"],
        },
        at(2),
    )
    .unwrap();
    // Seat 1's 2S 2S 2D 2D is two pairs at one position, not a tractor: played as a follow it
    // counts as two pairs.
    let seat1 = s.table.hand().unwrap().hands[1].clone();
    let lead = hand!["BJ", "BJ", "2H", "2H"];
    let play = hand!["2S", "2S", "2D", "2D"];
    assert_eq!(classify(&o, &play), None);
    assert_eq!(crate::trick::follow_score(&o, &play).pairs, 2);
    assert_eq!(
        Shengji::apply(
            &mut s,
            1,
            Action::Play {
                cards: play.clone()
            },
            at(3)
        )
        .is_ok(),
        is_legal_follow(&o, &seat1, &lead, &play).is_ok()
    );
}

// ---- arbitrary input through the service's type-erased adapter ------------------------------

fn arb_card() -> impl Strategy<Value = Value> {
    prop::sample::select(vec![
        "2H", "2S", "2D", "2C", "3S", "QH", "10D", "AS", "RJ", "BJ", "W", "s1", "ZZ", "",
    ])
    .prop_map(|c| Value::String(c.to_string()))
}

fn arb_action() -> impl Strategy<Value = Value> {
    (
        prop::sample::select(vec!["declare", "pass", "play", "bid", "x"]),
        prop::option::of(prop::collection::vec(arb_card(), 0..6)),
        any::<bool>(),
    )
        .prop_map(|(t, cards, extra)| {
            let mut m = serde_json::Map::new();
            m.insert("type".into(), Value::String(t.into()));
            if let Some(cards) = cards {
                m.insert("cards".into(), Value::Array(cards));
            }
            if extra {
                m.insert("extra".into(), Value::Bool(true));
            }
            Value::Object(m)
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_actions_never_panic_and_refusals_change_nothing(
        steps in prop::collection::vec((0usize..6, arb_action(), any::<bool>()), 1..60),
        seed in any::<u64>(),
    ) {
        let g: &dyn DynGame = &Registered::<Shengji>::new();
        let opts = g.options(4, &Value::Null).unwrap();
        let mut state = g.new_match(&opts, 4).unwrap();
        state.start_hand(HandStart {
            deck: shuffled(seed),
            ctx: at(0),
            wallets: vec![0; 4],
            scores: vec![0; 4],
        });
        for (i, (seat, action, real)) in steps.iter().enumerate() {
            let ctx = at(i as i64);
            let to_act = state.to_act();
            if *real && !to_act.is_empty() {
                let s = to_act[seat % to_act.len()];
                let auto = state.auto_action(s);
                prop_assert!(state.apply(s, &auto, ctx).is_ok());
                continue;
            }
            let before = state.save();
            if state.apply(*seat, action, ctx).is_err() {
                prop_assert_eq!(&before, &state.save());
            }
            for v in 0..6 {
                let _ = state.view(Some(v));
                let _ = state.legal_actions(v);
            }
        }
    }
}

#[test]
fn options_are_an_empty_object_and_schemas_build() {
    let g: &dyn DynGame = &Registered::<Shengji>::new();
    assert!(g.options(4, &serde_json::json!({})).is_ok());
    assert!(g.options(4, &serde_json::json!({"stake": 1})).is_err());
    assert!(g.options(3, &serde_json::json!({})).is_err());
    let schemas = g.schemas();
    assert!(schemas.action.to_string().contains("declare"));
    assert!(schemas.legal_action.to_string().contains("shapes"));
}

// ---------------------------------------------------------------- bots

fn cards(list: &[&str]) -> Vec<Card> {
    list.iter().map(|x| c(x)).collect()
}

/// A hand in play with spades trump (four passes), seat 0 dealing and leading, and the given
/// seats' hands replaced by fixtures (the other hands stay as dealt).
fn bot_table(fixtures: &[(SeatNo, &[&str])]) -> State {
    let mut s = started(shuffled(7));
    for seat in 0..4 {
        pass(&mut s, seat);
    }
    assert_eq!(playing(&s).trump, Suit::S);
    let h = s.table.hand_mut().unwrap();
    for &(seat, list) in fixtures {
        h.hands[seat] = cards(list);
    }
    s
}

fn play(s: &mut State, seat: SeatNo, list: &[&str]) {
    Shengji::apply(s, seat, Action::Play { cards: cards(list) }, at(2))
        .unwrap_or_else(|e| panic!("seat {seat} playing {list:?}: {e}"));
}

fn bot_plays(s: &State, seat: SeatNo) -> Vec<Card> {
    match Shengji::bot_action(s, seat) {
        Action::Play { cards } => canonical(&cards),
        other => panic!("seat {seat} should play, not {other:?}"),
    }
}

#[test]
fn bot_declares_its_long_suit_with_every_two_of_it_and_never_over_its_partner() {
    let hearts: &[&str] = &[
        "2H", "2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "10H", "JH", "QH", "KH", "AH", "AH",
        "KH", "QH", "JH", "10H", "9H",
    ];
    let spades: &[&str] = &[
        "2S", "2S", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "10S", "JS", "QS", "KS", "AS",
        "AS", "KS", "QS", "JS", "10S",
    ];
    let mut s = started(rigged([hearts, &["2H", "2H"], spades, &[]], 11));
    assert_eq!(
        Shengji::bot_action(&s, 0),
        Action::Declare {
            cards: cards(&["2H", "2H"])
        }
    );
    declare(&mut s, 0, &["2H", "2H"]).unwrap();
    pass(&mut s, 1);
    // Seat 2 could override with three 2S and a long spade suit, but seat 0 is its partner.
    assert_eq!(Shengji::bot_action(&s, 2), Action::Pass {});
}

#[test]
fn bot_leads_a_sure_winner_else_its_lowest_plain_card() {
    let s = bot_table(&[(0, &["AH", "AH", "KH", "5C", "3D", "4D", "9C"])]);
    assert_eq!(bot_plays(&s, 0), cards(&["AH", "AH"]));
    let s = bot_table(&[(0, &["KH", "5C", "4D", "3D", "3D", "9C", "10C"])]);
    assert_eq!(bot_plays(&s, 0), cards(&["3D", "3D"]));
}

#[test]
fn bot_feeds_its_winning_partner_points_and_beats_an_opponent_cheaply() {
    let mut s = bot_table(&[
        (0, &["AH", "3C"]),
        (1, &["3H", "4C"]),
        (2, &["KH", "4H", "5H", "10C"]),
    ]);
    play(&mut s, 0, &["AH"]);
    play(&mut s, 1, &["3H"]);
    // Seat 0, seat 2's partner, holds the trick with an ace: seat 2 gives it its K.
    assert_eq!(bot_plays(&s, 2), cards(&["KH"]));

    let mut s = bot_table(&[
        (0, &["4H", "3C"]),
        (1, &["QH", "4C"]),
        (2, &["AH", "KH", "5H", "3C"]),
    ]);
    play(&mut s, 0, &["4H"]);
    play(&mut s, 1, &["QH"]);
    // An opponent's Q holds it: the K beats it, more cheaply than the A.
    assert_eq!(bot_plays(&s, 2), cards(&["KH"]));

    let mut s = bot_table(&[
        (0, &["4H", "3C"]),
        (1, &["AH", "4C"]),
        (2, &["3H", "5H", "9C"]),
    ]);
    play(&mut s, 0, &["4H"]);
    play(&mut s, 1, &["AH"]);
    // Nothing beats the A: the lowest heart without points.
    assert_eq!(bot_plays(&s, 2), cards(&["3H"]));
}

/// The state with one card exchanged between two seats other than `seat`.
fn hide_differently(s: &State, seat: SeatNo, rng: &mut Rng) -> State {
    let mut other = s.clone();
    let h = other.table.hand_mut().unwrap();
    let others: Vec<SeatNo> = (0..4)
        .filter(|&x| x != seat && !h.hands[x].is_empty())
        .collect();
    if others.len() < 2 {
        return other;
    }
    let (a, b) = (others[0], others[1 + rng.below(others.len() - 1)]);
    let (i, j) = (rng.below(h.hands[a].len()), rng.below(h.hands[b].len()));
    let (x, y) = (h.hands[a][i], h.hands[b][j]);
    h.hands[a][i] = y;
    h.hands[b][j] = x;
    other
}

// ---------------------------------------------------------------- event schemas

/// A random legal move of `seat`: the bot's, or one of its legal actions made concrete (plays
/// as the bot or the automatic move would).
fn random_move(s: &State, seat: SeatNo, rng: &mut Rng) -> Action {
    if rng.chance(40) {
        return Shengji::bot_action(s, seat);
    }
    let legal = Shengji::legal_actions(s, seat);
    match &legal[rng.below(legal.len())] {
        Legal::Declare { options } => {
            let o = &options[rng.below(options.len())];
            let count = o.counts[rng.below(o.counts.len())];
            Action::Declare {
                cards: vec![Card::new(2, o.suit); usize::from(count)],
            }
        }
        Legal::Pass {} => Action::Pass {},
        Legal::Play { .. } => Shengji::auto_action(s, seat),
    }
}

/// Whole matches of random legal moves, escapes and leaves: every event's kind has a schema in
/// `event_schemas`, its data is valid against it, and every kind is seen.
#[test]
fn every_event_of_random_matches_matches_its_schema() {
    let mut check = EventCheck::new::<Shengji>();
    let mut rng = Rng(3);
    for m in 0..12 {
        let plan = Plan {
            options: &Options::default(),
            seats: 4,
            hands: 60,
            leaves: m > 0,
        };
        play_match::<Shengji>(&mut check, &mut rng, plan, random_move, |_, _| vec![0; 4]);
    }
    check.all_seen(&[]);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    /// Four bots play whole hands: every bot action is accepted, the hand ends, no card is made
    /// or lost and the 400 points are all somewhere after every trick, nothing secret shows,
    /// results are zero-sum; a seat's bot decides the same when only cards it cannot see move.
    #[test]
    fn bots_play_whole_hands_legally_and_see_only_their_own_cards(seed in any::<u64>()) {
        let mut rng = Rng(seed);
        let full_deck = canonical(&Shengji::deck(&Options::default()));
        let mut s = Shengji::new_match(Options::default(), 4);
        for n in 0..2u64 {
            Shengji::start_hand(
                &mut s,
                HandStart {
                    deck: shuffled(seed.wrapping_add(n)),
                    ctx: at(0),
                    wallets: vec![0; 4],
                    scores: vec![0; 4],
                },
            );
            let mut steps = 0;
            loop {
                steps += 1;
                prop_assert!(steps < 400, "the hand must end");
                let seat = Shengji::to_act(&s)[0];
                let action = Shengji::bot_action(&s, seat);
                let blind = hide_differently(&s, seat, &mut rng);
                prop_assert_eq!(&Shengji::bot_action(&blind, seat), &action, "hidden cards moved");
                let out = Shengji::apply(&mut s, seat, action.clone(), at(steps))
                    .unwrap_or_else(|e| panic!("{action:?} by {seat}: {e}"));
                if let Some(r) = out.hand_end {
                    prop_assert_eq!(r.points.iter().sum::<i64>(), 0);
                    prop_assert_eq!(r.units.iter().sum::<i64>(), 0);
                    break;
                }
                if !out.events.iter().any(|e| e.kind == "trick") {
                    continue;
                }
                check_secrecy(&s, &out.events);
                let h = s.table.hand().unwrap();
                let mut all: Vec<Card> = h.hands.iter().flatten().copied().collect();
                all.extend(played_cards(&s));
                prop_assert_eq!(canonical(&all), full_deck.clone());
                let p = playing(&s);
                let dealers: u32 = p
                    .tricks
                    .iter()
                    .filter(|x| team(x.winner) == team(p.dealer))
                    .map(|x| x.points)
                    .sum();
                let in_hands: u32 = h.hands.iter().map(|x| crate::trick::points(x)).sum();
                prop_assert_eq!(p.defenders_points + dealers + in_hands, 400);
            }
            if Shengji::stage(&s) != Stage::NeedsDeal {
                break;
            }
        }
    }
}
