-- V18 (portable): opt-in rating decay (pancog/services/league/decay.py). Each /panadmin league decay: change is a rule
-- in force from ``since`` until the next one, so the ratings fold (and a rebuild) decays a gap by the rules that were
-- in force during it, whatever the settings are now. A guild without a row has no decay.
CREATE TABLE league_decay_rules (
    guild_id     BIGINT NOT NULL,
    since        BIGINT NOT NULL,   -- epoch seconds the rule took effect
    points       INTEGER NOT NULL,  -- rating points (x 1000) lost a week; 0: off
    after_days   INTEGER NOT NULL,  -- days without a result before decay starts
    established  INTEGER NOT NULL,  -- rated results a player needs for his rating to decay (the guild's setting then)
    PRIMARY KEY (guild_id, since)
);
