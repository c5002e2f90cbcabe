//! Stored states (`matches.state`, `hands.start_state`) as the version that kept `finished`,
//! `hand` and `last_hand` as fields wrote them: they load into the enum of phases and save back
//! byte for byte.

use super::*;
use crate::golden::stored;

const WAITING: &str = r#"{"opts":{"mode":"normal","base":1,"bomb_cap":9},"hand_no":0,"finished":false,"teams":null,"redraw":true,"next_leader":null,"hand":null,"last_hand":null}"#;

/// Hand 2 in play, hand 1's 摊牌 on show.
const IN_HAND: &str = r#"{"opts":{"mode":"normal","base":1,"bomb_cap":9},"hand_no":2,"finished":false,"teams":[0,0,1,1],"redraw":false,"next_leader":null,"hand":{"started_ms":1700000000000,"hands":[["2C","10C","9D","8C","7H","6S","6D","5H","5H","4S","4H"],["2S","2S","AH","AC","KC","KC","QS","QD","QD","JS","JS","JD","JC","10S","10C","9S","8H","7C","6S","6H","6H","5S","5S","4S","4H","3H","3D"],["AS","AD","KS","KS","KH","QC","JH","9S","9H","8S","6C","5C","3C"],["RJ","RJ","2H","AS","AH","KD","QH","QC","JC","10S","10H","10D","9H","9D","9C","9C","8H","7S","7H","7D","7D","5D","4D","4C","3S","3H","3C"]],"team_of":[0,0,1,1],"leader":2,"turn":3,"round":{"leader":2,"plays":[{"seat":2,"cards":["7S","7C","6D","6C","5D","5C","4D","4C","3S","3D"],"combo":{"kind":"pairs_run","rank":4,"len":5}},{"seat":3,"cards":[],"combo":null},{"seat":0,"cards":["AD","AC","KH","KD","QS","QH","JH","JD","10H","10D"],"combo":{"kind":"pairs_run","rank":11,"len":5}},{"seat":1,"cards":[],"combo":null},{"seat":2,"cards":["2H","2D","2D","2C"],"combo":{"kind":"bomb","rank":12,"len":4}},{"seat":3,"cards":[],"combo":null},{"seat":0,"cards":["BJ","BJ","8S","8D","8D","8C"],"combo":{"kind":"bomb","rank":5,"len":6}},{"seat":1,"cards":[],"combo":null},{"seat":2,"cards":[],"combo":null}],"passed":[false,true,true,false],"points":50},"captured":[0,0,0,0],"out":[],"bombs":[{"seat":2,"cards":["2H","2D","2D","2C"],"combo":{"kind":"bomb","rank":12,"len":4}},{"seat":0,"cards":["BJ","BJ","8S","8D","8D","8C"],"combo":{"kind":"bomb","rank":5,"len":6}}]},"last_hand":{"kind":"tanpai","points":[1,1,1,-3],"shown":[{"bombs":[],"cards":["BJ","2S","2H","2C","AS","AH","KH","KH","KC","QS","QH","JS","10D","10C","9S","9D","8H","8C","8C","7S","7H","7C","6D","5C","4S","3D","3C"],"jokers_fined":1,"reasons":["jokers_without_bomb"],"seat":3}]}}"#;

const BETWEEN: &str = r#"{"opts":{"mode":"normal","base":1,"bomb_cap":9},"hand_no":1,"finished":false,"teams":null,"redraw":true,"next_leader":null,"hand":null,"last_hand":{"kind":"tanpai","points":[1,1,1,-3],"shown":[{"bombs":[],"cards":["BJ","2S","2H","2C","AS","AH","KH","KH","KC","QS","QH","JS","10D","10C","9S","9D","8H","8C","8C","7S","7H","7C","6D","5C","4S","3D","3C"],"jokers_fined":1,"reasons":["jokers_without_bomb"],"seat":3}]}}"#;

/// Seat 1 escaped from hand 2.
const FINISHED: &str = r#"{"opts":{"mode":"normal","base":1,"bomb_cap":9},"hand_no":2,"finished":true,"teams":[0,0,1,1],"redraw":false,"next_leader":null,"hand":null,"last_hand":{"bonus":true,"kind":"escape","lasted_ms":69000,"points":[13,-36,13,13],"seat":1}}"#;

#[test]
fn stored_states_load_and_save_back_byte_for_byte() {
    for (json, stage, phase) in [
        (WAITING, Stage::NeedsDeal, "waiting"),
        (IN_HAND, Stage::InHand, "follow"),
        (BETWEEN, Stage::NeedsDeal, "waiting"),
        (FINISHED, Stage::Finished, "finished"),
    ] {
        let st = stored::<Dazha>(json);
        assert_eq!((Dazha::stage(&st), Dazha::phase(&st)), (stage, phase));
    }
    let st = stored::<Dazha>(IN_HAND);
    assert_eq!(Dazha::to_act(&st), vec![3]);
    assert!(matches!(st.table.last(), Some(Summary::Tanpai(_))));
}

#[test]
fn a_stored_state_no_phase_fits_is_refused() {
    let finished_in_hand = IN_HAND.replace(r#""finished":false"#, r#""finished":true"#);
    let e = serde_json::from_str::<State>(&finished_in_hand).unwrap_err();
    assert!(e.to_string().contains("no hand in play"), "{e}");
    let finished_unshown = WAITING.replace(r#""finished":false"#, r#""finished":true"#);
    assert!(serde_json::from_str::<State>(&finished_unshown).is_err());
}
