-- The shared budget of Discord's global rate limit is PostgreSQL's (pancog/infra/ratelimit.py): a single SQLite
-- process has nobody to share the limit with. The table exists so both schemas keep one version sequence.
CREATE TABLE rest_budget (
    name TEXT PRIMARY KEY,
    next_slot DOUBLE PRECISION NOT NULL
);
