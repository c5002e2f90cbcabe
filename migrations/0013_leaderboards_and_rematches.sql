-- Leaderboards (GET /v1/leaderboards/{game}) and rematches (POST /v1/matches/{id}/rematch).

-- A game's 积分, best first: the leaderboard's order.
CREATE INDEX scores_board ON scores (game, points DESC);

-- The match a rematch was made from: one rematch per match, however many ask at once.
ALTER TABLE matches ADD COLUMN rematch_of uuid REFERENCES matches (id);
CREATE UNIQUE INDEX matches_rematch_of ON matches (rematch_of) WHERE rematch_of IS NOT NULL;
