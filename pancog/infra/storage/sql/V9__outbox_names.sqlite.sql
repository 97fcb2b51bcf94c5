-- V9 (a pair: the names copied out of the tables' meta JSON need each dialect's JSON functions; the two tables
-- are the same portable SQL in both files).
--
-- outbox: every Discord side effect owed after a commit (a season's role for a winner, a results post, a DM),
-- written in the same transaction as the commit that owes it, so it is owed if and only if that commit happened.
-- Delivered by the adapter's deliverer and marked done with a result (e.g. the posted message's id), retried with
-- a capped back-off while the failure may pass, or marked failed (a missing permission) until a moderator asks
-- again. Owned by pancog/services/outbox.py.
CREATE TABLE outbox (
    key        TEXT PRIMARY KEY,                -- idempotency key, one per effect: enqueued twice is enqueued once
    guild_id   BIGINT NOT NULL,                 -- the guild it belongs to: a cluster process delivers its own only
    kind       TEXT NOT NULL,                   -- which handler delivers it (role.grant, message.post, ...)
    payload    TEXT NOT NULL,                   -- JSON, the handler's input
    status     TEXT NOT NULL DEFAULT 'owed' CHECK (status IN ('owed', 'done', 'failed')),
    created_at DOUBLE PRECISION NOT NULL,
    due_at     DOUBLE PRECISION NOT NULL,       -- not before (a retry's back-off; a claim's lease)
    claimed_at DOUBLE PRECISION,                -- a delivery in progress since (NULL: none)
    attempts   INTEGER NOT NULL DEFAULT 0,
    last_error TEXT,
    done_at    DOUBLE PRECISION,
    result     TEXT                             -- what the delivery did, for the moderator's report
);
CREATE INDEX outbox_due ON outbox (status, due_at);
CREATE INDEX outbox_by_guild ON outbox (guild_id, kind, key);

-- member_names: the last display name the bot saw per (guild, member), so standings, leaderboards, flags and
-- tournament seats name people after a restart. Owned by pancog/services/names.py.
CREATE TABLE member_names (
    guild_id BIGINT NOT NULL,
    user_id  BIGINT NOT NULL,
    name     TEXT NOT NULL,
    seen_at  DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (guild_id, user_id)
);

-- Until V9 the names lived in each table's meta JSON ({"names": {"<user>": "<name>"}}); the latest table's name of
-- each member wins (an open table's are the newest; a practice table's guild id is the guild's, negated). Computer players keep their own names.
INSERT INTO member_names (guild_id, user_id, name, seen_at)
SELECT guild, user_id, name, MAX(seen_at)
FROM (
    SELECT ABS(t.guild_id) AS guild, CAST(j.key AS INTEGER) AS user_id, j.value AS name,
           CASE WHEN t.status = 'open' THEN CAST(strftime('%s', 'now') AS REAL) ELSE COALESCE(t.closed_at, t.created_at) END
               AS seen_at
    FROM tables AS t, json_each(t.meta, '$.names') AS j
    WHERE json_valid(t.meta) AND json_type(t.meta, '$.names') = 'object' AND j.type = 'text'
)
WHERE user_id > 0 AND name <> ''
GROUP BY guild, user_id;
