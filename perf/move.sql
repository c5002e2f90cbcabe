-- One 扯旋 betting move (check, call, raise, all-in, fold, or a split before the last one),
-- statement for statement as the server sends it: src/matches/mod.rs `act` →
-- `Table::load` (lock), engine, `Table::advance` (nothing to do), `Table::save`, commit.
-- 4 round trips: BEGIN, the locked load, the one-statement save, COMMIT.
-- The only differences: ids are derived from the table number n (bench_match, bench_user)
-- instead of being sent as uuid parameters, and the arrays the server binds as parameters
-- are written as ARRAY[...] of parameters.
-- pgbench -n -M prepared -f perf/move.sql -D own=0 -D nrows=10000 (spread) or nrows=clients/4
-- (hot), or -D own=1 -D nrows=10000 (a table per client).
-- own=1: each client plays its own table (client i on table i + 1), as paiju-load's clients
-- do with a client per table; own=0: a random one of nrows tables for every transaction.
\if :own
\set n :client_id + 1
\else
\set n random(1, :nrows)
\endif
\set seat random(0, 3)
\set left random(100, 900)
BEGIN;
SELECT m.id, m.game, m.seats, m.options, m.status, m.version, m.last_seq, m.action_no,
       m.state, m.deadline_at, m.tournament_id, m.fixed_seed, m.fixed_deck,
       m.commitment, m.last_result,
       COALESCE((SELECT json_agg(json_build_object('seat', s.seat, 'user_id', s.user_id,
                                 'username', u.username, 'auto', s.auto,
                                 'timeouts', s.timeouts, 'bot', u.bot) ORDER BY s.seat)
                   FROM match_seats s JOIN users u ON u.id = s.user_id
                  WHERE s.match_id = m.id), '[]'::json)::jsonb AS seat_rows,
       (SELECT s.version FROM matches s WHERE s.id = m.id) AS snapshot_version
  FROM matches m WHERE m.id = bench_match(:n::bigint) FOR UPDATE OF m \gset
\set nv :version + 1
\set seq :last_seq + 1
\set an :action_no + 1
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
       FROM unnest(ARRAY[:seq::bigint]::bigint[], ARRAY[2]::int[], ARRAY['call']::text[],
                   ARRAY[:seat::int]::int[],
                   ARRAY[jsonb_build_object('left', :left::int, 'amount', 49, 'put_in', 59)],
                   ARRAY[NULL]::jsonb[])
            AS e(seq, hand_no, kind, seat, data, vis)),
 a AS (
     INSERT INTO match_actions (match_id, n, hand_no, seat, kind, action, now_ms)
     SELECT :id::uuid, * FROM unnest(ARRAY[:an::bigint]::bigint[], ARRAY[2]::int[],
                              ARRAY[:seat::int]::int[],
                              ARRAY['action']::text[], ARRAY['{"type": "call"}']::jsonb[],
                              ARRAY[(extract(epoch FROM now()) * 1000)::bigint])),
 s AS (
     UPDATE match_seats ms SET auto = v.auto, timeouts = v.timeouts
       FROM unnest('{}'::int[], '{}'::bool[], '{}'::int[]) AS v(seat, auto, timeouts)
      WHERE ms.match_id = :id::uuid AND ms.seat = v.seat)
SELECT 1;
COMMIT;
