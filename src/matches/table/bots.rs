//! Server-side bots at a table (docs/api.md § Bots): accounts of their own, made for one table,
//! funded by the house when they sit down (ledger reason `bot_funding`) and emptied back into
//! it when the table ends (`bot_return`). A bot's seat is always in 托管 and played at once with
//! the game's `bot_action`; it never holds a real account's coins. Its coins go back when the
//! table ends (the step's `retire_bots`).

use super::*;

impl Table {
    /// Makes a bot account for `seat`, funds it with `coins` from the house and seats it.
    pub async fn seat_bot(
        &mut self,
        conn: &mut PgConnection,
        seat: SeatNo,
        coins: i64,
    ) -> Result<(), ApiError> {
        let user_id = Uuid::new_v4();
        // `bot_` names are refused at registration, and the id makes this one unique.
        let username = format!("bot_{}", &user_id.simple().to_string()[..8]);
        sqlx::query(
            "INSERT INTO users (id, username, password_hash, role, bot)
             VALUES ($1, $2, '', 'player', true)",
        )
        .bind(user_id)
        .bind(&username)
        .execute(&mut *conn)
        .await?;
        ledger::open_user_account(&mut *conn, user_id).await?;
        if coins > 0 {
            let meta = TxMeta {
                reason: Reason::BotFunding,
                match_id: Some(self.id),
                ..TxMeta::default()
            };
            ledger::transfer(
                conn,
                &meta,
                &[(Party::House, -coins), (Party::User(user_id), coins)],
            )
            .await?;
            // Coins moved outside the step: what it read or knew before is stale.
            self.reads = None;
            self.known = None;
        }
        sqlx::query(
            "INSERT INTO match_seats (match_id, seat, user_id, auto) VALUES ($1, $2, $3, true)",
        )
        .bind(self.id)
        .bind(seat as i32)
        .bind(user_id)
        .execute(&mut *conn)
        .await?;
        self.seats[seat] = Some(SeatRow {
            seat,
            user_id,
            username: username.clone(),
            auto: true,
            timeouts: 0,
            bot: true,
        });
        self.record(
            Some(seat),
            events::Joined {
                user_id,
                username: &username,
                bot: Some(true),
            },
        );
        Ok(())
    }
}
