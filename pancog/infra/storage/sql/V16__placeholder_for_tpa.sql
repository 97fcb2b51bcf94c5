-- PLACEHOLDER, not for main: V16 is reserved for the tournament purse migration of branch tpa
-- (V16__tournament_purse.sql). Migrations must be 1..n without a gap, so this branch carries an empty V16 to run
-- its V17 alone. DELETE THIS FILE when merging (tpa's V16 takes its place).
SELECT 1;
