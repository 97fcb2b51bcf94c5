-- V8 (portable: SQLite and PostgreSQL run it unchanged): a settlement carries its hand's league result on its own
-- ledger journal row (issue 16). Until V8 the settlement's transaction also wrote the league_results row (four
-- B-trees) and eight league_stats upserts: +28-37 % on bench/ledger.py's settlements/s. Now the result is one
-- nullable text on the journal row the settlement writes anyway (written once, append-only like the rest of the
-- row). LeagueService.drain() moves it into league_results and league_stats exactly once (the cursor
-- league_cursors.journals moves in the same transaction), and every read of the league drains first.
-- Owned by pancog/services/league/service.py (the text: "<guild> <season> <digest body>").
ALTER TABLE journals ADD COLUMN result TEXT;
-- Results recorded before V8 are already in league_results: the drain starts after the last journal.
INSERT INTO league_cursors (name, value) SELECT 'journals', COALESCE(MAX(id), 0) FROM journals;
