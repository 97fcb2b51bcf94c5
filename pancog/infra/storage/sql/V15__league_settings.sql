-- V13 (portable): each guild's league settings (pancog/services/league/settings.py). A guild without a row uses the
-- defaults: a rating is established after 30 rated results, and the season leaderboard lists the established
-- players who played within the last 14 days.
CREATE TABLE league_settings (
    guild_id     BIGINT PRIMARY KEY,
    established  INTEGER NOT NULL,   -- rated results before a rating is established (shown without "?")
    active_days  INTEGER NOT NULL,   -- the season leaderboard lists players with a result within this many days
    divisions    TEXT NOT NULL       -- JSON list of divisions, best first (pancog/services/league/divisions.py)
);

-- Each established player's division as last kept in step (roles owed through the outbox on a change); ``changes``
-- numbers his changes, so each change's outbox keys are new and a retried one is the same.
CREATE TABLE league_divisions (
    guild_id  BIGINT NOT NULL,
    user_id   BIGINT NOT NULL,
    division  TEXT NOT NULL,        -- '' : none (no longer established, or the divisions changed)
    changes   INTEGER NOT NULL,
    PRIMARY KEY (guild_id, user_id)
);

-- Series ("best 8 of 12 events", pancog/services/league/series.py): a named set of tournaments of a guild, points per
-- finishing place, and how many of a player's best results count. The results themselves are the tournaments'
-- stored results (league_results, key tourney:<id>); an event listed before its tournament finished counts as
-- scheduled.
CREATE TABLE league_series (
    guild_id    BIGINT NOT NULL,
    name        TEXT NOT NULL,
    season_no   INTEGER NOT NULL,   -- the season running when the series was made (0: none)
    points      TEXT NOT NULL,      -- points of places 1, 2, ...: "25,18,15" (places beyond score 0)
    best        INTEGER NOT NULL,   -- a player's best results that count
    created_at  BIGINT NOT NULL,
    PRIMARY KEY (guild_id, name)
);
CREATE TABLE league_series_events (
    guild_id    BIGINT NOT NULL,
    name        TEXT NOT NULL,
    tourney_id  BIGINT NOT NULL,
    PRIMARY KEY (guild_id, name, tourney_id)
);
