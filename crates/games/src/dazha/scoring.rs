//! Points of a hand: the win stake, bomb rewards (额外奖励), 摊牌 with 罚王, and the escape
//! penalty. Every amount here is in points; `base` multiplies them, 低分 = 3 × base.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::cards::Card;
use crate::engine::SeatNo;

use super::Mode;
use super::combos::{Combo, ComboView, Counts, Kind, RANKS, TWO, jokers_playable};

pub const SEATS: usize = 4;

/// 低分 in units of `base`.
const DIFEN: i64 = 3;

/// What a bomb of `size` cards takes from each other player, in units of base: nothing up to 4
/// cards, then 1 doubling per card up to 9, and the 12炸神 table 32/64/128/160 for 10–13.
pub fn bomb_step(size: u8) -> i64 {
    match size {
        0..=4 => 0,
        5 => 1,
        6 => 2,
        7 => 4,
        8 => 8,
        9 => 16,
        10 => 32,
        11 => 64,
        12 => 128,
        _ => 160,
    }
}

/// The size a bomb scores as: a bomb of 2s one size higher (seed: 4 twos score as a 5-card
/// bomb), four jokers as an 8-card bomb, then capped.
pub fn scored_size(combo: &Combo, cap: u8) -> u8 {
    let size = match combo.kind {
        Kind::Bomb if combo.rank == TWO => combo.len + 1,
        Kind::JokerBomb => 8,
        _ => combo.len,
    };
    size.min(cap)
}

/// What a played bomb takes from each other player, in units of base.
pub fn bomb_reward(combo: &Combo, cap: u8) -> i64 {
    match combo.kind {
        // 12炸神: 炸下去就60分, whatever the cap.
        Kind::BigJokerBomb | Kind::SmallJokerBomb => 60,
        Kind::Bomb | Kind::JokerBomb => bomb_step(scored_size(combo, cap)),
        _ => 0,
    }
}

/// Adds a transfer of `units` × base from each other seat to `seat` (negative: to each other).
fn collect(points: &mut [i64; SEATS], seat: SeatNo, per_other: i64) {
    for (s, p) in points.iter_mut().enumerate() {
        if s == seat {
            *p += per_other * (SEATS as i64 - 1);
        } else {
            *p -= per_other;
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    /// All four jokers of the normal game.
    FourJokers,
    /// 12炸神: all twelve jokers (炸神).
    Zhashen,
    /// 有王没炸弹: jokers that no bomb can carry.
    JokersWithoutBomb,
    /// A bomb reaching the cap (natural cards + jokers ≥ cap).
    CappedBomb,
}

/// One seat's 摊牌: why, the hand shown, and what it scores. Fields in alphabetical order, as
/// the sorted JSON maps of the contract wrote them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Shown {
    /// Sizes the shown bombs score as.
    pub bombs: Vec<u8>,
    /// The seat's whole dealt hand.
    pub cards: Vec<Card>,
    /// Jokers fined 1 × base to each other player (罚王).
    pub jokers_fined: u8,
    /// Why the seat had to show.
    pub reasons: Vec<Reason>,
    /// The seat that showed.
    pub seat: SeatNo,
}

/// The seats that must 摊牌 right after the deal, in seat order.
pub fn tanpai(hands: &[Vec<Card>], mode: Mode, cap: u8) -> Vec<Shown> {
    hands
        .iter()
        .enumerate()
        .filter_map(|(seat, cards)| shown(seat, cards, mode, cap))
        .collect()
}

fn shown(seat: SeatNo, cards: &[Card], mode: Mode, cap: u8) -> Option<Shown> {
    let c = Counts::of(cards);
    let mut s = Shown {
        seat,
        reasons: Vec::new(),
        cards: cards.to_vec(),
        jokers_fined: 0,
        bombs: Vec::new(),
    };
    // Jokers left to pad natural bombs up to the cap.
    let mut pool = c.jokers();
    match mode {
        Mode::Normal if c.bj == 2 && c.rj == 2 => {
            s.reasons.push(Reason::FourJokers);
            // 摊牌 with four jokers counts as a 9-card bomb (seed rule 5).
            s.bombs.push(9.min(cap));
            pool = 0;
        }
        Mode::Zhashen12 if c.jokers() == 12 => {
            s.reasons.push(Reason::Zhashen);
            s.bombs.push(cap);
            pool = 0;
        }
        _ if !jokers_playable(&c, mode) => {
            s.reasons.push(Reason::JokersWithoutBomb);
            s.jokers_fined = c.jokers();
            pool = 0;
        }
        _ => {}
    }
    // Largest natural groups first, so the jokers go where they reach the cap soonest.
    let mut ranks: Vec<usize> = (0..RANKS).filter(|&o| c.n[o] >= 4).collect();
    ranks.sort_by_key(|&o| std::cmp::Reverse(c.n[o]));
    for o in ranks {
        let need = cap.saturating_sub(c.n[o]);
        if need <= pool {
            pool -= need;
            if !s.reasons.contains(&Reason::CappedBomb) {
                s.reasons.push(Reason::CappedBomb);
            }
            s.bombs.push(cap);
        }
    }
    (!s.reasons.is_empty()).then_some(s)
}

/// Points of a hand ended by 摊牌: 罚王 and the shown bombs, each against the other three.
pub fn settle_tanpai(shown: &[Shown], base: i64) -> [i64; SEATS] {
    let mut points = [0i64; SEATS];
    for s in shown {
        collect(&mut points, s.seat, -(s.jokers_fined as i64) * base);
        for &size in &s.bombs {
            collect(&mut points, s.seat, bomb_step(size) * base);
        }
    }
    points
}

/// A bomb played during a hand.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BombPlayed {
    pub seat: SeatNo,
    pub cards: Vec<Card>,
    pub combo: Combo,
}

/// The settlement of a hand played out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settlement {
    /// A 双扣 hand re-draws partners for the next one.
    pub shuangkou: bool,
    pub points: [i64; SEATS],
    pub detail: Played,
}

/// `[[seats of team 0], [seats of team 1]]`.
pub type Teams = [Vec<SeatNo>; 2];

/// The summary of a hand (`HandResult::detail`, the view's `last_hand`), told apart by `kind`.
///
/// Untagged, each variant carrying its own `kind` marker, rather than `#[serde(tag = "kind")]`:
/// the marker keeps the fields in the alphabetical order the contract's JSON was written in.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Summary {
    Played(Played),
    Tanpai(Tanpai),
    Escape(Escape),
}

/// `kind` of a played hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum PlayedKind {
    #[serde(rename = "played")]
    Played,
}

/// `kind` of a hand ended by 摊牌.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum TanpaiKind {
    #[serde(rename = "tanpai")]
    Tanpai,
}

/// `kind` of a hand ended by an escape.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum EscapeKind {
    #[serde(rename = "escape")]
    Escape,
}

/// A hand played out.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Played {
    /// Bombs played during the hand.
    pub bombs_played: usize,
    /// The bombs that earned rewards (none in a 双扣 hand).
    pub bombs_scored: Vec<ScoredBomb>,
    /// Always `played`.
    pub kind: PlayedKind,
    /// Seats in the order they went out.
    pub order_out: Vec<SeatNo>,
    /// Each seat's points for the hand.
    pub points: [i64; SEATS],
    /// 双扣: one team went out first and second (double stake, no bomb rewards).
    pub shuangkou: bool,
    /// What each winner takes from a loser: 低分 (3 × base), doubled for 双扣.
    pub stake_per_player: i64,
    /// Card points won by team 0 and team 1 (the 上游's team also gets those left unwon).
    pub team_points: [u32; 2],
    /// The seats of team 0 and of team 1.
    pub teams: Teams,
    /// The team that won the hand.
    pub winner_team: u8,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ScoredBomb {
    /// The bomb's cards.
    pub cards: Vec<Card>,
    /// The bomb as a combination.
    pub combo: ComboView,
    /// What the bomber took from each other player.
    pub per_player: i64,
    /// The size the bomb scored as (2s one size up, four jokers as 8, capped).
    pub scored_size: u8,
    /// The seat that played it.
    pub seat: SeatNo,
}

/// A hand not played because seats had to 摊牌.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Tanpai {
    /// Always `tanpai`.
    pub kind: TanpaiKind,
    /// Each seat's points for the hand.
    pub points: [i64; SEATS],
    /// Each seat that showed, in seat order.
    pub shown: Vec<Shown>,
}

/// A hand ended by a seat leaving (逃跑), which also ends the match. Also the data of the
/// `escape` event.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Escape {
    /// The hand lasted 30 s or more, so each other seat also gains 1 × base.
    pub bonus: bool,
    /// Always `escape`.
    pub kind: EscapeKind,
    /// How long the hand had lasted, in milliseconds.
    pub lasted_ms: i64,
    /// Each seat's points: the leaver pays each other seat 4 × 低分.
    pub points: [i64; SEATS],
    /// The seat that escaped.
    pub seat: SeatNo,
}

/// Scores a finished hand. `captured` are the card points each seat won in rounds, `leftover`
/// those still in hands or in the unfinished round (they go to the 上游's team).
pub fn settle_played(
    team_of: [u8; SEATS],
    out: &[SeatNo],
    captured: [u32; SEATS],
    leftover: u32,
    bombs: &[BombPlayed],
    base: i64,
    cap: u8,
) -> Settlement {
    // Never empty for a dealt deck; a malformed fixed deck must not panic the server.
    let upper = out.first().copied().unwrap_or(0);
    let mut team_points = [0u32; 2];
    for (s, &p) in captured.iter().enumerate() {
        team_points[team_of[s] as usize] += p;
    }
    team_points[team_of[upper] as usize] += leftover;
    let shuangkou = out.len() >= 2 && team_of[out[0]] == team_of[out[1]];
    let winner = if shuangkou || team_points[0] == team_points[1] {
        team_of[upper]
    } else if team_points[0] > team_points[1] {
        0
    } else {
        1
    };
    let stake = DIFEN * base * if shuangkou { 2 } else { 1 };
    let mut points = [0i64; SEATS];
    for (s, p) in points.iter_mut().enumerate() {
        *p = if team_of[s] == winner { stake } else { -stake };
    }
    let mut scored = Vec::new();
    // Seed rule 8: a 双扣 hand scores no bomb rewards.
    if !shuangkou {
        for b in bombs {
            let reward = bomb_reward(&b.combo, cap) * base;
            collect(&mut points, b.seat, reward);
            scored.push(ScoredBomb {
                seat: b.seat,
                cards: b.cards.clone(),
                combo: b.combo.view(),
                scored_size: scored_size(&b.combo, cap),
                per_player: reward,
            });
        }
    }
    let detail = Played {
        kind: PlayedKind::Played,
        teams: teams(team_of),
        team_points,
        order_out: out.to_vec(),
        winner_team: winner,
        shuangkou,
        stake_per_player: stake,
        bombs_played: bombs.len(),
        bombs_scored: scored,
        points,
    };
    Settlement {
        shuangkou,
        points,
        detail,
    }
}

/// The seats of each team.
pub fn teams(team_of: [u8; SEATS]) -> Teams {
    let members = |t: u8| -> Vec<SeatNo> { (0..SEATS).filter(|&s| team_of[s] == t).collect() };
    [members(0), members(1)]
}

/// 逃跑: the leaver pays each other player 4 × 低分; each other player also gains 1 × base when
/// the hand had lasted long enough. Returns (points, zero-sum units).
pub fn escape(seat: SeatNo, base: i64, bonus: bool) -> ([i64; SEATS], [i64; SEATS]) {
    let mut units = [0i64; SEATS];
    collect(&mut units, seat, -4 * DIFEN * base);
    let mut points = units;
    if bonus {
        for (s, p) in points.iter_mut().enumerate() {
            if s != seat {
                *p += base;
            }
        }
    }
    (points, units)
}
