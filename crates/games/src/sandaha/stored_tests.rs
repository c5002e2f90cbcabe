//! Stored states (`matches.state`, `hands.start_state`) as the version that kept `finished`,
//! `hand` and `last_result` as fields wrote them: they load into the enum of phases and save
//! back byte for byte.

use super::*;
use crate::golden::stored;

const WAITING: &str = r#"{"opts":{"limit":true},"hand_no":0,"finished":false,"next_first":0,"hand":null,"last_result":null}"#;

/// Hand 2 in play (tricks), hand 1's result on show.
const IN_HAND: &str = r#"{"opts":{"limit":true},"hand_no":2,"finished":false,"next_first":0,"hand":{"started_ms":1700000078000,"first_bidder":0,"deal":1,"hands":[["RJ","BJ","7S","2D","AD","10D","9D","6D","5D","AS","KS","9S","8S","QH","10H","10H","JC","5H"],["RJ","7D","7C","2S","2H","AD","KD","JD","KS","QS","QS","10S","6S","JH","9H","9H","JC","QC"],["7C","2D","2S","QD","AS","JS","JS","10S","9S","6S","5S","KH","KH","QH","JH","QC","10C","9C","8C"],["BJ","7D","7S","7H","7H","2H","2C","2C","KD","QD","JD","10D","9D","8D","8D","6D","5D","5S"]],"bottom":["8S","AH","AH","8H","6H","AC","AC","9C"],"bids":[{"seat":0,"bid":null},{"seat":1,"bid":null},{"seat":2,"bid":null},{"seat":3,"bid":90}],"phase":{"step":"tricks","contract":{"banker":3,"bid":90},"trump":"D","play":{"turn":2,"current":{"leader":3,"shape":{"kind":"single"},"plays":[{"seat":3,"cards":["5H"]},{"seat":0,"cards":["6H"]},{"seat":1,"cards":["8H"]}],"winner":null,"points":5},"done":[{"leader":3,"shape":{"kind":"pair"},"plays":[{"seat":3,"cards":["KC","KC"]},{"seat":0,"cards":["10C","5C"]},{"seat":1,"cards":["8C","6C"]},{"seat":2,"cards":["6C","5C"]}],"winner":3,"points":40}],"points":0,"void_in_trumps":[false,false,false,false]}},"dealt_digest":[35,62,195,42,104,171,38,22,168,125,26,200,210,117,65,146,186,170,165,97,218,30,247,61,148,205,112,233,1,184,54,185]},"last_result":{"end":"played","hand_no":1,"banker":3,"bid":75,"base_score":4,"defenders_points":105,"verdict":"kuazhuang","bottom_capture":null,"points":[4,4,4,-12]}}"#;

const BETWEEN: &str = r#"{"opts":{"limit":true},"hand_no":1,"finished":false,"next_first":0,"hand":null,"last_result":{"end":"played","hand_no":1,"banker":3,"bid":75,"base_score":4,"defenders_points":105,"verdict":"kuazhuang","bottom_capture":null,"points":[4,4,4,-12]}}"#;

/// Seat 1 escaped from hand 2.
const FINISHED: &str = r#"{"opts":{"limit":true},"hand_no":2,"finished":true,"next_first":0,"hand":null,"last_result":{"end":"escape","hand_no":2,"seat":1,"banker":3,"bid":90,"lasted_ms":74000,"bonus":true,"points":[1,-8,1,9]}}"#;

#[test]
fn stored_states_load_and_save_back_byte_for_byte() {
    for (json, stage, phase) in [
        (WAITING, Stage::NeedsDeal, "waiting"),
        (IN_HAND, Stage::InHand, "play"),
        (BETWEEN, Stage::NeedsDeal, "waiting"),
        (FINISHED, Stage::Finished, "finished"),
    ] {
        let st = stored::<Sandaha>(json);
        assert_eq!((Sandaha::stage(&st), Sandaha::phase(&st)), (stage, phase));
    }
    let st = stored::<Sandaha>(IN_HAND);
    assert_eq!(Sandaha::to_act(&st), vec![2]);
    assert!(matches!(st.table.last(), Some(Summary::Played { .. })));
}

#[test]
fn a_stored_state_no_phase_fits_is_refused() {
    let finished_in_hand = IN_HAND.replace(r#""finished":false"#, r#""finished":true"#);
    let e = serde_json::from_str::<State>(&finished_in_hand).unwrap_err();
    assert!(e.to_string().contains("no hand in play"), "{e}");
    let finished_unshown = WAITING.replace(r#""finished":false"#, r#""finished":true"#);
    assert!(serde_json::from_str::<State>(&finished_unshown).is_err());
}
