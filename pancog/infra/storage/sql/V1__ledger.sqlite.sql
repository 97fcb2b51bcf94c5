-- V1: double-entry chip ledger and durable tables (append-only action log).
-- Chips are whole integers. The balance column is a cache; the truth is SUM(postings.delta).

CREATE TABLE accounts (
    key      TEXT PRIMARY KEY,                 -- bank:G:U | stack:T:U | tops:T:singles | issued:G
    kind     TEXT NOT NULL CHECK (kind IN ('bank', 'stack', 'tops', 'issued')),
    scope_id INTEGER NOT NULL,                 -- guild id (bank, issued) or table id (stack, tops)
    user_id  INTEGER,                          -- bank and stack
    pot      TEXT CHECK (pot IS NULL OR pot IN ('singles', 'doubles')),
    balance  INTEGER NOT NULL DEFAULT 0,
    CHECK (balance >= 0 OR kind = 'issued')    -- only the system account may go negative
);
CREATE INDEX accounts_by_scope ON accounts (kind, scope_id, balance);

CREATE TABLE journals (
    id         INTEGER PRIMARY KEY,
    idem_key   TEXT NOT NULL UNIQUE,           -- a retried commit with the same key never posts twice
    reason     TEXT NOT NULL,
    actor      TEXT NOT NULL,                  -- a user id or 'system'
    table_id   INTEGER,
    created_at REAL NOT NULL
);

CREATE TABLE postings (
    journal_id  INTEGER NOT NULL REFERENCES journals (id),
    leg         INTEGER NOT NULL,
    account_key TEXT NOT NULL REFERENCES accounts (key),
    delta       INTEGER NOT NULL CHECK (delta <> 0),
    PRIMARY KEY (journal_id, leg)
) WITHOUT ROWID;

CREATE TABLE tables (
    table_id         INTEGER PRIMARY KEY,
    guild_id         INTEGER NOT NULL,
    channel_id       INTEGER NOT NULL,
    host_id          INTEGER NOT NULL,
    config           TEXT NOT NULL,            -- JSON, owned by the table service
    meta             TEXT NOT NULL DEFAULT '{}',
    status           TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'closed')),
    created_at       REAL NOT NULL,
    closed_at        REAL,
    board_message_id INTEGER,
    last_seq         INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX tables_by_status ON tables (status);

CREATE TABLE actions (
    table_id   INTEGER NOT NULL REFERENCES tables (table_id),
    seq        INTEGER NOT NULL CHECK (seq >= 1),
    action     TEXT NOT NULL,                  -- one action in engine notation
    events     TEXT NOT NULL,                  -- the events it produced (JSON or notation)
    journal_id INTEGER REFERENCES journals (id),
    created_at REAL NOT NULL,
    PRIMARY KEY (table_id, seq)                -- UNIQUE(table_id, seq)
) WITHOUT ROWID;

-- The log is contiguous: an append must be seq = last_seq + 1 on an open table.
CREATE TRIGGER actions_contiguous BEFORE INSERT ON actions
BEGIN
    SELECT RAISE(ABORT, 'pan:table_not_open')
        WHERE NOT EXISTS (SELECT 1 FROM tables WHERE table_id = NEW.table_id AND status = 'open');
    SELECT RAISE(ABORT, 'pan:log_gap')
        WHERE NEW.seq <> (SELECT last_seq + 1 FROM tables WHERE table_id = NEW.table_id);
END;
CREATE TRIGGER actions_advance AFTER INSERT ON actions
BEGIN
    UPDATE tables SET last_seq = NEW.seq WHERE table_id = NEW.table_id;
END;

-- Append-only: journals, postings and the action log are never changed; a correction is a new journal.
CREATE TRIGGER journals_append_only_u BEFORE UPDATE ON journals BEGIN SELECT RAISE(ABORT, 'pan:append_only'); END;
CREATE TRIGGER journals_append_only_d BEFORE DELETE ON journals BEGIN SELECT RAISE(ABORT, 'pan:append_only'); END;
CREATE TRIGGER postings_append_only_u BEFORE UPDATE ON postings BEGIN SELECT RAISE(ABORT, 'pan:append_only'); END;
CREATE TRIGGER postings_append_only_d BEFORE DELETE ON postings BEGIN SELECT RAISE(ABORT, 'pan:append_only'); END;
CREATE TRIGGER actions_append_only_u BEFORE UPDATE ON actions BEGIN SELECT RAISE(ABORT, 'pan:append_only'); END;
CREATE TRIGGER actions_append_only_d BEFORE DELETE ON actions BEGIN SELECT RAISE(ABORT, 'pan:append_only'); END;
