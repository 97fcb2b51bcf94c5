-- V13 (portable): each guild's league settings (pancog/services/league/settings.py). A guild without a row uses the
-- defaults: a rating is established after 30 rated results, and the season leaderboard lists the established
-- players who played within the last 14 days.
CREATE TABLE league_settings (
    guild_id     BIGINT PRIMARY KEY,
    established  INTEGER NOT NULL,   -- rated results before a rating is established (shown without "?")
    active_days  INTEGER NOT NULL    -- the season leaderboard lists players with a result within this many days
);
