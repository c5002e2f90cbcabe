-- 金币场 matchmaking: one row per player waiting (match_id NULL) or matched.
CREATE TABLE lobby_queue (
    user_id   uuid PRIMARY KEY REFERENCES users (id),
    game      text NOT NULL,
    stake     bigint NOT NULL CHECK (stake > 0),
    queued_at timestamptz NOT NULL DEFAULT now(),
    match_id  uuid REFERENCES matches (id)
);
CREATE INDEX lobby_queue_waiting ON lobby_queue (game, stake, queued_at) WHERE match_id IS NULL;
