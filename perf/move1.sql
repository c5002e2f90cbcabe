-- One 扯旋 betting move on the fast path (docs/architecture.md § One move, one statement),
-- statement for statement as the server sends it: src/matches/runtime.rs `act_fast` →
-- `Table::act_in_memory` (the engine, on the table cached at the version the move was sent
-- at) → `Table::save_if_unmoved`. 1 round trip, no BEGIN/COMMIT: the statement is its own
-- transaction, and every write in it joins the match row's update `WHERE version = v`.
-- The only differences: ids are derived from the table number n (bench_match); the server
-- binds the version it holds cached, the new version, last_seq and action_no as parameters,
-- which a pgbench client does not know for a random table, so here they are the row's own
-- (`version = (SELECT version …)`, `last_seq + 1`, RETURNING them to the other writes):
-- the same index lookups and rows written, one subquery more. The arrays the server binds as
-- parameters are written as ARRAY[...] of parameters; the Idempotency-Key's row (NULL key:
-- nothing written) is the server's when a key is sent.
-- Two clients on one table at once: the second waits for the first's row lock, then finds the
-- version moved and writes nothing (0 rows), as the server's statement would (the server then
-- answers through the transaction path); with 10,000 tables that is rare.
-- pgbench -n -M prepared -f perf/move1.sql -D own=0 -D nrows=10000 (spread), as perf/move.sql.
\if :own
\set n :client_id + 1
\else
\set n random(1, :nrows)
\endif
\set seat random(0, 3)
\set left random(100, 900)
WITH m AS (
     UPDATE matches SET state = state, version = version + 1, last_seq = last_seq + 1,
            action_no = action_no + 1, status = 'playing',
            deadline_at = now() + interval '60 seconds',
            commitment = commitment, last_result = last_result, to_act = ARRAY[:seat::int],
            hand_no = 2, updated_at = now()
      WHERE id = bench_match(:n::bigint)
        AND version = (SELECT version FROM matches WHERE id = bench_match(:n::bigint))
  RETURNING id, last_seq, action_no),
 e AS (
     INSERT INTO match_events (match_id, seq, hand_no, kind, seat, data,
                               visible_to, at)
     SELECT m.id, m.last_seq, e.hand_no, e.kind, e.seat, e.data,
            CASE WHEN e.vis IS NULL THEN NULL
                 ELSE ARRAY(SELECT jsonb_array_elements_text(e.vis)::uuid) END,
            now()
       FROM m, unnest(ARRAY[2]::int[], ARRAY['call']::text[],
                      ARRAY[:seat::int]::int[],
                      ARRAY[jsonb_build_object('left', :left::int, 'amount', 49, 'put_in', 59)],
                      ARRAY[NULL]::jsonb[])
            AS e(hand_no, kind, seat, data, vis)),
 a AS (
     INSERT INTO match_actions (match_id, n, hand_no, seat, kind, action, now_ms)
     SELECT m.id, m.action_no, x.* FROM m, unnest(ARRAY[2]::int[],
                              ARRAY[:seat::int]::int[],
                              ARRAY['action']::text[], ARRAY['{"type": "call"}']::jsonb[],
                              ARRAY[(extract(epoch FROM now()) * 1000)::bigint])
            AS x(hand_no, seat, kind, action, now_ms)),
 s AS (
     UPDATE match_seats ms SET auto = v.auto, timeouts = v.timeouts
       FROM m, unnest('{}'::int[], '{}'::bool[], '{}'::int[]) AS v(seat, auto, timeouts)
      WHERE ms.match_id = m.id AND ms.seat = v.seat),
 k AS (
     INSERT INTO idempotency (user_id, key, request, status, body)
     SELECT NULL::uuid, NULL::text, NULL::jsonb, 200, NULL::jsonb
       FROM m WHERE NULL::text IS NOT NULL)
SELECT count(*) FROM m;
