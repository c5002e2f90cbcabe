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
mod tests;
