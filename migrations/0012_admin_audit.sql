-- Who did what with powers a player does not have (docs/api.md § Administration): every coin
-- grant, role change and tournament edit or cancellation, kept append-only like the ledger.
CREATE TABLE admin_audit (
    id            bigserial PRIMARY KEY,
    at            timestamptz NOT NULL DEFAULT now(),
    actor         uuid NOT NULL REFERENCES users (id),
    action        text NOT NULL CHECK (action IN (
                      'grant', 'role_change', 'tournament_edit', 'tournament_cancel')),
    target_user   uuid REFERENCES users (id),
    tournament_id uuid REFERENCES tournaments (id),
    detail        jsonb NOT NULL DEFAULT '{}'
);

CREATE TRIGGER admin_audit_append_only BEFORE UPDATE OR DELETE ON admin_audit
    FOR EACH ROW EXECUTE FUNCTION ledger_append_only();
CREATE TRIGGER admin_audit_no_truncate BEFORE TRUNCATE ON admin_audit
    FOR EACH STATEMENT EXECUTE FUNCTION ledger_append_only();
