-- V10 (SQLite): one meaning per field. Until V9 a table's guild_id and a ledger scope id each meant three things: the
-- guild, a guild id negated (practice chips: bank:-G:U), or a tournament id (a tournament's tables and its chips:
-- bank:T:U); a chip league's bank season used a negative number (below -2**62) kept in the table's config JSON.
-- From V10 the scope is explicit: accounts and tables carry scope_kind ('practice', 'tournament', 'season'; NULL:
-- the guild's own banks, or an account that is a table's or a tournament's: stack, tops, escrow), and a table's
-- guild_id is always its Discord guild. Keys become bank:<kind>:<id>:U and issued:<kind>:<id>; a guild's keep
-- bank:G:U and issued:G. No balance changes: accounts are re-keyed with their balances and every posting follows
-- its account (the audit before and after is the same). Twin: V10__bank_scopes.postgres.sql (same steps).

ALTER TABLE accounts ADD COLUMN scope_kind TEXT
    CHECK (scope_kind IS NULL OR (scope_kind IN ('practice', 'tournament', 'season') AND kind IN ('bank', 'issued')));
ALTER TABLE tables ADD COLUMN scope_kind TEXT CHECK (scope_kind IS NULL OR scope_kind IN ('practice', 'tournament', 'season'));
ALTER TABLE tables ADD COLUMN scope_id BIGINT CHECK ((scope_kind IS NULL) = (scope_id IS NULL));

-- The starting and daily chips of a bank scope that is not a guild (a bank season's; practice chips take the
-- defaults). A guild's stay in guild_settings.
CREATE TABLE scope_settings (
    scope_kind     TEXT NOT NULL CHECK (scope_kind IN ('practice', 'tournament', 'season')),
    scope_id       BIGINT NOT NULL,
    starting_chips BIGINT NOT NULL CHECK (starting_chips >= 0),
    daily_amount   BIGINT NOT NULL CHECK (daily_amount >= 0),
    updated_at     DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (scope_kind, scope_id)
);

-- A tournament table's thread, stored before the table opens, so a step that failed after creating it reuses it.
ALTER TABLE tournament_tables ADD COLUMN channel_id BIGINT;

-- Every old scope number that was not a guild: bank seasons (renumbered 1, 2, … in the order they were created),
-- tournaments (their id), and any other negative number (practice chips of the guild -n).
CREATE TABLE v10_scope_map (old_id BIGINT PRIMARY KEY, kind TEXT NOT NULL, new_id BIGINT NOT NULL);
INSERT INTO v10_scope_map (old_id, kind, new_id)
    SELECT scope_id, 'season', ROW_NUMBER() OVER (ORDER BY scope_id DESC) FROM league_seasons;
INSERT INTO v10_scope_map (old_id, kind, new_id)
    SELECT tournament_id, 'tournament', tournament_id FROM tournaments WHERE tournament_id NOT IN (SELECT old_id FROM v10_scope_map);
INSERT INTO v10_scope_map (old_id, kind, new_id)
    SELECT DISTINCT n, 'practice', -n FROM (
        SELECT scope_id AS n FROM accounts WHERE kind IN ('bank', 'issued') AND scope_id < 0
        UNION SELECT guild_id FROM tables WHERE guild_id < 0
        UNION SELECT guild_id FROM guild_settings WHERE guild_id < 0
    ) AS negatives WHERE n NOT IN (SELECT old_id FROM v10_scope_map);

UPDATE league_seasons SET scope_id = (SELECT m.new_id FROM v10_scope_map m WHERE m.old_id = league_seasons.scope_id);

-- Tables: a tournament's belongs to the tournament's guild; a practice table to the guild -n; a bank season's
-- table names its season in the scope columns instead of its config JSON.
UPDATE tables SET scope_kind = 'tournament', scope_id = guild_id,
    guild_id = (SELECT t.guild_id FROM tournaments t WHERE t.tournament_id = tables.guild_id)
    WHERE guild_id IN (SELECT tournament_id FROM tournaments);
UPDATE tables SET scope_kind = 'practice', scope_id = -guild_id, guild_id = -guild_id WHERE guild_id < 0;
UPDATE tables SET scope_kind = 'season',
    scope_id = (SELECT m.new_id FROM v10_scope_map m
                WHERE m.kind = 'season' AND m.old_id = json_extract(tables.config, '$.bank_scope')),
    config = json_remove(config, '$.bank_scope')
    WHERE scope_kind IS NULL AND CASE WHEN json_valid(config) THEN json_type(config, '$.bank_scope') END = 'integer';

-- Accounts: re-keyed with their balances; the postings follow (they are append-only: the trigger is lifted for
-- this one statement and put back), then the old rows go.
CREATE TABLE v10_accounts (old_key TEXT PRIMARY KEY, new_key TEXT NOT NULL, kind TEXT NOT NULL, new_id BIGINT NOT NULL);
INSERT INTO v10_accounts (old_key, new_key, kind, new_id)
    SELECT a.key,
           CASE a.kind WHEN 'bank' THEN 'bank:' || m.kind || ':' || m.new_id || ':' || a.user_id
                       ELSE 'issued:' || m.kind || ':' || m.new_id END,
           m.kind, m.new_id
    FROM accounts a JOIN v10_scope_map m ON m.old_id = a.scope_id WHERE a.kind IN ('bank', 'issued');
INSERT INTO accounts (key, kind, scope_id, user_id, pot, balance, scope_kind)
    SELECT v.new_key, a.kind, v.new_id, a.user_id, a.pot, a.balance, v.kind
    FROM accounts a JOIN v10_accounts v ON v.old_key = a.key;
DROP TRIGGER postings_append_only_u;
UPDATE postings SET account_key = (SELECT v.new_key FROM v10_accounts v WHERE v.old_key = postings.account_key)
    WHERE account_key IN (SELECT old_key FROM v10_accounts);
CREATE TRIGGER postings_append_only_u BEFORE UPDATE ON postings BEGIN SELECT RAISE(ABORT, 'pan:append_only'); END;
DELETE FROM accounts WHERE key IN (SELECT old_key FROM v10_accounts);

-- The idempotency keys that name a scope (starting chips start:<scope>:U, daily claims daily:<scope>:U:day), so a
-- player who had a scope's starting chips is not given them again under the new key.
DROP TRIGGER journals_append_only_u;
UPDATE journals SET idem_key = (
        SELECT substr(journals.idem_key, 1, instr(journals.idem_key, ':')) || m.kind || ':' || m.new_id
               || substr(journals.idem_key, instr(journals.idem_key, ':') + length(':' || m.old_id))
        FROM v10_scope_map m
        WHERE journals.idem_key LIKE 'start:' || m.old_id || ':%' OR journals.idem_key LIKE 'daily:' || m.old_id || ':%')
    WHERE EXISTS (SELECT 1 FROM v10_scope_map m
                  WHERE journals.idem_key LIKE 'start:' || m.old_id || ':%' OR journals.idem_key LIKE 'daily:' || m.old_id || ':%');
CREATE TRIGGER journals_append_only_u BEFORE UPDATE ON journals BEGIN SELECT RAISE(ABORT, 'pan:append_only'); END;

-- Settings stored for a scope that is not a guild (a bank season's starting chips; V2 gave any old scope a row).
INSERT INTO scope_settings (scope_kind, scope_id, starting_chips, daily_amount, updated_at)
    SELECT m.kind, m.new_id, s.starting_chips, s.daily_amount, s.updated_at
    FROM guild_settings s JOIN v10_scope_map m ON m.old_id = s.guild_id;
DELETE FROM guild_settings WHERE guild_id IN (SELECT old_id FROM v10_scope_map);

CREATE INDEX accounts_by_scope_kind ON accounts (scope_kind, scope_id) WHERE scope_kind IS NOT NULL;

DROP TABLE v10_accounts;
DROP TABLE v10_scope_map;
