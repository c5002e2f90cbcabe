//! Checks of rule sets and refusals for the engines' tests.

use std::collections::BTreeSet;

use super::{Ctx, Game, HandStart, RuleCode, RuleError, SeatNo, Stage};
use crate::cards::Card;
use crate::test_rng::Rng;

/// `ordinal` is an exhaustive `match` numbering every variant of `R` (a new variant does not
/// compile until it is numbered there): `R::ALL` must hold each variant once at its number,
/// with distinct snake_case codes.
pub(crate) fn rule_set<R: RuleCode + PartialEq + std::fmt::Debug>(ordinal: fn(R) -> usize) {
    for (i, &r) in R::ALL.iter().enumerate() {
        assert_eq!(ordinal(r), i, "{r:?} is not at its place in ALL");
    }
    let mut codes: Vec<&str> = R::ALL.iter().map(|r| r.code()).collect();
    for c in &codes {
        assert!(is_code(c), "{c} is not snake_case");
    }
    codes.sort_unstable();
    let n = codes.len();
    codes.dedup();
    assert_eq!(codes.len(), n, "two rules share a code");
}

/// `^[a-z][a-z0-9_]*$`
fn is_code(c: &str) -> bool {
    c.starts_with(|ch: char| ch.is_ascii_lowercase())
        && c.chars()
            .all(|ch| ch.is_ascii_lowercase() || ch.is_ascii_digit() || ch == '_')
}

pub(crate) fn has_cjk(s: &str) -> bool {
    s.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c))
}

/// A refusal of `G` as every refusal must be: a code `G` lists, both sentences.
pub(crate) fn refusal<G: Game>(e: &RuleError) {
    assert!(
        G::rule_codes().contains(&e.rule),
        "{}: {} is not among its rule codes ({})",
        G::NAME,
        e.rule,
        e.detail
    );
    assert!(
        !e.detail.is_empty(),
        "{}: {} has no detail",
        G::NAME,
        e.rule
    );
    assert!(
        has_cjk(&e.detail_zh),
        "{}: {} has no Chinese detail: {:?}",
        G::NAME,
        e.rule,
        e.detail_zh
    );
}

/// Plays `hands` hands of `G` (new matches when one finishes), sending at every step
/// `random`'s action (mostly refused) for a seat that is usually among those to act, and
/// every few steps a bot's move so that every phase is reached. Every refusal must be
/// [`refusal`]-shaped, name only cards the action sent and leave the state as it was.
/// Returns the codes refused with.
pub(crate) fn random_refusals<G: Game>(
    opts: G::Options,
    seats: usize,
    hands: usize,
    rng: &mut Rng,
    random: impl Fn(&G::State, SeatNo, &mut Rng) -> G::Action,
) -> BTreeSet<&'static str> {
    let ctx = Ctx { now_ms: 0 };
    let mut seen = BTreeSet::new();
    let mut st = G::new_match(opts.clone(), seats);
    for _ in 0..hands {
        if G::stage(&st) == Stage::Finished {
            st = G::new_match(opts.clone(), seats);
        }
        let mut deck = G::deck(&opts);
        let mut seed = [0u8; 32];
        seed[..8].copy_from_slice(&rng.next().to_le_bytes());
        crate::shuffle::shuffle(&mut deck, &seed);
        G::start_hand(
            &mut st,
            HandStart {
                deck,
                ctx,
                wallets: (0..seats).map(|_| rng.range(0, 3_000)).collect(),
                scores: vec![0; seats],
            },
        );
        let mut steps = 0;
        while G::stage(&st) == Stage::InHand {
            steps += 1;
            assert!(steps < 20_000, "{}: the hand must end", G::NAME);
            let to_act = G::to_act(&st);
            let seat = match to_act.len() {
                n if n > 0 && rng.chance(85) => to_act[rng.below(n)],
                _ => rng.below(seats),
            };
            let before = serde_json::to_string(&st).expect("state serializes");
            let action = random(&st, seat, rng);
            let sent = cards_in(&super::to_value(&action));
            if let Err(e) = G::apply(&mut st, seat, action, ctx) {
                refusal::<G>(&e);
                assert!(
                    is_part_of(&e.cards, &sent),
                    "{}: {} names cards {:?} beyond those sent {sent:?}",
                    G::NAME,
                    e.rule,
                    e.cards
                );
                let after = serde_json::to_string(&st).expect("state serializes");
                assert_eq!(before, after, "{}: a refusal changed the state", G::NAME);
                seen.insert(e.rule);
            }
            let to_act = G::to_act(&st);
            if !to_act.is_empty() && rng.chance(35) {
                let seat = to_act[rng.below(to_act.len())];
                let bot = G::bot_action(&st, seat);
                if let Err(e) = G::apply(&mut st, seat, bot, ctx) {
                    panic!("{}: the bot's move was refused: {}", G::NAME, e.detail);
                }
            }
        }
    }
    seen
}

/// Every card named in a JSON value.
fn cards_in(v: &serde_json::Value) -> Vec<Card> {
    match v {
        serde_json::Value::String(s) => Card::parse(s).into_iter().collect(),
        serde_json::Value::Array(a) => a.iter().flat_map(cards_in).collect(),
        serde_json::Value::Object(o) => o.values().flat_map(cards_in).collect(),
        _ => Vec::new(),
    }
}

/// Whether `part` is a sub-multiset of `whole`.
fn is_part_of(part: &[Card], whole: &[Card]) -> bool {
    super::refusal::missing(whole, part).is_empty()
}

#[test]
fn every_game_lists_its_codes_sorted_with_the_shared_ones() {
    for g in crate::all() {
        let codes = g.rule_codes();
        assert!(
            codes.windows(2).all(|w| w[0] < w[1]),
            "{}: sorted, no repeats",
            g.name()
        );
        for c in &codes {
            assert!(is_code(c), "{}: {c}", g.name());
        }
        for shared in super::codes_of::<super::Shared>() {
            assert!(codes.contains(&shared), "{}: {shared}", g.name());
        }
    }
}

/// A game that says its deal reads no wallet or 积分 ([`Game::DEAL_READS_PURSE`]) is dealt
/// alike whatever they are: the service deals it with zeros and reads nothing.
#[test]
fn a_game_that_reads_no_purse_deals_alike_whatever_the_wallets_and_scores() {
    let mut rng = Rng(20261128);
    for g in crate::all() {
        if g.deal_reads_purse() {
            continue;
        }
        for seats in g.seats() {
            let options = g.options(seats, &serde_json::json!({})).expect("defaults");
            for _ in 0..8 {
                let mut deck = g.deck(&options).expect("a deck");
                let mut seed = [0u8; 32];
                seed[..8].copy_from_slice(&rng.next().to_le_bytes());
                crate::shuffle::shuffle(&mut deck, &seed);
                let deal = |wallets: Vec<i64>, scores: Vec<i64>| {
                    let mut st = g.new_match(&options, seats).expect("a match");
                    let outcome = st.start_hand(HandStart {
                        deck: deck.clone(),
                        ctx: Ctx { now_ms: 0 },
                        wallets,
                        scores,
                    });
                    (st.save(), outcome)
                };
                let wallets = (0..seats).map(|_| rng.range(0, 5_000)).collect();
                let scores = (0..seats).map(|_| rng.range(0, 400) - 200).collect();
                assert_eq!(
                    deal(vec![0; seats], vec![0; seats]),
                    deal(wallets, scores),
                    "{} at {seats} seats",
                    g.name()
                );
            }
        }
    }
}

#[test]
fn every_game_has_its_own_name_and_a_chinese_title() {
    let mut names = BTreeSet::new();
    for g in crate::all() {
        assert!(is_code(g.name()), "{}", g.name());
        assert!(names.insert(g.name()), "{} is registered twice", g.name());
        assert!(has_cjk(g.title()), "{}: {:?}", g.name(), g.title());
    }
}

#[test]
fn not_in_hand_names_only_the_cards_held_too_few_times() {
    let c = |s: &str| Card::parse(s).unwrap();
    let hand = [c("3S"), c("4S"), c("4S")];
    let sent = [c("4S"), c("3S"), c("3S"), c("4S"), c("RJ")];
    let e = RuleError::not_in_hand("you do not hold those cards", &hand, &sent);
    assert_eq!(e.rule, "not_in_hand");
    assert_eq!(e.cards, vec![c("3S"), c("RJ")]);
    assert!(has_cjk(&e.detail_zh));
    assert_eq!(e.to_string(), "you do not hold those cards");
}

#[test]
fn shared_rules_are_listed_once() {
    use super::Shared;
    rule_set::<Shared>(|r| match r {
        Shared::BadAction => 0,
        Shared::BadOption => 1,
        Shared::BadSeatCount => 2,
        Shared::NotYourTurn => 3,
        Shared::NoHandInPlay => 4,
        Shared::NotInHand => 5,
    });
}
