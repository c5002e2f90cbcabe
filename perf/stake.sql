-- One 扯旋 set_bobo (簸簸): the betting move's statements plus the ledger transfer of the bobo
-- from the wallet to the table's escrow (src/ledger.rs `transfer`: lock the two accounts, then
-- one statement for ledger_tx, the balances and ledger_entries; the deferred trigger
-- ledger_entries_balanced runs at COMMIT). 6 round trips. See move.sql for the conventions.
\set n random(1, :nrows)
\set seat random(0, 3)
\set amt random(100, 1000)
\set ua 1000 + 5 * :n + :seat
\set ea 1000 + 5 * :n + 4
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
SELECT id, user_id, match_id, tournament_id, balance FROM accounts
 WHERE (false AND kind = 'house')
    OR user_id = ANY(ARRAY[bench_user(4 * :n::bigint + :seat::int)])
    OR match_id = ANY(ARRAY[:id::uuid]) OR tournament_id = ANY('{}'::uuid[])
 ORDER BY id FOR UPDATE;
WITH t AS (
     INSERT INTO ledger_tx (reason, match_id, tournament_id, hand_no, note)
     VALUES ('stake', :id::uuid, NULL, 2, NULL) RETURNING id),
 u AS (
     UPDATE accounts a SET balance = a.balance + l.amount
       FROM unnest(ARRAY[:ua::bigint, :ea::bigint]::bigint[],
                   ARRAY[:neg::bigint, :amt::bigint]::bigint[]) AS l(account_id, amount)
      WHERE a.id = l.account_id
     RETURNING a.id, a.balance, l.amount)
INSERT INTO ledger_entries (tx_id, account_id, amount, balance_after)
SELECT t.id, u.id, u.amount, u.balance FROM t, u
RETURNING account_id, id;
WITH m AS (
     UPDATE matches SET state = :state, version = :nv::bigint, last_seq = :seq::bigint,
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
