-- Idempotency keys expire a day after their request (the sweeper deletes them in batches):
-- the index finds the old ones without reading the table.
CREATE INDEX idempotency_created_at ON idempotency (created_at);
