//! Stored states (`matches.state`, `hands.start_state`) as the version that kept `finished`,
//! `winner`, `hand` and `last_result` as fields wrote them: they load into the enum of phases
//! and save back byte for byte.

use super::*;
use crate::golden::stored;

const WAITING: &str = r#"{"hand_no":0,"levels":[2,2],"next_dealer":null,"last_dealer":null,"finished":false,"winner":null,"hand":null,"last_result":null}"#;

/// Hand 2 in play, hand 1's result on show.
const IN_HAND: &str = r#"{"hand_no":2,"levels":[2,3],"next_dealer":1,"last_dealer":3,"finished":false,"winner":null,"hand":{"started_ms":1700000167000,"hands":[["BJ","2D","2S","2H","2C","2C","AD","AD","KD","QD","JD","10D","10D","10D","9D","8D","8D","7D","7D","5D","4D","3D","3C","6C","QS","JS","9S","8S","7S","6S","7C","6C","AH","AH","KH","KH","QH","JH","JH","10H","9H","9H","8H","6H","AC","AC","JC","9C","9C","8C"],["BJ","2D","2D","2S","2H","2H","AD","KD","KD","QD","QD","JD","8D","7D","4D","3D","3C","4C","5C","5C","QS","QS","JS","10S","9S","7S","5S","3S","3S","QH","9H","8H","7H","7H","6H","6H","5H","3H","AC","AC","KC","KC","QC","QC","JC","10C","9C","8C","6C","6C"],["RJ","BJ","BJ","2D","2S","2S","2H","2C","AD","KD","JD","JD","9D","9D","6D","5D","5D","5D","3D","QS","10S","9S","9S","4C","8C","7S","3C","4C","5S","5S","3S","AH","KH","JH","JH","10H","10H","10H","9H","7H","7H","6H","5H","5H","5H","4H","JC","JC","10C","10C"],["RJ","RJ","RJ","2C","QD","10D","9D","8D","7D","6D","6D","6D","4D","4D","3D","5C","5C","JS","JS","3C","4C","8S","7S","6S","4S","4S","4S","3S","AH","KH","QH","QH","8H","8H","4H","4H","4H","3H","3H","3H","KC","KC","QC","QC","10C","9C","8C","7C","7C","7C"]],"phase":{"Playing":{"trump":"D","declaration":{"seat":0,"suit":"D","count":1},"dealer":1,"turn":1,"trick":[],"tricks":[{"plays":[{"seat":1,"cards":["AS","AS"]},{"seat":2,"cards":["6S","6S"]},{"seat":3,"cards":["10S","10S"]},{"seat":0,"cards":["AS","AS"]}],"winner":1,"points":20},{"plays":[{"seat":1,"cards":["KS","KS"]},{"seat":2,"cards":["8S","8S"]},{"seat":3,"cards":["KS","KS"]},{"seat":0,"cards":["4S","5S"]}],"winner":1,"points":45}],"defenders_points":0}}},"last_result":{"kind":"played","hand_no":1,"dealer":3,"trump":"H","declaration":{"seat":3,"suit":"H","count":2},"defenders_points":155,"gaining_team":1,"levels_gained":1,"levels_before":[2,2],"levels_after":[2,3],"next_dealer":1,"match_winner":null,"points":[-1,1,-1,1]}}"#;

const BETWEEN: &str = r#"{"hand_no":1,"levels":[2,3],"next_dealer":1,"last_dealer":3,"finished":false,"winner":null,"hand":null,"last_result":{"kind":"played","hand_no":1,"dealer":3,"trump":"H","declaration":{"seat":3,"suit":"H","count":2},"defenders_points":155,"gaining_team":1,"levels_gained":1,"levels_before":[2,2],"levels_after":[2,3],"next_dealer":1,"match_winner":null,"points":[-1,1,-1,1]}}"#;

/// Seat 1 escaped from hand 2: team 0 won.
const FINISHED: &str = r#"{"hand_no":2,"levels":[2,3],"next_dealer":1,"last_dealer":3,"finished":true,"winner":0,"hand":null,"last_result":{"kind":"escape","hand_no":2,"seat":1,"lasted_ms":72000,"bonus":true,"match_winner":0,"points":[4,-9,4,4]}}"#;

#[test]
fn stored_states_load_and_save_back_byte_for_byte() {
    for (json, stage, phase) in [
        (WAITING, Stage::NeedsDeal, "between_hands"),
        (IN_HAND, Stage::InHand, "playing"),
        (BETWEEN, Stage::NeedsDeal, "between_hands"),
        (FINISHED, Stage::Finished, "finished"),
    ] {
        let st = stored::<Shengji>(json);
        assert_eq!((Shengji::stage(&st), Shengji::phase(&st)), (stage, phase));
    }
    let st = stored::<Shengji>(IN_HAND);
    assert_eq!(Shengji::to_act(&st), vec![1]);
    assert!(matches!(st.table.last(), Some(Summary::Played { .. })));
    assert_eq!(stored::<Shengji>(FINISHED).table.winner(), Some(0));
}

#[test]
fn a_stored_state_no_phase_fits_is_refused() {
    let finished_in_hand = IN_HAND.replace(
        r#""finished":false,"winner":null"#,
        r#""finished":true,"winner":0"#,
    );
    let e = serde_json::from_str::<State>(&finished_in_hand).unwrap_err();
    assert!(e.to_string().contains("no hand"), "{e}");
    let without_winner = FINISHED.replace(r#""winner":0"#, r#""winner":null"#);
    assert!(serde_json::from_str::<State>(&without_winner).is_err());
}
