-- A password change refuses every token issued before it (docs/api.md § Accounts): tokens carry
-- the account's token generation (`gen`), a change starts the next one, and every process
-- refuses older generations (`paiju_tokens_revoked`, reloaded for changes within a token's
-- lifetime: `tokens_revoked_at`).
ALTER TABLE users
    ADD COLUMN token_gen bigint NOT NULL DEFAULT 0,
    ADD COLUMN tokens_revoked_at timestamptz;

-- Who is asked to act can itself be a secret (a 扯胡子 claim window asks exactly the seats
-- holding a pair or a 坎 of the card): then lists and streams show a seat only itself.
ALTER TABLE matches ADD COLUMN to_act_hidden boolean NOT NULL DEFAULT false;
