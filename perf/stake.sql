-- One 扯旋 set_bobo (簸簸): the betting move's statements plus the ledger transfer of the bobo
-- from the wallet to the table's escrow (src/ledger.rs `transfer`: one statement locks the two
-- accounts in id order and writes ledger_tx, the balances and ledger_entries; the deferred
-- trigger ledger_entries_balanced runs at COMMIT). 5 round trips. See move.sql for the
-- conventions.
-- own=1: each client plays its own table (client i on table i + 1), as paiju-load's clients
-- do with a client per table; own=0: a random one of nrows tables for every transaction.
\if :own
\set n :client_id + 1
\else
\set n random(1, :nrows)
\endif
\set seat random(0, 3)
\set amt random(100, 1000)
\set neg -1 * :amt
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
\set nv :version + 1
\set seq :last_seq + 1
\set an :action_no + 1
WITH l AS (
     SELECT * FROM unnest(ARRAY['user', 'escrow']::text[],
                          ARRAY[bench_user(4 * :n::bigint + :seat::int), :id::uuid]::uuid[],
                          ARRAY[:neg::bigint, :amt::bigint]::bigint[], ARRAY[0, 1]::int[])
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
     VALUES ('stake', :id::uuid, NULL, 2, NULL) RETURNING id),
 u AS (
     UPDATE accounts acc SET balance = acc.balance + a.amount
       FROM a WHERE acc.id = a.id
     RETURNING acc.id, acc.balance, a.amount, a.leg),
 e AS (
     INSERT INTO ledger_entries (tx_id, account_id, amount, balance_after)
     SELECT t.id, u.id, u.amount, u.balance FROM t, u
     RETURNING account_id, id)
SELECT u.leg::bigint, e.id FROM u JOIN e ON e.account_id = u.id;
WITH m AS (
     UPDATE matches SET state = :state, version = :nv::bigint, last_seq = :seq::bigint,
            action_no = :an::bigint, status = :status::text,
            deadline_at = now() + interval '60 seconds',
            commitment = :commitment::text, last_result = COALESCE(NULL::jsonb, last_result),
            updated_at = now()
      WHERE id = :id::uuid),
 e AS (
     INSERT INTO match_events (match_id, seq, hand_no, kind, seat, data,
                               visible_to, at)
     SELECT :id::uuid, e.seq, e.hand_no, e.kind, e.seat, e.data,
            CASE WHEN e.vis IS NULL THEN NULL
                 ELSE ARRAY(SELECT jsonb_array_elements_text(e.vis)::uuid) END,
            now()
       FROM unnest(ARRAY[:seq::bigint]::bigint[], ARRAY[2]::int[], ARRAY['bobo_set']::text[],
                   ARRAY[:seat::int]::int[], ARRAY['{}']::jsonb[], ARRAY[NULL]::jsonb[])
            AS e(seq, hand_no, kind, seat, data, vis)),
 a AS (
     INSERT INTO match_actions (match_id, n, hand_no, seat, kind, action, now_ms)
     SELECT :id::uuid, * FROM unnest(ARRAY[:an::bigint]::bigint[], ARRAY[2]::int[],
                              ARRAY[:seat::int]::int[],
                              ARRAY['action']::text[],
                              ARRAY[jsonb_build_object('type', 'set_bobo', 'amount', :amt::bigint)],
                              ARRAY[(extract(epoch FROM now()) * 1000)::bigint])),
 s AS (
     UPDATE match_seats ms SET auto = v.auto, timeouts = v.timeouts
       FROM unnest('{}'::int[], '{}'::bool[], '{}'::int[]) AS v(seat, auto, timeouts)
      WHERE ms.match_id = :id::uuid AND ms.seat = v.seat)
SELECT 1;
COMMIT;
