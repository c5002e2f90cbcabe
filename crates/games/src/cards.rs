//! Cards and their notation (api.md § Cards).
//!
//! Poker cards are written rank then suit (`"10H"`, `"QD"`, `"3S"`), jokers `"RJ"` (big, 大王)
//! and `"BJ"` (small, 小王); paper cards of 扯胡子 `"s1"`…`"s10"`, `"b1"`…`"b10"` and `"W"` (王霸).
//! Multi-deck games repeat faces: identical cards compare equal.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Suit {
    S,
    H,
    D,
    C,
}

impl Suit {
    pub const ALL: [Suit; 4] = [Suit::S, Suit::H, Suit::D, Suit::C];

    pub fn is_red(self) -> bool {
        matches!(self, Suit::H | Suit::D)
    }

    pub fn letter(self) -> char {
        match self {
            Suit::S => 'S',
            Suit::H => 'H',
            Suit::D => 'D',
            Suit::C => 'C',
        }
    }

    pub fn from_letter(c: char) -> Option<Suit> {
        Some(match c {
            'S' => Suit::S,
            'H' => Suit::H,
            'D' => Suit::D,
            'C' => Suit::C,
            _ => return None,
        })
    }
}

impl Serialize for Suit {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_char(self.letter())
    }
}

impl<'de> Deserialize<'de> for Suit {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        let mut chars = s.chars();
        match (chars.next().and_then(Suit::from_letter), chars.next()) {
            (Some(suit), None) => Ok(suit),
            _ => Err(serde::de::Error::custom(format!(
                "unknown suit {s:?}: expected one of S, H, D, C"
            ))),
        }
    }
}

/// Ranks of poker cards: 2..=10 as themselves, J = 11, Q = 12, K = 13, A = 14.
pub type Rank = u8;
pub const JACK: Rank = 11;
pub const QUEEN: Rank = 12;
pub const KING: Rank = 13;
pub const ACE: Rank = 14;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Card {
    /// A poker card of rank 2..=14.
    Suited { rank: Rank, suit: Suit },
    /// 小王, `"BJ"`.
    SmallJoker,
    /// 大王, `"RJ"`.
    BigJoker,
    /// 扯胡子 paper card: small 一…十 (`big == false`) or big 壹…拾, number 1..=10.
    Paper { big: bool, n: u8 },
    /// 王霸, `"W"`.
    Wild,
}

impl Card {
    pub const fn new(rank: Rank, suit: Suit) -> Card {
        Card::Suited { rank, suit }
    }

    pub fn rank(self) -> Option<Rank> {
        match self {
            Card::Suited { rank, .. } => Some(rank),
            _ => None,
        }
    }

    pub fn suit(self) -> Option<Suit> {
        match self {
            Card::Suited { suit, .. } => Some(suit),
            _ => None,
        }
    }

    /// Parses api.md card notation; the error says what is wrong with the text.
    pub fn parse(text: &str) -> Result<Card, String> {
        match text {
            "RJ" => return Ok(Card::BigJoker),
            "BJ" => return Ok(Card::SmallJoker),
            "W" => return Ok(Card::Wild),
            _ => {}
        }
        let bad = || {
            format!(
                "unknown card {text:?}: expected rank then suit like \"10H\" or \"QS\", \
                 \"RJ\"/\"BJ\" for jokers, or \"s1\"…\"s10\", \"b1\"…\"b10\", \"W\" for paper cards"
            )
        };
        if let Some(num) = text.strip_prefix('s').or_else(|| text.strip_prefix('b')) {
            let n: u8 = num.parse().map_err(|_| bad())?;
            if !(1..=10).contains(&n) || num.starts_with('0') || num.starts_with('+') {
                return Err(bad());
            }
            return Ok(Card::Paper {
                big: text.starts_with('b'),
                n,
            });
        }
        let mut chars = text.chars();
        let suit = chars
            .next_back()
            .and_then(Suit::from_letter)
            .ok_or_else(bad)?;
        let rank = match chars.as_str() {
            "J" => JACK,
            "Q" => QUEEN,
            "K" => KING,
            "A" => ACE,
            r @ ("2" | "3" | "4" | "5" | "6" | "7" | "8" | "9" | "10") => {
                r.parse().map_err(|_| bad())?
            }
            _ => return Err(bad()),
        };
        Ok(Card::Suited { rank, suit })
    }
}

pub fn rank_str(rank: Rank) -> &'static str {
    const NAMES: [&str; 15] = [
        "?", "?", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A",
    ];
    NAMES.get(rank as usize).copied().unwrap_or("?")
}

impl Card {
    /// The card's notation (api.md § Cards), written into `buf` without the formatting
    /// machinery: a view or a saved state writes dozens of cards.
    fn notation(self, buf: &mut [u8; 4]) -> &str {
        let mut len = 0;
        let mut put = |buf: &mut [u8; 4], bytes: &[u8]| {
            buf[len..len + bytes.len()].copy_from_slice(bytes);
            len += bytes.len();
        };
        match self {
            Card::Suited { rank, suit } => {
                put(buf, rank_str(rank).as_bytes());
                put(buf, &[suit.letter() as u8]);
            }
            Card::BigJoker => put(buf, b"RJ"),
            Card::SmallJoker => put(buf, b"BJ"),
            Card::Paper { big, n } => {
                put(buf, if big { b"b" } else { b"s" });
                if n >= 100 {
                    put(buf, &[b'0' + n / 100]);
                }
                if n >= 10 {
                    put(buf, &[b'0' + n / 10 % 10]);
                }
                put(buf, &[b'0' + n % 10]);
            }
            Card::Wild => put(buf, b"W"),
        }
        // Only ASCII was written.
        std::str::from_utf8(&buf[..len]).unwrap_or("?")
    }
}

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.notation(&mut [0; 4]))
    }
}

impl FromStr for Card {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Card::parse(s)
    }
}

impl Serialize for Card {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.notation(&mut [0; 4]))
    }
}

impl<'de> Deserialize<'de> for Card {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        Card::parse(&s).map_err(serde::de::Error::custom)
    }
}

/// Card pattern of api.md § Cards, for the API document.
const CARD_PATTERN: &str = "^((10|[2-9JQKA])[SHDC]|RJ|BJ|[sb]([1-9]|10)|W)$";

impl schemars::JsonSchema for Card {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Card".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "pattern": CARD_PATTERN,
            "description": "A card in api.md notation: rank then suit (\"10H\", \"QS\"), \"RJ\"/\"BJ\" jokers, paper cards \"s1\"…\"s10\", \"b1\"…\"b10\", \"W\"."
        })
    }
}

impl schemars::JsonSchema for Suit {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Suit".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "string", "enum": ["S", "H", "D", "C"] })
    }
}

/// Builds fixtures from readable notation: `hand!["QH", "QD", "10H"]`.
#[macro_export]
macro_rules! hand {
    ($($c:expr),* $(,)?) => {
        vec![$($crate::cards::Card::parse($c).expect("fixture card")),*]
    };
}

/// One standard 52-card deck, optionally with the two jokers, in a fixed order.
pub fn standard_deck(jokers: bool) -> Vec<Card> {
    let mut deck: Vec<Card> = Suit::ALL
        .iter()
        .flat_map(|&suit| (2..=ACE).map(move |rank| Card::Suited { rank, suit }))
        .collect();
    if jokers {
        deck.push(Card::BigJoker);
        deck.push(Card::SmallJoker);
    }
    deck
}

/// Removes `cards` from `hand` as a multiset; `None` (hand untouched) when any is missing.
pub fn remove_cards(hand: &mut Vec<Card>, cards: &[Card]) -> Option<()> {
    let mut rest = hand.clone();
    for c in cards {
        let i = rest.iter().position(|h| h == c)?;
        rest.swap_remove(i);
    }
    *hand = rest;
    Some(())
}

/// True when `cards` is contained in `hand` as a multiset.
pub fn holds_all(hand: &[Card], cards: &[Card]) -> bool {
    let mut rest = hand.to_vec();
    remove_cards(&mut rest, cards).is_some()
}

/// Sorts a multiset of cards into a canonical order, for comparing card multisets.
pub fn canonical(cards: &[Card]) -> Vec<Card> {
    let mut v = cards.to_vec();
    v.sort();
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notation_round_trips_for_every_card() {
        let mut all = standard_deck(true);
        all.push(Card::Wild);
        for big in [false, true] {
            for n in 1..=10 {
                all.push(Card::Paper { big, n });
            }
        }
        for c in all {
            assert_eq!(Card::parse(&c.to_string()), Ok(c));
            let json = serde_json::to_string(&c).unwrap();
            assert_eq!(json, format!("\"{c}\""));
            assert_eq!(serde_json::from_str::<Card>(&json).unwrap(), c);
        }
        let written: Vec<String> = [
            Card::new(10, Suit::H),
            Card::new(14, Suit::S),
            Card::new(2, Suit::C),
            Card::BigJoker,
            Card::SmallJoker,
            Card::Paper { big: true, n: 10 },
            Card::Paper { big: false, n: 1 },
            Card::Wild,
        ]
        .iter()
        .map(|c| serde_json::to_string(c).unwrap())
        .collect();
        assert_eq!(
            written,
            [
                r#""10H""#, r#""AS""#, r#""2C""#, r#""RJ""#, r#""BJ""#, r#""b10""#, r#""s1""#,
                r#""W""#
            ]
        );
        // Any value of the fields, even one no deck holds, is written as `write!` wrote it.
        for n in 0..=u8::MAX {
            for (big, prefix) in [(true, 'b'), (false, 's')] {
                assert_eq!(Card::Paper { big, n }.to_string(), format!("{prefix}{n}"));
            }
            let suited = Card::Suited {
                rank: n,
                suit: Suit::D,
            };
            assert_eq!(suited.to_string(), format!("{}D", rank_str(n)));
        }
    }

    #[test]
    fn bad_notation_is_rejected_with_a_reason() {
        for bad in [
            "", "1H", "11H", "10X", "QQ", "s0", "s11", "b01", "w", "rj", "10", "H",
        ] {
            let err = Card::parse(bad).unwrap_err();
            assert!(err.contains("unknown card"), "{bad}: {err}");
        }
    }

    #[test]
    fn remove_cards_is_all_or_nothing() {
        let mut h = hand!["QH", "QH", "3S"];
        let three_queens = hand!["QH", "QH", "QH"];
        assert!(remove_cards(&mut h, &three_queens).is_none());
        assert_eq!(h.len(), 3);
        let queen_and_three = hand!["QH", "3S"];
        assert!(remove_cards(&mut h, &queen_and_three).is_some());
        assert_eq!(h, hand!["QH"]);
    }
}
