-- V4 (SQLite): community tournaments (issue 15). Twin: V4__tournaments.postgres.sql (same tables and columns).
-- Two parts:
--   (1) the ledger learns two account kinds, 'escrow' (a tournament's buy-ins) and 'house' (a guild's fees).
--       SQLite cannot alter a CHECK, so accounts and postings are rebuilt with the same rows (and postings'
--       append-only triggers re-created); PostgreSQL swaps the constraint in place.
--   (2) three tournament tables owned by pancog/services/tournaments/repository.py (times in milliseconds, BIGINT).

CREATE TABLE accounts_v4 (
    key      TEXT PRIMARY KEY,
    kind     TEXT NOT NULL CHECK (kind IN ('bank', 'stack', 'tops', 'issued', 'escrow', 'house')),
    scope_id INTEGER NOT NULL,
    user_id  INTEGER,
    pot      TEXT CHECK (pot IS NULL OR pot IN ('singles', 'doubles')),
    balance  INTEGER NOT NULL DEFAULT 0,
    CHECK (balance >= 0 OR kind = 'issued')
);
INSERT INTO accounts_v4 (key, kind, scope_id, user_id, pot, balance)
    SELECT key, kind, scope_id, user_id, pot, balance FROM accounts;
CREATE TABLE postings_v4 (
    journal_id  INTEGER NOT NULL,
    leg         INTEGER NOT NULL,
    account_key TEXT NOT NULL,
    delta       INTEGER NOT NULL
);
INSERT INTO postings_v4 (journal_id, leg, account_key, delta) SELECT journal_id, leg, account_key, delta FROM postings;
DROP TABLE postings;
DROP TABLE accounts;
ALTER TABLE accounts_v4 RENAME TO accounts;
CREATE INDEX accounts_by_scope ON accounts (kind, scope_id, balance);
CREATE TABLE postings (
    journal_id  INTEGER NOT NULL REFERENCES journals (id),
    leg         INTEGER NOT NULL,
    account_key TEXT NOT NULL REFERENCES accounts (key),
    delta       INTEGER NOT NULL CHECK (delta <> 0),
    PRIMARY KEY (journal_id, leg)
) WITHOUT ROWID;
INSERT INTO postings (journal_id, leg, account_key, delta)
    SELECT journal_id, leg, account_key, delta FROM postings_v4;
DROP TABLE postings_v4;
CREATE TRIGGER postings_append_only_u BEFORE UPDATE ON postings BEGIN SELECT RAISE(ABORT, 'pan:append_only'); END;
CREATE TRIGGER postings_append_only_d BEFORE DELETE ON postings BEGIN SELECT RAISE(ABORT, 'pan:append_only'); END;

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
