//! The match view (api.md § The match view) of one viewer.

use super::*;

impl Table {
    /// The move the game's bot would make for `seat` now (a 提示), if the seat must act.
    pub fn hint(&self, seat: SeatNo) -> Option<Value> {
        (self.status == Status::Playing && self.to_act().contains(&seat))
            .then(|| self.state.bot_action(seat))
    }

    /// The match as `user` may see it (api.md § The match view), rendered straight from the
    /// table: the stored JSON (options, last result) is borrowed, not copied.
    pub fn view(&self, user: Option<Uuid>) -> View {
        let seated = user.and_then(|u| self.seat_of(u));
        // The seat whose hand the viewer plays: a newcomer in a seat left during the hand sees
        // the hand as a spectator does (api.md § The match view).
        let me = user.and_then(|u| self.hand_seat_of(u));
        let game_view = self.state.view(me);
        let seats = self
            .seats
            .iter()
            .enumerate()
            .map(|(i, s)| match s {
                Some(s) => ViewSeat {
                    seat: i,
                    user_id: Some(s.user_id),
                    username: Some(&s.username),
                    coins_at_table: game_view.coins_at_table.get(i).copied().flatten(),
                    auto: s.auto,
                    bot: s.bot,
                },
                None => ViewSeat {
                    seat: i,
                    user_id: None,
                    username: None,
                    coins_at_table: None,
                    auto: false,
                    bot: false,
                },
            })
            .collect();
        let mut legal_actions = match (me, self.status) {
            (Some(seat), Status::Playing) => self.state.legal_actions(seat),
            _ => Vec::new(),
        };
        // Actions, `resume` among them, are taken only while the match is playing.
        if let Some(seat) = seated
            && self.status == Status::Playing
            && self.seats[seat].as_ref().is_some_and(|s| s.auto)
        {
            legal_actions.push(
                RawValue::from_string(r#"{"type":"resume"}"#.to_owned())
                    .expect("a constant JSON object"),
            );
        }
        let phase = if self.status == Status::Waiting && self.state.hand_no() == 0 {
            "waiting"
        } else {
            self.state.phase()
        };
        let body = ViewBody {
            id: self.id,
            game: self.game.name(),
            status: self.status.as_str(),
            version: self.version,
            options: &self.options,
            seats,
            you: seated.map(|seat| You { seat }),
            hand_no: self.state.hand_no(),
            phase,
            to_act: self.to_act_for(me),
            deadline: self.deadline_at,
            legal_actions,
            shuffle_commitment: self.commitment.as_deref(),
            tournament_id: self.tournament_id,
            tournament: self.tournament.as_ref(),
            state: game_view.state,
            last_result: self.last_result.as_ref(),
        };
        View::render(self.id, self.version, &body)
    }
}

/// The view's fields in api.md's order.
#[derive(serde::Serialize)]
struct ViewBody<'a> {
    id: Uuid,
    game: &'static str,
    status: &'static str,
    version: i64,
    options: &'a Value,
    seats: Vec<ViewSeat<'a>>,
    you: Option<You>,
    hand_no: u32,
    phase: &'static str,
    to_act: Vec<SeatNo>,
    deadline: Option<DateTime<Utc>>,
    legal_actions: Vec<Box<RawValue>>,
    shuffle_commitment: Option<&'a str>,
    tournament_id: Option<Uuid>,
    tournament: Option<&'a TournamentSeat>,
    state: Box<RawValue>,
    last_result: Option<&'a Value>,
}

#[derive(serde::Serialize)]
struct ViewSeat<'a> {
    seat: usize,
    user_id: Option<Uuid>,
    username: Option<&'a str>,
    coins_at_table: Option<i64>,
    auto: bool,
    bot: bool,
}

#[derive(serde::Serialize)]
struct You {
    seat: SeatNo,
}
