//! What the match runtime counts of its moves, for `/metrics` (which shows them once
//! `Metrics::register_moves` was called): here, below both, so that neither imports the other
//! for them.

use prometheus::core::Collector;
use prometheus::{IntCounter, IntCounterVec, IntGauge, Opts};

/// How a move was committed: `Fast`, one statement over the cached table (no transaction
/// around it), or `Transaction`, the locked load and everything after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MovePath {
    Fast,
    Transaction,
}

impl MovePath {
    fn as_str(self) -> &'static str {
        match self {
            MovePath::Fast => "fast",
            MovePath::Transaction => "transaction",
        }
    }
}

/// Applied moves by path and by game, the statements (round trips) they sent, `BEGIN` and
/// `COMMIT` included (their ratio is the round trips per move), and the long-polls waiting.
/// Owned by the match runtime, shown by `/metrics` once [`Metrics::register_moves`] was called.
#[derive(Clone)]
pub struct MoveCounters {
    moves: IntCounterVec,
    statements: IntCounterVec,
    by_game: IntCounterVec,
    long_polls: IntGauge,
    stream_reads: IntCounter,
}

impl Default for MoveCounters {
    fn default() -> MoveCounters {
        let counter = |name: &str, help: &str, label: &str| {
            IntCounterVec::new(Opts::new(name, help), &[label]).expect("a valid metric definition")
        };
        MoveCounters {
            moves: counter(
                "paiju_moves_total",
                "Moves applied, by path (fast, transaction).",
                "path",
            ),
            statements: counter(
                "paiju_move_statements_total",
                "Statements (round trips) the applied moves sent, BEGIN and COMMIT included, \
                 by path.",
                "path",
            ),
            by_game: counter("paiju_game_moves_total", "Moves applied, by game.", "game"),
            long_polls: IntGauge::new(
                "paiju_long_polls",
                "Long-polls (GET /v1/matches/{id}?wait_version=) waiting now.",
            )
            .expect("a valid metric definition"),
            stream_reads: IntCounter::new(
                "paiju_stream_reads_total",
                "Matches read from the database for the streams' match events: a new version \
                 this process did not commit itself (another process's move), read once for \
                 all its seats' streams here.",
            )
            .expect("a valid metric definition"),
        }
    }
}

/// A long-poll waiting: counted while this lives.
pub struct Waiting(IntGauge);

impl Drop for Waiting {
    fn drop(&mut self) {
        self.0.dec();
    }
}

impl MoveCounters {
    /// Every figure, to register.
    pub fn collectors(&self) -> Vec<Box<dyn Collector>> {
        vec![
            Box::new(self.moves.clone()),
            Box::new(self.by_game.clone()),
            Box::new(self.long_polls.clone()),
            Box::new(self.statements.clone()),
            Box::new(self.stream_reads.clone()),
        ]
    }

    /// One applied move of `game` and the statements it sent.
    pub fn count(&self, path: MovePath, game: &str, statements: u64) {
        self.moves.with_label_values(&[path.as_str()]).inc();
        self.by_game.with_label_values(&[game]).inc();
        self.statements
            .with_label_values(&[path.as_str()])
            .inc_by(statements);
    }

    /// A stream's read of a match from the database.
    pub fn stream_read(&self) {
        self.stream_reads.inc();
    }

    /// A long-poll starts waiting; it is counted until the guard drops.
    pub fn long_poll(&self) -> Waiting {
        self.long_polls.inc();
        Waiting(self.long_polls.clone())
    }

    /// Statements sent for moves counted apart from them (a group commit's statement carries
    /// several moves).
    pub fn statements(&self, path: MovePath, statements: u64) {
        self.statements
            .with_label_values(&[path.as_str()])
            .inc_by(statements);
    }
}
