-- A match state is written on every move and read on every request, but never queried inside:
-- keeping it as JSON text spares PostgreSQL a jsonb parse per write and a jsonb print per read,
-- and lz4 compresses it for a fraction of pglz's CPU (both showed in the profile of a move).
ALTER TABLE matches ALTER COLUMN state TYPE text USING state::text;
ALTER TABLE matches ALTER COLUMN state SET COMPRESSION lz4;
ALTER TABLE hands ALTER COLUMN start_state SET COMPRESSION lz4;
