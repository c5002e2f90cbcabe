-- paiju schema. Never edit a migration that has run; add a new one.

CREATE TABLE users (
    id            uuid PRIMARY KEY,
    username      text NOT NULL,
    password_hash text NOT NULL,
    role          text NOT NULL CHECK (role IN ('player', 'organiser', 'admin')),
    created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_username_key ON users (lower(username));

-- Double-entry coin ledger. Every movement is one ledger_tx whose entries sum to zero.
-- The house account issues grants, so it is the one account allowed below zero.
CREATE TABLE accounts (
    id            bigserial PRIMARY KEY,
    kind          text NOT NULL CHECK (kind IN ('house', 'user', 'escrow')),
    user_id       uuid UNIQUE REFERENCES users (id),
    match_id      uuid UNIQUE,
    tournament_id uuid UNIQUE,
    balance       bigint NOT NULL DEFAULT 0,
    CONSTRAINT accounts_balance_not_negative CHECK (kind = 'house' OR balance >= 0),
    CONSTRAINT accounts_owner CHECK (
        (kind = 'house' AND user_id IS NULL AND match_id IS NULL AND tournament_id IS NULL)
        OR (kind = 'user' AND user_id IS NOT NULL)
        OR (kind = 'escrow' AND (match_id IS NOT NULL) <> (tournament_id IS NOT NULL)))
);
CREATE UNIQUE INDEX accounts_one_house ON accounts (kind) WHERE kind = 'house';
INSERT INTO accounts (kind) VALUES ('house');

CREATE TABLE ledger_tx (
    id            bigserial PRIMARY KEY,
    reason        text NOT NULL,
    match_id      uuid,
    tournament_id uuid,
    hand_no       integer,
    note          text,
    created_at    timestamptz NOT NULL DEFAULT now()
);
-- A hand is settled once: a second settlement of the same hand violates this key.
CREATE UNIQUE INDEX ledger_tx_one_settlement ON ledger_tx (match_id, hand_no)
    WHERE reason = 'hand_settlement';

CREATE TABLE ledger_entries (
    id            bigserial PRIMARY KEY,
    tx_id         bigint NOT NULL REFERENCES ledger_tx (id),
    account_id    bigint NOT NULL REFERENCES accounts (id),
    amount        bigint NOT NULL CHECK (amount <> 0),
    balance_after bigint NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX ledger_entries_account ON ledger_entries (account_id, id DESC);
CREATE INDEX ledger_entries_tx ON ledger_entries (tx_id);

-- Checked at commit: every transaction that received entries balances to zero.
CREATE FUNCTION ledger_tx_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    total bigint;
BEGIN
    SELECT sum(amount) INTO total FROM ledger_entries WHERE tx_id = NEW.tx_id;
    IF total <> 0 THEN
        RAISE EXCEPTION 'ledger transaction % does not balance (sum %)', NEW.tx_id, total
            USING ERRCODE = 'check_violation', CONSTRAINT = 'ledger_tx_balanced';
    END IF;
    RETURN NULL;
END $$;
CREATE CONSTRAINT TRIGGER ledger_entries_balanced
    AFTER INSERT ON ledger_entries DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION ledger_tx_balanced();

-- Per-game 积分: current points and every change (points may go negative).
CREATE TABLE scores (
    user_id uuid NOT NULL REFERENCES users (id),
    game    text NOT NULL,
    points  bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (user_id, game)
);
CREATE TABLE score_entries (
    id           bigserial PRIMARY KEY,
    user_id      uuid NOT NULL REFERENCES users (id),
    game         text NOT NULL,
    match_id     uuid NOT NULL,
    hand_no      integer NOT NULL,
    delta        bigint NOT NULL,
    points_after bigint NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    UNIQUE (match_id, hand_no, user_id)
);

CREATE TABLE matches (
    id             uuid PRIMARY KEY,
    game           text NOT NULL,
    seats          integer NOT NULL CHECK (seats BETWEEN 1 AND 16),
    options        jsonb NOT NULL,
    status         text NOT NULL CHECK (status IN ('waiting', 'playing', 'finished', 'aborted')),
    version        bigint NOT NULL DEFAULT 0,
    last_seq       bigint NOT NULL DEFAULT 0,
    action_no      bigint NOT NULL DEFAULT 0,
    state          jsonb NOT NULL,
    deadline_at    timestamptz,
    created_by     uuid REFERENCES users (id),
    tournament_id  uuid,
    fixed_seed     bytea,
    fixed_deck     jsonb,
    hand_started   timestamptz,
    commitment     text,
    last_result    jsonb,
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX matches_deadline ON matches (deadline_at) WHERE deadline_at IS NOT NULL;
CREATE INDEX matches_status ON matches (status);

-- Wakes long-polls in every server process when a match changes.
CREATE FUNCTION matches_notify_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('paiju_match', NEW.id::text || ':' || NEW.version::text);
    RETURN NULL;
END $$;
CREATE TRIGGER matches_version_changed
    AFTER UPDATE OF version ON matches
    FOR EACH ROW WHEN (NEW.version <> OLD.version)
    EXECUTE FUNCTION matches_notify_version();

CREATE TABLE match_seats (
    match_id  uuid NOT NULL REFERENCES matches (id),
    seat      integer NOT NULL,
    user_id   uuid NOT NULL REFERENCES users (id),
    auto      boolean NOT NULL DEFAULT false,
    timeouts  integer NOT NULL DEFAULT 0,
    joined_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (match_id, seat),
    UNIQUE (match_id, user_id)
);
CREATE INDEX match_seats_user ON match_seats (user_id);

-- Append-only events; visible_to (user ids) NULL means everyone.
CREATE TABLE match_events (
    match_id   uuid NOT NULL REFERENCES matches (id),
    seq        bigint NOT NULL,
    hand_no    integer NOT NULL,
    kind       text NOT NULL,
    seat       integer,
    data       jsonb NOT NULL,
    visible_to uuid[],
    at         timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (match_id, seq)
);

-- Every applied action with the clock it saw: with the hand row, enough to re-run a hand.
CREATE TABLE match_actions (
    match_id  uuid NOT NULL REFERENCES matches (id),
    n         bigint NOT NULL,
    hand_no   integer NOT NULL,
    seat      integer NOT NULL,
    kind      text NOT NULL CHECK (kind IN ('action', 'timeout', 'auto', 'leave')),
    action    jsonb,
    now_ms    bigint NOT NULL,
    PRIMARY KEY (match_id, n)
);

CREATE TABLE hands (
    match_id    uuid NOT NULL REFERENCES matches (id),
    hand_no     integer NOT NULL,
    seed        bytea,
    commitment  text,
    deck        jsonb NOT NULL,
    start_state jsonb NOT NULL,
    wallets     jsonb NOT NULL,
    scores      jsonb NOT NULL,
    start_ms    bigint NOT NULL,
    started_at  timestamptz NOT NULL DEFAULT now(),
    ended_at    timestamptz,
    result      jsonb,
    PRIMARY KEY (match_id, hand_no)
);

CREATE TABLE idempotency (
    user_id     uuid NOT NULL REFERENCES users (id),
    key         text NOT NULL,
    request     jsonb NOT NULL,
    status      integer,
    body        jsonb,
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, key)
);
