-- Games with fixed partners (四副牌升级) advance the winning pair of each tournament table, and
-- the final's pair shares the pool (shared/rules/tournaments.md 6): who advanced from a table,
-- and who won, are lists of one or two players. `advanced` and `winner` keep the first.
ALTER TABLE tournament_tables ADD COLUMN advancers uuid[];
UPDATE tournament_tables SET advancers = ARRAY[advanced] WHERE advanced IS NOT NULL;
ALTER TABLE tournaments ADD COLUMN winners uuid[];
UPDATE tournaments SET winners = ARRAY[winner] WHERE winner IS NOT NULL;
