//! Picking a random legal move from a view, for the games the load generator knows: each is
//! one function from the view (its `legal_actions` templates and its `state`) to a concrete
//! action. These are fast strategies, not a requirement: a game without a chooser here is
//! played from the server's hints (`client::Play::choose`), so a new game needs no code in the
//! load generator.

use fastrand::Rng;
use games::cards::{Card, Suit};
use games::trick::{self, Order, Requirement};
use serde_json::{Value, json};

use crate::api::View;

/// A game the load generator has a chooser of its own for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Chooser {
    /// 扯旋.
    Chexuan,
    /// 上饶打炸.
    Dazha,
    /// 四副牌升级.
    Shengji,
    /// 衡阳三打哈.
    Sandaha,
    /// 永州扯胡子.
    Chehuzi,
}

impl Chooser {
    /// The chooser of the game the server calls `game`, if there is one.
    pub fn of(game: &str) -> Option<Chooser> {
        Some(match game {
            "chexuan" => Chooser::Chexuan,
            "dazha" => Chooser::Dazha,
            "shengji" => Chooser::Shengji,
            "sandaha" => Chooser::Sandaha,
            "chehuzi" => Chooser::Chehuzi,
            _ => return None,
        })
    }

    /// A random legal action for the viewer's seat, or `None` when the view offers nothing
    /// this chooser knows how to fill.
    pub fn choose(self, view: &View, rng: &mut Rng) -> Option<Value> {
        match self {
            Chooser::Chexuan => chexuan(view, rng),
            Chooser::Dazha => dazha(view, rng),
            Chooser::Shengji => shengji(view, rng),
            Chooser::Sandaha => sandaha(view, rng),
            Chooser::Chehuzi => chehuzi(view, rng),
        }
    }
}

/// A template chosen at random, each with the weight `weight(type)` gives it.
fn pick<'a>(templates: &'a [Value], weight: fn(&str) -> u32, rng: &mut Rng) -> Option<&'a Value> {
    let w = |t: &Value| weight(t["type"].as_str().unwrap_or_default());
    let total: u32 = templates.iter().map(w).sum();
    if total == 0 {
        return None;
    }
    let mut r = rng.u32(0..total);
    templates.iter().find(|t| {
        let wt = w(t);
        if r < wt {
            true
        } else {
            r -= wt;
            false
        }
    })
}

/// `min..=max` of a template.
fn bounds(t: &Value) -> Option<(i64, i64)> {
    let (min, max) = (t["min"].as_i64()?, t["max"].as_i64()?);
    (min <= max).then_some((min, max))
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c.as_str().map(str::to_string))
        .collect()
}

/// A 簸簸 is drawn from `min_bobo ..= BOBO_SPREAD × min_bobo` (and never above the wallet), so a
/// player loses at most that much per hand and the granted wallets last the whole run.
const BOBO_SPREAD: i64 = 10;

/// 扯旋 (docs/rules/chexuan.md § JSON). Betting templates are weighted so that hands usually
/// reach the showdown instead of ending at the first fold or all-in.
fn chexuan(view: &View, rng: &mut Rng) -> Option<Value> {
    fn weight(kind: &str) -> u32 {
        match kind {
            "check" | "call" => 4,
            "raise" => 2,
            "resume" => 100,
            _ => 1,
        }
    }
    let t = pick(&view.legal_actions, weight, rng)?;
    let kind = t["type"].as_str()?;
    match kind {
        "set_bobo" => {
            let (min, max) = bounds(t)?;
            let hi = max.min(min.saturating_mul(BOBO_SPREAD));
            Some(json!({ "type": kind, "amount": rng.i64(min..=hi) }))
        }
        "raise" => {
            let (min, max) = bounds(t)?;
            Some(json!({ "type": kind, "to": rng.i64(min..=max) }))
        }
        "split" => {
            let state = view.state();
            let me = &state["seats"][view.seat()?];
            let mut cards = strings(&me["hidden"]);
            cards.extend(strings(&me["face_up"]));
            if cards.len() != 4 {
                return None;
            }
            rng.shuffle(&mut cards);
            Some(json!({ "type": kind, "head": cards[..2], "tail": cards[2..] }))
        }
        _ => Some(json!({ "type": kind })),
    }
}

/// 打炸 strength of a rank name, 3 lowest and 2 highest.
fn dazha_rank_index(rank: &str) -> Option<usize> {
    const RANKS: [&str; 13] = [
        "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2",
    ];
    RANKS.iter().position(|r| *r == rank)
}

/// 打炸 rank of a natural card (rank then suit, `"10H"`); `None` for jokers.
fn dazha_rank(card: &str) -> Option<usize> {
    dazha_rank_index(card.get(..card.len().checked_sub(1)?)?)
}

/// Whether jokers in `hand` can still be played: none left, or a rank with ≥ 4 natural cards.
fn dazha_jokers_playable(hand: &[&str]) -> bool {
    let mut counts = [0usize; 13];
    let mut jokers = 0;
    for c in hand {
        match dazha_rank(c) {
            Some(r) => counts[r] += 1,
            None => jokers += 1,
        }
    }
    jokers == 0 || counts.iter().any(|&n| n >= 4)
}

/// The singles of `hand` that can be played without stranding its jokers.
fn dazha_safe_singles(hand: &[String]) -> Vec<&str> {
    hand.iter()
        .enumerate()
        .filter(|(_, c)| dazha_rank(c).is_some())
        .filter(|&(i, _)| {
            let rest: Vec<&str> = hand
                .iter()
                .enumerate()
                .filter(|&(j, _)| j != i)
                .map(|(_, c)| c.as_str())
                .collect();
            dazha_jokers_playable(&rest)
        })
        .map(|(_, c)| c.as_str())
        .collect()
}

/// 打炸 (docs/rules/dazha.md § `legal_actions`): the templates only say lead or follow, so the
/// move comes from the seat's own `hand`. A leader plays a random single that keeps its
/// jokers playable, or else its bomb with every joker; a follower beats a single with a higher
/// one half of the time and passes otherwise.
fn dazha(view: &View, rng: &mut Rng) -> Option<Value> {
    let play = view.legal_actions.iter().find(|t| t["type"] == "play")?;
    let state = view.state();
    let hand = strings(&state["hand"]);
    let singles = dazha_safe_singles(&hand);
    if play["lead"].as_bool()? {
        if !singles.is_empty() {
            let card = singles[rng.usize(0..singles.len())];
            return Some(json!({ "type": "play", "cards": [card] }));
        }
        // Only bombs (and the jokers they carry) are left: the largest rank group with all
        // jokers, or the jokers alone.
        let mut counts = [0usize; 13];
        for c in &hand {
            if let Some(r) = dazha_rank(c) {
                counts[r] += 1;
            }
        }
        let bomb = (0..13)
            .filter(|&r| counts[r] >= 4)
            .max_by_key(|&r| counts[r]);
        let cards: Vec<&String> = hand
            .iter()
            .filter(|c| dazha_rank(c).is_none_or(|r| Some(r) == bomb))
            .collect();
        return Some(json!({ "type": "play", "cards": cards }));
    }
    let top = &state["round"]["top"]["combo"];
    if top["type"] == "single" && rng.bool() {
        let beat = top["rank"].as_str().and_then(dazha_rank_index);
        let higher: Vec<&str> = singles
            .into_iter()
            .filter(|c| beat.is_some_and(|b| dazha_rank(c).is_some_and(|r| r > b)))
            .collect();
        if !higher.is_empty() {
            let card = higher[rng.usize(0..higher.len())];
            return Some(json!({ "type": "play", "cards": [card] }));
        }
    }
    Some(json!({ "type": "pass" }))
}

/// The cards of a JSON array of card names (unknown names left out).
fn cards(v: &Value) -> Vec<Card> {
    strings(v)
        .iter()
        .filter_map(|c| Card::parse(c).ok())
        .collect()
}

/// A random lead for the trick games: a random card of the hand, alone or with every copy of
/// it. Identical cards are always one formation (single, pair, triple or quad; sandaha's two
/// decks hold at most a pair), so the lead is legal whatever the hand.
fn group_lead(hand: &[Card], rng: &mut Rng) -> Option<Value> {
    let card = *hand.get(rng.usize(..hand.len().max(1)))?;
    let copies = hand.iter().filter(|&&c| c == card).count();
    let n = if rng.bool() { copies } else { 1 };
    Some(json!({ "type": "play", "cards": vec![card; n] }))
}

/// A follow for the trick games: void in the led suit, random cards (any will do); otherwise
/// the play the server's own automatic play makes (`trick::best_follow`), which obeys the
/// structure rule by construction, so a random choice never has to guess at it and a refused
/// play cannot repeat forever.
fn trick_follow(order: &Order, hand: &[Card], lead: &[Card], rng: &mut Rng) -> Option<Value> {
    if lead.is_empty() || hand.len() < lead.len() {
        return None;
    }
    let cards = match trick::requirement(order, hand, lead) {
        Requirement::Free { count } => {
            let mut h = hand.to_vec();
            rng.shuffle(&mut h);
            h.truncate(count);
            h
        }
        _ => trick::best_follow(order, hand, lead),
    };
    Some(json!({ "type": "play", "cards": cards }))
}

/// 四副牌升级 (docs/rules/shengji.md § Tricks, `legal_actions`): declares now and then with the
/// 2s a `declare` template offers (any suit, any count it lists), else passes; leads a random
/// card or group of identical cards; follows as `trick_follow`.
fn shengji(view: &View, rng: &mut Rng) -> Option<Value> {
    let t = view.legal_actions.iter().find(|t| t["type"] == "play");
    let Some(t) = t else {
        if let Some(d) = view.legal_actions.iter().find(|t| t["type"] == "declare")
            && rng.u32(0..4) == 0
        {
            let options = d["options"].as_array()?;
            let o = options.get(rng.usize(..options.len().max(1)))?;
            let counts: Vec<u64> = o["counts"]
                .as_array()?
                .iter()
                .filter_map(Value::as_u64)
                .collect();
            let count = *counts.get(rng.usize(..counts.len().max(1)))? as usize;
            let card = format!("2{}", o["suit"].as_str()?);
            return Some(json!({ "type": "declare", "cards": vec![card; count] }));
        }
        return view
            .legal_actions
            .iter()
            .any(|t| t["type"] == "pass")
            .then(|| json!({ "type": "pass" }));
    };
    let state = view.state();
    let hand = cards(&state["hand"]);
    if t["lead"].as_bool()? {
        return group_lead(&hand, rng);
    }
    let trump: Suit = serde_json::from_value(state["trump"].clone()).ok()?;
    let order = Order::new(games::shengji::RANKS, Some(trump));
    trick_follow(&order, &hand, &cards(&state["trick"][0]["cards"]), rng)
}

/// 衡阳三打哈 (docs/rules/sandaha.md § `legal_actions`): bids the one value offered two times
/// in three (a hand where all four pass is dealt again), names a random trump (or none),
/// buries 8 random cards, plays on (surrenders one time in twenty), leads a random card or
/// pair, follows as `trick_follow`.
fn sandaha(view: &View, rng: &mut Rng) -> Option<Value> {
    fn weight(kind: &str) -> u32 {
        match kind {
            "bid" => 2,
            "pass" => 1,
            "play_on" => 19,
            "surrender" => 1,
            _ => 1,
        }
    }
    let t = pick(&view.legal_actions, weight, rng)?;
    let kind = t["type"].as_str()?;
    let state = view.state();
    let hand = cards(&state["hand"]);
    match kind {
        "bid" => Some(json!({ "type": "bid", "value": t["value"] })),
        "trump" => {
            let suits = t["suits"].as_array()?;
            let suit = suits.get(rng.usize(..suits.len().max(1)))?;
            Some(json!({ "type": "trump", "suit": suit }))
        }
        "bury" => {
            let count = t["count"].as_u64()? as usize;
            let mut h = hand;
            if h.len() < count {
                return None;
            }
            rng.shuffle(&mut h);
            h.truncate(count);
            Some(json!({ "type": "bury", "cards": h }))
        }
        "play" if t["lead"].as_bool()? => group_lead(&hand, rng),
        "play" => {
            let trump: Option<Suit> = serde_json::from_value(state["trump"].clone()).ok()?;
            let order = games::sandaha::order(trump);
            let lead = cards(&state["trick"]["plays"][0]["cards"]);
            trick_follow(&order, &hand, &lead, rng)
        }
        _ => Some(json!({ "type": kind })),
    }
}

/// 永州扯胡子 (docs/rules/chehuzi.md § Over HTTP, Engine surface): in a claim window, 胡 whenever
/// it is offered, else a random one of the other templates (碰, 吃 with a random one of its
/// meld sets, or pass); a discard is a random card of those the `discard` template lists (or,
/// should a template list none, a card of `state.hand` that is not W and not in a 坎).
fn chehuzi(view: &View, rng: &mut Rng) -> Option<Value> {
    let legal = &view.legal_actions;
    if legal.iter().any(|t| t["type"] == "hu") {
        return Some(json!({ "type": "hu" }));
    }
    let t = legal.get(rng.usize(..legal.len().max(1)))?;
    match t["type"].as_str()? {
        "discard" => {
            let mut allowed = strings(&t["cards"]);
            if allowed.is_empty() {
                let hand = strings(&view.state()["hand"]);
                allowed = hand
                    .iter()
                    .filter(|c| *c != "W" && hand.iter().filter(|h| h == c).count() < 3)
                    .cloned()
                    .collect();
            }
            let card = allowed.get(rng.usize(..allowed.len().max(1)))?;
            Some(json!({ "type": "discard", "card": card }))
        }
        "chi" => {
            let options = t["options"].as_array()?;
            let melds = options.get(rng.usize(..options.len().max(1)))?;
            Some(json!({ "type": "chi", "melds": melds }))
        }
        kind => Some(json!({ "type": kind })),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(seat: usize, legal: Value, state: Value) -> View {
        serde_json::from_str(
            &json!({
                "id": "m", "version": 3, "status": "playing", "you": { "seat": seat },
                "to_act": [seat], "legal_actions": legal, "state": state,
            })
            .to_string(),
        )
        .unwrap()
    }

    #[test]
    fn a_game_without_a_function_here_has_no_chooser() {
        assert_eq!(Chooser::of("chehuzi"), Some(Chooser::Chehuzi));
        assert_eq!(
            Chooser::of("majiang"),
            None,
            "played from the server's hints"
        );
    }

    #[test]
    fn set_bobo_stays_between_min_and_ten_times_min_and_the_wallet() {
        let mut rng = Rng::with_seed(1);
        let v = view(
            0,
            json!([{ "type": "set_bobo", "min": 100, "max": 5000 }]),
            json!({}),
        );
        let poor = view(
            0,
            json!([{ "type": "set_bobo", "min": 100, "max": 150 }]),
            json!({}),
        );
        for _ in 0..200 {
            let a = Chooser::Chexuan.choose(&v, &mut rng).unwrap();
            assert_eq!(a["type"], "set_bobo");
            assert!((100..=1000).contains(&a["amount"].as_i64().unwrap()), "{a}");
            let a = Chooser::Chexuan.choose(&poor, &mut rng).unwrap();
            assert!((100..=150).contains(&a["amount"].as_i64().unwrap()), "{a}");
        }
    }

    #[test]
    fn betting_fills_raise_bounds_and_offers_every_template() {
        let mut rng = Rng::with_seed(2);
        let v = view(
            1,
            json!([{ "type": "call", "amount": 20 }, { "type": "raise", "min": 30, "max": 90 },
                   { "type": "all_in", "amount": 90 }, { "type": "fold" }]),
            json!({}),
        );
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..500 {
            let a = Chooser::Chexuan.choose(&v, &mut rng).unwrap();
            let kind = a["type"].as_str().unwrap().to_string();
            match kind.as_str() {
                "raise" => assert!((30..=90).contains(&a["to"].as_i64().unwrap())),
                _ => assert_eq!(a, json!({ "type": kind })),
            }
            seen.insert(kind);
        }
        assert_eq!(seen.len(), 4, "{seen:?}");
    }

    #[test]
    fn a_raise_with_empty_bounds_is_not_sent() {
        let mut rng = Rng::with_seed(3);
        let v = view(
            0,
            json!([{ "type": "raise", "min": 50, "max": 40 }]),
            json!({}),
        );
        assert_eq!(Chooser::Chexuan.choose(&v, &mut rng), None);
    }

    #[test]
    fn split_uses_exactly_the_seats_own_four_cards() {
        let mut rng = Rng::with_seed(4);
        let state = json!({ "seats": [
            { "seat": 0, "hidden": null, "face_up": ["9S", "5C"] },
            { "seat": 1, "hidden": ["QH", "2D"], "face_up": ["8S", "RJ"] },
        ]});
        let v = view(1, json!([{ "type": "split" }]), state);
        for _ in 0..50 {
            let a = Chooser::Chexuan.choose(&v, &mut rng).unwrap();
            let mut all = strings(&a["head"]);
            assert_eq!(all.len(), 2);
            all.extend(strings(&a["tail"]));
            all.sort();
            assert_eq!(all, ["2D", "8S", "QH", "RJ"]);
        }
        let blind = view(0, json!([{ "type": "split" }]), v.state());
        assert_eq!(Chooser::Chexuan.choose(&blind, &mut rng), None);
    }

    #[test]
    fn resume_wins_when_the_seat_is_in_automatic_play() {
        let mut rng = Rng::with_seed(5);
        let v = view(
            0,
            json!([{ "type": "fold" }, { "type": "resume" }]),
            json!({}),
        );
        let resumes = (0..100)
            .filter(|_| Chooser::Chexuan.choose(&v, &mut rng).unwrap()["type"] == "resume")
            .count();
        assert!(resumes > 90, "{resumes}");
    }

    #[test]
    fn dazha_leader_keeps_its_jokers_playable() {
        let mut rng = Rng::with_seed(6);
        let lead = json!([{ "type": "play", "lead": true, "min_cards": 1 }]);
        let hand = json!({ "hand": ["RJ", "9S", "9H", "9D", "9C", "5S", "3H"] });
        let v = view(2, lead.clone(), hand);
        for _ in 0..50 {
            let a = Chooser::Dazha.choose(&v, &mut rng).unwrap();
            let cards = strings(&a["cards"]);
            assert!(cards == ["5S"] || cards == ["3H"], "{a}");
        }
        let bomb_only = view(2, lead, json!({ "hand": ["RJ", "9S", "9H", "9D", "9C"] }));
        let a = Chooser::Dazha.choose(&bomb_only, &mut rng).unwrap();
        assert_eq!(strings(&a["cards"]), ["RJ", "9S", "9H", "9D", "9C"]);
    }

    #[test]
    fn dazha_follower_beats_a_single_or_passes() {
        let mut rng = Rng::with_seed(7);
        let follow = json!([{ "type": "play", "lead": false, "min_cards": 1,
                              "beat": { "type": "single", "rank": "K" }, "can_beat": true },
                            { "type": "pass" }]);
        let state = json!({ "hand": ["2S", "AH", "5D"],
                            "round": { "top": { "combo": { "type": "single", "rank": "K" } } } });
        let v = view(1, follow, state);
        let mut played = 0;
        for _ in 0..100 {
            let a = Chooser::Dazha.choose(&v, &mut rng).unwrap();
            if a["type"] == "play" {
                let cards = strings(&a["cards"]);
                assert!(cards == ["2S"] || cards == ["AH"], "{a}");
                played += 1;
            } else {
                assert_eq!(a, json!({ "type": "pass" }));
            }
        }
        assert!((20..80).contains(&played), "{played}");
    }

    fn parsed(cs: &[&str]) -> Vec<Card> {
        cs.iter().map(|c| Card::parse(c).unwrap()).collect()
    }

    #[test]
    fn shengji_declares_what_is_offered_or_passes() {
        let mut rng = Rng::with_seed(8);
        let v = view(
            1,
            json!([{ "type": "declare", "options": [{ "suit": "H", "counts": [2, 3] }] },
                   { "type": "pass" }]),
            json!({ "hand": ["2H", "2H", "2H", "9S"] }),
        );
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..200 {
            let a = Chooser::Shengji.choose(&v, &mut rng).unwrap();
            match a["type"].as_str().unwrap() {
                "pass" => assert_eq!(a, json!({ "type": "pass" })),
                _ => {
                    let cards = strings(&a["cards"]);
                    assert!(cards == ["2H"; 2] || cards == ["2H"; 3], "{a}");
                }
            }
            seen.insert(a.to_string());
        }
        assert_eq!(seen.len(), 3, "{seen:?}");
        let pass_only = view(1, json!([{ "type": "pass" }]), json!({ "hand": ["9S"] }));
        assert_eq!(
            Chooser::Shengji.choose(&pass_only, &mut rng),
            Some(json!({ "type": "pass" }))
        );
    }

    #[test]
    fn trick_game_leads_are_one_group_of_held_cards() {
        let mut rng = Rng::with_seed(9);
        let hand = ["RJ", "AS", "AS", "AS", "9H", "9H", "3C"];
        let lead = json!([{ "type": "play", "count": null, "lead": true, "shapes": [] }]);
        for game in [Chooser::Shengji, Chooser::Sandaha] {
            let v = view(0, lead.clone(), json!({ "hand": hand, "trump": "S" }));
            for _ in 0..100 {
                let a = game.choose(&v, &mut rng).unwrap();
                let cards = strings(&a["cards"]);
                assert!(
                    !cards.is_empty() && cards.iter().all(|c| *c == cards[0]),
                    "{a}"
                );
                let held = hand.iter().filter(|h| **h == cards[0]).count();
                assert!(cards.len() == 1 || cards.len() == held, "{a}");
            }
        }
    }

    #[test]
    fn trick_game_follows_are_legal() {
        let mut rng = Rng::with_seed(10);
        // 升级, hearts trump: a pair of 9S led; the follower holds a pair of spades.
        let hand = ["RJ", "2H", "KS", "QS", "QS", "JS", "5D", "9D"];
        let order = Order::new(games::shengji::RANKS, Some(Suit::H));
        let state = json!({ "hand": hand, "trump": "H",
                            "trick": [{ "seat": 0, "cards": ["9S", "9S"] }] });
        let t = json!([{ "type": "play", "count": 2, "lead": false, "shapes": [] }]);
        for _ in 0..50 {
            let a = Chooser::Shengji
                .choose(&view(1, t.clone(), state.clone()), &mut rng)
                .unwrap();
            let play = cards(&a["cards"]);
            trick::is_legal_follow(&order, &parsed(&hand), &parsed(&["9S", "9S"]), &play).unwrap();
        }
        // Void in the led suit: any cards, not always the same.
        let void = json!({ "hand": hand, "trump": "H",
                           "trick": [{ "seat": 0, "cards": ["9C", "9C"] }] });
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..50 {
            let a = Chooser::Shengji
                .choose(&view(1, t.clone(), void.clone()), &mut rng)
                .unwrap();
            assert_eq!(strings(&a["cards"]).len(), 2);
            seen.insert(a.to_string());
        }
        assert!(seen.len() > 1);
        // 三打哈 without a trump suit: a trump single led (a 7), the follower must answer with
        // a trump (2S is one, 7s and 2s being fixed trumps).
        let hand = ["2S", "AH", "KD", "5C"];
        let state = json!({ "hand": hand, "trump": null, "trump_chosen": true,
                            "trick": { "leader": 0, "plays": [{ "seat": 0, "cards": ["7D"] }] } });
        let t = json!([{ "type": "play", "count": 1, "lead": false, "shapes": [] }]);
        let a = Chooser::Sandaha
            .choose(&view(1, t, state), &mut rng)
            .unwrap();
        assert_eq!(strings(&a["cards"]), ["2S"]);
    }

    #[test]
    fn sandaha_bids_names_trump_and_buries_held_cards() {
        let mut rng = Rng::with_seed(11);
        let hand: Vec<String> = (5..=14)
            .flat_map(|r| {
                ["S", "H", "D"].map(|s| {
                    let rank = match r {
                        11 => "J".to_string(),
                        12 => "Q".into(),
                        13 => "K".into(),
                        14 => "A".into(),
                        n => n.to_string(),
                    };
                    format!("{rank}{s}")
                })
            })
            .collect();
        let bury = view(
            2,
            json!([{ "type": "bury", "count": 8 }]),
            json!({ "hand": hand }),
        );
        for _ in 0..20 {
            let a = Chooser::Sandaha.choose(&bury, &mut rng).unwrap();
            let mut cards = strings(&a["cards"]);
            assert_eq!(cards.len(), 8);
            assert!(cards.iter().all(|c| hand.contains(c)), "{a}");
            cards.sort();
            cards.dedup();
            assert_eq!(cards.len(), 8, "each card once: {a}");
        }
        let trump = view(
            2,
            json!([{ "type": "trump", "suits": ["S", "H", "D", "C", null] }]),
            json!({}),
        );
        let named: std::collections::BTreeSet<String> = (0..200)
            .map(|_| Chooser::Sandaha.choose(&trump, &mut rng).unwrap()["suit"].to_string())
            .collect();
        assert_eq!(named.len(), 5, "{named:?}");
        let bid = view(
            0,
            json!([{ "type": "bid", "value": 85 }, { "type": "pass" }]),
            json!({}),
        );
        for _ in 0..50 {
            let a = Chooser::Sandaha.choose(&bid, &mut rng).unwrap();
            assert!(a == json!({ "type": "bid", "value": 85 }) || a == json!({ "type": "pass" }));
        }
    }

    #[test]
    fn chehuzi_wins_when_it_can_and_otherwise_answers_what_is_offered() {
        let mut rng = Rng::with_seed(12);
        let hu = view(
            1,
            json!([{ "type": "hu" }, { "type": "peng" }, { "type": "pass" }]),
            json!({}),
        );
        for _ in 0..20 {
            assert_eq!(
                Chooser::Chehuzi.choose(&hu, &mut rng),
                Some(json!({ "type": "hu" }))
            );
        }
        let melds = json!([[["s3", "s4", "s5"]], [["s5", "s6", "s7"]]]);
        let claim = view(
            2,
            json!([{ "type": "peng" }, { "type": "chi", "options": melds }, { "type": "pass" }]),
            json!({}),
        );
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..200 {
            let a = Chooser::Chehuzi.choose(&claim, &mut rng).unwrap();
            match a["type"].as_str().unwrap() {
                "chi" => assert!(melds.as_array().unwrap().contains(&a["melds"]), "{a}"),
                kind => assert_eq!(a, json!({ "type": kind })),
            }
            seen.insert(a.to_string());
        }
        assert_eq!(seen.len(), 4, "{seen:?}");
    }

    #[test]
    fn chehuzi_discards_an_allowed_card() {
        let mut rng = Rng::with_seed(13);
        let hand = json!({ "hand": ["W", "b9", "b9", "b9", "s7", "s2"] });
        let listed = view(
            0,
            json!([{ "type": "discard", "cards": ["s7", "s2"] }]),
            hand.clone(),
        );
        let generic = view(0, json!([{ "type": "discard" }]), hand);
        let mut seen = std::collections::BTreeSet::new();
        for v in [&listed, &generic] {
            for _ in 0..50 {
                let a = Chooser::Chehuzi.choose(v, &mut rng).unwrap();
                assert_eq!(a["type"], "discard");
                let card = a["card"].as_str().unwrap().to_string();
                assert!(card == "s7" || card == "s2", "neither W nor the 坎: {a}");
                seen.insert(card);
            }
        }
        assert_eq!(seen.len(), 2);
        let nothing = view(
            0,
            json!([{ "type": "discard", "cards": [] }]),
            json!({ "hand": ["W"] }),
        );
        assert_eq!(Chooser::Chehuzi.choose(&nothing, &mut rng), None);
    }
}
