-- Placeholder for version 5, taken by the league branch (see V4__reserved_tournaments.sql). Replace this file
-- with the real V5 when that branch merges.
SELECT 1;
