-- Data for the pgbench ceiling of one paiju move (perf/README in docs/performance.md).
-- Run it on a database the paiju server has migrated (perf/run.sh starts the server once on
-- it), so the tables, indexes and triggers are exactly the server's:
--     psql "$URL" -v matches=10000 -f perf/schema.sql
-- It fills `matches` 扯旋 tables of 4 seats, in the betting phase of hand 2, with a state and a
-- last_result captured from a real game (the server stores them like this), 4 users per
-- table with wallets, an escrow per table, 积分 rows and the open hand. Ids are derived from
-- the table number n so the pgbench scripts can name them without an extra round trip:
-- bench_match(n), bench_user(4n + seat), account ids 1000 + 5n + seat, escrow 1000 + 5n + 4.
\set ON_ERROR_STOP on
\if :{?matches}
\else
\set matches 10000
\endif

DELETE FROM score_entries; DELETE FROM scores; DELETE FROM ledger_entries; DELETE FROM ledger_tx;
DELETE FROM match_events; DELETE FROM match_actions; DELETE FROM hands; DELETE FROM match_seats;
DELETE FROM accounts WHERE kind <> 'house'; DELETE FROM matches;
DELETE FROM users WHERE username LIKE 'bench\_%';

CREATE OR REPLACE FUNCTION bench_match(n bigint) RETURNS uuid
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN ('00000000-0000-4000-8000-' || lpad(to_hex(n), 12, '0'))::uuid;
CREATE OR REPLACE FUNCTION bench_user(k bigint) RETURNS uuid
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN ('00000000-0000-4000-9000-' || lpad(to_hex(k), 12, '0'))::uuid;

CREATE TEMP TABLE template (state jsonb, last_result jsonb, deck jsonb);
INSERT INTO template VALUES ($state${"opts":{"ante":10,"min_bobo":100,"score_unit":10},"seats":4,"hand_no":2,"dealer":1,"phase":"betting","vacated":[false,false,false,false],"hand":{"started_ms":1795353931086,"base_points":10,"deck":["4S","10H","4C","2H","7C","8S","9C","4H","8D","7D","8H","JS","7H","8C","6S","10S","RJ","5S","10C","10D","2D","9S","QH","7S","4D","6C","QD","3H","5C","6D","6H","JC"],"dealt":8,"round":1,"level":203,"turn":1,"all_checked":false,"ending":null,"seats":[{"playing":true,"wallet":10000000,"bobo":846,"left":633,"put_in":213,"round_bet":203,"acted":true,"folded":false,"all_in":false,"hidden":["2H","4H"],"face_up":[],"split":null,"swapped":false},{"playing":true,"wallet":10000069,"bobo":803,"left":793,"put_in":10,"round_bet":0,"acted":false,"folded":false,"all_in":false,"hidden":["4S","7C"],"face_up":[],"split":null,"swapped":false},{"playing":true,"wallet":9999941,"bobo":932,"left":719,"put_in":213,"round_bet":203,"acted":true,"folded":false,"all_in":false,"hidden":["10H","8S"],"face_up":[],"split":null,"swapped":false},{"playing":true,"wallet":9999990,"bobo":155,"left":145,"put_in":10,"round_bet":0,"acted":true,"folded":true,"all_in":false,"hidden":["4C","9C"],"face_up":[],"split":null,"swapped":false}]}}$state$, $lr${"coins": [0, 69, -59, -10], "detail": {"net": [0, 69, -59, -10], "draw": false, "beats": [{"loser": 2, "winner": 1}, {"loser": 3, "winner": 1}, {"loser": 2, "winner": 0}, {"loser": 3, "winner": 0}], "hands": [{"head": ["8H", "9C"], "seat": 0, "tail": ["7H", "3H"], "sanhua": null, "swapped": false, "head_name": "7点", "tail_name": "0点"}, {"head": ["2H", "4C"], "seat": 1, "tail": ["JS", "5S"], "sanhua": null, "swapped": true, "head_name": "6点", "tail_name": "6点"}], "dealer": 0, "ending": "showdown", "escape": null, "points": [0, 69, -59, -10], "put_in": [251, 603, 59, 10], "transfers": [{"to": 1, "from": 2, "amount": 59}, {"to": 1, "from": 3, "amount": 10}], "base_points": 10, "next_dealer": 1}, "points": [0, 69, -59, -10], "hand_no": 1}$lr$,
  '{"cards": ["4S","10H","4C","2H","7C","8S","9C","4H","8D","7D","8H","JS","7H","8C","6S","10S",
              "RJ","5S","10C","10D","2D","9S","QH","7S","4D","6C","QD","3H","5C","6D","6H","JC"],
    "fixed": false}');

INSERT INTO users (id, username, password_hash, role)
SELECT bench_user(4 * n + k), 'bench_' || n || '_' || k, 'not-a-hash', 'player'
  FROM generate_series(1, :matches) n, generate_series(0, 3) k;

INSERT INTO matches (id, game, seats, options, status, version, last_seq, action_no, state,
                     deadline_at, created_by, commitment, last_result)
SELECT bench_match(n), 'chexuan', 4,
       '{"ante": 10, "room": null, "hands": null, "buy_in": 0, "min_bobo": 100,
         "score_unit": 10, "turn_timeout_secs": 60}',
       'playing', 100, 200, 100, t.state::text, now() + interval '1 day', bench_user(4 * n),
       encode(sha256(n::text::bytea), 'hex'), t.last_result
  FROM generate_series(1, :matches) n, template t;

INSERT INTO match_seats (match_id, seat, user_id)
SELECT bench_match(n), k, bench_user(4 * n + k)
  FROM generate_series(1, :matches) n, generate_series(0, 3) k;

-- Wallets and escrows hold plenty, so no transfer ever runs dry.
INSERT INTO accounts (id, kind, user_id, balance)
SELECT 1000 + 5 * n + k, 'user', bench_user(4 * n + k), 1000000000000
  FROM generate_series(1, :matches) n, generate_series(0, 3) k;
INSERT INTO accounts (id, kind, match_id, balance)
SELECT 1000 + 5 * n + 4, 'escrow', bench_match(n), 1000000000000
  FROM generate_series(1, :matches) n;
\o /dev/null
SELECT setval(pg_get_serial_sequence('accounts', 'id'), 1000 + 5 * (:matches + 1));
\o

INSERT INTO scores (user_id, game, points)
SELECT bench_user(4 * n + k), 'chexuan', 0
  FROM generate_series(1, :matches) n, generate_series(0, 3) k;

INSERT INTO hands (match_id, hand_no, seed, commitment, deck, start_state, wallets, scores,
                   start_ms, users)
SELECT bench_match(n), 1, sha256(n::text::bytea), encode(sha256(n::text::bytea), 'hex'), t.deck,
       t.state, '[10000000, 10000000, 10000000, 10000000]', '[0, 0, 0, 0]',
       (extract(epoch FROM now()) * 1000)::bigint,
       ARRAY[bench_user(4 * n), bench_user(4 * n + 1), bench_user(4 * n + 2),
             bench_user(4 * n + 3)]
  FROM generate_series(1, :matches) n, template t;

VACUUM (ANALYZE);
