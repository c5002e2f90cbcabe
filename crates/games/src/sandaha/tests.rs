//! Rule tests: each names the rule it checks. Fixtures are readable card lists.

use serde_json::{Value, json};

use super::*;
use crate::cards::Card;
use crate::engine::{RuleErrorKind, Visibility, parse_options, view_json};
use crate::event_check::{EventCheck, Plan, play_match};
use crate::shuffle::shuffle;
use crate::test_rng::Rng;

pub(super) const T0: Ctx = Ctx { now_ms: 1_000_000 };

pub(super) fn cards(list: &[&str]) -> Vec<Card> {
    list.iter()
        .map(|c| Card::parse(c).expect("fixture card"))
        .collect()
}

pub(super) fn limited() -> Options {
    parse_options::<Sandaha>(4, &json!({})).unwrap()
}

pub(super) fn unlimited() -> Options {
    parse_options::<Sandaha>(4, &json!({"limit": false})).unwrap()
}

/// A hand in the trick phase: the banker leads the first trick.
pub(super) fn at_play(
    hands: [&[&str]; SEATS],
    buried: &[&str],
    banker: SeatNo,
    bid: u32,
    trump: Option<Suit>,
) -> State {
    let order = order(trump);
    let mut st = Sandaha::new_match(limited(), 4);
    st.hand_no = 1;
    let hand = Box::new(HandState {
        started_ms: T0.now_ms,
        first_bidder: 0,
        deal: 1,
        hands: hands.map(|h| {
            let mut c = cards(h);
            order.sort_strongest_first(&mut c);
            c
        }),
        bottom: cards(buried),
        dealt_digest: [0; 32],
        bids: Vec::new(),
        phase: Phase::Tricks {
            contract: Contract { banker, bid },
            trump,
            play: Tricks::open(banker),
        },
    });
    st.table = Table::InHand { hand, last: None };
    st
}

pub(super) fn tricks_mut(st: &mut State) -> &mut Tricks {
    match &mut st.table.hand_mut().unwrap().phase {
        Phase::Tricks { play, .. } => play,
        _ => panic!("not in the trick phase"),
    }
}

/// Makes `seat` lead the current trick with `points` already taken by the defenders.
pub(super) fn lead_from(st: &mut State, seat: SeatNo, points: u32) {
    let t = tricks_mut(st);
    t.turn = seat;
    t.current = Trick::new(seat);
    t.points = points;
}

pub(super) fn act(st: &mut State, seat: SeatNo, action: Action) -> Outcome {
    Sandaha::apply(st, seat, action.clone(), T0)
        .unwrap_or_else(|e| panic!("seat {seat} {action:?}: {}", e.detail))
}

pub(super) fn play(st: &mut State, seat: SeatNo, list: &[&str]) -> Outcome {
    act(st, seat, Action::Play { cards: cards(list) })
}

pub(super) fn refused(st: &mut State, seat: SeatNo, action: Action) -> RuleError {
    let before = serde_json::to_value(&*st).unwrap();
    let err = Sandaha::apply(st, seat, action, T0).expect_err("refused");
    assert_eq!(
        serde_json::to_value(&*st).unwrap(),
        before,
        "state unchanged"
    );
    crate::engine::checks::refusal::<Sandaha>(&err);
    err
}

fn refused_play(st: &mut State, seat: SeatNo, list: &[&str]) -> String {
    let e = refused(st, seat, Action::Play { cards: cards(list) });
    assert_eq!(e.kind, RuleErrorKind::Illegal);
    e.detail
}

pub(super) fn summary(out: &Outcome) -> Summary {
    let r = out.hand_end.as_ref().expect("the hand ended");
    serde_json::from_value(r.detail.clone()).unwrap()
}

pub(super) fn played(out: &Outcome) -> (u32, Verdict, Option<BottomCapture>, Vec<i64>) {
    match summary(out) {
        Summary::Played {
            defenders_points,
            verdict,
            bottom_capture,
            points,
            ..
        } => (defenders_points, verdict, bottom_capture, points),
        s => panic!("not played out: {s:?}"),
    }
}

pub(super) fn new_hand(opts: Options, deck: Vec<Card>) -> (State, Outcome) {
    let mut st = Sandaha::new_match(opts, 4);
    let out = Sandaha::start_hand(
        &mut st,
        HandStart {
            deck,
            ctx: T0,
            wallets: vec![0; 4],
            scores: vec![0; 4],
        },
    );
    (st, out)
}

pub(super) fn dealt_hand() -> State {
    new_hand(limited(), Sandaha::deck(&limited())).0
}

pub(super) fn bidding(st: &State) -> &Bidding {
    match &st.table.hand().unwrap().phase {
        Phase::Bidding(b) => b,
        _ => panic!("not bidding"),
    }
}

// ---- cards and deal -------------------------------------------------------------------------

#[test]
fn deck_is_two_decks_without_threes_and_fours() {
    let deck = Sandaha::deck(&limited());
    assert_eq!(deck.len(), 92);
    assert!(deck.iter().all(|c| !matches!(c.rank(), Some(3 | 4))));
    assert_eq!(deck.iter().filter(|&&c| c == Card::BigJoker).count(), 2);
}

#[test]
fn deck_array_deals_cards_0_to_83_by_seat_and_84_to_91_to_the_bottom() {
    let deck = Sandaha::deck(&limited());
    let (st, out) = new_hand(limited(), deck.clone());
    let h = st.table.hand().unwrap();
    for s in 0..SEATS {
        assert_eq!(h.hands[s].len(), 21);
        let mut mine: Vec<Card> = (0..84).filter(|i| i % 4 == s).map(|i| deck[i]).collect();
        mine.sort();
        assert_eq!(crate::cards::canonical(&h.hands[s]), mine);
    }
    assert_eq!(h.bottom, deck[84..].to_vec());
    let dealt: Vec<&Event> = out.events.iter().filter(|e| e.kind == "dealt").collect();
    assert_eq!(dealt.len(), 4);
    for e in dealt {
        assert_eq!(e.to, Visibility::Seats(vec![e.seat.unwrap()]));
    }
}

#[test]
fn trump_order_is_jokers_main_seven_side_sevens_main_two_side_twos_then_trump_suit() {
    let o = order(Some(Suit::H));
    // Strength across suits: trumps first, then position in the suit.
    let strength = |c: &str| {
        let c = Card::parse(c).unwrap();
        (o.is_trump(c), o.pos(c))
    };
    let ranked = cards(&[
        "RJ", "BJ", "7H", "7S", "2H", "2C", "AH", "KH", "8H", "6H", "5H",
    ]);
    for w in ranked.windows(2) {
        let key = |c: Card| (o.is_trump(c), o.pos(c));
        assert!(key(w[0]) > key(w[1]), "{} > {}", w[0], w[1]);
    }
    assert_eq!(strength("7S"), strength("7D"));
    assert_eq!(strength("2S"), strength("2C"));
    assert!(strength("5H") > strength("AS"));
    let none = order(None);
    assert!(none.is_trump(Card::parse("7C").unwrap()));
    assert!(!none.is_trump(Card::parse("AH").unwrap()));
    let seven = |c: &str| none.pos(Card::parse(c).unwrap());
    assert_eq!(seven("7S"), seven("7H"));
    assert_eq!(seven("7S"), seven("2S") + 1);
}

#[test]
fn own_hand_is_sorted_strongest_first() {
    let st = at_play(
        [&["5S", "RJ", "AH", "7H", "2S", "KH"], &[], &[], &[]],
        &[],
        0,
        90,
        Some(Suit::H),
    );
    let v = Sandaha::view(&st, Some(0));
    assert_eq!(
        v.hand.unwrap(),
        cards(&["RJ", "7H", "2S", "AH", "KH", "5S"])
    );
}

// ---- banker's turn ---------------------------------------------------------------------------

/// A dealt hand where `banker` won the bidding at 90 and has named no trump yet.
pub(super) fn banker_named(banker: SeatNo) -> State {
    let mut st = dealt_hand();
    st.table.hand_mut().unwrap().first_bidder = banker;
    st.table.hand_mut().unwrap().phase = Phase::Bidding(Bidding::new(banker));
    act(&mut st, banker, Action::Bid { value: 90 });
    for i in 1..4 {
        act(&mut st, (banker + i) % 4, Action::Pass {});
    }
    st
}

pub(super) fn banker_to_decide(banker: SeatNo) -> State {
    let mut st = banker_named(banker);
    act(
        &mut st,
        banker,
        Action::Trump {
            suit: Some(Suit::S),
        },
    );
    let bury = Sandaha::auto_action(&st, banker);
    act(&mut st, banker, bury);
    st
}

#[test]
fn banker_names_trump_then_buries_8_then_decides() {
    let mut st = banker_named(1);
    let e = refused(&mut st, 1, Action::Bury { cards: Vec::new() });
    assert!(e.detail.contains("trump"), "{}", e.detail);
    act(&mut st, 1, Action::Trump { suit: None });
    assert_eq!(
        Sandaha::legal_actions(&st, 1),
        vec![Legal::Bury { count: 8 }]
    );
    let hand = st.table.hand().unwrap().hands[1].clone();
    let e = refused(
        &mut st,
        1,
        Action::Bury {
            cards: hand[..7].to_vec(),
        },
    );
    assert!(e.detail.contains("exactly 8"), "{}", e.detail);
    let out = act(
        &mut st,
        1,
        Action::Bury {
            cards: hand[..8].to_vec(),
        },
    );
    let private: Vec<&Event> = out
        .events
        .iter()
        .filter(|e| e.kind == "buried_cards")
        .collect();
    assert_eq!(private[0].to, Visibility::Seats(vec![1]));
    assert_eq!(Sandaha::view(&st, Some(1)).buried.unwrap().len(), 8);
    for viewer in [None, Some(0), Some(2), Some(3)] {
        assert_eq!(Sandaha::view(&st, viewer).buried, None);
    }
    assert_eq!(
        Sandaha::legal_actions(&st, 1),
        vec![Legal::Surrender {}, Legal::PlayOn {}]
    );
}

#[test]
fn burying_any_cards_including_trumps_and_point_cards_is_allowed() {
    let mut st = banker_named(0);
    act(
        &mut st,
        0,
        Action::Trump {
            suit: Some(Suit::H),
        },
    );
    let hand = st.table.hand().unwrap().hands[0].clone();
    // The strongest eight: jokers and 7s included.
    act(
        &mut st,
        0,
        Action::Bury {
            cards: hand[..8].to_vec(),
        },
    );
    assert_eq!(Sandaha::phase(&st), "decide");
}

#[test]
fn burying_cards_not_held_is_refused_without_naming_them() {
    let mut st = banker_named(0);
    act(&mut st, 0, Action::Trump { suit: None });
    let e = refused(
        &mut st,
        0,
        Action::Bury {
            cards: vec![Card::BigJoker; 8],
        },
    );
    assert!(!e.detail.contains("RJ"));
}

#[test]
fn surrender_before_burying_is_refused() {
    let mut st = banker_named(0);
    let e = refused(&mut st, 0, Action::Surrender {});
    assert!(e.detail.contains("after"), "{}", e.detail);
    act(&mut st, 0, Action::Trump { suit: None });
    refused(&mut st, 0, Action::Surrender {});
}

#[test]
fn surrender_pays_each_defender_one_point_whatever_the_bid() {
    let mut st = banker_to_decide(1);
    let out = act(&mut st, 1, Action::Surrender {});
    let r = out.hand_end.as_ref().unwrap();
    assert_eq!(r.points, vec![1, -3, 1, 1]);
    assert_eq!(r.units, r.points);
    assert!(matches!(
        summary(&out),
        Summary::Surrendered { banker: 1, .. }
    ));
    assert_eq!(Sandaha::stage(&st), Stage::NeedsDeal);
}

#[test]
fn play_on_lets_the_banker_lead_the_first_trick() {
    let mut st = banker_to_decide(3);
    act(&mut st, 3, Action::PlayOn {});
    assert_eq!(Sandaha::phase(&st), "play");
    assert_eq!(Sandaha::to_act(&st), vec![3]);
}

#[test]
fn bury_turn_gets_twice_the_turn_time() {
    let mut st = banker_named(0);
    assert_eq!(Sandaha::wait_secs(&st, 20), 20);
    act(&mut st, 0, Action::Trump { suit: None });
    assert_eq!(Sandaha::wait_secs(&st, 20), 40);
}

#[test]
fn timeout_names_the_suit_held_most_and_buries_the_lowest_non_point_cards() {
    assert_eq!(
        most_held_suit(&cards(&["AH", "KH", "5D", "7S", "7S", "2S", "RJ"])),
        Some(Suit::H)
    );
    let o = order(Some(Suit::H));
    let hand = cards(&[
        "5S", "6S", "8S", "10S", "KS", "9D", "6D", "5D", "8C", "6C", "JC", "AH", "6H", "2S",
    ]);
    let mut buried = lowest_to_bury(&o, &hand);
    buried.sort();
    let mut want = cards(&["6S", "8S", "6D", "9D", "6C", "8C", "JC", "6H"]);
    want.sort();
    assert_eq!(buried, want);
}

// ---- tricks ----------------------------------------------------------------------------------

#[test]
fn follower_must_follow_the_led_suit_while_holding_it() {
    let mut st = at_play(
        [&["AS", "5D"], &["9S", "RJ"], &["KD", "6S"], &["8C", "QC"]],
        &[],
        0,
        90,
        Some(Suit::H),
    );
    play(&mut st, 0, &["AS"]);
    let e = refused_play(&mut st, 1, &["RJ"]);
    assert!(e.contains("有牌必跟"), "{e}");
    play(&mut st, 1, &["9S"]);
    play(&mut st, 2, &["6S"]);
    play(&mut st, 3, &["8C"]);
    assert_eq!(Sandaha::to_act(&st), vec![0]);
}

#[test]
fn a_pair_lead_must_be_followed_by_a_pair_when_held() {
    let mut st = at_play(
        [
            &["AS", "AS", "5D"],
            &["9S", "9S", "8S"],
            &["KD", "6S", "QS"],
            &["8C", "QC", "9C"],
        ],
        &[],
        0,
        90,
        Some(Suit::H),
    );
    play(&mut st, 0, &["AS", "AS"]);
    let e = refused_play(&mut st, 1, &["9S", "8S"]);
    assert!(e.contains("pair"), "{e}");
    play(&mut st, 1, &["9S", "9S"]);
    play(&mut st, 2, &["6S", "QS"]);
    play(&mut st, 3, &["8C", "QC"]);
}

#[test]
fn a_tractor_lead_must_be_followed_by_a_tractor_else_as_many_pairs_as_possible() {
    // Seed: 拖拉机5566 led, a player with a pair must play it first, then singles.
    let mut st = at_play(
        [
            &["5C", "5C", "6C", "6C", "AD"],
            &["9C", "9C", "10C", "10C", "8C"],
            &["KC", "KC", "JC", "QC", "AC"],
            &["8C", "JC", "QC", "AC", "9D"],
        ],
        &[],
        0,
        90,
        Some(Suit::H),
    );
    play(&mut st, 0, &["5C", "5C", "6C", "6C"]);
    let e = refused_play(&mut st, 1, &["9C", "9C", "10C", "8C"]);
    assert!(e.contains("tractor"), "{e}");
    play(&mut st, 1, &["9C", "9C", "10C", "10C"]);
    let e = refused_play(&mut st, 2, &["JC", "QC", "AC", "KC"]);
    assert!(e.contains("pair"), "{e}");
    play(&mut st, 2, &["KC", "KC", "JC", "QC"]);
    play(&mut st, 3, &["8C", "JC", "QC", "AC"]);
    let t = &tricks_mut(&mut st).done[0];
    assert_eq!(t.winner, Some(1), "only a tractor contends with a tractor");
}

/// The shape `list` makes under `o`, if it makes one.
fn shape(o: &trick::Order, list: &[&str]) -> Option<Shape> {
    trick::classify(o, &cards(list)).map(|(f, _)| Shape::of(f))
}

#[test]
fn six_and_eight_are_neighbours_in_a_tractor() {
    let o = order(None);
    assert_eq!(
        shape(&o, &["6S", "6S", "8S", "8S"]),
        Some(Shape::Tractor { pairs: 2 })
    );
    assert_eq!(shape(&o, &["5S", "5S", "8S", "8S"]), None);
}

#[test]
fn fixed_trump_pairs_on_consecutive_positions_form_tractors() {
    let o = order(Some(Suit::H));
    let tractor = |list: &[&str]| shape(&o, list);
    assert_eq!(
        tractor(&["RJ", "RJ", "BJ", "BJ"]),
        Some(Shape::Tractor { pairs: 2 })
    );
    assert_eq!(
        tractor(&["7H", "7H", "7S", "7S"]),
        Some(Shape::Tractor { pairs: 2 })
    );
    assert_eq!(
        tractor(&["7C", "7C", "2H", "2H"]),
        Some(Shape::Tractor { pairs: 2 })
    );
    assert_eq!(
        tractor(&["2D", "2D", "AH", "AH"]),
        Some(Shape::Tractor { pairs: 2 })
    );
    // Two 副 pairs share one position.
    assert_eq!(tractor(&["7S", "7S", "7C", "7C"]), None);
    // Two different cards of equal strength are no pair.
    assert_eq!(tractor(&["7S", "7C"]), None);
    assert_eq!(
        shape(&order(None), &["7S", "7S", "2D", "2D"]),
        Some(Shape::Tractor { pairs: 2 })
    );
}

#[test]
fn a_lead_must_be_a_single_pair_or_tractor_of_one_suit() {
    let mut st = at_play(
        [
            &["AS", "KS", "5D", "5D"],
            &["9S"; 4],
            &["6S"; 4],
            &["8C"; 4],
        ],
        &[],
        0,
        90,
        Some(Suit::H),
    );
    refused_play(&mut st, 0, &["AS", "KS"]);
    refused_play(&mut st, 0, &["AS", "5D"]);
    play(&mut st, 0, &["5D", "5D"]);
}

#[test]
fn a_void_follower_trumping_beats_the_led_suit() {
    // Seed: A 梅花5, B 梅花6, C 梅花8, D 主牌 → D wins and takes the 5.
    let mut st = at_play(
        [&["5C"], &["6C"], &["8C"], &["3D"]],
        &[],
        1,
        90,
        Some(Suit::D),
    );
    // The seed's 3D is not in this deck; 5D is the lowest trump of diamonds.
    st.table.hand_mut().unwrap().hands[3] = cards(&["5D"]);
    lead_from(&mut st, 0, 0);
    play(&mut st, 0, &["5C"]);
    play(&mut st, 1, &["6C"]);
    play(&mut st, 2, &["8C"]);
    let out = play(&mut st, 3, &["5D"]);
    let won = out.events.iter().find(|e| e.kind == "trick_won").unwrap();
    assert_eq!(won.seat, Some(3));
    // Seat 1 is the banker: a defender took the trick, 闲家得分 10 (the seed's 方块3 counts
    // nothing; the 5D standing for it counts 5 beside A's 5).
    assert_eq!(won.data["defenders_points"], 10);
}

#[test]
fn a_discard_of_another_side_suit_does_not_contend() {
    // Seed: A 梅花5, B 梅花6, C 梅花8, D 方块3 (副牌) → C wins. The deck has no 3s: 5D, the
    // lowest diamond, stands for the 方块3.
    let mut st = at_play(
        [&["5C"], &["6C"], &["8C"], &["5D"]],
        &[],
        1,
        90,
        Some(Suit::H),
    );
    lead_from(&mut st, 0, 0);
    play(&mut st, 0, &["5C"]);
    play(&mut st, 1, &["6C"]);
    play(&mut st, 2, &["8C"]);
    let out = play(&mut st, 3, &["5D"]);
    let won = out.events.iter().find(|e| e.kind == "trick_won").unwrap();
    assert_eq!(won.seat, Some(2));
    // Seat 1 is the banker: a defender took both 5s.
    assert_eq!(won.data["defenders_points"], 10);
}

#[test]
fn equal_cards_the_earlier_wins() {
    let mut st = at_play(
        [&["9C", "8C"], &["7S", "8C"], &["7D", "9C"], &["5C", "6C"]],
        &[],
        0,
        90,
        Some(Suit::H),
    );
    play(&mut st, 0, &["9C"]);
    // Seats 1 and 2 are void in clubs? No: they hold clubs, so this lead is followed in suit.
    play(&mut st, 1, &["8C"]);
    play(&mut st, 2, &["9C"]);
    play(&mut st, 3, &["5C"]);
    assert_eq!(tricks_mut(&mut st).done[0].winner, Some(0));
    // Two 副7s of different suits are equal: the earlier keeps the trick.
    play(&mut st, 0, &["8C"]);
    play(&mut st, 1, &["7S"]);
    play(&mut st, 2, &["7D"]);
    play(&mut st, 3, &["6C"]);
}

#[test]
fn side_sevens_are_equal_and_the_earlier_wins() {
    let mut st = at_play(
        [&["5C"], &["7S"], &["7D"], &["6C"]],
        &[],
        0,
        90,
        Some(Suit::H),
    );
    play(&mut st, 0, &["5C"]);
    let e = refused_play(&mut st, 1, &["5C"]);
    assert!(e.contains("hold"), "{e}");
    play(&mut st, 1, &["7S"]);
    play(&mut st, 2, &["7D"]);
    let out = play(&mut st, 3, &["6C"]);
    let won = out.events.iter().find(|e| e.kind == "trick_won").unwrap();
    assert_eq!(won.seat, Some(1));
}

#[test]
fn points_count_only_for_tricks_a_defender_wins() {
    let mut st = at_play(
        [&["AS", "5H"], &["KS", "KH"], &["10S", "10H"], &["5S", "AH"]],
        &[],
        0,
        90,
        Some(Suit::D),
    );
    play(&mut st, 0, &["AS"]);
    play(&mut st, 1, &["KS"]);
    play(&mut st, 2, &["10S"]);
    play(&mut st, 3, &["5S"]);
    assert_eq!(
        tricks_mut(&mut st).points,
        0,
        "the banker's trick scores nothing"
    );
    play(&mut st, 0, &["5H"]);
    play(&mut st, 1, &["KH"]);
    play(&mut st, 2, &["10H"]);
    let out = play(&mut st, 3, &["AH"]);
    let (points, verdict, capture, _) = played(&out);
    assert_eq!((points, verdict, capture), (25, Verdict::Guozhuang, None));
}

// ---- 甩牌 -------------------------------------------------------------------------------------

pub(super) fn throw_table() -> State {
    at_play(
        [
            &["RJ", "7H", "2S", "AH", "AS"],
            &["5S", "6S", "8S", "9S", "JS"],
            &["6C", "8C", "9C", "JC", "QC"],
            &["6D", "8D", "9D", "JD", "5H"],
        ],
        &[],
        0,
        90,
        Some(Suit::H),
    )
}

#[test]
fn throwing_is_refused_before_every_defender_has_shown_void_in_trumps() {
    let mut st = throw_table();
    let e = refused_play(&mut st, 0, &["RJ", "7H", "2S", "AH"]);
    assert!(e.contains("甩牌"), "{e}");
    assert!(!Sandaha::legal_actions(&st, 0).iter().any(|l| matches!(
        l,
        Legal::Play { shapes, .. } if shapes.iter().any(|s| matches!(s, Shape::Throw { .. }))
    )));
}

#[test]
fn throwing_all_remaining_trumps_is_accepted_once_every_defender_is_void() {
    let mut st = throw_table();
    play(&mut st, 0, &["AH"]);
    play(&mut st, 1, &["5S"]);
    play(&mut st, 2, &["6C"]);
    // Seat 3 still holds a trump (5H): it must follow with it.
    refused_play(&mut st, 3, &["6D"]);
    play(&mut st, 3, &["5H"]);
    assert_eq!(
        tricks_mut(&mut st).void_in_trumps,
        [false, true, true, false]
    );
    play(&mut st, 0, &["2S"]);
    play(&mut st, 1, &["6S"]);
    play(&mut st, 2, &["8C"]);
    play(&mut st, 3, &["6D"]);
    assert_eq!(
        tricks_mut(&mut st).void_in_trumps,
        [false, true, true, true]
    );
    let e = refused_play(
        &mut st,
        0,
        &["RJ"; 1].iter().chain(&["AS"]).copied().collect::<Vec<_>>(),
    );
    assert!(e.contains("one suit"), "{e}");
    let e = refused_play(&mut st, 0, &["RJ", "7H", "AS"]);
    assert!(!e.is_empty());
    assert!(Sandaha::legal_actions(&st, 0).iter().any(|l| matches!(
        l,
        Legal::Play { shapes, .. } if shapes.contains(&Shape::Throw { cards: 2 })
    )));
    play(&mut st, 0, &["RJ", "7H"]);
    play(&mut st, 1, &["8S", "9S"]);
    play(&mut st, 2, &["9C", "JC"]);
    play(&mut st, 3, &["8D", "9D"]);
    assert_eq!(tricks_mut(&mut st).done.last().unwrap().winner, Some(0));
}

#[test]
fn a_throw_must_be_all_remaining_trumps() {
    let mut st = at_play(
        [
            &["RJ", "7H", "2S", "AS"],
            &["5S"; 4],
            &["6C"; 4],
            &["6D"; 4],
        ],
        &[],
        0,
        90,
        Some(Suit::H),
    );
    tricks_mut(&mut st).void_in_trumps = [false, true, true, true];
    let e = refused_play(&mut st, 0, &["RJ", "7H"]);
    assert!(e.contains("all of your remaining trumps"), "{e}");
}

#[test]
fn a_defender_may_not_throw() {
    let mut st = at_play(
        [
            &["5S"; 4],
            &["RJ", "7H", "2S", "AS"],
            &["6C"; 4],
            &["6D"; 4],
        ],
        &[],
        0,
        90,
        Some(Suit::H),
    );
    tricks_mut(&mut st).void_in_trumps = [true, false, true, true];
    lead_from(&mut st, 1, 0);
    refused_play(&mut st, 1, &["RJ", "7H", "2S"]);
}

// ---- 扣底 and the result table ----------------------------------------------------------------

/// Buried: 10 + 10 + 5 = 25 points.
const BURIED: [&str; 8] = ["10S", "KD", "5C", "6C", "8C", "9C", "6D", "8D"];

#[test]
fn last_trick_won_by_a_defender_with_a_trump_single_adds_the_buried_points_once() {
    let mut st = at_play(
        [&["AS"], &["2S"], &["6S"], &["9S"]],
        &BURIED,
        0,
        90,
        Some(Suit::H),
    );
    lead_from(&mut st, 0, 60);
    play(&mut st, 0, &["AS"]);
    play(&mut st, 1, &["2S"]);
    play(&mut st, 2, &["6S"]);
    let out = play(&mut st, 3, &["9S"]);
    let (points, verdict, capture, pts) = played(&out);
    assert_eq!(
        capture,
        Some(BottomCapture {
            multiple: 1,
            points: 25
        })
    );
    assert_eq!(points, 85);
    assert_eq!(verdict, Verdict::Guozhuang);
    // 过庄 at 90: the banker wins 2 × 1 from each defender.
    assert_eq!(pts, vec![6, -2, -2, -2]);
}

#[test]
fn last_trick_won_with_a_trump_pair_doubles_the_buried_points() {
    let mut st = at_play(
        [&["AS", "AS"], &["2D", "2D"], &["6S", "8S"], &["9S", "JS"]],
        &BURIED,
        0,
        90,
        Some(Suit::H),
    );
    lead_from(&mut st, 0, 40);
    play(&mut st, 0, &["AS", "AS"]);
    play(&mut st, 1, &["2D", "2D"]);
    play(&mut st, 2, &["6S", "8S"]);
    let out = play(&mut st, 3, &["9S", "JS"]);
    let (points, verdict, capture, pts) = played(&out);
    assert_eq!(
        capture,
        Some(BottomCapture {
            multiple: 2,
            points: 50
        })
    );
    assert_eq!((points, verdict), (90, Verdict::Kuazhuang));
    assert_eq!(pts, vec![-3, 1, 1, 1]);
}

#[test]
fn last_trick_won_with_a_trump_tractor_quadruples_the_buried_points() {
    let mut st = at_play(
        [
            &["8H", "8H", "9H", "9H"],
            &["5S", "6S", "8S", "9S"],
            &["JH", "JH", "QH", "QH"],
            &["5D", "6D", "8D", "9D"],
        ],
        &BURIED,
        0,
        85,
        Some(Suit::H),
    );
    lead_from(&mut st, 0, 30);
    play(&mut st, 0, &["8H", "8H", "9H", "9H"]);
    play(&mut st, 1, &["5S", "6S", "8S", "9S"]);
    play(&mut st, 2, &["JH", "JH", "QH", "QH"]);
    let out = play(&mut st, 3, &["5D", "6D", "8D", "9D"]);
    let (points, verdict, capture, pts) = played(&out);
    assert_eq!(
        capture,
        Some(BottomCapture {
            multiple: 4,
            points: 100
        })
    );
    // 30 before, 10 in the trick (5S, 5D), 4 × 25 from the bottom.
    assert_eq!((points, verdict), (140, Verdict::Xiaodao));
    assert_eq!(pts, vec![-12, 4, 4, 4]);
}

#[test]
fn last_trick_won_with_a_side_suit_captures_nothing() {
    let mut st = at_play(
        [&["9S"], &["AS"], &["6S"], &["8S"]],
        &BURIED,
        0,
        90,
        Some(Suit::H),
    );
    lead_from(&mut st, 0, 30);
    play(&mut st, 0, &["9S"]);
    play(&mut st, 1, &["AS"]);
    play(&mut st, 2, &["6S"]);
    let out = play(&mut st, 3, &["8S"]);
    let (points, verdict, capture, _) = played(&out);
    assert_eq!((points, verdict, capture), (30, Verdict::Guozhuang, None));
}

#[test]
fn last_trick_won_by_the_banker_captures_nothing() {
    let mut st = at_play(
        [&["RJ"], &["AS"], &["6S"], &["8S"]],
        &BURIED,
        0,
        90,
        Some(Suit::H),
    );
    play(&mut st, 0, &["RJ"]);
    play(&mut st, 1, &["AS"]);
    play(&mut st, 2, &["6S"]);
    let out = play(&mut st, 3, &["8S"]);
    let (points, verdict, capture, pts) = played(&out);
    assert_eq!((points, verdict, capture), (0, Verdict::Daguang, None));
    assert_eq!(pts, vec![24, -8, -8, -8]);
}

// ---- escape ----------------------------------------------------------------------------------

#[test]
fn a_defender_escaping_pays_its_daguang_share_to_the_banker_and_ends_the_match() {
    let mut st = banker_to_decide(1);
    let out = Sandaha::leave(
        &mut st,
        2,
        Ctx {
            now_ms: T0.now_ms + 10_000,
        },
        0,
    );
    let r = out.hand_end.unwrap();
    assert_eq!(r.points, vec![0, 8, -8, 0]);
    assert_eq!(r.units, r.points);
    assert_eq!(Sandaha::stage(&st), Stage::Finished);
}

#[test]
fn a_banker_escaping_pays_dadao_and_a_long_hand_gives_the_others_one_more() {
    let mut st = banker_to_decide(1);
    let out = Sandaha::leave(
        &mut st,
        1,
        Ctx {
            now_ms: T0.now_ms + 30_000,
        },
        0,
    );
    let r = out.hand_end.unwrap();
    assert_eq!(r.units, vec![4, -12, 4, 4]);
    assert_eq!(r.points, vec![5, -12, 5, 5]);
}

#[test]
fn escaping_during_bidding_pays_as_a_banker_at_the_standing_bid() {
    let mut st = dealt_hand();
    act(&mut st, 0, Action::Bid { value: 90 });
    act(&mut st, 1, Action::Bid { value: 85 });
    let r = Sandaha::leave(&mut st, 3, T0, 0).hand_end.unwrap();
    assert_eq!(r.points, vec![8, 8, 8, -24]);
}

// ---- options and surfaces --------------------------------------------------------------------

#[test]
fn options_default_to_limited_and_refuse_unknown_fields() {
    assert_eq!(limited(), Options { limit: true });
    assert_eq!(
        (limited().level_floor(), unlimited().level_floor()),
        (70, 5)
    );
    assert!(parse_options::<Sandaha>(4, &json!({"limit": 3})).is_err());
    assert!(parse_options::<Sandaha>(4, &json!({"limt": false})).is_err());
    assert!(parse_options::<Sandaha>(3, &json!({})).is_err());
}

#[test]
fn actions_read_the_documented_json() {
    let read = |v: Value| serde_json::from_value::<Action>(v);
    assert_eq!(
        read(json!({"type": "bid", "value": 85})).unwrap(),
        Action::Bid { value: 85 }
    );
    assert_eq!(
        read(json!({"type": "trump", "suit": null})).unwrap(),
        Action::Trump { suit: None }
    );
    assert_eq!(
        read(json!({"type": "trump", "suit": "S"})).unwrap(),
        Action::Trump {
            suit: Some(Suit::S)
        }
    );
    assert_eq!(read(json!({"type": "play_on"})).unwrap(), Action::PlayOn {});
    assert!(read(json!({"type": "pass", "value": 1})).is_err());
    assert!(read(json!({"type": "bid", "value": -5})).is_err());
}

// ---- random hands ----------------------------------------------------------------------------

/// Card notations inside a JSON value.
fn card_strings(v: &Value, out: &mut Vec<Card>) {
    match v {
        Value::String(s) => {
            if let Ok(c) = Card::parse(s) {
                out.push(c);
            }
        }
        Value::Array(a) => a.iter().for_each(|x| card_strings(x, out)),
        Value::Object(o) => o.values().for_each(|x| card_strings(x, out)),
        _ => {}
    }
}

/// Every card `v` shows is among `public` (as a multiset).
fn assert_within(v: &Value, public: &[Card], what: &str) {
    let mut seen = Vec::new();
    card_strings(v, &mut seen);
    assert!(
        crate::cards::holds_all(public, &seen),
        "{what} shows a hidden card: {seen:?}"
    );
}

pub(super) fn random_subset(rng: &mut Rng, from: &[Card], n: usize) -> Vec<Card> {
    let mut pool = from.to_vec();
    let mut out = Vec::new();
    while out.len() < n && !pool.is_empty() {
        out.push(pool.swap_remove(rng.below(pool.len())));
    }
    out
}

/// A random attempt at a play: often illegal, which `apply` must refuse.
pub(super) fn random_play(rng: &mut Rng, st: &State, seat: SeatNo) -> Vec<Card> {
    let h = st.table.hand().unwrap();
    let Phase::Tricks { trump, play, .. } = &h.phase else {
        unreachable!()
    };
    let order = order(*trump);
    let hand = &h.hands[seat];
    match play.current.plays.first() {
        None => match rng.below(4) {
            0 => hand
                .iter()
                .copied()
                .filter(|&c| order.is_trump(c))
                .collect(),
            1 => {
                let c = hand[rng.below(hand.len())];
                vec![c, c]
            }
            _ => vec![hand[rng.below(hand.len())]],
        },
        Some(lead) => {
            let n = lead.cards.len();
            let suit = order.eff(lead.cards[0]);
            let lane: Vec<Card> = hand
                .iter()
                .copied()
                .filter(|&c| order.eff(c) == suit)
                .collect();
            let mut p = random_subset(rng, &lane, n);
            let mut rest = hand.clone();
            crate::cards::remove_cards(&mut rest, &p);
            let more = random_subset(rng, &rest, n - p.len());
            p.extend(more);
            p
        }
    }
}

#[test]
fn random_hands_keep_every_invariant() {
    let mut rng = Rng(0x5a_d4a);
    let mut played_out = 0;
    let mut ended = 0;
    let mut escapes = 0;
    let mut captures = 0;
    while played_out < 10_000 {
        let opts = if rng.below(4) == 0 {
            unlimited()
        } else {
            limited()
        };
        let mut st = Sandaha::new_match(opts.clone(), 4);
        for _ in 0..6 {
            let mut deck = Sandaha::deck(&opts);
            let mut seed = [0u8; 32];
            seed[..8].copy_from_slice(&rng.next().to_le_bytes());
            shuffle(&mut deck, &seed);
            let sorted_deck = crate::cards::canonical(&deck);
            let out = Sandaha::start_hand(
                &mut st,
                HandStart {
                    deck: deck.clone(),
                    ctx: T0,
                    wallets: vec![0; 4],
                    scores: vec![0; 4],
                },
            );
            for e in &out.events {
                if e.kind == "dealt" {
                    let s = e.seat.unwrap();
                    assert_eq!(e.to, Visibility::Seats(vec![s]));
                    assert_eq!(e.data["cards"], json!(st.table.hand().unwrap().hands[s]));
                } else {
                    assert_eq!(e.to, Visibility::All);
                    assert_within(&e.data, &[], e.kind);
                }
            }
            let escape_at = (rng.below(100) == 0).then(|| rng.below(40));
            let mut steps = 0;
            let result = loop {
                steps += 1;
                assert!(steps < 500, "the hand must end");
                let seat = Sandaha::to_act(&st)[0];
                if escape_at == Some(steps) {
                    escapes += 1;
                    break Sandaha::leave(&mut st, seat, T0, 0)
                        .hand_end
                        .expect("an escape ends the hand");
                }
                let h = st.table.hand().unwrap();
                let attempt = match &h.phase {
                    _ if rng.below(10) == 0 => None,
                    Phase::Bidding(b) => Some(if rng.below(3) == 0 {
                        Action::Bid {
                            value: b.next_bid(),
                        }
                    } else {
                        Action::Pass {}
                    }),
                    Phase::Trump { .. } => Some(Action::Trump {
                        suit: [
                            None,
                            Some(Suit::S),
                            Some(Suit::H),
                            Some(Suit::D),
                            Some(Suit::C),
                        ][rng.below(5)],
                    }),
                    Phase::Bury { .. } => Some(Action::Bury {
                        cards: random_subset(&mut rng, &h.hands[seat], BOTTOM),
                    }),
                    Phase::Decide { .. } => Some(if rng.below(30) == 0 {
                        Action::Surrender {}
                    } else {
                        Action::PlayOn {}
                    }),
                    Phase::Tricks { .. } => Some(Action::Play {
                        cards: random_play(&mut rng, &st, seat),
                    }),
                };
                // Copying the state costs more than the step: every fourth step checks a refusal.
                let before = (steps % 4 == 0).then(|| st.clone());
                let out = match attempt.map(|a| Sandaha::apply(&mut st, seat, a, T0)) {
                    Some(Ok(out)) => out,
                    refused => {
                        if let Some(Err(e)) = refused {
                            if let Some(before) = &before {
                                assert!(st == *before, "refusal changes nothing");
                            }
                            assert_within(
                                &json!(
                                    e.detail
                                        .split(|c: char| !c.is_ascii_alphanumeric())
                                        .collect::<Vec<_>>()
                                ),
                                &[],
                                "an error",
                            );
                        }
                        let auto = Sandaha::auto_action(&st, seat);
                        Sandaha::apply(&mut st, seat, auto.clone(), T0).unwrap_or_else(|e| {
                            panic!("automatic {auto:?} by {seat} refused: {}", e.detail)
                        })
                    }
                };
                let banker = st
                    .table
                    .hand()
                    .and_then(|h| h.phase.contract())
                    .map(|c| c.banker);
                // Public cards: every card played so far in the hand. Collected only when some
                // check needs them: a play's own event shows only cards just made public.
                let needed = steps % 4 == 0 || out.events.iter().any(|e| e.kind != "play");
                let public: Vec<Card> = match st.table.hand().map(|h| &h.phase) {
                    Some(Phase::Tricks { play, .. }) if needed => play
                        .done
                        .iter()
                        .chain([&play.current])
                        .flat_map(|t| t.plays.iter().flat_map(|p| p.cards.iter().copied()))
                        .collect(),
                    _ => Vec::new(),
                };
                for e in &out.events {
                    match (&e.to, e.kind) {
                        (Visibility::All, "play") => {}
                        (Visibility::All, _) => assert_within(&e.data, &public, e.kind),
                        (Visibility::Seats(s), "bottom" | "buried_cards") => {
                            assert_eq!(s, &vec![banker.unwrap_or(seat)])
                        }
                        // A redeal's new hands, each to its own seat only.
                        (Visibility::Seats(s), "dealt") => {
                            let h = st.table.hand().expect("dealt within the hand");
                            assert_eq!(s, &vec![e.seat.unwrap()]);
                            assert_eq!(e.data["cards"], json!(h.hands[s[0]]));
                        }
                        (v, k) => panic!("{k} sent to {v:?}"),
                    }
                }
                if let Some(r) = out.hand_end {
                    break r;
                }
                let h = st.table.hand().unwrap();
                if steps % 4 != 0 {
                    continue;
                }
                let mut all: Vec<Card> = h
                    .hands
                    .iter()
                    .flatten()
                    .copied()
                    .chain(h.bottom.iter().copied())
                    .collect();
                all.extend(public.iter().copied());
                assert_eq!(
                    crate::cards::canonical(&all),
                    sorted_deck,
                    "cards conserved"
                );
                // Views cost more than steps: every 16th step renders one viewer's, in turn.
                if steps % 16 == 0 {
                    let contract = h.phase.contract();
                    let viewers = [None, Some(0), Some(1), Some(2), Some(3)];
                    let viewer = viewers[(steps / 16 + ended) % viewers.len()];
                    let mut v = view_json::<Sandaha>(&st, viewer);
                    let fields = v.as_object_mut().unwrap();
                    let hand = fields.remove("hand").unwrap();
                    let buried = fields.remove("buried").unwrap();
                    match viewer {
                        Some(s) => assert_eq!(hand, json!(h.hands[s])),
                        None => assert_eq!(hand, Value::Null),
                    }
                    if buried != Value::Null {
                        assert_eq!(viewer, contract.map(|c| c.banker));
                        assert_eq!(buried, json!(h.bottom));
                    }
                    assert_within(&v, &public, "a view");
                    let legal = json!(Sandaha::legal_actions(&st, viewer.unwrap_or(0)));
                    assert_within(&legal, &[], "legal actions");
                }
                if steps % 64 == 0 {
                    let back: State =
                        serde_json::from_str(&serde_json::to_string(&st).unwrap()).unwrap();
                    assert!(back == st, "the state survives its JSON");
                }
            };
            ended += 1;
            // Between hands (and after an escape) nothing is hidden any more, and nothing is
            // shown: no view names a card, the summary included.
            for viewer in [None, Some(0), Some(1), Some(2), Some(3)] {
                assert_within(
                    &view_json::<Sandaha>(&st, viewer),
                    &[],
                    "a view between hands",
                );
            }
            assert_within(&result.detail, &[], "the summary");
            assert_eq!(result.units.iter().sum::<i64>(), 0, "{:?}", result.detail);
            let s: Summary = serde_json::from_value(result.detail.clone()).unwrap();
            match s {
                Summary::Escape { .. } => {}
                _ => assert_eq!(result.points, result.units),
            }
            if let Summary::Played {
                defenders_points,
                bottom_capture,
                ..
            } = s
            {
                played_out += 1;
                assert_eq!(defenders_points % 5, 0);
                let extra = bottom_capture.map_or(0, |c| {
                    captures += 1;
                    c.points - c.points / c.multiple
                });
                assert!(
                    defenders_points <= 200 + extra,
                    "{defenders_points} > 200 + {extra}"
                );
            }
            match Sandaha::stage(&st) {
                Stage::Finished => break,
                stage => assert_eq!(stage, Stage::NeedsDeal),
            }
        }
    }
    assert!(
        ended >= played_out && escapes > 0 && captures > 0,
        "{ended} {escapes} {captures}"
    );
}

#[test]
fn legal_play_lists_the_shapes_the_leader_holds_and_the_led_shape_to_followers() {
    let mut st = at_play(
        [
            &["6S", "6S", "8S", "8S", "9S", "9S", "AD"],
            &["5S", "6S", "8S", "9S", "JS", "QS", "KD"],
            &["5C"; 7],
            &["5D"; 7],
        ],
        &[],
        0,
        90,
        Some(Suit::H),
    );
    assert_eq!(
        Sandaha::legal_actions(&st, 0),
        vec![Legal::Play {
            lead: true,
            count: None,
            shapes: vec![
                Shape::Single,
                Shape::Pair,
                Shape::Tractor { pairs: 2 },
                Shape::Tractor { pairs: 3 },
            ],
        }]
    );
    assert!(
        Sandaha::legal_actions(&st, 1).is_empty(),
        "not seat 1's turn"
    );
    play(&mut st, 0, &["6S", "6S", "8S", "8S"]);
    assert_eq!(
        Sandaha::legal_actions(&st, 1),
        vec![Legal::Play {
            lead: false,
            count: Some(4),
            shapes: vec![Shape::Tractor { pairs: 2 }],
        }]
    );
    let auto = Sandaha::auto_action(&st, 1);
    assert_eq!(
        auto,
        Action::Play {
            cards: cards(&["5S", "6S", "8S", "9S"])
        }
    );
    act(&mut st, 1, auto);
}

#[test]
fn without_a_tractor_any_pairs_will_do_as_long_as_there_are_as_many_as_possible() {
    let mut st = at_play(
        [
            &["5S", "5S", "6S", "6S", "8S", "8S"],
            &["9S", "9S", "10S", "10S", "QS", "QS", "AS", "AS", "KS"],
            &["5C"; 6],
            &["5D"; 6],
        ],
        &[],
        0,
        90,
        Some(Suit::H),
    );
    play(&mut st, 0, &["5S", "5S", "6S", "6S", "8S", "8S"]);
    let e = refused_play(&mut st, 1, &["9S", "9S", "QS", "QS", "AS", "KS"]);
    assert!(e.contains("有牌必跟"), "{e}");
    // 9-10 would be a two-pair tractor; sandaha asks only for three pairs.
    play(&mut st, 1, &["9S", "9S", "QS", "QS", "AS", "AS"]);
}

#[test]
fn schemas_describe_every_action_and_the_typed_view() {
    use crate::engine::{DynGame, Registered};
    let g = Registered::<Sandaha>::new();
    let s = g.schemas();
    let text = s.action.to_string();
    for t in [
        "bid",
        "pass",
        "trump",
        "bury",
        "surrender",
        "play_on",
        "play",
    ] {
        assert!(
            text.contains(&format!("\"{t}\"")),
            "action schema lacks {t}"
        );
    }
    for (name, schema) in [
        ("state", &s.state),
        ("legal", &s.legal_action),
        ("summary", &s.last_result),
    ] {
        assert!(
            schema.get("properties").is_some() || schema.get("oneOf").is_some(),
            "{name}: {schema}"
        );
    }
}

#[test]
fn malformed_actions_are_refused_as_invalid_and_change_nothing() {
    use crate::engine::{DynGame, Registered, RuleErrorKind};
    let g = Registered::<Sandaha>::new();
    let opts = g.options(4, &json!({})).unwrap();
    let mut st = g.new_match(&opts, 4).unwrap();
    st.start_hand(HandStart {
        deck: g.deck(&opts).unwrap(),
        ctx: T0,
        wallets: vec![0; 4],
        scores: vec![0; 4],
    });
    let before = st.save();
    for bad in [
        json!({"type": "bid", "value": -5}),
        json!({"type": "bid", "value": "90"}),
        json!({"type": "bid"}),
        json!({"type": "pass", "extra": 1}),
        json!({"type": "trump", "suit": "X"}),
        json!({"type": "bury", "cards": ["ZZ"]}),
        json!({"type": "play", "cards": "QH"}),
        json!({"type": "fold"}),
        json!([]),
    ] {
        let e = st.apply(0, &bad, T0).expect_err("refused");
        assert_eq!(e.kind, RuleErrorKind::Invalid, "{bad}: {}", e.detail);
        assert_eq!(st.save(), before);
    }
}

// ---- bots -----------------------------------------------------------------------------------

fn bot_plays(st: &State, seat: SeatNo) -> Vec<Card> {
    match Sandaha::bot_action(st, seat) {
        Action::Play { cards } => crate::cards::canonical(&cards),
        other => panic!("seat {seat} should play, not {other:?}"),
    }
}

/// Seat 0 to bid first with `hand` in place of the dealt one, `standing` the bid standing.
fn bidding_with(hand: &[&str], standing: Option<(SeatNo, u32)>) -> State {
    let mut st = dealt_hand();
    let h = st.table.hand_mut().unwrap();
    h.hands[0] = cards(hand);
    let mut b = Bidding::new(0);
    b.standing = standing;
    h.phase = Phase::Bidding(b);
    st
}

#[test]
fn bot_bids_as_low_as_its_trumps_and_aces_allow() {
    let weak = &[
        "5S", "6S", "8H", "9H", "JD", "QD", "KC", "10C", "6D", "8D", "9S",
    ];
    assert!(bot::strength(&cards(weak)) < bot::BID_FROM);
    assert_eq!(
        Sandaha::bot_action(&bidding_with(weak, None), 0),
        Action::Pass {}
    );
    // 3 jokers, five 7s and 2s, six hearts and two aces: 9 + 10 + 6 + 2 = 27.
    let strong = &[
        "RJ", "RJ", "BJ", "7S", "7H", "7D", "2S", "2C", "AH", "KH", "QH", "JH", "10H", "9H", "AS",
        "5D", "6C", "8C", "9D", "JS", "QC",
    ];
    assert_eq!(bot::strength(&cards(strong)), 27);
    assert_eq!(bot::lowest_bid_for(27, 70), Some(70));
    assert_eq!(bot::lowest_bid_for(31, 5), Some(60));
    assert_eq!(
        Sandaha::bot_action(&bidding_with(strong, None), 0),
        Action::Bid { value: 90 }
    );
    assert_eq!(
        Sandaha::bot_action(&bidding_with(strong, Some((1, 75))), 0),
        Action::Bid { value: 70 }
    );
    // 限级: a bid under 70 would raise no level, only lower the defenders' target.
    assert_eq!(
        Sandaha::bot_action(&bidding_with(strong, Some((1, 70))), 0),
        Action::Pass {}
    );
    // 3 + 6 + 8 + 1 = 18: it opens at 90 but does not go to 85.
    let fair = &[
        "RJ", "7S", "7H", "2D", "AH", "KH", "QH", "JH", "10H", "9H", "8H", "6H", "5S", "6S", "8D",
        "9D", "JC", "QC", "KC", "10S", "9C",
    ];
    assert_eq!(bot::strength(&cards(fair)), bot::BID_FROM);
    assert_eq!(
        Sandaha::bot_action(&bidding_with(fair, None), 0),
        Action::Bid { value: 90 }
    );
    assert_eq!(
        Sandaha::bot_action(&bidding_with(fair, Some((1, 90))), 0),
        Action::Pass {}
    );
}

#[test]
fn bot_buries_cards_without_points() {
    let mut st = banker_named(1);
    act(
        &mut st,
        1,
        Action::Trump {
            suit: Some(Suit::S),
        },
    );
    let Action::Bury { cards: buried } = Sandaha::bot_action(&st, 1) else {
        panic!("the banker buries");
    };
    assert_eq!(buried.len(), BOTTOM);
    assert_eq!(trick::points(&buried), 0, "{buried:?}");
    act(&mut st, 1, Action::Bury { cards: buried });
    assert_eq!(Sandaha::bot_action(&st, 1), Action::PlayOn {});
}

#[test]
fn bot_banker_leads_a_sure_winner_and_defenders_feed_each_other() {
    let hands: [&[&str]; 4] = [
        &["AH", "AH", "KH", "5C", "6D"],
        &["QH", "6H", "5S", "8D", "9D"],
        &["KH", "6H", "5C", "8C", "9C"],
        &["9H", "8H", "6S", "JD", "QD"],
    ];
    let st = at_play(hands, &[], 0, 80, Some(Suit::S));
    assert_eq!(bot_plays(&st, 0), cards(&["AH", "AH"]));

    let mut st = at_play(
        [
            &["9H", "5C", "6D"],
            &["AH", "6H", "5S"],
            &["KH", "6H", "5C"],
            &["8H", "6S", "JD"],
        ],
        &[],
        0,
        80,
        Some(Suit::S),
    );
    play(&mut st, 0, &["9H"]);
    // Seat 1, a defender, can beat the banker's 9 with its A for free.
    assert_eq!(bot_plays(&st, 1), cards(&["AH"]));
    play(&mut st, 1, &["AH"]);
    // Seat 2's partner holds the trick: it gives it the K.
    assert_eq!(bot_plays(&st, 2), cards(&["KH"]));
}

/// The state with cards `seat` cannot see moved: one card exchanged between two other seats'
/// hands, or between another hand and the bottom while `seat` has not seen the bottom.
fn hide_differently(st: &State, seat: SeatNo, rng: &mut Rng) -> State {
    let mut other = st.clone();
    let h = other.table.hand_mut().unwrap();
    let banker = h.phase.contract().map(|c| c.banker);
    let bottom_hidden = !h.bottom.is_empty() && banker != Some(seat);
    let others: Vec<SeatNo> = (0..4)
        .filter(|&x| x != seat && !h.hands[x].is_empty())
        .collect();
    let Some(&a) = others.first() else {
        return other;
    };
    let i = rng.below(h.hands[a].len());
    if bottom_hidden && (others.len() < 2 || rng.chance(40)) {
        let j = rng.below(h.bottom.len());
        std::mem::swap(&mut h.hands[a][i], &mut h.bottom[j]);
    } else if others.len() >= 2 {
        let b = others[1 + rng.below(others.len() - 1)];
        let j = rng.below(h.hands[b].len());
        let x = h.hands[a][i];
        h.hands[a][i] = h.hands[b][j];
        h.hands[b][j] = x;
    }
    other
}

// ---------------------------------------------------------------- event schemas

/// A random legal move of `seat`: the bot's, or one of its legal actions made concrete (burying
/// and playing as the bot or the automatic move would).
fn random_move(st: &State, seat: SeatNo, rng: &mut Rng) -> Action {
    if rng.chance(40) {
        return Sandaha::bot_action(st, seat);
    }
    let legal = Sandaha::legal_actions(st, seat);
    // Passing often enough that all four now and then pass (a redeal).
    if legal.contains(&Legal::Pass {}) && rng.chance(70) {
        return Action::Pass {};
    }
    match &legal[rng.below(legal.len())] {
        Legal::Bid { value } => Action::Bid { value: *value },
        Legal::Pass {} => Action::Pass {},
        Legal::Trump { suits } => Action::Trump {
            suit: suits[rng.below(suits.len())],
        },
        Legal::Surrender {} => Action::Surrender {},
        Legal::PlayOn {} => Action::PlayOn {},
        Legal::Bury { .. } | Legal::Play { .. } => Sandaha::auto_action(st, seat),
    }
}

/// Whole matches of random legal moves, escapes and leaves, with and without 限级: every
/// event's kind has a schema in `event_schemas`, its data is valid against it, and every kind
/// is seen.
#[test]
fn every_event_of_random_matches_matches_its_schema() {
    let mut check = EventCheck::new::<Sandaha>();
    let mut rng = Rng(5);
    for m in 0..20 {
        let options = if m % 2 == 0 { limited() } else { unlimited() };
        let plan = Plan {
            options: &options,
            seats: 4,
            hands: 4,
            leaves: true,
        };
        play_match::<Sandaha>(&mut check, &mut rng, plan, random_move, |_, _| vec![0; 4]);
    }
    check.all_seen(&[]);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig {
        cases: 48,
        ..proptest::prelude::ProptestConfig::default()
    })]

    /// Four bots play whole hands: every bot action is accepted, every hand ends, cards are
    /// conserved, events show nothing secret, results are zero-sum; and a seat's bot decides
    /// the same when only cards it cannot see move (other hands, the bottom it has not seen).
    #[test]
    fn bots_play_whole_hands_legally_and_see_only_their_own_cards(
        seed in proptest::prelude::any::<u64>(),
        limit in proptest::prelude::any::<bool>(),
    ) {
        let opts = if limit { limited() } else { unlimited() };
        let mut rng = Rng(seed);
        let mut st = Sandaha::new_match(opts.clone(), 4);
        for _ in 0..3 {
            let mut deck = Sandaha::deck(&opts);
            let mut shuffle_seed = [0u8; 32];
            shuffle_seed[..8].copy_from_slice(&rng.next().to_le_bytes());
            shuffle(&mut deck, &shuffle_seed);
            let sorted_deck = crate::cards::canonical(&deck);
            Sandaha::start_hand(
                &mut st,
                HandStart {
                    deck,
                    ctx: T0,
                    wallets: vec![0; 4],
                    scores: vec![0; 4],
                },
            );
            let mut steps = 0;
            let result = loop {
                steps += 1;
                assert!(steps < 500, "the hand must end");
                let seat = Sandaha::to_act(&st)[0];
                let action = Sandaha::bot_action(&st, seat);
                let blind = hide_differently(&st, seat, &mut rng);
                assert_eq!(Sandaha::bot_action(&blind, seat), action, "hidden cards moved");
                let out = Sandaha::apply(&mut st, seat, action.clone(), T0)
                    .unwrap_or_else(|e| panic!("{action:?} by {seat}: {}", e.detail));
                let h = st.table.hand();
                let public: Vec<Card> = match h.map(|h| &h.phase) {
                    Some(Phase::Tricks { play, .. }) => play
                        .done
                        .iter()
                        .chain([&play.current])
                        .flat_map(|t| t.plays.iter().flat_map(|p| p.cards.iter().copied()))
                        .collect(),
                    _ => Vec::new(),
                };
                for e in &out.events {
                    if e.to == Visibility::All && e.kind != "play" {
                        assert_within(&e.data, &public, e.kind);
                    }
                }
                if let Some(r) = out.hand_end {
                    break r;
                }
                let h = st.table.hand().unwrap();
                let mut all: Vec<Card> = h
                    .hands
                    .iter()
                    .flatten()
                    .chain(h.bottom.iter())
                    .copied()
                    .collect();
                all.extend(public);
                assert_eq!(crate::cards::canonical(&all), sorted_deck.clone());
            };
            assert_eq!(result.units.iter().sum::<i64>(), 0, "{:?}", result.detail);
        }
    }
}
