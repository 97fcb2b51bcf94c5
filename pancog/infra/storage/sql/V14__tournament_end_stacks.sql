-- V13 (portable: SQLite and PostgreSQL run it unchanged): the stack a knock-out hand left an entry (less than the
-- next ante, or 0). Entries put out in the same hand are ranked by it first and by their stack at that hand's start
-- (start_stack) second: two players left with 44 and 16 chips are 1st and 2nd, not a tie of their equal starts.
-- Owned by pancog/services/tournaments/repository.py.
ALTER TABLE tournament_entries ADD COLUMN end_stack BIGINT;
