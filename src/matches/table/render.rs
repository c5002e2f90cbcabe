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

/// A match as one seat (or a spectator) may see it, in api.md's order. The document's
/// `MatchView` is this with each game's `options`, `state`, `legal_actions` and `last_result`
/// (`openapi`).
#[derive(serde::Serialize, utoipa::ToSchema)]
#[schema(as = MatchViewBase)]
pub struct ViewBody<'a> {
    id: Uuid,
    #[schema(value_type = crate::api_types::GameName)]
    game: &'static str,
    #[schema(value_type = crate::matches::table::Status)]
    status: &'static str,
    /// Grows with every change; send it with an action, and as `wait_version` to long-poll.
    version: i64,
    /// The game's options and the platform's.
    #[schema(value_type = Object)]
    options: &'a Stored,
    seats: Vec<ViewSeat<'a>>,
    /// The caller's seat; null for a spectator.
    #[schema(required = true)]
    you: Option<You>,
    /// The hand being played, from 1 (0 before the first deal).
    hand_no: u32,
    /// The game's phase (docs/rules/<game>.md), or `waiting` before the first deal.
    phase: &'static str,
    /// The seats whose action the match waits for; only the caller's own while who is asked is
    /// secret (扯胡子's claim windows).
    #[schema(value_type = Vec<usize>)]
    to_act: Vec<SeatNo>,
    /// When the server acts for the seats in `to_act` (托管).
    #[schema(required = true)]
    deadline: Option<DateTime<Utc>>,
    /// What the caller may do now: the game's action shapes, and `resume` while under 托管.
    #[schema(value_type = Vec<Object>)]
    legal_actions: Vec<Box<RawValue>>,
    /// SHA-256 (hex) of the seed of the hand being played, published before the deal.
    #[schema(required = true)]
    shuffle_commitment: Option<&'a str>,
    #[schema(required = true)]
    tournament_id: Option<Uuid>,
    /// A tournament table's place in its tournament; null for other matches.
    #[schema(required = true)]
    tournament: Option<&'a TournamentSeat>,
    /// The game's state, only what this seat may see.
    #[schema(value_type = Object)]
    state: Box<RawValue>,
    /// The last finished hand's result.
    #[schema(value_type = Option<Object>, required = true)]
    last_result: Option<&'a Stored>,
}

/// One seat of a table.
#[derive(serde::Serialize, utoipa::ToSchema)]
#[schema(as = Seat)]
struct ViewSeat<'a> {
    seat: usize,
    #[schema(required = true)]
    user_id: Option<Uuid>,
    #[schema(required = true)]
    username: Option<&'a str>,
    /// Coins the seat has at the table, in games that show them.
    #[schema(required = true)]
    coins_at_table: Option<i64>,
    /// The server plays this seat (托管) until its player sends `resume`.
    auto: bool,
    /// A server-side bot plays this seat (its account is house-funded, docs/ledger.md § Bots).
    bot: bool,
}

#[derive(serde::Serialize, utoipa::ToSchema)]
struct You {
    #[schema(value_type = usize)]
    seat: SeatNo,
}
