-- V4: RESERVED for community tournaments (issue 15), written on branch tourney2.
-- This placeholder only keeps versions 1..n gap-free on branch league2 (the league is V5__league.sql).
-- On merge, take tourney2's V4__tournaments.sql and drop this file's content.
SELECT 1;
