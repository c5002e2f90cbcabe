-- For players (docs/api.md § Players): lists of matches, the per-user stream, bots.

-- Whose turn it is and which hand, kept beside the state so that lists and the stream need not
-- parse it. Rows written before this migration show nobody to act until their next change.
ALTER TABLE matches ADD COLUMN to_act integer[] NOT NULL DEFAULT '{}',
                    ADD COLUMN hand_no integer NOT NULL DEFAULT 0;
-- GET /v1/matches: open and live tables, newest first.
CREATE INDEX matches_listed ON matches (status, created_at DESC, id DESC)
    WHERE status IN ('waiting', 'playing');

-- Server-side bots: accounts nobody can log in to (no password), funded by the house for the
-- table they sit at and emptied back into it when the table ends (docs/ledger.md § Bots).
ALTER TABLE users ADD COLUMN bot boolean NOT NULL DEFAULT false;
ALTER TABLE ledger_tx DROP CONSTRAINT ledger_tx_reason;
ALTER TABLE ledger_tx ADD CONSTRAINT ledger_tx_reason CHECK (reason IN (
    'grant', 'stake', 'hand_settlement', 'escape_penalty', 'room_fee', 'coin_room',
    'tournament_fee', 'tournament_prize', 'tournament_refund', 'account_closed',
    'bot_funding', 'bot_return'));

-- What the per-user stream (GET /v1/me/stream) tells besides match versions: seated by a join,
-- the lobby or a tournament, eliminated, a tournament over. Written in the transaction that
-- made it so; the id is the stream's event id, so a reconnecting client resumes after the last
-- one it saw. Kept for a week (the sweeper deletes older rows).
CREATE TABLE user_events (
    id      bigserial PRIMARY KEY,
    user_id uuid NOT NULL REFERENCES users (id),
    kind    text NOT NULL,
    data    jsonb NOT NULL,
    at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX user_events_user ON user_events (user_id, id);
CREATE INDEX user_events_at ON user_events (at);

CREATE FUNCTION user_events_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('paiju_user', NEW.user_id::text || ':' || NEW.id::text);
    RETURN NULL;
END $$;
CREATE TRIGGER user_events_notify AFTER INSERT ON user_events
    FOR EACH ROW EXECUTE FUNCTION user_events_notify();
