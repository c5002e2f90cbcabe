//! Fixed decks that show one rule each, shared by the engines' unit tests and the HTTP tests
//! (`tests/api/rulings.rs`), which send the same actions over the API. Each is dealt as a
//! `deck` option is (docs/rules/<game>.md).

/// 升级: seat 0 holds ♥66 77 88; seat 1 holds exactly ♥AAAA QQ 77 88 3 of hearts (no six-card
/// tractor), the rest spread in the deck's order.
pub const QUAD_PAIR_DECK: [&str; 216] = [
    "6H", "AH", "2H", "4H", "6H", "AH", "9H", "10H", "7H", "AH", "KH", "2H", "7H", "AH", "4H",
    "5H", "8H", "QH", "10H", "JH", "8H", "QH", "2H", "3H", "5H", "7H", "5H", "6H", "JH", "7H",
    "10H", "JH", "3H", "8H", "KH", "2H", "9H", "8H", "4H", "5H", "KH", "3H", "9H", "10H", "4H",
    "KC", "QH", "KH", "9H", "AC", "RJ", "BJ", "QH", "RJ", "BJ", "2S", "3H", "BJ", "2S", "3S", "6H",
    "2S", "3S", "4S", "JH", "3S", "4S", "5S", "2S", "4S", "5S", "6S", "3S", "5S", "6S", "7S", "4S",
    "6S", "7S", "8S", "5S", "7S", "8S", "9S", "6S", "8S", "9S", "10S", "7S", "9S", "10S", "JS",
    "8S", "10S", "JS", "QS", "9S", "JS", "QS", "KS", "10S", "QS", "KS", "AS", "JS", "KS", "AS",
    "2D", "QS", "AS", "2D", "3D", "KS", "2D", "3D", "4D", "AS", "3D", "4D", "5D", "2D", "4D", "5D",
    "6D", "3D", "5D", "6D", "7D", "4D", "6D", "7D", "8D", "5D", "7D", "8D", "9D", "6D", "8D", "9D",
    "10D", "7D", "9D", "10D", "JD", "8D", "10D", "JD", "QD", "9D", "JD", "QD", "KD", "10D", "QD",
    "KD", "AD", "JD", "KD", "AD", "2C", "QD", "AD", "2C", "3C", "KD", "2C", "3C", "4C", "AD", "3C",
    "4C", "5C", "2C", "4C", "5C", "6C", "3C", "5C", "6C", "7C", "4C", "6C", "7C", "8C", "5C", "7C",
    "8C", "9C", "6C", "8C", "9C", "10C", "7C", "9C", "10C", "JC", "8C", "10C", "JC", "QC", "9C",
    "JC", "QC", "KC", "10C", "QC", "KC", "AC", "JC", "KC", "AC", "RJ", "QC", "AC", "RJ", "BJ",
];

/// 扯胡子: seat 1 holds b1 b1 b1 b3 b3 b3 b4 b4 b4 s3 s4 s5 s4 s5 s6 s9 s9 b9 s8 s8, a win once s8 s8
/// becomes a 偎 of s8; seat 0 discards b2, which nobody can take; seat 1 then draws s8 (card 61).
pub const WEI_DECK: [&str; 82] = [
    "b2", "b1", "s1", "s1", "b1", "s2", "s1", "b1", "s7", "s1", "b3", "s9", "s2", "b3", "s9", "s2",
    "b3", "s10", "s2", "b4", "s10", "s3", "b4", "s10", "s3", "b4", "b1", "s3", "s3", "b2", "s4",
    "s4", "b3", "s4", "s5", "b4", "s5", "s4", "b5", "s5", "s5", "b5", "s6", "s6", "b5", "s6", "s9",
    "b6", "s6", "s9", "b6", "s7", "b9", "b6", "s7", "s8", "b7", "s7", "s8", "b7", "s8", "s8",
    "s10", "b2", "b2", "b5", "b6", "b7", "b7", "b8", "b8", "b8", "b8", "b9", "b9", "b9", "b10",
    "b10", "b10", "b10", "W", "W",
];

/// 扯胡子: seat 1 holds b1 b1 b1 b3 b3 b3 b4 b4 b4 s3 s4 s5 s4 s5 s9 s9 b9 s8 b8 b8 and seat 2
/// b5 b5 b5 b6 b6 b6 b9 b9 b9 s7 s8 s9 s1 s2 s3 s4 s5 s10 s10 b10: both win with s6. Seat 0
/// discards b2, which nobody can take; seat 1 then draws s6 (card 61).
pub const ZIMO_DECK: [&str; 82] = [
    "b2", "b1", "b5", "s1", "b1", "b5", "s1", "b1", "b5", "s1", "b3", "b6", "s2", "b3", "b6", "s2",
    "b3", "b6", "s2", "b4", "b9", "s3", "b4", "b9", "s3", "b4", "b9", "s4", "s3", "s7", "s5", "s4",
    "s8", "s6", "s5", "s9", "s7", "s4", "s1", "s7", "s5", "s2", "s7", "s9", "s3", "s8", "s9", "s4",
    "s8", "b9", "s5", "s9", "s8", "s10", "s10", "b8", "s10", "s10", "b8", "b10", "b1", "s6", "s6",
    "s6", "b2", "b2", "b2", "b3", "b4", "b5", "b6", "b7", "b7", "b7", "b7", "b8", "b8", "b10",
    "b10", "b10", "W", "W",
];
