//! Stored states (`matches.state`, `hands.start_state`) as the version that kept `finished`,
//! `hand` and `last` as fields wrote them: they load into the enum of phases and save back byte
//! for byte.

use super::*;
use crate::golden::stored;

const WAITING: &str = r#"{"opts":{"kings":2,"xing":"fan","rate":1,"claim_timeout_secs":8},"hand_no":0,"dealer":0,"finished":false,"hand":null,"last":null}"#;

/// Hand 2 in play (a claim window on a drawn card), hand 1's 荒庄 on show.
const IN_HAND: &str = r#"{"opts":{"kings":2,"xing":"fan","rate":1,"claim_timeout_secs":8},"hand_no":2,"dealer":1,"finished":false,"hand":{"started_ms":1700000034000,"dealer":1,"hands":[[20,18,17,16,16,15,13,12,12,10,8,8,8,6,6,5,4,3,2,0],[19,19,15,14,13,12,11,10,9,7,7,6,6,5,5,4,4,2,1,1],[18,17,16,15,14,14,14,12,11,11,9,9,9,7,4,3,1,1,0,0]],"melds":[[],[],[]],"passed":[[18],[18,13],[3]],"stock":[3,18,13,5,19,20,7,13,2,11,3,17,0,19,2,17,16,10,8,10,15],"next":4,"paos":[0,0,0],"blocked":[40,8192,8192],"declined_peng":[0,0,0],"phase":{"Claim":{"card":5,"owner":2,"source":"Draw","hu":[false,false,false],"peng":[false,true,false],"chi":[[[[5,5,15]]],[],[[[3,4,5]]]],"pao":null,"answers":["Pass",null,null]}}},"last":{"hand_no":1,"dealer":0,"end":"huangzhuang","winner":null,"win":null,"wilds":[1,0,1],"escaped":null,"lasted_ms":null,"points":[-5,10,-5]}}"#;

const BETWEEN: &str = r#"{"opts":{"kings":2,"xing":"fan","rate":1,"claim_timeout_secs":8},"hand_no":1,"dealer":1,"finished":false,"hand":null,"last":{"hand_no":1,"dealer":0,"end":"huangzhuang","winner":null,"win":null,"wilds":[1,0,1],"escaped":null,"lasted_ms":null,"points":[-5,10,-5]}}"#;

/// Seat 1 escaped from hand 2.
const FINISHED: &str = r#"{"opts":{"kings":2,"xing":"fan","rate":1,"claim_timeout_secs":8},"hand_no":2,"dealer":1,"finished":true,"hand":null,"last":{"hand_no":2,"dealer":1,"end":"escape","winner":null,"win":null,"wilds":null,"escaped":1,"lasted_ms":65000,"points":[51,-100,51]}}"#;

#[test]
fn stored_states_load_and_save_back_byte_for_byte() {
    for (json, stage, phase) in [
        (WAITING, Stage::NeedsDeal, "between_hands"),
        (IN_HAND, Stage::InHand, "claim"),
        (BETWEEN, Stage::NeedsDeal, "between_hands"),
        (FINISHED, Stage::Finished, "finished"),
    ] {
        let st = stored::<Chehuzi>(json);
        assert_eq!((Chehuzi::stage(&st), Chehuzi::phase(&st)), (stage, phase));
    }
    let st = stored::<Chehuzi>(IN_HAND);
    assert_eq!(Chehuzi::to_act(&st), vec![1, 2]);
    assert_eq!(st.table.last().map(|l| l.end), Some(End::Huangzhuang));
}

#[test]
fn a_stored_state_no_phase_fits_is_refused() {
    let finished_in_hand = IN_HAND.replace(r#""finished":false"#, r#""finished":true"#);
    let e = serde_json::from_str::<State>(&finished_in_hand).unwrap_err();
    assert!(e.to_string().contains("no hand in play"), "{e}");
    let finished_unshown = WAITING.replace(r#""finished":false"#, r#""finished":true"#);
    assert!(serde_json::from_str::<State>(&finished_unshown).is_err());
}
