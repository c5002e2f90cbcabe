-- The table's one writer needs no check of assumed wallets after its writes: a deal that reads
-- wallets or 积分 reads them locked, in a transaction (docs/architecture.md § One move, one
-- statement). The function that check called goes.
DROP FUNCTION paiju_unchanged(boolean);
