//! Where a match of 打炸, 升级, 三打哈 or 扯胡子 stands, as one enum of phases: code that needs
//! the hand in play gets it from the variant that holds one, and the summary of the last hand
//! stays on show until the next one ends. Each game stores it as it always has (a `finished`
//! flag, the hand and the last summary as separate fields of its JSON): [`Progress::from_stored`]
//! and [`Progress::into_stored`] convert, refusing the combinations no match can be in.

use crate::engine::Stage;

/// `H` is the game's hand in play, `S` its summary of a finished hand, `W` what it keeps of how
/// the match ended besides the last summary (升级: the team that won; the others: nothing).
#[derive(Clone, Debug, PartialEq)]
pub enum Progress<H, S, W = ()> {
    /// Before the first hand.
    Waiting,
    InHand {
        hand: Box<H>,
        last: Option<S>,
    },
    /// Between hands.
    Between {
        last: S,
    },
    /// The match is over (an escape, or 升级's team past A).
    Finished {
        last: S,
        winner: W,
    },
}

impl<H, S, W: Copy> Progress<H, S, W> {
    /// The hand in play.
    pub fn hand(&self) -> Option<&H> {
        match self {
            Progress::InHand { hand, .. } => Some(hand),
            Progress::Waiting | Progress::Between { .. } | Progress::Finished { .. } => None,
        }
    }

    /// The hand in play, to change.
    pub fn hand_mut(&mut self) -> Option<&mut H> {
        match self {
            Progress::InHand { hand, .. } => Some(hand),
            Progress::Waiting | Progress::Between { .. } | Progress::Finished { .. } => None,
        }
    }

    /// The summary of the last hand.
    pub fn last(&self) -> Option<&S> {
        match self {
            Progress::Waiting => None,
            Progress::InHand { last, .. } => last.as_ref(),
            Progress::Between { last } | Progress::Finished { last, .. } => Some(last),
        }
    }

    /// How the match ended, once over.
    pub fn winner(&self) -> Option<W> {
        match self {
            Progress::Finished { winner, .. } => Some(*winner),
            Progress::Waiting | Progress::InHand { .. } | Progress::Between { .. } => None,
        }
    }

    pub fn stage(&self) -> Stage {
        match self {
            Progress::Waiting | Progress::Between { .. } => Stage::NeedsDeal,
            Progress::InHand { .. } => Stage::InHand,
            Progress::Finished { .. } => Stage::Finished,
        }
    }

    /// For the deal of the next hand: the last hand's summary (none before the first), taken
    /// out and the table left `Waiting` for the game to put the new hand in. `None`, the table
    /// unchanged, while a hand is in play or once the match is over: the service deals only
    /// between hands ([`Stage::NeedsDeal`]); a replay of a stored state that is neither deals
    /// nothing.
    pub fn take_for_deal(&mut self) -> Option<Option<S>> {
        match std::mem::replace(self, Progress::Waiting) {
            Progress::Waiting => Some(None),
            Progress::Between { last } => Some(Some(last)),
            other @ (Progress::InHand { .. } | Progress::Finished { .. }) => {
                *self = other;
                None
            }
        }
    }

    /// From the stored fields: how the match ended (`None` while it goes on), the hand in play
    /// and the last summary.
    pub fn from_stored(
        ended: Option<W>,
        hand: Option<Box<H>>,
        last: Option<S>,
    ) -> Result<Self, &'static str> {
        Ok(match (ended, hand, last) {
            (None, None, None) => Progress::Waiting,
            (None, Some(hand), last) => Progress::InHand { hand, last },
            (None, None, Some(last)) => Progress::Between { last },
            (Some(winner), None, Some(last)) => Progress::Finished { last, winner },
            (Some(_), Some(_), _) => return Err("a finished match has no hand in play"),
            (Some(_), None, None) => return Err("a finished match shows its last hand"),
        })
    }

    /// The stored fields ([`Progress::from_stored`]'s).
    pub fn into_stored(self) -> (Option<W>, Option<Box<H>>, Option<S>) {
        match self {
            Progress::Waiting => (None, None, None),
            Progress::InHand { hand, last } => (None, Some(hand), last),
            Progress::Between { last } => (None, None, Some(last)),
            Progress::Finished { last, winner } => (Some(winner), None, Some(last)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type P = Progress<u8, &'static str, u8>;

    #[test]
    fn every_phase_is_stored_and_read_back_as_it_was() {
        let phases: [P; 5] = [
            Progress::Waiting,
            Progress::InHand {
                hand: Box::new(1),
                last: None,
            },
            Progress::InHand {
                hand: Box::new(2),
                last: Some("one"),
            },
            Progress::Between { last: "two" },
            Progress::Finished {
                last: "three",
                winner: 1,
            },
        ];
        for p in phases {
            let (stage, hand, last, winner) =
                (p.stage(), p.hand().copied(), p.last().copied(), p.winner());
            let (ended, h, l) = p.into_stored();
            let back = P::from_stored(ended, h, l).unwrap();
            assert_eq!(back.stage(), stage);
            assert_eq!(back.hand().copied(), hand);
            assert_eq!(back.last().copied(), last);
            assert_eq!(back.winner(), winner);
        }
    }

    #[test]
    fn stored_fields_no_match_can_have_are_refused() {
        assert!(P::from_stored(Some(0), Some(Box::new(1)), Some("x")).is_err());
        assert!(P::from_stored(Some(0), None, None).is_err());
    }

    #[test]
    fn a_deal_takes_the_last_summary_between_hands() {
        let mut p: P = Progress::Between { last: "one" };
        assert_eq!(p.take_for_deal(), Some(Some("one")));
        assert_eq!(p.stage(), Stage::NeedsDeal);
        let mut p: P = Progress::Waiting;
        assert_eq!(p.take_for_deal(), Some(None));
    }
}
