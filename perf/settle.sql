-- The 扯旋 move that ends a hand (the last split): the betting move's statements plus the
-- hand's end and the next deal in one statement (src/matches/table/money.rs
-- `Table::settle_and_deal`: the payout transfer from the escrow to the four wallets, `UPDATE
-- hands`, 积分, the wallets and 积分 after them, `INSERT INTO hands`), then the save with the
-- showdown, settlement and new hand events. 5 round trips. See move.sql for the conventions; the hand being closed is the
-- match's latest (a sub-select here, a parameter in the server).
-- own=1: each client plays its own table (client i on table i + 1), as paiju-load's clients
-- do with a client per table; own=0: a random one of nrows tables for every transaction.
\if :own
\set n :client_id + 1
\else
\set n random(1, :nrows)
\endif
\set seat random(0, 3)
\set u0 4 * :n
\set u1 4 * :n + 1
\set u2 4 * :n + 2
\set u3 4 * :n + 3
BEGIN;
SELECT m.id, m.game, m.seats, m.options, m.status, m.version, m.last_seq, m.action_no,
       m.state, m.deadline_at, m.tournament_id, m.fixed_seed, m.fixed_deck,
       m.commitment, m.last_result,
       COALESCE((SELECT json_agg(json_build_object('seat', s.seat, 'user_id', s.user_id,
                                 'username', u.username, 'auto', s.auto,
                                 'timeouts', s.timeouts) ORDER BY s.seat)
                   FROM match_seats s JOIN users u ON u.id = s.user_id
                  WHERE s.match_id = m.id), '[]'::json)::jsonb AS seat_rows,
       (SELECT s.version FROM matches s WHERE s.id = m.id) AS snapshot_version
  FROM matches m WHERE m.id = bench_match(:n::bigint) FOR UPDATE OF m \gset
\set nv :version + 2
\set seq :last_seq + 1
\set an :action_no + 1
WITH l AS (
     SELECT * FROM unnest(ARRAY['user', 'user', 'user', 'user', 'escrow']::text[],
                          ARRAY[bench_user(:u0::bigint), bench_user(:u1::bigint),
                                bench_user(:u2::bigint), bench_user(:u3::bigint),
                                :id::uuid]::uuid[],
                          ARRAY[251, 672, 873, 145, -1941]::bigint[],
                          ARRAY[0, 1, 2, 3, 4]::int[])
                AS l(kind, ref, amount, leg)),
 a AS (
     SELECT acc.id, l.amount, l.leg FROM l JOIN accounts acc ON acc.id = (
            CASE l.kind
                WHEN 'user' THEN (SELECT id FROM accounts WHERE user_id = l.ref)
                WHEN 'escrow' THEN (SELECT id FROM accounts WHERE match_id = l.ref)
                WHEN 'tournament'
                    THEN (SELECT id FROM accounts WHERE tournament_id = l.ref)
                ELSE (SELECT id FROM accounts WHERE kind = 'house')
            END)
      ORDER BY acc.id FOR UPDATE OF acc),
 t AS (
     INSERT INTO ledger_tx (reason, match_id, tournament_id, hand_no, note)
     SELECT 'hand_settlement', :id::uuid, NULL, :nv::int, NULL WHERE EXISTS (SELECT FROM l)
     RETURNING id),
 u AS (
     UPDATE accounts acc SET balance = acc.balance + a.amount
       FROM a WHERE acc.id = a.id
     RETURNING acc.id, acc.balance, a.amount, a.leg),
 e AS (
     INSERT INTO ledger_entries (tx_id, account_id, amount, balance_after)
     SELECT t.id, u.id, u.amount, u.balance FROM t, u
     RETURNING account_id, id),
 h AS (
     UPDATE hands SET ended_at = now(), result = :last_result::jsonb
      WHERE match_id = :id::uuid
        AND hand_no = (SELECT max(hand_no) FROM hands WHERE match_id = :id::uuid)
        AND ended_at IS NULL
     RETURNING 1),
 d AS (SELECT * FROM unnest(ARRAY[bench_user(:u0::bigint), bench_user(:u1::bigint),
                                  bench_user(:u2::bigint), bench_user(:u3::bigint)],
                            ARRAY[0, 69, -59, -10]::bigint[]) AS d(user_id, delta)
        WHERE user_id IS NOT NULL),
 up AS (
     INSERT INTO scores (user_id, game, points)
     SELECT user_id, 'chexuan', delta FROM d
     ON CONFLICT (user_id, game) DO UPDATE SET points = scores.points + EXCLUDED.points
     RETURNING user_id, points),
 se AS (
     INSERT INTO score_entries (user_id, game, match_id, hand_no, delta, points_after)
     SELECT d.user_id, 'chexuan', :id::uuid, :nv::int, d.delta, up.points
       FROM d JOIN up USING (user_id)),
 w AS (
     SELECT s.ord, COALESCE(u.balance, acc.balance, 0) AS balance,
            COALESCE(up.points, sc.points, 0) AS points
       FROM unnest(ARRAY[bench_user(:u0::bigint), bench_user(:u1::bigint),
                         bench_user(:u2::bigint), bench_user(:u3::bigint)])
            WITH ORDINALITY AS s(user_id, ord)
       LEFT JOIN accounts acc ON acc.user_id = s.user_id
       LEFT JOIN u ON u.id = acc.id
       LEFT JOIN up ON up.user_id = s.user_id
       LEFT JOIN scores sc ON sc.user_id = s.user_id AND sc.game = 'chexuan'),
 nh AS (
     INSERT INTO hands (match_id, hand_no, seed, commitment, deck, start_state, wallets,
                        scores, start_ms, users)
     SELECT :id::uuid, :nv::int, sha256(:seq::text::bytea), :commitment::text,
            '{"cards": ["4S","10H","4C","2H","7C","8S","9C","4H","8D","7D","8H","JS","7H","8C",
                        "6S","10S","RJ","5S","10C","10D","2D","9S","QH","7S","4D","6C","QD",
                        "3H","5C","6D","6H","JC"], "fixed": false}',
            :state::jsonb, jsonb_agg(balance ORDER BY ord), jsonb_agg(points ORDER BY ord),
            (extract(epoch FROM now()) * 1000)::bigint,
            ARRAY[bench_user(:u0::bigint), bench_user(:u1::bigint), bench_user(:u2::bigint),
                  bench_user(:u3::bigint)]
       FROM w
     RETURNING wallets, scores)
SELECT (SELECT count(*) FROM h), (SELECT count(*) FROM e), nh.wallets, nh.scores FROM nh;
WITH m AS (
     UPDATE matches SET state = :state, version = :nv::bigint, last_seq = :seq::bigint + 5,
            action_no = :an::bigint, status = :status::text,
            deadline_at = now() + interval '60 seconds',
            commitment = :commitment::text, last_result = :last_result::jsonb, updated_at = now()
      WHERE id = :id::uuid),
 e AS (
     INSERT INTO match_events (match_id, seq, hand_no, kind, seat, data,
                               visible_to, at)
     SELECT :id::uuid, e.seq, e.hand_no, e.kind, e.seat, e.data,
            CASE WHEN e.vis IS NULL THEN NULL
                 ELSE ARRAY(SELECT jsonb_array_elements_text(e.vis)::uuid) END,
            now()
       FROM unnest(ARRAY[:seq::bigint, :seq::bigint + 1, :seq::bigint + 2, :seq::bigint + 3,
                         :seq::bigint + 4, :seq::bigint + 5]::bigint[],
                   ARRAY[2, 2, 2, 2, 3, 3]::int[],
                   ARRAY['split', 'showdown', 'settlement', 'hand_ended', 'hand_started',
                         'hand_start']::text[],
                   ARRAY[:seat::int, NULL, NULL, NULL, NULL, NULL]::int[],
                   ARRAY['{}', (:last_result::jsonb) -> 'detail' -> 'hands',
                         (:last_result::jsonb) -> 'detail', :last_result::jsonb,
                         jsonb_build_object('hand_no', 3, 'shuffle_commitment', :commitment::text),
                         '{"hand_no": 3, "dealer": 1, "playing": [true, true, true, true],
                           "base_points": 10}']::jsonb[],
                   ARRAY[NULL, NULL, NULL, NULL, NULL, NULL]::jsonb[])
            AS e(seq, hand_no, kind, seat, data, vis)),
 a AS (
     INSERT INTO match_actions (match_id, n, hand_no, seat, kind, action, now_ms)
     SELECT :id::uuid, * FROM unnest(ARRAY[:an::bigint]::bigint[], ARRAY[2]::int[],
                              ARRAY[:seat::int]::int[],
                              ARRAY['action']::text[],
                              ARRAY['{"type": "split", "head": ["2H", "4H"],
                                      "tail": ["JS", "5S"]}']::jsonb[],
                              ARRAY[(extract(epoch FROM now()) * 1000)::bigint])),
 s AS (
     UPDATE match_seats ms SET auto = v.auto, timeouts = v.timeouts
       FROM unnest('{}'::int[], '{}'::bool[], '{}'::int[]) AS v(seat, auto, timeouts)
      WHERE ms.match_id = :id::uuid AND ms.seat = v.seat)
SELECT 1;
COMMIT;
