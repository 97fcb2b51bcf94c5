-- V9 (a pair: the names copied out of the tables' meta JSON need each dialect's JSON functions; the two tables
-- are the same portable SQL in both files). See V9__outbox_names.sqlite.sql for what each column means.
CREATE TABLE outbox (
    key        TEXT PRIMARY KEY,
    guild_id   BIGINT NOT NULL,
    kind       TEXT NOT NULL,
    payload    TEXT NOT NULL,
    status     TEXT NOT NULL DEFAULT 'owed' CHECK (status IN ('owed', 'done', 'failed')),
    created_at DOUBLE PRECISION NOT NULL,
    due_at     DOUBLE PRECISION NOT NULL,
    claimed_at DOUBLE PRECISION,
    attempts   INTEGER NOT NULL DEFAULT 0,
    last_error TEXT,
    done_at    DOUBLE PRECISION,
    result     TEXT
);
CREATE INDEX outbox_due ON outbox (status, due_at);
CREATE INDEX outbox_by_guild ON outbox (guild_id, kind, key);

CREATE TABLE member_names (
    guild_id BIGINT NOT NULL,
    user_id  BIGINT NOT NULL,
    name     TEXT NOT NULL,
    seen_at  DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (guild_id, user_id)
);

-- The names the tables' meta JSON held until V9; the latest table's name (an open table's are the newest) of each member wins (DISTINCT ON: one
-- row per member, so no row is inserted twice). A meta text that is not a JSON object is passed over.
CREATE FUNCTION pg_temp.pan_meta_names(meta text) RETURNS jsonb LANGUAGE plpgsql AS $$
BEGIN
    RETURN CASE WHEN jsonb_typeof(meta::jsonb -> 'names') = 'object' THEN meta::jsonb -> 'names' END;
EXCEPTION WHEN others THEN  -- not JSON
    RETURN NULL;
END $$;
INSERT INTO member_names (guild_id, user_id, name, seen_at)
SELECT DISTINCT ON (guild, user_id) guild, user_id, name, seen_at
FROM (
    SELECT ABS(t.guild_id) AS guild,
           CASE WHEN j.key ~ '^[0-9]{1,18}$' THEN CAST(j.key AS BIGINT) ELSE 0 END AS user_id,
           j.value #>> '{}' AS name,
           CASE WHEN t.status = 'open' THEN EXTRACT(EPOCH FROM now())::double precision
                ELSE COALESCE(t.closed_at, t.created_at) END AS seen_at
    FROM tables AS t, jsonb_each(COALESCE(pg_temp.pan_meta_names(t.meta), '{}'::jsonb)) AS j
    WHERE jsonb_typeof(j.value) = 'string'
) AS named
WHERE user_id > 0 AND name <> ''
ORDER BY guild, user_id, seen_at DESC;
DROP FUNCTION pg_temp.pan_meta_names(text);
