-- V5: chip leagues (issue #16): seasons, per-hand digests, stats, ratings, archived standings, exclusions.
-- Portable subset (INTEGER / BIGINT / TEXT, explicit columns, ON CONFLICT upserts): every statement that reads or
-- writes these tables lives in pancog/services/league/repo.py. Times are whole epoch seconds; ratings are float texts.

CREATE TABLE league_seasons (
    guild_id       BIGINT NOT NULL,
    number         INTEGER NOT NULL CHECK (number >= 1),   -- 1, 2, 3, ... per guild
    name           TEXT NOT NULL,
    mode           TEXT NOT NULL CHECK (mode IN ('net', 'bank')),
    starting_chips BIGINT NOT NULL CHECK (starting_chips >= 0),
    scope_id       BIGINT NOT NULL UNIQUE,                 -- ledger scope of the season banks (negative)
    status         TEXT NOT NULL CHECK (status IN ('active', 'ended')),
    started_at     BIGINT NOT NULL,
    ends_at        BIGINT,                                 -- planned end (NULL: ended by a moderator)
    ended_at       BIGINT,
    champion_id    BIGINT,
    role_id        BIGINT,                                 -- Discord role for the top finishers (optional)
    PRIMARY KEY (guild_id, number)
);
CREATE INDEX league_seasons_by_status ON league_seasons (status, ends_at);

-- One row per rated/counted result: a cash-table hand (key hand:<table>:<hand_no>) or a tournament
-- (key tourney:<id>). Written in the same transaction as the hand's settlement; ``ordinal`` orders the rating fold.
CREATE TABLE league_results (
    result_key TEXT PRIMARY KEY,
    ordinal    BIGINT NOT NULL UNIQUE,
    guild_id   BIGINT NOT NULL,
    season_no  INTEGER NOT NULL,                           -- 0: no season was running
    kind       TEXT NOT NULL CHECK (kind IN ('hand', 'tourney')),
    table_id   BIGINT,
    hand_no    INTEGER,
    created_at BIGINT NOT NULL,
    body       TEXT NOT NULL                               -- the digest (pancog/services/league/digest.py encodes it)
);
CREATE INDEX league_results_by_guild ON league_results (guild_id, season_no, ordinal);

-- Counters per player, per guild, per season (season_no 0 = all-time).
CREATE TABLE league_stats (
    guild_id        BIGINT NOT NULL,
    season_no       INTEGER NOT NULL,
    user_id         BIGINT NOT NULL,
    hands_dealt     INTEGER NOT NULL DEFAULT 0,
    hands_played    INTEGER NOT NULL DEFAULT 0,
    hands_on_top    INTEGER NOT NULL DEFAULT 0,
    hands_won       INTEGER NOT NULL DEFAULT 0,
    conditions      INTEGER NOT NULL DEFAULT 0,
    condition_chips BIGINT NOT NULL DEFAULT 0,
    biggest         BIGINT NOT NULL DEFAULT 0,
    net             BIGINT NOT NULL DEFAULT 0,
    tourneys_played INTEGER NOT NULL DEFAULT 0,
    tourneys_cashed INTEGER NOT NULL DEFAULT 0,
    tourneys_won    INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (guild_id, season_no, user_id)
);

CREATE TABLE league_ratings (
    guild_id  BIGINT NOT NULL,
    season_no INTEGER NOT NULL,
    user_id   BIGINT NOT NULL,
    mu        TEXT NOT NULL,                               -- repr() of the float: exact round trip
    sigma     TEXT NOT NULL,
    rated     INTEGER NOT NULL,                            -- rated results so far (provisional below 10)
    score     BIGINT NOT NULL,                             -- round(1000 * (mu - 3 sigma)), for ordering
    PRIMARY KEY (guild_id, season_no, user_id)
);

-- Single-row cursors (name -> value): the rating fold's last applied ordinal.
CREATE TABLE league_cursors (
    name  TEXT PRIMARY KEY,
    value BIGINT NOT NULL
);

-- Final standings of ended seasons (written once, at rollover).
CREATE TABLE league_standings (
    guild_id  BIGINT NOT NULL,
    season_no INTEGER NOT NULL,
    place     INTEGER NOT NULL,
    user_id   BIGINT NOT NULL,
    net       BIGINT NOT NULL,
    chips     BIGINT NOT NULL,
    score     BIGINT NOT NULL,
    wins      INTEGER NOT NULL,
    PRIMARY KEY (guild_id, season_no, user_id)
);

-- A moderator's exclusion of a player's results from a season's standings, with the reason.
CREATE TABLE league_exclusions (
    guild_id     BIGINT NOT NULL,
    season_no    INTEGER NOT NULL,
    user_id      BIGINT NOT NULL,
    moderator_id BIGINT NOT NULL,
    reason       TEXT NOT NULL,
    created_at   BIGINT NOT NULL,
    PRIMARY KEY (guild_id, season_no, user_id)
);
