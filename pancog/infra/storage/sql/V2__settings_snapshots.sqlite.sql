-- V2: per-guild settings and optional table snapshots (replay starts after the latest snapshot).

CREATE TABLE guild_settings (
    guild_id          INTEGER PRIMARY KEY,
    preset            TEXT NOT NULL DEFAULT 'standard',
    starting_chips    INTEGER NOT NULL DEFAULT 1000 CHECK (starting_chips >= 0),
    daily_amount      INTEGER NOT NULL DEFAULT 100 CHECK (daily_amount >= 0),
    moderator_role_id INTEGER,
    updated_at        REAL NOT NULL
);

-- Every guild that already has a ledger gets an explicit settings row with the defaults.
INSERT INTO guild_settings (guild_id, updated_at)
    SELECT scope_id, CAST(strftime('%s', 'now') AS REAL) FROM accounts WHERE kind = 'issued';

CREATE TABLE snapshots (
    table_id   INTEGER NOT NULL REFERENCES tables (table_id),
    seq        INTEGER NOT NULL CHECK (seq >= 1), -- state after action `seq`
    state      TEXT NOT NULL,
    created_at REAL NOT NULL,
    PRIMARY KEY (table_id, seq)
) WITHOUT ROWID;
