//! Rule tests: each names the rule it checks. Fixtures are readable card lists.

use crate::engine::{coins_at_table, parse_options, view_json};
use crate::event_check::{EventCheck, Plan, play_match};
use crate::test_rng::Rng;
use serde_json::{Value, json};

use super::combos::{self, Combo, Kind};
use super::scoring::{bomb_reward, bomb_step};
use super::*;
use crate::cards::{Card, remove_cards};
use crate::engine::{Ctx, Game, HandStart, RuleErrorKind, Stage, Visibility};
use crate::shuffle::shuffle;

pub(super) fn cards(list: &[&str]) -> Vec<Card> {
    list.iter()
        .map(|c| Card::parse(c).expect("fixture card"))
        .collect()
}

pub(super) fn normal() -> Options {
    parse_options::<Dazha>(4, &json!({})).unwrap()
}

pub(super) fn zhashen() -> Options {
    parse_options::<Dazha>(4, &json!({"mode": "12zhashen"})).unwrap()
}

fn read_in(list: &[&str], held: usize, mode: Mode) -> Result<Vec<Combo>, RuleError> {
    combos::readings(&cards(list), held, mode)
}

/// The strongest reading of cards played from a full hand.
fn combo_in(list: &[&str], mode: Mode) -> Combo {
    let r = read_in(list, 27, mode).unwrap_or_else(|e| panic!("{list:?}: {}", e.detail));
    r.iter()
        .copied()
        .max_by_key(|c| c.kind.is_bomb())
        .expect("a reading")
}

fn combo(list: &[&str]) -> Combo {
    combo_in(list, Mode::Normal)
}

fn beats(a: &[&str], b: &[&str]) -> bool {
    combo(a).beats(&combo(b))
}

fn illegal(list: &[&str], held: usize) -> String {
    match read_in(list, held, Mode::Normal) {
        Err(e) => {
            assert_eq!(e.kind, RuleErrorKind::Illegal);
            e.detail
        }
        Ok(r) => panic!("{list:?} read as {r:?}"),
    }
}

pub(super) const T0: Ctx = Ctx { now_ms: 1_000_000 };

/// A hand in progress with the given cards, teams and leader.
pub(super) fn table(opts: Options, hands: [&[&str]; 4], team_of: [u8; 4], leader: SeatNo) -> State {
    let mut st = Dazha::new_match(opts, 4);
    st.hand_no = 1;
    st.teams = Some(team_of);
    st.redraw = false;
    let hand = HandState {
        started_ms: T0.now_ms,
        hands: hands.map(|h| {
            let mut c = cards(h);
            sort_strongest_first(&mut c);
            c
        }),
        team_of,
        leader,
        turn: leader,
        round: Round::new(leader),
        captured: [0; 4],
        out: Vec::new(),
        bombs: Vec::new(),
    };
    st.table = Table::InHand {
        hand: Box::new(hand),
        last: None,
    };
    st
}

pub(super) const AB: [u8; 4] = [0, 1, 0, 1];

pub(super) fn play(st: &mut State, seat: SeatNo, list: &[&str]) -> Outcome {
    Dazha::apply(
        st,
        seat,
        Action::Play {
            cards: cards(list),
            reading: None,
        },
        T0,
    )
    .unwrap_or_else(|e| panic!("seat {seat} playing {list:?}: {}", e.detail))
}

fn pass(st: &mut State, seat: SeatNo) -> Outcome {
    Dazha::apply(st, seat, Action::Pass {}, T0)
        .unwrap_or_else(|e| panic!("seat {seat} passing: {}", e.detail))
}

pub(super) fn refused(st: &mut State, seat: SeatNo, action: Action) -> RuleError {
    let before = serde_json::to_value(&*st).unwrap();
    let err = Dazha::apply(st, seat, action, T0).expect_err("refused");
    assert_eq!(
        serde_json::to_value(&*st).unwrap(),
        before,
        "state unchanged on error"
    );
    err
}

pub(super) fn play_action(list: &[&str]) -> Action {
    Action::Play {
        cards: cards(list),
        reading: None,
    }
}

fn event<'a>(out: &'a Outcome, kind: &str) -> Option<&'a Event> {
    out.events.iter().find(|e| e.kind == kind)
}

/// A 108/116-card deck dealing `fixed` to each seat and the rest spread rank by rank, so that no
/// seat gets a bomb or a joker by accident.
fn deck_for(opts: &Options, fixed: [&[&str]; 4]) -> Vec<Card> {
    let mut rest = Dazha::deck(opts);
    let mut seats: [Vec<Card>; 4] = fixed.map(cards);
    for s in &seats {
        remove_cards(&mut rest, s).expect("fixed cards are in the deck");
    }
    let size = Dazha::deck(opts).len() / 4;
    for card in rest {
        let same = |s: &Vec<Card>| s.iter().filter(|c| c.rank() == card.rank()).count();
        let seat = (0..4)
            .filter(|&s| seats[s].len() < size)
            .min_by_key(|&s| (same(&seats[s]), std::cmp::Reverse(size - seats[s].len())))
            .expect("room for every card");
        seats[seat].push(card);
    }
    (0..seats[0].len() * 4)
        .map(|k| seats[k % 4][k / 4])
        .collect()
}

fn start(st: &mut State, deck: Vec<Card>) -> Outcome {
    Dazha::start_hand(
        st,
        HandStart {
            deck,
            ctx: T0,
            wallets: vec![0; 4],
            scores: vec![0; 4],
        },
    )
}

// ---------------------------------------------------------------- combinations

#[test]
fn single_pair_and_bomb_are_read_by_rank_with_two_highest() {
    assert_eq!(combo(&["7S"]).kind, Kind::Single);
    assert_eq!(combo(&["7S", "7H"]).kind, Kind::Pair);
    assert!(beats(&["2S"], &["AS"]));
    assert!(beats(&["4S"], &["3S"]));
    assert!(!beats(&["3S"], &["3H"]), "equal singles do not beat");
    assert!(beats(&["2S", "2D"], &["AS", "AH"]));
    assert!(
        !beats(&["2S", "2D"], &["AS"]),
        "a pair does not beat a single"
    );
    assert!(illegal(&["7S", "8S"], 27).contains("no combination"));
}

#[test]
fn a_lone_joker_is_illegal() {
    for list in [&["RJ"][..], &["BJ"], &["RJ", "RJ"], &["BJ", "RJ", "RJ"]] {
        assert!(illegal(list, 27).contains("a joker can only be played inside a bomb"));
    }
    let e = illegal(&["7S", "7H", "7D", "BJ"], 27);
    assert!(e.contains("at least 4 natural cards"), "{e}");
}

#[test]
fn jokers_are_wild_only_in_a_bomb_with_four_naturals() {
    let b = combo(&["7S", "7H", "7D", "7C", "BJ"]);
    assert_eq!((b.kind, b.len), (Kind::Bomb, 5));
    let b = combo(&["7S", "7H", "7D", "7C", "7S", "7H", "BJ", "RJ"]);
    assert_eq!((b.kind, b.len), (Kind::Bomb, 8));
    assert!(illegal(&["7S", "7H", "8D", "8C", "BJ"], 27).contains("joker"));
    // Not as a kicker of a triple with two either.
    assert!(illegal(&["7S", "7H", "7D", "8C", "BJ"], 27).contains("joker"));
}

#[test]
fn a_straight_is_five_or_more_consecutive_ranks_without_two() {
    let s = combo(&["3S", "4H", "5D", "6C", "7S"]);
    assert_eq!((s.kind, s.len), (Kind::Straight, 5));
    let s = combo(&["10S", "JH", "QD", "KC", "AS"]);
    assert_eq!((s.kind, s.rank, s.len), (Kind::Straight, 11, 5));
    let e = illegal(&["JH", "QD", "KC", "AS", "2S"], 27);
    assert!(e.contains("a 2 cannot be part of a straight"), "{e}");
    illegal(&["2S", "3S", "4H", "5D", "6C"], 27);
    illegal(&["3S", "4H", "5D", "6C"], 27);
    illegal(&["3S", "4H", "5D", "6C", "8S"], 27);
    assert!(beats(
        &["4H", "5D", "6C", "7S", "8S"],
        &["3S", "4H", "5D", "6C", "7S"]
    ));
    assert!(
        !beats(
            &["4H", "5D", "6C", "7S", "8S", "9S"],
            &["3S", "4H", "5D", "6C", "7S"]
        ),
        "a straight must match the length"
    );
}

#[test]
fn a_pairs_run_is_two_or_more_consecutive_pairs_without_two() {
    let r = combo(&["3S", "3H", "4D", "4C"]);
    assert_eq!((r.kind, r.len), (Kind::PairsRun, 2));
    assert!(illegal(&["AS", "AH", "2D", "2C"], 27).contains("a 2 cannot"));
    illegal(&["3S", "3H", "5D", "5C"], 27);
    assert!(beats(&["4S", "4H", "5D", "5C"], &["3S", "3H", "4D", "4C"]));
    assert!(!beats(
        &["4S", "4H", "5D", "5C", "6S", "6H"],
        &["3S", "3H", "4D", "4C"]
    ));
}

#[test]
fn a_triple_is_led_only_with_fewer_than_five_cards_in_hand() {
    let e = illegal(&["7S", "7H", "7D"], 5);
    assert!(e.contains("fewer than 5 cards"), "{e}");
    assert_eq!(
        read_in(&["7S", "7H", "7D"], 4, Mode::Normal).unwrap(),
        vec![Combo {
            kind: Kind::Triple,
            rank: combos::order(7),
            len: 1
        }]
    );
    read_in(&["7S", "7H", "7D"], 3, Mode::Normal).unwrap();
}

#[test]
fn a_follower_answers_a_triple_with_a_higher_triple_at_any_hand_size() {
    let follower: &[&str] = &["8S", "8H", "8D", "3C", "4C", "6C", "9C", "JC"];
    let mut st = table(
        normal(),
        [&["7S", "7H", "7D"], follower, &["5D", "6D"], &["QD", "AD"]],
        AB,
        0,
    );
    play(&mut st, 0, &["7S", "7H", "7D"]);
    let plays = legal_plays(&st, 1);
    assert!(
        plays
            .iter()
            .any(|p| p.combo.kind == Kind::Triple && p.cards == cards(&["8S", "8H", "8D"])),
        "{plays:?}"
    );
    assert_eq!(
        serde_json::to_value(Dazha::legal_actions(&st, 1)).unwrap()[0]["can_beat"],
        json!(true)
    );
    let out = play(&mut st, 1, &["8S", "8H", "8D"]);
    assert_eq!(event(&out, "play").unwrap().data["combo"]["type"], "triple");
    // Leading it from 5 cards is still refused.
    assert!(illegal(&["9S", "9H", "9D"], 5).contains("fewer than 5 cards"));
}

#[test]
fn a_triple_is_beaten_only_by_a_higher_triple_or_a_bomb() {
    let t7 = read_in(&["7S", "7H", "7D"], 4, Mode::Normal).unwrap()[0];
    let t8 = read_in(&["8S", "8H", "8D"], 3, Mode::Normal).unwrap()[0];
    assert!(t8.beats(&t7));
    assert!(!t7.beats(&t8));
    assert!(
        !combo(&["5S", "10S", "KS"]).beats(&t7),
        "五十K does not beat a triple"
    );
    assert!(!combo(&["9S", "9H", "9D", "3C", "4C"]).beats(&t7));
    assert!(combo(&["3S", "3H", "3D", "3C"]).beats(&t8));
}

#[test]
fn a_triple_with_two_takes_any_two_cards() {
    for list in [
        &["7S", "7H", "7D", "3C", "3H"][..],
        &["7S", "7H", "7D", "3C", "KH"],
        &["7S", "7H", "7D", "7C", "KH"],
    ] {
        let c = combo(list);
        assert_eq!((c.kind, c.rank), (Kind::TripleWithTwo, combos::order(7)));
    }
    assert!(beats(
        &["8S", "8H", "8D", "3C", "3H"],
        &["7S", "7H", "7D", "AC", "AH"]
    ));
    assert!(beats(
        &["2S", "2H", "2D", "3C", "4H"],
        &["AS", "AH", "AD", "KC", "KH"]
    ));
    illegal(&["7S", "7H", "7D", "3C"], 27);
}

#[test]
fn a_run_of_triples_takes_two_cards_per_triple_without_two() {
    let c = combo(&["3S", "3H", "3D", "4S", "4H", "4D", "9C", "9H", "JC", "KD"]);
    assert_eq!((c.kind, c.rank, c.len), (Kind::TriplesWithTwos, 1, 2));
    // Three triples in a row read as the higher run of two, the lowest triple as kickers.
    let c = combo(&["3S", "3H", "3D", "4S", "4H", "4D", "5C", "5H", "5D", "KD"]);
    assert_eq!((c.kind, c.rank, c.len), (Kind::TriplesWithTwos, 2, 2));
    let e = illegal(
        &["AS", "AH", "AD", "2S", "2H", "2D", "9C", "9H", "JC", "KD"],
        27,
    );
    assert!(e.contains("a 2 cannot"), "{e}");
    illegal(
        &["3S", "3H", "3D", "5S", "5H", "5D", "9C", "9H", "JC", "KD"],
        27,
    );
    assert!(beats(
        &["4S", "4H", "4D", "5S", "5H", "5D", "3C", "3H", "3D", "3S"],
        &["3S", "3H", "3D", "4S", "4H", "4D", "9C", "9H", "JC", "KD"]
    ));
}

#[test]
fn wushik_beats_every_non_bomb_and_suited_beats_mixed_only() {
    let mixed = combo(&["5S", "10H", "KS"]);
    let suited = combo(&["5H", "10H", "KH"]);
    assert_eq!(mixed.kind, Kind::WushikMixed);
    assert_eq!(suited.kind, Kind::WushikSuited);
    for other in [
        &["2S"][..],
        &["2S", "2H"],
        &["10S", "JH", "QD", "KC", "AS"],
        &["AS", "AH", "KD", "KC"],
        &["2S", "2H", "2D", "3C", "4H"],
    ] {
        assert!(mixed.beats(&combo(other)), "{other:?}");
        assert!(!combo(other).beats(&mixed), "{other:?}");
    }
    assert!(suited.beats(&mixed));
    assert!(!mixed.beats(&suited));
    assert!(!mixed.beats(&combo(&["5D", "10D", "KC"])), "mixed on mixed");
    assert!(
        !suited.beats(&combo(&["5S", "10S", "KS"])),
        "suited on suited"
    );
    let bomb = combo(&["3S", "3H", "3D", "3C"]);
    assert!(bomb.beats(&suited));
    assert!(!suited.beats(&bomb));
}

#[test]
fn bombs_rank_by_size_then_rank_and_an_equal_bomb_does_not_beat() {
    let b = |r: &str, n: usize| {
        let suits = ["S", "H", "D", "C"];
        let list: Vec<String> = (0..n).map(|i| format!("{r}{}", suits[i % 4])).collect();
        let refs: Vec<&str> = list.iter().map(String::as_str).collect();
        combo(&refs)
    };
    assert!(b("3", 5).beats(&b("2", 4)), "more cards beat fewer");
    assert!(b("3", 8).beats(&b("2", 7)), "八个3可以压七个2");
    assert!(b("2", 4).beats(&b("A", 4)));
    assert!(
        !b("7", 4).beats(&b("7", 4)),
        "the later equal bomb does not beat"
    );
    assert!(!b("7", 4).beats(&b("8", 4)));
    assert!(b("3", 4).beats(&combo(&["2S"])));
    let with_joker = combo(&["7S", "7H", "7D", "7C", "BJ"]);
    assert!(with_joker.beats(&b("2", 4)));
    assert!(
        !with_joker.beats(&b("7", 5)),
        "jokers do not change the rank"
    );
}

#[test]
fn four_jokers_rank_between_eight_and_nine_card_bombs() {
    let jokers = combo(&["BJ", "BJ", "RJ", "RJ"]);
    assert_eq!(jokers.kind, Kind::JokerBomb);
    let eight_twos = combo(&["2S", "2H", "2D", "2C", "2S", "2H", "2D", "2C"]);
    let nine_threes = combo(&["3S", "3H", "3D", "3C", "3S", "3H", "3D", "3C", "BJ"]);
    assert!(jokers.beats(&eight_twos));
    assert!(!eight_twos.beats(&jokers));
    assert!(nine_threes.beats(&jokers));
    assert!(!jokers.beats(&nine_threes));
}

#[test]
fn zhashen_six_jokers_of_one_colour_beat_every_other_bomb() {
    let z = Mode::Zhashen12;
    let rj6 = combo_in(&["RJ"; 6], z);
    let bj6 = combo_in(&["BJ"; 6], z);
    assert_eq!(rj6.kind, Kind::BigJokerBomb);
    assert_eq!(bj6.kind, Kind::SmallJokerBomb);
    assert!(rj6.beats(&bj6));
    assert!(!bj6.beats(&rj6));
    let huge = combo_in(
        &[
            "2S", "2H", "2D", "2C", "2S", "2H", "2D", "2C", "BJ", "BJ", "RJ", "RJ", "RJ",
        ],
        z,
    );
    assert_eq!((huge.kind, huge.len), (Kind::Bomb, 13));
    assert!(bj6.beats(&huge));
    assert!(!huge.beats(&bj6));
    let e = read_in(&["RJ", "RJ", "RJ", "BJ", "BJ", "BJ"], 27, z).unwrap_err();
    assert!(
        e.detail.contains("six mixed jokers are no bomb"),
        "{}",
        e.detail
    );
    assert!(
        read_in(&["RJ", "RJ", "BJ", "BJ"], 27, z).is_err(),
        "no four-joker bomb"
    );
    assert!(read_in(&["RJ"; 5], 27, z).is_err());
}

#[test]
fn as_picks_one_reading_of_five_of_a_kind() {
    let five = ["9S", "9H", "9D", "9C", "9S"];
    let mut st = table(
        normal(),
        [
            &five,
            &["3S", "3H", "3D", "4S", "4H", "8S"],
            &["4D"],
            &["4C"],
        ],
        AB,
        0,
    );
    let out = Dazha::apply(
        &mut st,
        0,
        Action::Play {
            cards: cards(&five),
            reading: Some(Kind::TripleWithTwo),
        },
        T0,
    )
    .unwrap();
    assert_eq!(
        event(&out, "play").unwrap().data["combo"]["type"],
        "triple_with_two"
    );
    let h = st
        .table
        .hand()
        .expect("seat 2 of the same team still plays");
    assert_eq!(h.out, vec![0]);
    assert!(h.bombs.is_empty(), "read as a triple with two, not a bomb");
}

#[test]
fn without_as_five_of_a_kind_is_a_bomb_and_as_must_fit_the_cards() {
    let five = ["9S", "9H", "9D", "9C", "9S"];
    let mut st = table(normal(), [&five, &["3S"], &["4D"], &["4C"]], AB, 0);
    let e = refused(
        &mut st,
        0,
        Action::Play {
            cards: cards(&five),
            reading: Some(Kind::Straight),
        },
    );
    assert!(
        e.detail.contains("cannot be played as straight"),
        "{}",
        e.detail
    );
    let out = play(&mut st, 0, &five);
    assert_eq!(event(&out, "play").unwrap().data["combo"]["type"], "bomb");
    let action: Action =
        serde_json::from_value(json!({"type": "play", "cards": ["3S"], "as": "single"})).unwrap();
    assert_eq!(
        action,
        Action::Play {
            cards: cards(&["3S"]),
            reading: Some(Kind::Single)
        }
    );
    assert!(
        serde_json::from_value::<Action>(json!({"type": "pass", "cards": []})).is_err(),
        "unknown fields are refused"
    );
    assert!(
        serde_json::from_value::<Action>(json!({"type": "play", "cards": ["3S"], "as": "quad"}))
            .is_err()
    );
}

// ---------------------------------------------------------------- play and rounds

#[test]
fn the_leader_of_a_round_may_not_pass_and_others_wait_their_turn() {
    let mut st = table(normal(), [&["3S", "4S"], &["5S"], &["6S"], &["7S"]], AB, 0);
    let e = refused(&mut st, 0, Action::Pass {});
    assert_eq!(e.kind, RuleErrorKind::Illegal);
    assert!(e.detail.contains("leader of a round must play"));
    let e = refused(&mut st, 1, Action::Pass {});
    assert_eq!(e.kind, RuleErrorKind::NotYourTurn);
    let e = refused(&mut st, 0, play_action(&["3S", "3S"]));
    assert_eq!(e.detail, "you do not hold all of the cards played");
    let e = refused(&mut st, 0, play_action(&[]));
    assert_eq!(e.kind, RuleErrorKind::Illegal);
    play(&mut st, 0, &["4S"]);
    let e = refused(&mut st, 2, play_action(&["6S"]));
    assert_eq!(e.kind, RuleErrorKind::NotYourTurn, "seat 1 plays next");
}

#[test]
fn a_follower_must_beat_the_top_play() {
    let mut st = table(
        normal(),
        [
            &["9S", "4S"],
            &["5S", "5H", "8S", "5D", "10D", "KD"],
            &["6S"],
            &["7S"],
        ],
        AB,
        0,
    );
    play(&mut st, 0, &["9S"]);
    let e = refused(&mut st, 1, play_action(&["8S"]));
    assert!(
        e.detail.contains("does not beat the single"),
        "{}",
        e.detail
    );
    let e = refused(&mut st, 1, play_action(&["5S", "5H"]));
    assert!(e.detail.contains("does not beat"), "{}", e.detail);
    play(&mut st, 1, &["5D", "10D", "KD"]);
    let e = refused(&mut st, 2, play_action(&["6S"]));
    assert!(e.detail.contains("only a bomb beats a suited 五十K"));
}

#[test]
fn the_round_winner_takes_its_fives_tens_and_kings_and_leads() {
    let mut st = table(
        normal(),
        [&["5S", "3S"], &["10S", "3H"], &["KS", "3D"], &["4S", "4H"]],
        AB,
        0,
    );
    play(&mut st, 0, &["5S"]);
    play(&mut st, 1, &["10S"]);
    play(&mut st, 2, &["KS"]);
    pass(&mut st, 3);
    pass(&mut st, 0);
    let out = pass(&mut st, 1);
    let won = event(&out, "round_won").unwrap();
    assert_eq!(won.seat, Some(2));
    assert_eq!(won.data["points"], 25);
    let h = st.table.hand().unwrap();
    assert_eq!(h.captured, [0, 0, 25, 0]);
    assert_eq!(h.turn, 2);
    assert!(h.round.plays.is_empty());
    assert_eq!(view_json::<Dazha>(&st, None)["team_points"], json!([25, 0]));
}

#[test]
fn jiefeng_the_partner_leads_when_the_round_winner_is_out() {
    let mut st = table(
        normal(),
        [&["AS"], &["3H", "4H"], &["3D", "4D"], &["3C", "4C"]],
        AB,
        0,
    );
    let out = play(&mut st, 0, &["AS"]);
    assert_eq!(event(&out, "out").unwrap().data["place"], 1);
    pass(&mut st, 1);
    pass(&mut st, 2);
    let out = pass(&mut st, 3);
    let jf = event(&out, "jiefeng").unwrap();
    assert_eq!((jf.seat, &jf.data["from"]), (Some(2), &json!(0)));
    assert_eq!(Dazha::to_act(&st), vec![2]);
}

#[test]
fn card_counts_are_public_only_at_ten_cards_or_fewer() {
    let eleven = [
        "3S", "4S", "5S", "6S", "7S", "8S", "9S", "10S", "JS", "QS", "KS",
    ];
    let mut st = table(normal(), [&eleven, &["3H", "4H"], &["3D"], &["3C"]], AB, 0);
    let spectator = view_json::<Dazha>(&st, None);
    assert_eq!(spectator["seats"][0]["cards_left"], Value::Null);
    assert_eq!(spectator["seats"][1]["cards_left"], 2);
    assert_eq!(
        view_json::<Dazha>(&st, Some(0))["seats"][0]["cards_left"],
        11
    );
    let out = play(&mut st, 0, &["3S"]);
    assert_eq!(event(&out, "play").unwrap().data["cards_left"], 10);
    assert_eq!(
        view_json::<Dazha>(&st, Some(1))["seats"][0]["cards_left"],
        10
    );
}

#[test]
fn a_play_may_not_strand_a_joker_without_a_bomb() {
    let mut st = table(
        normal(),
        [
            &["7S", "7H", "7D", "7C", "BJ", "3S"],
            &["3H"],
            &["3D"],
            &["3C"],
        ],
        AB,
        0,
    );
    let e = refused(&mut st, 0, play_action(&["7S", "7H", "7D", "7C"]));
    assert!(
        e.detail
            .contains("a joker can only be played inside a bomb")
    );
    let e = refused(&mut st, 0, play_action(&["7S"]));
    assert!(e.detail.contains("joker"));
    assert!(
        legal_plays(&st, 0)
            .iter()
            .all(|p| p.combo.kind != Kind::Single || p.cards == cards(&["3S"]))
    );
    play(&mut st, 0, &["7S", "7H", "7D", "7C", "BJ"]);
}

#[test]
fn auto_action_leads_the_lowest_single_and_followers_pass() {
    let mut st = table(
        normal(),
        [
            &["9S", "4S", "2S"],
            &["5S", "KH"],
            &["6S", "6H"],
            &["7S", "8S"],
        ],
        AB,
        0,
    );
    assert_eq!(
        Dazha::auto_action(&st, 0),
        Action::Play {
            cards: cards(&["4S"]),
            reading: Some(Kind::Single)
        }
    );
    assert_eq!(Dazha::auto_action(&st, 1), Action::Pass {}, "not to act");
    play(&mut st, 0, &["9S"]);
    assert_eq!(Dazha::auto_action(&st, 1), Action::Pass {});
}

#[test]
fn auto_action_of_a_leader_with_only_a_bomb_and_jokers_plays_them_together() {
    let st = table(
        normal(),
        [
            &["7S", "7H", "7D", "7C", "BJ", "RJ"],
            &["3H"],
            &["3D"],
            &["3C"],
        ],
        AB,
        0,
    );
    let auto = Dazha::auto_action(&st, 0);
    assert_eq!(
        auto,
        Action::Play {
            cards: cards(&["RJ", "BJ", "7S", "7H", "7D", "7C"]),
            reading: Some(Kind::Bomb)
        }
    );
    let mut st = st;
    Dazha::apply(&mut st, 0, auto, T0).unwrap();
}

// ---------------------------------------------------------------- scoring

#[test]
fn bomb_rewards_double_per_card_and_stop_at_the_cap() {
    let steps: Vec<i64> = (4..=13).map(bomb_step).collect();
    assert_eq!(steps, [0, 1, 2, 4, 8, 16, 32, 64, 128, 160]);
    let bomb = |r: u8, len: u8| Combo {
        kind: Kind::Bomb,
        rank: combos::order(r),
        len,
    };
    assert_eq!(bomb_reward(&bomb(7, 4), 9), 0);
    assert_eq!(bomb_reward(&bomb(7, 9), 9), 16);
    assert_eq!(bomb_reward(&bomb(7, 12), 9), 16, "capped at 9 cards");
    assert_eq!(bomb_reward(&bomb(7, 12), 13), 128);
    assert_eq!(bomb_reward(&combo(&["BJ", "BJ", "RJ", "RJ"]), 9), 8);
    assert_eq!(bomb_reward(&combo_in(&["RJ"; 6], Mode::Zhashen12), 13), 60);
}

#[test]
fn bombs_of_twos_score_one_size_higher() {
    let twos = |len: u8| Combo {
        kind: Kind::Bomb,
        rank: combos::TWO,
        len,
    };
    assert_eq!(bomb_reward(&twos(4), 9), 1, "4 twos score as 5");
    assert_eq!(bomb_reward(&twos(5), 9), 2, "5 twos score as 6");
    assert_eq!(bomb_reward(&twos(9), 9), 16, "still capped");
}

/// Team 0 = seats 0 and 2. Seat 1 bombs, goes out first; seat 0 wins the K and goes out; 接风
/// to seat 2, which goes out: team 0 out 2nd and 3rd, 10 points to 0.
#[test]
fn win_stake_is_one_difen_and_bombs_are_paid_by_the_other_three() {
    let mut st = table(
        normal(),
        [
            &["3S", "AS"],
            &["8S", "8H", "8D", "8C", "8D", "4D"],
            &["KS", "QS"],
            &["9S", "9H"],
        ],
        AB,
        0,
    );
    play(&mut st, 0, &["3S"]);
    play(&mut st, 1, &["8S", "8H", "8D", "8C", "8D"]);
    pass(&mut st, 2);
    pass(&mut st, 3);
    pass(&mut st, 0);
    play(&mut st, 1, &["4D"]);
    play(&mut st, 2, &["KS"]);
    pass(&mut st, 3);
    play(&mut st, 0, &["AS"]);
    pass(&mut st, 2);
    let out = pass(&mut st, 3);
    assert_eq!(event(&out, "jiefeng").unwrap().seat, Some(2));
    let out = play(&mut st, 2, &["QS"]);
    let r = out.hand_end.expect("hand over: team 0 is out");
    // Stake ±3; the 5-card bomb takes 1 from each other seat.
    assert_eq!(r.points, vec![3 - 1, -3 + 3, 3 - 1, -3 - 1]);
    assert_eq!(r.units, r.points);
    assert_eq!(r.coins, vec![0; 4]);
    assert_eq!(r.points.iter().sum::<i64>(), 0);
    assert_eq!(r.detail["team_points"], json!([10, 0]));
    assert_eq!(r.detail["order_out"], json!([1, 0, 2]));
    assert_eq!(r.detail["shuangkou"], false);
    assert!(out.money.is_empty());
    assert_eq!(Dazha::stage(&st), Stage::NeedsDeal);
    assert_eq!(st.next_leader, Some(1), "the 上游 leads the next hand");
    assert!(!st.redraw, "partners are kept");
}

#[test]
fn shuangkou_doubles_the_stake_and_cancels_bomb_rewards() {
    let mut st = table(
        normal(),
        [
            &["3S", "AS"],
            &["8S", "8H", "8D", "8C", "8D", "4D", "4C"],
            &["KS"],
            &["9S", "9H"],
        ],
        AB,
        0,
    );
    play(&mut st, 0, &["3S"]);
    play(&mut st, 1, &["8S", "8H", "8D", "8C", "8D"]);
    pass(&mut st, 2);
    pass(&mut st, 3);
    pass(&mut st, 0);
    play(&mut st, 1, &["4D"]);
    play(&mut st, 2, &["KS"]);
    pass(&mut st, 3);
    let out = play(&mut st, 0, &["AS"]);
    let r = out.hand_end.expect("team 0 went out first and second");
    assert_eq!(r.points, vec![6, -6, 6, -6]);
    assert_eq!(r.detail["shuangkou"], true);
    assert_eq!(r.detail["bombs_scored"], json!([]));
    assert!(st.redraw, "a 双扣 re-draws partners by 3S");
}

#[test]
fn a_tie_at_100_goes_to_the_upper_team_which_also_gets_what_is_left() {
    let mut st = table(normal(), [&["8S"], &["6S"], &["9S"], &["KH", "5H"]], AB, 1);
    // Team 0 has 105, team 1 90 plus the 15 left in seat 3's hand: 105 each.
    st.table.hand_mut().unwrap().captured = [60, 30, 45, 60];
    play(&mut st, 1, &["6S"]);
    play(&mut st, 2, &["9S"]);
    pass(&mut st, 3);
    let out = pass(&mut st, 0);
    assert!(out.hand_end.is_none());
    assert_eq!(event(&out, "jiefeng").unwrap().seat, Some(0));
    let r = play(&mut st, 0, &["8S"]).hand_end.expect("team 0 is out");
    assert_eq!(r.detail["order_out"], json!([1, 2, 0]));
    assert_eq!(r.detail["team_points"], json!([105, 105]));
    assert_eq!(r.detail["winner_team"], 1, "the 上游's team wins a tie");
    assert_eq!(r.points, vec![-3, 3, -3, 3]);
}

#[test]
fn base_multiplies_every_amount() {
    let opts = parse_options::<Dazha>(4, &json!({"base": 5})).unwrap();
    let mut st = table(
        opts,
        [&["3S"], &["4S", "4H"], &["5S"], &["6S", "6H"]],
        AB,
        0,
    );
    play(&mut st, 0, &["3S"]);
    let r = play(&mut st, 1, &["4S"]).hand_end;
    assert!(r.is_none());
    let r = play(&mut st, 2, &["5S"]).hand_end.unwrap();
    assert_eq!(r.points, vec![30, -30, 30, -30], "双扣 at base 5");
}

// ---------------------------------------------------------------- deal, partners, 摊牌

#[test]
fn partners_are_the_two_spade_three_holders_and_the_first_dealt_leads() {
    let opts = normal();
    let bombs: [&[&str]; 4] = [
        &["7S", "7H", "7D", "7C", "BJ"],
        &["3S", "8S", "8H", "8D", "8C", "RJ"],
        &["9S", "9H", "9D", "9C", "BJ"],
        &["3S", "JS", "JH", "JD", "JC", "RJ"],
    ];
    let mut st = Dazha::new_match(opts.clone(), 4);
    let out = start(&mut st, deck_for(&opts, bombs));
    assert!(out.hand_end.is_none(), "{:?}", out.events);
    let started = event(&out, "hand_started").unwrap();
    assert_eq!(started.data["leader"], 1);
    assert_eq!(started.data["teams"], json!([[0, 2], [1, 3]]));
    assert_eq!(st.table.hand().unwrap().team_of, [0, 1, 0, 1]);
    for (seat, e) in out.events.iter().filter(|e| e.kind == "dealt").enumerate() {
        assert_eq!(e.to, Visibility::Seats(vec![seat]));
        assert_eq!(e.data["cards"].as_array().unwrap().len(), 27);
    }

    let mut st = Dazha::new_match(opts.clone(), 4);
    let both = [
        bombs[0],
        &["3S", "3S", "8S", "8H", "8D", "8C", "RJ"][..],
        bombs[2],
        &["JS", "JH", "JD", "JC", "RJ"],
    ];
    let out = start(&mut st, deck_for(&opts, both));
    let started = event(&out, "hand_started").unwrap();
    assert_eq!(started.data["leader"], 1);
    assert_eq!(started.data["teams"], json!([[0, 2], [1, 3]]));
    assert_eq!(started.data["partners"], "one_seat_holds_both");

    let mut st = Dazha::new_match(opts.clone(), 4);
    let ab = [
        &["3S", "7S", "7H", "7D", "7C", "BJ"][..],
        &["3S", "8S", "8H", "8D", "8C", "RJ"],
        &["9S", "9H", "9D", "9C", "BJ"],
        &["JS", "JH", "JD", "JC", "RJ"],
    ];
    let out = start(&mut st, deck_for(&opts, ab));
    let started = event(&out, "hand_started").unwrap();
    assert_eq!(started.data["leader"], 0);
    assert_eq!(started.data["teams"], json!([[0, 1], [2, 3]]));
}

/// 谁先抓到黑桃3为先手: seat 3 is dealt a 3S as deck card 3, seat 1 only as deck card 5, so
/// seat 3 leads although seat 1 is the lower seat; the same after a 双扣 re-draw.
#[test]
fn the_seat_dealt_the_first_spade_three_leads() {
    let opts = normal();
    let deal: [&[&str]; 4] = [
        &["7S", "7H", "7D", "7C", "BJ"],
        &["8S", "3S", "8H", "8D", "8C", "RJ"],
        &["9S", "9H", "9D", "9C", "BJ"],
        &["3S", "JS", "JH", "JD", "JC", "RJ"],
    ];
    let deck = deck_for(&opts, deal);
    let three_spades = Card::parse("3S").unwrap();
    let first = deck.iter().position(|&c| c == three_spades).unwrap();
    assert_eq!((first, first % 4), (3, 3));
    let mut st = Dazha::new_match(opts.clone(), 4);
    let out = start(&mut st, deck.clone());
    let started = event(&out, "hand_started").unwrap();
    assert_eq!(started.data["leader"], 3);
    assert_eq!(started.data["teams"], json!([[0, 2], [1, 3]]));
    assert_eq!(Dazha::to_act(&st), vec![3]);

    st.table = Table::Waiting;
    st.teams = Some([0, 0, 1, 1]);
    st.next_leader = Some(0);
    st.redraw = true;
    let out = start(&mut st, deck);
    let started = event(&out, "hand_started").unwrap();
    assert_eq!(
        started.data["leader"], 3,
        "a re-draw after 双扣 follows the deal too"
    );
    assert_eq!(started.data["teams"], json!([[0, 2], [1, 3]]));
}

#[test]
fn partners_persist_until_a_shuangkou_and_the_upper_leads() {
    let opts = normal();
    let deal: [&[&str]; 4] = [
        &["7S", "7H", "7D", "7C", "BJ"],
        &["3S", "8S", "8H", "8D", "8C", "RJ"],
        &["9S", "9H", "9D", "9C", "BJ"],
        &["3S", "JS", "JH", "JD", "JC", "RJ"],
    ];
    let mut st = Dazha::new_match(opts.clone(), 4);
    st.hand_no = 3;
    st.teams = Some([0, 0, 1, 1]);
    st.redraw = false;
    st.next_leader = Some(2);
    let out = start(&mut st, deck_for(&opts, deal));
    let started = event(&out, "hand_started").unwrap();
    assert_eq!(started.data["teams"], json!([[0, 1], [2, 3]]), "kept");
    assert_eq!(started.data["leader"], 2, "last hand's 上游");
    assert_eq!(started.data["partners"], "kept");

    st.table = Table::Waiting;
    st.redraw = true;
    let out = start(&mut st, deck_for(&opts, deal));
    let started = event(&out, "hand_started").unwrap();
    assert_eq!(started.data["teams"], json!([[0, 2], [1, 3]]), "re-drawn");
    assert_eq!(started.data["leader"], 1);
}

#[test]
fn tanpai_jokers_without_a_bomb_are_shown_and_fined_per_joker() {
    let opts = normal();
    let deal: [&[&str]; 4] = [
        &["BJ", "RJ"],
        &["8S", "8H", "8D", "8C", "RJ"],
        &["9S", "9H", "9D", "9C"],
        &["BJ"],
    ];
    let mut st = Dazha::new_match(opts.clone(), 4);
    let out = start(&mut st, deck_for(&opts, deal));
    let r = out.hand_end.clone().expect("the hand is not played");
    // Seat 0: 2 jokers → pays 2 to each; seat 3: 1 joker → pays 1 to each.
    assert_eq!(r.points, vec![-6 + 1, 2 + 1, 2 + 1, 2 - 3]);
    assert_eq!(r.points.iter().sum::<i64>(), 0);
    let shown = &event(&out, "tanpai").unwrap().data["shown"];
    assert_eq!(shown.as_array().unwrap().len(), 2);
    assert_eq!(shown[0]["seat"], 0);
    assert_eq!(shown[0]["reasons"], json!(["jokers_without_bomb"]));
    assert_eq!(shown[0]["cards"].as_array().unwrap().len(), 27);
    assert_eq!(shown[1]["jokers_fined"], 1);
    assert_eq!(Dazha::stage(&st), Stage::NeedsDeal);
    assert!(
        st.redraw && st.teams.is_none(),
        "partners still to be drawn"
    );
    assert_eq!(r.detail["kind"], "tanpai");
}

#[test]
fn tanpai_four_jokers_score_as_a_nine_card_bomb_without_fine() {
    let opts = normal();
    let deal: [&[&str]; 4] = [&[], &["BJ", "BJ", "RJ", "RJ"], &[], &[]];
    let mut st = Dazha::new_match(opts.clone(), 4);
    let r = start(&mut st, deck_for(&opts, deal)).hand_end.unwrap();
    assert_eq!(r.points, vec![-16, 48, -16, -16]);
}

#[test]
fn tanpai_a_bomb_reaching_the_cap_scores_the_cap() {
    let opts = normal();
    let deal: [&[&str]; 4] = [
        &[],
        &[],
        &["QS", "QH", "QD", "QC", "QS", "QH", "QD", "BJ", "RJ"],
        &["3S", "3H", "3D", "3C", "BJ", "RJ"],
    ];
    let mut st = Dazha::new_match(opts.clone(), 4);
    let out = start(&mut st, deck_for(&opts, deal));
    let r = out.hand_end.unwrap();
    assert_eq!(r.points, vec![-16, -16, 48, -16]);
    assert_eq!(r.detail["shown"][0]["reasons"], json!(["capped_bomb"]));

    let opts = parse_options::<Dazha>(4, &json!({"bomb_cap": 10})).unwrap();
    let mut st = Dazha::new_match(opts.clone(), 4);
    let out = start(&mut st, deck_for(&opts, deal));
    assert!(out.hand_end.is_none(), "9 cards do not reach a cap of 10");
}

#[test]
fn zhashen_all_twelve_jokers_is_tanpai_worth_the_cap() {
    let opts = zhashen();
    let deal: [&[&str]; 4] = [&[], &[], &["RJ"; 6], &[]];
    let mut twelve = deal;
    let all: Vec<&str> = ["RJ"; 6].into_iter().chain(["BJ"; 6]).collect();
    twelve[2] = &all;
    let mut st = Dazha::new_match(opts.clone(), 4);
    let r = start(&mut st, deck_for(&opts, twelve)).hand_end.unwrap();
    assert_eq!(r.points, vec![-160, -160, 480, -160]);
    assert_eq!(r.detail["shown"][0]["reasons"], json!(["zhashen"]));
}

#[test]
fn zhashen_six_jokers_of_one_colour_are_not_cold_but_six_mixed_are() {
    let opts = zhashen();
    let mut st = Dazha::new_match(opts.clone(), 4);
    let six_red: [&[&str]; 4] = [
        &["RJ"; 6],
        &["8S", "8H", "8D", "8C", "BJ", "BJ", "BJ"],
        &["9S", "9H", "9D", "9C", "BJ", "BJ", "BJ"],
        &[],
    ];
    assert!(start(&mut st, deck_for(&opts, six_red)).hand_end.is_none());
    let mut st = Dazha::new_match(opts.clone(), 4);
    let mixed: [&[&str]; 4] = [
        &["RJ", "RJ", "RJ", "BJ", "BJ", "BJ"],
        &["8S", "8H", "8D", "8C", "BJ", "BJ", "BJ", "RJ", "RJ", "RJ"],
        &[],
        &[],
    ];
    let r = start(&mut st, deck_for(&opts, mixed)).hand_end.unwrap();
    assert_eq!(
        r.points,
        vec![-18, 6, 6, 6],
        "six jokers fined 1 each per player"
    );
}

// ---------------------------------------------------------------- escape, options, views

#[test]
fn escape_costs_four_difen_per_player_and_ends_the_match() {
    let mut st = table(normal(), [&["3S"], &["4S"], &["5S"], &["6S"]], AB, 0);
    let out = Dazha::leave(
        &mut st,
        2,
        Ctx {
            now_ms: T0.now_ms + 29_999,
        },
        0,
    );
    let r = out.hand_end.unwrap();
    assert_eq!(r.points, vec![12, 12, -36, 12]);
    assert_eq!(r.units, r.points);
    assert_eq!(Dazha::stage(&st), Stage::Finished);
    assert!(Dazha::to_act(&st).is_empty());

    let mut st = table(normal(), [&["3S"], &["4S"], &["5S"], &["6S"]], AB, 0);
    let r = Dazha::leave(
        &mut st,
        2,
        Ctx {
            now_ms: T0.now_ms + 30_000,
        },
        0,
    )
    .hand_end
    .unwrap();
    assert_eq!(r.points, vec![13, 13, -36, 13], "+1 × base after 30 s");
    assert_eq!(
        r.units,
        vec![12, 12, -36, 12],
        "units are the zero-sum part"
    );
}

#[test]
fn leaving_between_hands_costs_nothing_and_partners_are_drawn_again() {
    let mut st = Dazha::new_match(normal(), 4);
    let out = Dazha::leave(&mut st, 1, T0, 0);
    assert!(out.hand_end.is_none());
    assert_eq!(Dazha::stage(&st), Stage::NeedsDeal);
    st.hand_no = 2;
    st.teams = Some(AB);
    st.redraw = false;
    let out = Dazha::leave(&mut st, 1, T0, 0);
    assert!(out.hand_end.is_none());
    assert_eq!(Dazha::stage(&st), Stage::NeedsDeal);
    assert!(st.redraw && st.teams.is_none());
}

#[test]
fn options_have_defaults_and_refuse_unknown_fields_and_ranges() {
    assert_eq!(
        normal(),
        Options {
            mode: Mode::Normal,
            base: 1,
            bomb_cap: Some(9)
        }
    );
    assert_eq!(zhashen().bomb_cap, Some(13));
    assert_eq!(parse_options::<Dazha>(4, &Value::Null).unwrap(), normal());
    let bad = |raw: Value, field: &str| {
        let e = parse_options::<Dazha>(4, &raw).unwrap_err();
        assert_eq!(e.kind, RuleErrorKind::Invalid);
        assert!(e.detail.contains(field), "{raw}: {}", e.detail);
    };
    bad(json!({"base": 0}), "base");
    bad(json!({"base": -3}), "base");
    bad(json!({"base": 1e30}), "base");
    bad(json!({"bomb_cap": 8}), "bomb_cap");
    bad(json!({"bomb_cap": 14}), "bomb_cap");
    bad(json!({"mode": "13zhashen"}), "13zhashen");
    bad(json!({"turn_timeout_secs": 20}), "turn_timeout_secs");
    bad(json!([]), "options");
    assert!(parse_options::<Dazha>(3, &json!({})).is_err());
    assert_eq!(Dazha::deck(&normal()).len(), 108);
    assert_eq!(Dazha::deck(&zhashen()).len(), 116);
}

#[test]
fn views_show_only_the_viewers_own_hand() {
    let mut st = table(
        normal(),
        [&["3S", "KS"], &["4S", "AH"], &["5S", "QD"], &["6S", "JC"]],
        AB,
        0,
    );
    play(&mut st, 0, &["3S"]);
    let mine = view_json::<Dazha>(&st, Some(1));
    assert_eq!(mine["hand"], json!(["AH", "4S"]), "sorted strongest first");
    let text = mine.to_string();
    for hidden in ["KS", "5S", "QD", "6S", "JC"] {
        assert!(!text.contains(&format!("\"{hidden}\"")), "{hidden} leaked");
    }
    let public = view_json::<Dazha>(&st, None);
    assert!(public.get("hand").is_none());
    assert_eq!(public["round"]["top"]["cards"], json!(["3S"]));
    assert_eq!(public["round"]["top"]["combo"]["type"], "single");
    assert!(Dazha::legal_actions(&st, 0).is_empty());
    let la = serde_json::to_value(Dazha::legal_actions(&st, 1)).unwrap();
    assert_eq!(la[0]["beat"]["type"], "single");
    assert_eq!(la[0]["can_beat"], true);
    assert_eq!(la[1], json!({"type": "pass"}));
    assert_eq!(Dazha::phase(&st), "follow");
    assert_eq!(coins_at_table::<Dazha>(&st, Some(0), 0), None);
}

#[test]
fn legal_plays_list_every_combination_on_a_lead_and_only_beating_ones_when_following() {
    let hand = cards(&[
        "3S", "3H", "3D", "4S", "4H", "4D", "5S", "6S", "7S", "10S", "KS", "9S", "9H", "9D", "9C",
    ]);
    let plays = hand_plays(&hand, None, Mode::Normal);
    let kinds: std::collections::HashSet<Kind> = plays.iter().map(|p| p.combo.kind).collect();
    for kind in [
        Kind::Single,
        Kind::Pair,
        Kind::PairsRun,
        Kind::TripleWithTwo,
        Kind::TriplesWithTwos,
        Kind::Straight,
        Kind::WushikSuited,
        Kind::Bomb,
    ] {
        assert!(kinds.contains(&kind), "{kind} missing");
    }
    assert!(!kinds.contains(&Kind::Triple), "15 cards: no lone triple");
    for p in &plays {
        let r = readings(&p.cards, hand.len(), Mode::Normal).unwrap();
        assert!(r.contains(&p.combo), "{p:?}");
        assert!(crate::cards::holds_all(&hand, &p.cards));
    }
    let top = combo(&["8S"]);
    let follow = hand_plays(&hand, Some(&top), Mode::Normal);
    assert!(follow.iter().all(|p| p.combo.beats(&top)));
    let singles: Vec<_> = follow
        .iter()
        .filter(|p| p.combo.kind == Kind::Single)
        .collect();
    assert_eq!(singles.len(), 3, "9, 10 and K beat an 8");
    assert!(follow.iter().any(|p| p.combo.kind == Kind::WushikSuited));
    assert!(follow.iter().any(|p| p.combo.kind == Kind::Bomb));
    let unsorted: Vec<Card> = hand.iter().rev().copied().collect();
    assert_eq!(hand_plays(&unsorted, None, Mode::Normal).len(), plays.len());
}

#[test]
fn the_service_drives_dazha_through_json() {
    use crate::engine::{DynGame, Registered};
    let game = Registered::<Dazha>::new();
    let opts = game
        .options(4, &json!({"mode": "12zhashen", "base": 2}))
        .unwrap();
    assert_eq!(
        opts,
        json!({"mode": "12zhashen", "base": 2, "bomb_cap": 13})
    );
    assert_eq!(game.deck(&opts).unwrap().len(), 116);
    let mut st = game.new_match(&opts, 4).unwrap();
    let mut deck = game.deck(&opts).unwrap();
    // A seed whose deal needs no 摊牌, so the hand is played.
    let mut seed = [0u8; 32];
    while {
        shuffle(&mut deck, &seed);
        st.start_hand(HandStart {
            deck: deck.clone(),
            ctx: T0,
            wallets: vec![0; 4],
            scores: vec![0; 4],
        })
        .hand_end
        .is_some()
    } {
        seed[0] += 1;
    }
    let seat = st.to_act()[0];
    let bad = st.apply(seat, &json!({"type": "play", "cards": ["XX"]}), T0);
    assert_eq!(bad.unwrap_err().kind, RuleErrorKind::Invalid);
    let auto = st.auto_action(seat);
    assert_eq!(auto["type"], "play");
    st.apply(seat, &auto, T0).unwrap();
    assert_eq!(st.phase(), "follow");
}

// ---------------------------------------------------------------- random play

/// Index of a card among the 54 faces, for multiset checks.
fn face(c: Card) -> usize {
    match c {
        Card::Suited { rank, suit } => (rank as usize - 2) * 4 + suit as usize,
        Card::SmallJoker => 52,
        _ => 53,
    }
}

fn faces(cards: impl IntoIterator<Item = Card>) -> [u16; 54] {
    let mut f = [0u16; 54];
    for c in cards {
        f[face(c)] += 1;
    }
    f
}

/// Every card string anywhere in `v`.
fn card_strings(v: &Value, out: &mut Vec<Card>) {
    match v {
        Value::String(s) => out.extend(Card::parse(s).ok()),
        Value::Array(a) => a.iter().for_each(|x| card_strings(x, out)),
        Value::Object(o) => o.values().for_each(|x| card_strings(x, out)),
        _ => {}
    }
}

/// Cards `v` shows must all be public: played this hand, or shown at 摊牌.
fn assert_public(v: &Value, public: &[u16; 54], what: &str) {
    let mut seen = Vec::new();
    card_strings(v, &mut seen);
    for c in seen {
        assert!(public[face(c)] > 0, "{what} shows hidden card {c}");
    }
}

#[test]
fn random_hands_keep_every_invariant() {
    let mut rng = Rng(0xda2a);
    let mut dealt = 0;
    let mut played_out = 0;
    let mut escapes = 0;
    while played_out < 10_000 {
        let opts = if rng.below(6) == 0 {
            zhashen()
        } else {
            normal()
        };
        let mut st = Dazha::new_match(opts.clone(), 4);
        for _ in 0..8 {
            let mut deck = Dazha::deck(&opts);
            let mut seed = [0u8; 32];
            seed[..8].copy_from_slice(&rng.next().to_le_bytes());
            shuffle(&mut deck, &seed);
            let deck_faces = faces(deck.iter().copied());
            let out = start(&mut st, deck.clone());
            dealt += 1;
            let mut played: Vec<Card> = Vec::new();
            let mut public = [0u16; 54];
            for e in out.events.iter().filter(|e| e.kind == "dealt") {
                assert_eq!(e.to, Visibility::Seats(vec![e.seat.unwrap()]));
            }
            if let Some(r) = &out.hand_end {
                assert_eq!(r.points.iter().sum::<i64>(), 0);
                assert_eq!(Dazha::stage(&st), Stage::NeedsDeal);
                continue;
            }
            let escape_at = (rng.below(100) == 0).then(|| rng.below(60));
            let mut steps = 0;
            let result = loop {
                steps += 1;
                assert!(steps < 3_000, "the hand must end");
                let seat = Dazha::to_act(&st)[0];
                if escape_at == Some(steps) {
                    let out = Dazha::leave(&mut st, seat, T0, 0);
                    escapes += 1;
                    break out.hand_end.expect("an escape ends the hand");
                }
                let action = if rng.below(10) == 0 {
                    Dazha::auto_action(&st, seat)
                } else {
                    let plays = legal_plays(&st, seat);
                    let can_pass = st.table.hand().unwrap().round.top().is_some();
                    let pick = rng.below(plays.len() + usize::from(can_pass));
                    assert!(!plays.is_empty() || can_pass, "a leader always has a play");
                    match plays.get(pick) {
                        Some(p) => Action::Play {
                            cards: p.cards.clone(),
                            reading: Some(p.combo.kind),
                        },
                        None => Action::Pass {},
                    }
                };
                if let Action::Play { cards, .. } = &action {
                    played.extend(cards.iter().copied());
                    for &c in cards {
                        public[face(c)] += 1;
                    }
                }
                let out = Dazha::apply(&mut st, seat, action.clone(), T0)
                    .unwrap_or_else(|e| panic!("{action:?} by {seat}: {}", e.detail));
                assert!(out.money.is_empty());
                for e in &out.events {
                    assert_eq!(e.to, Visibility::All);
                    assert_public(&e.data, &public, e.kind);
                }
                if let Some(r) = out.hand_end {
                    played_out += 1;
                    break r;
                }
                let h = st.table.hand().unwrap();
                if steps % 8 == 0 {
                    let mut all = faces(played.iter().copied());
                    for hand in &h.hands {
                        for &c in hand {
                            all[face(c)] += 1;
                        }
                    }
                    assert_eq!(all, deck_faces, "every card is in a hand or played");
                }
                if steps % 64 == 0 {
                    for viewer in [None, Some(0), Some(1), Some(2), Some(3)] {
                        let mut v = view_json::<Dazha>(&st, viewer);
                        let fields = v.as_object_mut().unwrap();
                        // The previous hand's summary is public; it is about other cards.
                        fields.remove("last_hand");
                        if let Some(s) = viewer {
                            assert_eq!(fields.remove("hand").unwrap(), json!(h.hands[s]));
                        } else {
                            assert!(!fields.contains_key("hand"));
                        }
                        assert_public(&v, &public, "a view");
                    }
                    let saved = serde_json::to_string(&st).unwrap();
                    let back: State = serde_json::from_str(&saved).unwrap();
                    assert_eq!(serde_json::to_string(&back).unwrap(), saved);
                }
            };
            assert_eq!(result.points.iter().sum::<i64>(), 0, "{:?}", result.detail);
            assert_eq!(result.units.iter().sum::<i64>(), 0);
            if Dazha::stage(&st) == Stage::Finished {
                break;
            }
        }
    }
    assert!(
        dealt >= played_out && played_out >= 10_000,
        "{played_out} hands played out of {dealt}"
    );
    assert!(escapes > 0);
}

// ---------------------------------------------------------------- golden JSON

/// Every view and every seat's legal actions, one JSON text a line, as a client receives them.
/// Also checks that the stored state (with its typed `last_hand`) reads back to the same views.
fn render(st: &State, text: &mut String) {
    let back: State = serde_json::from_str(&serde_json::to_string(st).unwrap()).unwrap();
    assert_eq!(Dazha::view(&back, Some(0)), Dazha::view(st, Some(0)));
    crate::golden::render::<Dazha>(st, 4, text);
}

fn record(out: &Outcome, text: &mut String) {
    crate::golden::record(out, text);
}

/// A 摊牌 hand, part of a played hand from a fixed deck and a hand played out with a bomb: the
/// views, legal actions, events and summaries must keep the JSON the HTTP contract was written
/// against, byte for byte.
#[test]
fn hands_serialize_as_the_golden_json() {
    let opts = normal();
    let mut st = Dazha::new_match(opts.clone(), 4);
    let mut text = String::new();
    render(&st, &mut text);
    let tanpai_deal: [&[&str]; 4] = [
        &["BJ", "RJ"],
        &["8S", "8H", "8D", "8C", "RJ"],
        &["9S", "9H", "9D", "9C"],
        &["BJ"],
    ];
    record(&start(&mut st, deck_for(&opts, tanpai_deal)), &mut text);
    render(&st, &mut text);
    let deal: [&[&str]; 4] = [
        &["7S", "7H", "7D", "7C", "BJ"],
        &["8S", "3S", "8H", "8D", "8C", "RJ"],
        &["9S", "9H", "9D", "9C", "BJ"],
        &["3S", "JS", "JH", "JD", "JC", "RJ"],
    ];
    record(&start(&mut st, deck_for(&opts, deal)), &mut text);
    render(&st, &mut text);
    for _ in 0..12 {
        let seat = Dazha::to_act(&st)[0];
        let action = match legal_plays(&st, seat).first() {
            Some(p) if Dazha::phase(&st) == "follow" => Action::Play {
                cards: p.cards.clone(),
                reading: None,
            },
            _ => Dazha::auto_action(&st, seat),
        };
        text += &format!("apply {seat} {}\n", serde_json::to_string(&action).unwrap());
        record(&Dazha::apply(&mut st, seat, action, T0).unwrap(), &mut text);
        render(&st, &mut text);
    }

    let mut st = table(
        normal(),
        [
            &["3S"],
            &["4S", "4H", "4D", "4C", "9S"],
            &["KS"],
            &["6S", "6H"],
        ],
        AB,
        0,
    );
    let steps: [(SeatNo, &[&str]); 6] = [
        (0, &["3S"]),
        (1, &["4S", "4H", "4D", "4C"]),
        (2, &[]),
        (3, &[]),
        (1, &["9S"]),
        (2, &["KS"]),
    ];
    for (seat, list) in steps {
        let out = if list.is_empty() {
            pass(&mut st, seat)
        } else {
            play(&mut st, seat, list)
        };
        text += &format!("apply {seat} {list:?}\n");
        record(&out, &mut text);
        render(&st, &mut text);
    }
    assert_eq!(Dazha::stage(&st), Stage::NeedsDeal);
    assert_eq!(text, include_str!("golden/hands.txt"));
}

/// The API document's schemas are derived from these same types.
#[test]
fn the_schemas_describe_the_typed_surfaces() {
    use crate::engine::{DynGame, Registered};
    let s = Registered::<Dazha>::new().schemas();
    assert!(s.state["properties"]["round"].is_object(), "{}", s.state);
    assert_eq!(s.legal_action["oneOf"].as_array().map(Vec::len), Some(2));
    assert_eq!(s.last_result["anyOf"].as_array().map(Vec::len), Some(3));
}

// ---------------------------------------------------------------- bots

fn bot_plays(st: &State, seat: SeatNo, list: &[&str]) {
    match Dazha::bot_action(st, seat) {
        Action::Play { cards: got, .. } => {
            let mut want = cards(list);
            sort_strongest_first(&mut want);
            let mut got = got;
            sort_strongest_first(&mut got);
            assert_eq!(got, want, "seat {seat}'s bot play");
        }
        other => panic!("seat {seat}'s bot should play {list:?}, not {other:?}"),
    }
}

/// Twelve cards nobody is told the count of.
const TWELVE: &[&str] = &[
    "3D", "4D", "6D", "8D", "9D", "JD", "3C", "4C", "6C", "8C", "9C", "JC",
];

#[test]
fn bot_leads_its_lowest_plain_play_and_keeps_bombs_and_wushik() {
    let st = table(
        normal(),
        [
            &[
                "3S", "3H", "3D", "3C", "5S", "10S", "KS", "6H", "6S", "9H", "9S",
            ],
            TWELVE,
            TWELVE,
            TWELVE,
        ],
        AB,
        0,
    );
    // The 3s are a bomb, kept whole; 5-10-K would be a 五十K, kept for following: the lowest
    // plain play is the single 5.
    bot_plays(&st, 0, &["5S"]);
    let st = table(
        normal(),
        [
            &["4S", "5S", "6H", "7H", "8S", "8H", "QS", "2S"],
            TWELVE,
            TWELVE,
            TWELVE,
        ],
        AB,
        0,
    );
    // A straight from the lowest card gets rid of the most low cards.
    bot_plays(&st, 0, &["4S", "5S", "6H", "7H", "8S"]);
}

#[test]
fn bot_follows_with_the_cheapest_beating_play_and_passes_on_its_partner() {
    let mut st = table(
        normal(),
        [
            &[
                "5H", "9H", "KD", "QS", "JS", "4H", "6H", "7D", "8C", "3S", "3H",
            ],
            &[
                "6S", "9S", "KH", "2S", "AS", "AH", "8S", "10D", "7H", "QH", "4D",
            ],
            &[
                "7S", "8H", "JH", "QD", "2H", "3D", "3C", "4S", "5D", "6C", "9D",
            ],
            TWELVE,
        ],
        AB,
        0,
    );
    play(&mut st, 0, &["5H"]);
    // Seat 1 is seat 0's opponent: the cheapest single above a 5 is its 6.
    bot_plays(&st, 1, &["6S"]);
    play(&mut st, 1, &["9S"]);
    // Seat 2 beats the opponent's 9 as cheaply as it can: its J.
    bot_plays(&st, 2, &["JH"]);
    play(&mut st, 2, &["JH"]);
    pass(&mut st, 3);
    // Seat 0's partner (seat 2) holds the round: seat 0 passes although its Q beats the J.
    assert_eq!(Dazha::bot_action(&st, 0), Action::Pass {});
    // The pair of As beats a pair of Ks; a pair of 3s does not.
    let mut st = table(
        normal(),
        [
            &[
                "KS", "KH", "5D", "7S", "8S", "9S", "10S", "JD", "QD", "4C", "4D",
            ],
            &[
                "3S", "3H", "AS", "AH", "2S", "2H", "9H", "10H", "JH", "QH", "6C",
            ],
            TWELVE,
            TWELVE,
        ],
        AB,
        0,
    );
    play(&mut st, 0, &["KS", "KH"]);
    bot_plays(&st, 1, &["AS", "AH"]);
}

#[test]
fn bot_spends_a_bomb_only_when_an_opponent_is_close_to_going_out() {
    let hands = |leader: &'static [&'static str]| {
        [
            leader,
            &[
                "6S", "6H", "6D", "6C", "3S", "4H", "7D", "8C", "9S", "JH", "QD",
            ][..],
            TWELVE,
            TWELVE,
        ]
    };
    let leader_cards: &[&str] = &[
        "AS", "AH", "3H", "4S", "5S", "7S", "8S", "9H", "10H", "JS", "QS",
    ];
    let mut st = table(normal(), hands(leader_cards), AB, 0);
    play(&mut st, 0, &["AS", "AH"]);
    // Nobody close to going out, the round worthless: the 6s stay in hand.
    assert_eq!(Dazha::bot_action(&st, 1), Action::Pass {});
    let mut st = table(normal(), hands(&["AS", "AH", "3H", "4S", "5C"]), AB, 0);
    play(&mut st, 0, &["AS", "AH"]);
    // The leader is left with three cards, which the table is told: the bomb goes down.
    bot_plays(&st, 1, &["6S", "6H", "6D", "6C"]);
}

#[test]
fn bot_goes_out_when_one_play_empties_its_hand() {
    let mut st = table(
        normal(),
        [&["9S", "9H", "3C"], &["JS", "JH"], TWELVE, TWELVE],
        AB,
        0,
    );
    play(&mut st, 0, &["9S", "9H"]);
    bot_plays(&st, 1, &["JS", "JH"]);
}

/// The state with two cards swapped between two seats other than `seat`, or with their whole
/// hands exchanged when they hold as many cards: what `seat` cannot see changes.
fn hide_differently(st: &State, seat: SeatNo, rng: &mut Rng) -> State {
    let mut other = st.clone();
    let h = other.table.hand_mut().unwrap();
    let others: Vec<SeatNo> = (0..4)
        .filter(|&s| s != seat && !h.hands[s].is_empty())
        .collect();
    if others.len() < 2 {
        return other;
    }
    let (a, b) = (others[0], others[1 + rng.below(others.len() - 1)]);
    if h.hands[a].len() == h.hands[b].len() && rng.chance(30) {
        h.hands.swap(a, b);
    } else {
        let (i, j) = (rng.below(h.hands[a].len()), rng.below(h.hands[b].len()));
        let (x, y) = (h.hands[a][i], h.hands[b][j]);
        h.hands[a][i] = y;
        h.hands[b][j] = x;
        sort_strongest_first(&mut h.hands[a]);
        sort_strongest_first(&mut h.hands[b]);
    }
    other
}

// ---------------------------------------------------------------- event schemas

/// A random legal move of `seat`: the bot's, a pass when following, or any legal play.
fn random_move(st: &State, seat: SeatNo, rng: &mut Rng) -> Action {
    if rng.chance(40) {
        return Dazha::bot_action(st, seat);
    }
    let following = st.table.hand().is_some_and(|h| h.round.top().is_some());
    let plays = legal_plays(st, seat);
    if plays.is_empty() || (following && rng.chance(40)) {
        return Dazha::auto_action(st, seat);
    }
    let p = &plays[rng.below(plays.len())];
    Action::Play {
        cards: p.cards.clone(),
        reading: Some(p.combo.kind),
    }
}

/// Whole matches of random legal moves, escapes and leaves, in both modes: every event's kind
/// has a schema in `event_schemas`, its data is valid against it, and every kind is seen.
#[test]
fn every_event_of_random_matches_matches_its_schema() {
    let mut check = EventCheck::new::<Dazha>();
    let mut rng = Rng(11);
    for m in 0..16 {
        let options = if m % 2 == 0 { normal() } else { zhashen() };
        let plan = Plan {
            options: &options,
            seats: 4,
            hands: 4,
            leaves: true,
        };
        play_match::<Dazha>(&mut check, &mut rng, plan, random_move, |_, _| vec![0; 4]);
    }
    check.all_seen(&[]);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig {
        cases: 48,
        ..proptest::prelude::ProptestConfig::default()
    })]

    /// Four bots play whole hands: every bot action is accepted, every hand ends, cards are
    /// conserved, events show only public cards, results are zero-sum; and a seat's bot decides
    /// the same when only cards it cannot see are moved around.
    #[test]
    fn bots_play_whole_hands_legally_and_see_only_their_own_cards(
        seed in proptest::prelude::any::<u64>(),
        zhashen_mode in proptest::prelude::any::<bool>(),
    ) {
        let opts = if zhashen_mode { zhashen() } else { normal() };
        let mut rng = Rng(seed);
        let mut st = Dazha::new_match(opts.clone(), 4);
        for _ in 0..3 {
            let mut deck = Dazha::deck(&opts);
            let mut shuffle_seed = [0u8; 32];
            shuffle_seed[..8].copy_from_slice(&rng.next().to_le_bytes());
            shuffle(&mut deck, &shuffle_seed);
            let deck_faces = faces(deck.iter().copied());
            let out = start(&mut st, deck);
            if out.hand_end.is_some() {
                continue;
            }
            let mut played: Vec<Card> = Vec::new();
            let mut public = [0u16; 54];
            let mut steps = 0;
            let result = loop {
                steps += 1;
                assert!(steps < 3_000, "the hand must end");
                let seat = Dazha::to_act(&st)[0];
                let action = Dazha::bot_action(&st, seat);
                let blind = hide_differently(&st, seat, &mut rng);
                assert_eq!(Dazha::bot_action(&blind, seat), action, "hidden cards moved");
                if let Action::Play { cards, .. } = &action {
                    played.extend(cards.iter().copied());
                    for &c in cards {
                        public[face(c)] += 1;
                    }
                }
                let out = Dazha::apply(&mut st, seat, action.clone(), T0)
                    .unwrap_or_else(|e| panic!("{action:?} by {seat}: {}", e.detail));
                for e in &out.events {
                    assert_public(&e.data, &public, e.kind);
                }
                if let Some(r) = out.hand_end {
                    break r;
                }
                let h = st.table.hand().unwrap();
                let mut all = faces(played.iter().copied());
                for hand in &h.hands {
                    for &c in hand {
                        all[face(c)] += 1;
                    }
                }
                assert_eq!(all, deck_faces, "every card is in a hand or played");
            };
            assert_eq!(result.points.iter().sum::<i64>(), 0);
            assert_eq!(result.units.iter().sum::<i64>(), 0);
        }
    }
}
