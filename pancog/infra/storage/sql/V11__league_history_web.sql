-- V11 (portable: SQLite and PostgreSQL run it unchanged): each player's line of every league result with the
-- ratings after it (rating charts, match history, head-to-head), the hands their players shared, and the guilds'
-- web addresses. Owned by pancog/services/league/repo.py (league_history) and pancog/services/web_access.py
-- (shared_hands, web_access).

-- One row per (result, human player), written by the ratings fold in the same transaction as the ratings it
-- reports: the rating after the result (score = round(1000 * (mu - 3 sigma)), the shown figure x 1000) and before
-- it, all-time and for the result's season. Derived data: the rebuild refolds it with the ratings.
CREATE TABLE league_history (
    guild_id       BIGINT NOT NULL,
    user_id        BIGINT NOT NULL,
    ordinal        BIGINT NOT NULL,                -- the result's ordinal (league_results.ordinal: commit order)
    season_no      INTEGER NOT NULL,               -- 0: no season was running
    result_key     TEXT NOT NULL,                  -- hand:<table>:<hand_no> | tourney:<id>
    created_at     BIGINT NOT NULL,
    kind           TEXT NOT NULL CHECK (kind IN ('hand', 'tourney')),
    place          INTEGER NOT NULL,               -- hand: 1 went out (or split), 2 knocked in and lost, 0 on top;
                                                   -- tourney: the finishing place
    net            BIGINT NOT NULL,                -- chips won (+) or lost (-) over the hand; 0 for a tournament
    rated          INTEGER NOT NULL,               -- 1: this result moved his ratings
    rated_count    INTEGER NOT NULL,               -- his all-time rated results after this one
    score_before   BIGINT NOT NULL,
    score          BIGINT NOT NULL,
    season_before  BIGINT,                         -- NULL: no season was running
    season_score   BIGINT,
    PRIMARY KEY (guild_id, user_id, ordinal)
);
-- who played a result (head-to-head joins on it) and recent activity per guild
CREATE INDEX league_history_by_result ON league_history (guild_id, ordinal);

-- The history starts with V11: the ratings are derived data, so they are refolded from every recorded result by the
-- next drain (the same code, the same order: the same figures), which writes the history of the past as well.
DELETE FROM league_ratings;
DELETE FROM league_cursors WHERE name = 'ratings';

-- A finished hand a player shared (the replay's Share): only these are served as replays on the web.
CREATE TABLE shared_hands (
    table_id   BIGINT NOT NULL,
    hand_no    INTEGER NOT NULL,
    guild_id   BIGINT NOT NULL,
    user_id    BIGINT NOT NULL,                    -- who shared it first
    shared_at  BIGINT NOT NULL,
    PRIMARY KEY (table_id, hand_no)
);
CREATE INDEX shared_hands_by_guild ON shared_hands (guild_id, shared_at);

-- A guild's league web page (off by default: no row). The token is the unguessable part of the address; turning it
-- off deletes the row and rotating replaces the token, so the old address is gone at once.
CREATE TABLE web_access (
    guild_id   BIGINT PRIMARY KEY,
    token      TEXT NOT NULL UNIQUE,
    created_by BIGINT NOT NULL,
    created_at BIGINT NOT NULL
);
