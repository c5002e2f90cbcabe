-- A statement that computed part of what it writes from values it read (the wallets and 积分 a
-- deal is made from, on the fast path's hand end) checks after its writes that they are still
-- what it assumed, and calls this with the result: false aborts the whole statement, nothing
-- written, with SQLSTATE 40001 (serialization_failure), which the server treats as "decide in
-- a transaction", as it treats a deadlock.
CREATE FUNCTION paiju_unchanged(ok boolean) RETURNS boolean
LANGUAGE plpgsql AS $$
BEGIN
    IF ok IS NOT TRUE THEN
        RAISE EXCEPTION 'a value the statement was computed from changed while it ran'
            USING ERRCODE = 'serialization_failure';
    END IF;
    RETURN true;
END
$$;
