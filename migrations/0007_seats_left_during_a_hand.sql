-- A seat left during a hand (扯旋: a folded seat may leave and the others play on).
--
-- `stake_return`: match escrow → user, the rest of a folded seat's 簸簸 when it leaves; the
-- hand's one `hand_settlement` comes at its end.
ALTER TABLE ledger_tx DROP CONSTRAINT ledger_tx_reason;
ALTER TABLE ledger_tx ADD CONSTRAINT ledger_tx_reason CHECK (reason IN (
    'grant', 'stake', 'hand_settlement', 'escape_penalty', 'room_fee', 'coin_room',
    'tournament_fee', 'tournament_prize', 'tournament_refund', 'account_closed',
    'bot_funding', 'bot_return', 'stake_return'));

-- The players dealt into the hand, by seat: its coins and 积分 are theirs, also one's who left
-- the seat during the hand (and not the player's who took the freed seat). NULL for hands
-- dealt before this column: they go to the seat's player, as before.
ALTER TABLE hands ADD COLUMN users uuid[];
