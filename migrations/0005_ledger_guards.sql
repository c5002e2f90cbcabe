-- The ledger is append-only, its reasons a closed set (docs/ledger.md), and accounts can be
-- closed without losing a row.

ALTER TABLE ledger_tx ADD CONSTRAINT ledger_tx_reason CHECK (reason IN (
    'grant', 'stake', 'hand_settlement', 'escape_penalty', 'room_fee', 'coin_room',
    'tournament_fee', 'tournament_prize', 'tournament_refund', 'account_closed'));

CREATE FUNCTION ledger_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'the ledger is append-only: % on % refused', TG_OP, TG_TABLE_NAME
        USING ERRCODE = 'restrict_violation';
END $$;

CREATE TRIGGER ledger_tx_append_only BEFORE UPDATE OR DELETE ON ledger_tx
    FOR EACH ROW EXECUTE FUNCTION ledger_append_only();
CREATE TRIGGER ledger_tx_no_truncate BEFORE TRUNCATE ON ledger_tx
    FOR EACH STATEMENT EXECUTE FUNCTION ledger_append_only();
CREATE TRIGGER ledger_entries_append_only BEFORE UPDATE OR DELETE ON ledger_entries
    FOR EACH ROW EXECUTE FUNCTION ledger_append_only();
CREATE TRIGGER ledger_entries_no_truncate BEFORE TRUNCATE ON ledger_entries
    FOR EACH STATEMENT EXECUTE FUNCTION ledger_append_only();

-- A closed account keeps its row (the ledger and score rows point at it), without personal data.
ALTER TABLE users ADD COLUMN deleted_at timestamptz;
