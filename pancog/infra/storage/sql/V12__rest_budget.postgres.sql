-- The shared budget of Discord's global rate limit (pancog/infra/ratelimit.py): one row per budget, the time of
-- its next free send slot on the server's clock. Coordination state, not data: UNLOGGED (no WAL, emptied by a
-- crash, which only resets the schedule) and never backed up as such.
CREATE UNLOGGED TABLE rest_budget (
    name TEXT PRIMARY KEY,
    next_slot DOUBLE PRECISION NOT NULL
);
