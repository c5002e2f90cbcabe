//! A hand in play: whose turn it is, checking and making a play or a pass, winning a round
//! (接风 to the partner of a seat that went out), and what the table sees of the round.

use crate::cards::Card;
use crate::engine::{Event, Outcome, RuleError, SeatNo, data};

use super::{
    BombPlayed, Combo, Counts, HandState, Kind, Mode, PlayView, REPORT_AT, Round, RoundEntry,
    RoundPlay, RoundView, Rule, SEATS, combos, empty_play, events, jokers_playable, points_of,
    readings, sort_strongest_first, strands_joker,
};

/// A count as the table may see it: exact once at most 10 cards are left (报牌), else null.
pub(super) fn reported(count: usize) -> Option<usize> {
    (count <= REPORT_AT).then_some(count)
}

impl HandState {
    fn next_holding(&self, from: SeatNo) -> SeatNo {
        (1..=SEATS)
            .map(|i| (from + i) % SEATS)
            .find(|&s| !self.hands[s].is_empty())
            .unwrap_or(from)
    }

    fn partner(&self, seat: SeatNo) -> SeatNo {
        (0..SEATS)
            .find(|&s| s != seat && self.team_of[s] == self.team_of[seat])
            .unwrap_or(seat)
    }

    /// Over when both players of a team are out, or only one player still holds cards.
    pub(super) fn is_over(&self) -> bool {
        let holding = (0..SEATS).filter(|&s| !self.hands[s].is_empty()).count();
        holding <= 1
            || (0..2u8).any(|t| {
                (0..SEATS)
                    .filter(|&s| self.team_of[s] == t)
                    .all(|s| self.hands[s].is_empty())
            })
    }

    /// Checks a play of `seat` and returns the hand left after it and the reading taken.
    pub(super) fn check_play(
        &self,
        seat: SeatNo,
        cards: &[Card],
        reading: Option<Kind>,
        mode: Mode,
    ) -> Result<(Vec<Card>, Combo), RuleError> {
        if cards.is_empty() {
            return Err(empty_play());
        }
        let hand = &self.hands[seat];
        let rest = without(hand, cards).ok_or_else(|| {
            RuleError::not_in_hand("you do not hold all of the cards played", hand, cards)
        })?;
        let mut options = match self.round.top() {
            None => readings(cards, hand.len(), mode)?,
            Some(_) => combos::follow_readings(cards, mode)?,
        };
        if let Some(kind) = reading {
            options.retain(|c| c.kind == kind);
            if options.is_empty() {
                return Err(RuleError::illegal(
                    Rule::NotPlayableAs,
                    format!("these cards cannot be played as {kind}"),
                    format!("这些牌不能当{}出", kind.name_zh()),
                )
                .with_cards(cards));
            }
        }
        if let Some((_, top)) = self.round.top() {
            options.retain(|c| c.beats(&top));
            if options.is_empty() {
                return Err(does_not_beat(&top).with_cards(cards));
            }
        }
        // Only five of a kind reads two ways (bomb, triple with two): the bomb is the stronger.
        let combo = options
            .iter()
            .copied()
            .max_by_key(|c| c.kind.is_bomb())
            .ok_or_else(|| {
                RuleError::illegal(
                    Rule::NotACombination,
                    "these cards form no combination",
                    "这些牌组不成牌型",
                )
                .with_cards(cards)
            })?;
        if !jokers_playable(&Counts::of(&rest), mode) {
            return Err(strands_joker(cards));
        }
        Ok((rest, combo))
    }

    pub(super) fn play(
        &mut self,
        seat: SeatNo,
        mut cards: Vec<Card>,
        rest: Vec<Card>,
        combo: Combo,
        out: &mut Outcome,
    ) {
        sort_strongest_first(&mut cards);
        self.hands[seat] = rest;
        self.round.points += points_of(&cards);
        self.round.passed = [false; SEATS];
        if combo.kind.is_bomb() {
            self.bombs.push(BombPlayed {
                seat,
                cards: cards.clone(),
                combo,
            });
        }
        let left = self.hands[seat].len();
        out.events.push(Event::public(
            "play",
            Some(seat),
            data(&events::Play {
                cards: &cards,
                combo: combo.view(),
                cards_left: reported(left),
            }),
        ));
        self.round.plays.push(RoundPlay {
            seat,
            cards,
            combo: Some(combo),
        });
        if left == 0 {
            self.out.push(seat);
            out.events.push(Event::public(
                "out",
                Some(seat),
                data(&events::Out {
                    place: self.out.len(),
                }),
            ));
        }
        self.turn = self.next_holding(seat);
    }

    pub(super) fn pass(&mut self, seat: SeatNo, out: &mut Outcome) {
        self.round.passed[seat] = true;
        self.round.plays.push(RoundPlay {
            seat,
            cards: Vec::new(),
            combo: None,
        });
        out.events
            .push(Event::public("pass", Some(seat), data(&events::Nothing {})));
        let Some(winner) = self.round.top().map(|(p, _)| p.seat) else {
            return;
        };
        let everyone_passed =
            (0..SEATS).all(|s| s == winner || self.hands[s].is_empty() || self.round.passed[s]);
        if !everyone_passed {
            self.turn = self.next_holding(seat);
            return;
        }
        let points = self.round.points;
        self.captured[winner] += points;
        // 接风: a winner already out hands the lead to its partner, else to the next player
        // still holding cards.
        let leader = if !self.hands[winner].is_empty() {
            winner
        } else if !self.hands[self.partner(winner)].is_empty() {
            self.partner(winner)
        } else {
            self.next_holding(winner)
        };
        out.events.push(Event::public(
            "round_won",
            Some(winner),
            data(&events::RoundWon {
                points,
                captured: self.captured[winner],
                leads_next: leader,
            }),
        ));
        if leader != winner {
            out.events.push(Event::public(
                "jiefeng",
                Some(leader),
                data(&events::Jiefeng { from: winner }),
            ));
        }
        self.round = Round::new(leader);
        self.turn = leader;
    }

    pub(super) fn team_points(&self) -> [u32; 2] {
        let mut t = [0u32; 2];
        for s in 0..SEATS {
            t[self.team_of[s] as usize] += self.captured[s];
        }
        t
    }

    pub(super) fn round_view(&self) -> RoundView {
        let plays = self
            .round
            .plays
            .iter()
            .map(|p| match p.combo {
                Some(c) => RoundEntry::Play(p.view(c)),
                None => RoundEntry::Pass {
                    seat: p.seat,
                    pass: true,
                },
            })
            .collect();
        RoundView {
            leader: self.round.leader,
            points: self.round.points,
            plays,
            top: self.round.top().map(|(p, c)| p.view(c)),
        }
    }
}

impl RoundPlay {
    fn view(&self, combo: Combo) -> PlayView {
        PlayView {
            seat: self.seat,
            cards: self.cards.clone(),
            combo: combo.view(),
        }
    }
}

/// `hand` less `cards` as a multiset, keeping the hand's order; None when a card is missing.
fn without(hand: &[Card], cards: &[Card]) -> Option<Vec<Card>> {
    let mut rest = hand.to_vec();
    for card in cards {
        let i = rest.iter().position(|c| c == card)?;
        rest.remove(i);
    }
    Some(rest)
}

/// The refusal of a play that does not beat `top`.
fn does_not_beat(top: &Combo) -> RuleError {
    let (en, zh) = match top.kind {
        k if k.is_bomb() => (
            format!("only a bigger bomb beats the {k} on the table"),
            format!("只有更大的炸弹才能压过桌上的{}", k.name_zh()),
        ),
        Kind::WushikSuited => (
            "only a bomb beats a suited 五十K".into(),
            "只有炸弹才能压过同花五十K".into(),
        ),
        Kind::WushikMixed => (
            "only a suited 五十K or a bomb beats a mixed 五十K".into(),
            "只有同花五十K或炸弹才能压过杂五十K".into(),
        ),
        Kind::Triple => (
            "only a higher triple or a bomb beats a triple".into(),
            "只有更大的三张或炸弹才能压过三张".into(),
        ),
        k => (
            format!(
                "this does not beat the {k} on the table: play a higher {k} of the same length, \
                 五十K or a bomb"
            ),
            format!(
                "压不过桌上的{z}：请出张数相同、更大的{z}，或五十K、炸弹",
                z = k.name_zh()
            ),
        ),
    };
    RuleError::illegal(Rule::MustBeatPrevious, en, zh)
}
