//! The executor: how a step's table is committed. The step is one ([`Table::step`]), the
//! writer is one ([`save_many`]); there are two ways to put them together:
//! - **One statement** ([`Table::plan_move`]): a client's move worked out on a copy of the
//!   committed table this process holds is written by one statement over that table's version
//!   (with other moves ready at the same time: `commit.rs`). A step that needs the wallets and
//!   积分 runs with those the process knows (the last transaction's reads, moved on by every
//!   save since), and the statement first locks and checks them. A row that moved on, or a
//!   purse that did, writes nothing, and the move goes the other way.
//! - **A transaction** ([`Table::run`], then [`Table::save`]): the row locked, the step run;
//!   when it needs wallets or 积分 they are read, locked, and the step runs again from the
//!   start with them; then the same writer's statement, and `COMMIT`.

use super::step::Halt;
use super::*;

impl Table {
    /// Runs `input` through the step in the transaction `conn`, which holds the match's row
    /// lock: when the step needs the players' wallets and 积分, reads them (locked until the
    /// transaction ends) and runs it again from the start. What the step writes stays pending
    /// until [`Table::save`]; a refused step leaves the table as it was.
    pub async fn run(&mut self, conn: &mut PgConnection, input: Input) -> Result<(), ApiError> {
        loop {
            let mut next = self.copy();
            match next.step(&input) {
                Ok(()) => {
                    *self = next;
                    return Ok(());
                }
                Err(Halt::Refused(e)) => return Err(e),
                Err(Halt::Needs) if self.reads.is_none() => {
                    self.reads = Some(self.read_purses(conn).await?);
                }
                Err(Halt::Needs) => {
                    return Err(ApiError::Internal(anyhow::anyhow!(
                        "match {}: a step needed the purse of a player not at the table",
                        self.id
                    )));
                }
            }
        }
    }

    /// Everything that happens without a client ([`Input::Advance`]), in a transaction.
    pub async fn advance(&mut self, conn: &mut PgConnection) -> Result<(), ApiError> {
        self.run(conn, Input::Advance).await
    }

    /// The wallets and 积分 of the table's players, locked until the transaction ends.
    async fn read_purses(&mut self, conn: &mut PgConnection) -> Result<Reads, ApiError> {
        self.statements += 1;
        let users = self.purse_users();
        let mut reads = Reads::default();
        for (user, wallet, points) in ledger::lock_purses(conn, &users, self.game.name()).await? {
            reads.wallets.insert(user, wallet);
            reads.scores.insert(user, points);
        }
        Ok(reads)
    }

    /// A client's move for the one-statement path: the step on a copy of this committed table,
    /// when it is not refused; a step that needs the wallets and 积分 runs with those this
    /// process knows, which the statement checks (`assumed`). `None` otherwise (a refusal, or
    /// purses the process does not know): the transaction then answers as it always has, or
    /// reads them. A tournament table's move first checks in the database that the player is
    /// still in the tournament, so it always takes the transaction.
    pub fn plan_move(&self, user: Uuid, action: &Value) -> Option<Table> {
        if self.tournament_id.is_some() {
            return None;
        }
        let seat = self.seat_of(user)?;
        let input = Input::Act {
            seat,
            action: action.clone(),
        };
        let mut t = self.fork().ok()?;
        match t.step(&input) {
            Ok(()) => Some(t),
            Err(Halt::Refused(_)) => None,
            // The step needs the wallets and 积分: it runs again from the start with those this
            // process knows, and the statement writes only if they still hold.
            Err(Halt::Needs) => {
                let known = self.known.clone()?;
                let mut t = self.fork().ok()?;
                t.reads = Some(known.clone());
                t.assumed = Some(known);
                t.step(&input).ok()?;
                Some(t)
            }
        }
    }

    /// Frees a seat: `left` before the first deal, `escaped` (逃跑, the engine's `leave` first)
    /// during play, then everything that follows; a table left to bots before its first deal
    /// is aborted.
    pub async fn unseat(&mut self, conn: &mut PgConnection, seat: SeatNo) -> Result<(), ApiError> {
        if self.seat(seat).is_none() {
            return Ok(());
        }
        self.run(conn, Input::Leave(seat)).await?;
        self.statements += 1;
        sqlx::query("DELETE FROM match_seats WHERE match_id = $1 AND seat = $2")
            .bind(self.id)
            .bind(seat as i32)
            .execute(&mut *conn)
            .await?;
        Ok(())
    }

    /// Writes what is pending by the writer's statement, over the version the table was
    /// loaded at. Call once, at the end of the transaction's work: the transaction holds the
    /// row lock, so the row cannot have moved, and a row that did is an error (nothing is
    /// written), never a silent overwrite.
    pub async fn save(&mut self, conn: &mut PgConnection) -> Result<(), ApiError> {
        if self.save_if_unmoved(conn, None).await? {
            return Ok(());
        }
        Err(ApiError::Internal(anyhow::anyhow!(
            "match {}: the row left version {} under this transaction's lock",
            self.id,
            self.loaded_version
        )))
    }

    /// The writer's statement for this table alone, with the key's row when `keyed`.
    /// `false`: the row was no longer at the loaded version (another process moved first),
    /// nothing was written, and the table must be dropped. On an error nothing was written.
    pub async fn save_if_unmoved(
        &mut self,
        conn: &mut PgConnection,
        keyed: Option<&Keyed>,
    ) -> Result<bool, sqlx::Error> {
        let hit = save_many(conn, &[(&*self, keyed)]).await? == [true];
        self.statements += 1;
        self.saved(hit);
        Ok(hit)
    }

    /// After the statement of [`save_many`] that carried this table: its changes are the
    /// row's now (`hit`), or were dropped because the row had moved on (or what it assumed no
    /// longer held). Nothing is pending after it, and nothing read stands (the next
    /// transaction reads again); what was read or known, moved on by what was written, is
    /// what the process knows of the purses from now on.
    pub fn saved(&mut self, hit: bool) {
        if hit {
            self.log_saved();
            self.loaded_version = self.version;
            let before = self.reads.take().or_else(|| self.known.take());
            self.known = before.map(|r| self.moved_on(r));
        } else {
            self.known = None;
        }
        self.last_seq += self.pending.events.len() as i64;
        self.action_no += self.pending.actions.len() as i64;
        self.pending = Pending::default();
        self.reads = None;
        self.assumed = None;
    }

    /// Whether this table and `other` must not share a statement: one of them assumed a purse
    /// whose coins or 积分 the other's pending changes move, which the statement's guard,
    /// checking each table against the purses as they were before the statement, would miss.
    pub fn clashes_with(&self, other: &Table) -> bool {
        let moves = |t: &Table, user: Uuid| {
            t.pending
                .money
                .iter()
                .any(|m| m.amount_for(Party::User(user)) != 0)
                || t.pending.ends.iter().any(|e| e.users.contains(&Some(user)))
        };
        let assumes = |a: &Table, b: &Table| {
            (a.assumed.as_ref()).is_some_and(|r| r.wallets.keys().any(|&u| moves(b, u)))
        };
        assumes(self, other) || assumes(other, self)
    }

    /// Logs what a save wrote (in the request's span, so with its request id): every move
    /// (a client's, a timeout's, 托管's or a bot's, with its action), every coin movement, and
    /// the table's platform and money events — seats taken and left, 逃跑, timeouts, and each
    /// hand's settlement with its coins and 积分.
    fn log_saved(&self) {
        let game = self.game.name();
        for a in &self.pending.actions {
            tracing::info!(match_id = %self.id, game, hand_no = a.hand_no, seat = a.seat,
                kind = a.kind, action = %a.action.clone().unwrap_or_default(),
                "move");
        }
        for m in &self.pending.money {
            tracing::info!(match_id = %self.id, game, hand_no = m.meta.hand_no,
                reason = m.meta.reason.as_str(), legs = ?m, "coins moved");
        }
        for e in &self.pending.events {
            let kind = e.kind.as_str();
            if !matches!(
                kind,
                "hand_ended"
                    | "escaped"
                    | "left"
                    | "joined"
                    | "timeout"
                    | "auto"
                    | "resumed"
                    | "abandoned"
                    | "room_dissolved"
            ) {
                continue;
            }
            if kind == "hand_ended" {
                tracing::info!(match_id = %self.id, game, hand_no = e.hand_no,
                    coins = %e.data["coins"], points = %e.data["points"], "hand settled");
            } else {
                tracing::info!(match_id = %self.id, game, hand_no = e.hand_no, seat = e.seat,
                    kind, data = %e.data, "table event");
            }
        }
    }
}
