-- 比赛场: knockout tournaments. A tournament table is an ordinary match with tournament_id set.
CREATE TABLE tournaments (
    id              uuid PRIMARY KEY,
    name            text NOT NULL,
    game            text NOT NULL,
    entry_fee       bigint NOT NULL CHECK (entry_fee >= 0),
    starts_at       timestamptz NOT NULL,
    hands_per_round integer NOT NULL CHECK (hands_per_round > 0),
    options         jsonb NOT NULL,
    status          text NOT NULL
                    CHECK (status IN ('registering', 'running', 'finished', 'cancelled')),
    seed            bytea NOT NULL,
    prize_pool      bigint NOT NULL DEFAULT 0,
    round           integer NOT NULL DEFAULT 0,
    winner          uuid REFERENCES users (id),
    created_by      uuid NOT NULL REFERENCES users (id),
    created_at      timestamptz NOT NULL DEFAULT now(),
    started_at      timestamptz,
    finished_at     timestamptz
);
CREATE INDEX tournaments_due ON tournaments (starts_at) WHERE status = 'registering';
CREATE INDEX tournaments_running ON tournaments (id) WHERE status = 'running';

CREATE TABLE tournament_players (
    tournament_id    uuid NOT NULL REFERENCES tournaments (id),
    user_id          uuid NOT NULL REFERENCES users (id),
    reg_no           integer NOT NULL,
    registered_at    timestamptz NOT NULL DEFAULT now(),
    -- NULL until the start; false: cut from the field (paid nothing).
    in_field         boolean,
    eliminated_round integer,
    escaped          boolean NOT NULL DEFAULT false,
    PRIMARY KEY (tournament_id, user_id),
    UNIQUE (tournament_id, reg_no)
);
CREATE INDEX tournament_players_user ON tournament_players (user_id);

CREATE TABLE tournament_tables (
    tournament_id uuid NOT NULL REFERENCES tournaments (id),
    round         integer NOT NULL,
    table_no      integer NOT NULL,
    match_id      uuid NOT NULL UNIQUE REFERENCES matches (id),
    players       uuid[] NOT NULL,
    scores        bigint[],
    advanced      uuid REFERENCES users (id),
    PRIMARY KEY (tournament_id, round, table_no)
);
