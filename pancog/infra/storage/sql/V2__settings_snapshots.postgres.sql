-- V2 (PostgreSQL): per-guild settings and optional table snapshots (replay starts after the latest snapshot).

CREATE TABLE guild_settings (
    guild_id          BIGINT PRIMARY KEY,
    preset            TEXT NOT NULL DEFAULT 'standard',
    starting_chips    BIGINT NOT NULL DEFAULT 1000 CHECK (starting_chips >= 0),
    daily_amount      BIGINT NOT NULL DEFAULT 100 CHECK (daily_amount >= 0),
    moderator_role_id BIGINT,
    updated_at        DOUBLE PRECISION NOT NULL
);

-- Every guild that already has a ledger gets an explicit settings row with the defaults.
INSERT INTO guild_settings (guild_id, updated_at)
    SELECT scope_id, EXTRACT(EPOCH FROM now()) FROM accounts WHERE kind = 'issued';

CREATE TABLE snapshots (
    table_id   BIGINT NOT NULL REFERENCES tables (table_id),
    seq        BIGINT NOT NULL CHECK (seq >= 1), -- state after action `seq`
    state      TEXT NOT NULL,
    created_at DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (table_id, seq)
);
