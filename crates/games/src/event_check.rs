//! The event-schema check every engine's tests run: whole matches of random legal moves, with
//! seats leaving between hands and during them; every event's kind is listed in
//! `Game::event_schemas`, its data (public and private alike) is valid against that kind's
//! schema, and every listed kind is seen across the matches.

use std::collections::BTreeMap;

use jsonschema::Validator;

use crate::engine::{Ctx, Game, HandStart, Outcome, SeatNo, Stage};
use crate::shuffle::shuffle;
use crate::test_rng::Rng;

/// One game's event schemas, compiled, and the kinds seen so far.
pub struct EventCheck {
    game: &'static str,
    validators: BTreeMap<&'static str, Validator>,
    /// How many events of each kind were seen.
    seen: BTreeMap<&'static str, usize>,
}

impl EventCheck {
    pub fn new<G: Game>() -> EventCheck {
        let validators = G::event_schemas()
            .into_iter()
            .map(|(kind, schema)| {
                let v = jsonschema::validator_for(&schema).unwrap_or_else(|e| {
                    panic!(
                        "{}: the schema of `{kind}` is not a JSON Schema: {e}",
                        G::NAME
                    )
                });
                (kind, v)
            })
            .collect();
        EventCheck {
            game: G::NAME,
            validators,
            seen: BTreeMap::new(),
        }
    }

    /// Every event of `out`: its kind has a schema, and its data is valid against it.
    pub fn check(&mut self, out: &Outcome) {
        for e in &out.events {
            let Some(v) = self.validators.get(e.kind) else {
                panic!(
                    "{}: event `{}` has no schema in event_schemas (data {})",
                    self.game, e.kind, e.data
                );
            };
            let errors: Vec<String> = v
                .iter_errors(&e.data)
                .map(|err| format!("{} at `{}`", err, err.instance_path()))
                .collect();
            assert!(
                errors.is_empty(),
                "{}: the data of `{}` does not match its schema: {errors:?}\ndata: {}",
                self.game,
                e.kind,
                e.data
            );
            *self.seen.entry(e.kind).or_default() += 1;
        }
    }

    /// Every kind with a schema was seen, except the `rare` ones: (kind, why the matches may not
    /// show it).
    pub fn all_seen(&self, rare: &[(&str, &str)]) {
        for (kind, _) in rare {
            assert!(
                self.validators.contains_key(kind),
                "{}: `{kind}` is listed as rare but has no schema",
                self.game
            );
        }
        let unseen: Vec<&str> = self
            .validators
            .keys()
            .copied()
            .filter(|k| !self.seen.contains_key(k) && !rare.iter().any(|(r, _)| r == k))
            .collect();
        assert!(
            unseen.is_empty(),
            "{}: no match showed the events {unseen:?} (seen: {:?})",
            self.game,
            self.seen
        );
    }
}

/// One match to play.
pub struct Plan<'a, O> {
    pub options: &'a O,
    pub seats: usize,
    /// Hands dealt at most: the match ends there unless the game ends it first.
    pub hands: u32,
    /// Whether seats now and then leave, between hands or during one.
    pub leaves: bool,
}

/// Plays one match to its end, or to its last hand when the game does not end it first: a
/// random one of the seats to act is asked for `choose`'s move, `wallets(n)` gives each seat's
/// wallet at the deal of hand `n` (from 0), and with `leaves` a seat now and then leaves between
/// hands or during one (an escape, or a plain leave for a seat already out of the hand).
pub fn play_match<G: Game>(
    check: &mut EventCheck,
    rng: &mut Rng,
    plan: Plan<G::Options>,
    choose: impl Fn(&G::State, SeatNo, &mut Rng) -> G::Action,
    wallets: impl Fn(u32, &mut Rng) -> Vec<i64>,
) {
    let Plan {
        options: opts,
        seats,
        hands,
        leaves,
    } = plan;
    let mut st = G::new_match(opts.clone(), seats);
    let mut now_ms = 1_000_000;
    for n in 0..hands {
        if G::stage(&st) != Stage::NeedsDeal {
            return;
        }
        let ctx = Ctx { now_ms };
        if leaves && n > 0 && n + 1 < hands && rng.chance(25) {
            // A new player takes the seat before the next deal; the last hand is always dealt.
            check.check(&G::leave(&mut st, rng.below(seats), ctx, 0));
            continue;
        }
        let mut deck = G::deck(opts);
        let mut seed = [0u8; 32];
        seed[..8].copy_from_slice(&rng.next().to_le_bytes());
        shuffle(&mut deck, &seed);
        let wallets = wallets(n, rng);
        let scores = (0..seats).map(|_| rng.range(-300, 300)).collect();
        check.check(&G::start_hand(
            &mut st,
            HandStart {
                deck,
                ctx,
                wallets: wallets.clone(),
                scores,
            },
        ));
        let leave_at = (leaves && rng.chance(25)).then(|| 1 + rng.below(40));
        let mut steps = 0;
        while G::stage(&st) == Stage::InHand {
            steps += 1;
            assert!(steps < 5_000, "{}: a hand ends", G::NAME);
            now_ms += rng.range(0, 2_000);
            let ctx = Ctx { now_ms };
            if leave_at == Some(steps) {
                let seat = rng.below(seats);
                check.check(&G::leave(&mut st, seat, ctx, wallets[seat]));
                continue;
            }
            let to_act = G::to_act(&st);
            let seat = to_act[rng.below(to_act.len())];
            let action = choose(&st, seat, rng);
            let out = G::apply(&mut st, seat, action.clone(), ctx).unwrap_or_else(|e| {
                panic!(
                    "{}: seat {seat}'s {} refused: {}",
                    G::NAME,
                    serde_json::to_string(&action).unwrap_or_default(),
                    e.detail
                )
            });
            check.check(&out);
        }
    }
}
