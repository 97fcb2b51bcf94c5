-- V4 (PostgreSQL): community tournaments (issue 15). Twin: V4__tournaments.sqlite.sql (same tables and columns).
--   (1) the ledger learns two account kinds, 'escrow' (a tournament's buy-ins) and 'house' (a guild's fees):
--       the kind CHECK of V1 (named accounts_kind_check by PostgreSQL) is replaced in place, rows untouched.
--   (2) three tournament tables owned by pancog/services/tournaments/repository.py (times in milliseconds, BIGINT).

ALTER TABLE accounts DROP CONSTRAINT accounts_kind_check;
ALTER TABLE accounts ADD CONSTRAINT accounts_kind_check
    CHECK (kind IN ('bank', 'stack', 'tops', 'issued', 'escrow', 'house'));

CREATE TABLE tournaments (
    tournament_id BIGINT PRIMARY KEY,
    guild_id      BIGINT NOT NULL,
    channel_id    BIGINT NOT NULL,
    host_id       BIGINT NOT NULL,
    config        TEXT NOT NULL,              -- JSON, owned by pancog/services/tournaments/model.py
    status        TEXT NOT NULL CHECK (status IN ('announced', 'registering', 'running', 'finished', 'cancelled')),
    created_ms    BIGINT NOT NULL,
    started_ms    BIGINT,                     -- the clock's zero (levels count from here, minus pauses)
    paused_ms     BIGINT,                     -- set while paused
    paused_total  BIGINT NOT NULL DEFAULT 0,  -- milliseconds paused before the current pause
    finished_ms   BIGINT,
    seed          BIGINT NOT NULL,            -- deals and seat draws derive from it
    bust_groups   INTEGER NOT NULL DEFAULT 0  -- hands that knocked someone out so far
);
CREATE INDEX tournaments_by_status ON tournaments (status);

CREATE TABLE tournament_entries (
    tournament_id BIGINT NOT NULL REFERENCES tournaments (tournament_id),
    entry_id      INTEGER NOT NULL,           -- 1, 2, ... in registration order
    player_id     BIGINT NOT NULL,
    entry_no      INTEGER NOT NULL,           -- 1 = first entry, 2 = first re-entry, ...
    status        TEXT NOT NULL CHECK (status IN ('registered', 'alive', 'out', 'refunded')),
    table_no      INTEGER,                    -- the table the entry sits at (or is moving to)
    moves         INTEGER NOT NULL DEFAULT 0,
    bust_group    INTEGER,                    -- the hand that knocked it out (same number = same hand)
    start_stack   BIGINT,                     -- its stack at the start of that hand (tie rule)
    place         INTEGER,                    -- final place (best of a shared range)
    tied          INTEGER,
    prize         BIGINT,
    away          INTEGER NOT NULL DEFAULT 0,
    created_ms    BIGINT NOT NULL,
    PRIMARY KEY (tournament_id, entry_id)
);

CREATE TABLE tournament_tables (
    tournament_id BIGINT NOT NULL REFERENCES tournaments (tournament_id),
    table_no      INTEGER NOT NULL,           -- 1, 2, ...; the final table is a new number
    table_id      BIGINT NOT NULL,            -- the TableService table
    status        TEXT NOT NULL CHECK (status IN ('open', 'closed')),
    final         INTEGER NOT NULL DEFAULT 0,
    hand_stacks   TEXT NOT NULL DEFAULT '{}', -- JSON {entry_id: stack} at the start of the hand being played
    PRIMARY KEY (tournament_id, table_no)
);
