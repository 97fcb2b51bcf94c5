-- V19 (portable): tournament templates, weekly schedules and their occurrences, and the Discord Scheduled Event
-- published for each occurrence. Owned by pancog/services/tournaments/schedules.py.
CREATE TABLE tournament_templates (
    guild_id    BIGINT NOT NULL,
    name        TEXT NOT NULL,    -- as the host typed it (trimmed); unique per guild without regard to case
    name_key    TEXT NOT NULL,    -- casefolded: the unique key
    config      TEXT NOT NULL,    -- TournamentConfig JSON without start and title
    created_by  BIGINT NOT NULL,
    created_ms  BIGINT NOT NULL,
    PRIMARY KEY (guild_id, name_key)
);

CREATE TABLE tournament_schedules (
    schedule_id     BIGINT PRIMARY KEY,
    guild_id        BIGINT NOT NULL,
    channel_id      BIGINT NOT NULL,  -- where each occurrence is announced
    host_id         BIGINT NOT NULL,  -- the host of every occurrence
    name            TEXT NOT NULL,    -- the template's name: every occurrence's title
    config          TEXT NOT NULL,    -- the template's config as it was when the schedule was made
    first_start_ms  BIGINT NOT NULL,
    every_ms        BIGINT NOT NULL,  -- a week
    occurrences     INTEGER NOT NULL, -- how many (0: until stopped)
    announce_ms     BIGINT NOT NULL,  -- how long before its start each occurrence is created and announced
    next_no         INTEGER NOT NULL, -- the next occurrence to create (0-based)
    stopped_ms      BIGINT,           -- NULL while it runs
    events_refused  INTEGER NOT NULL DEFAULT 0  -- 1 once Discord refused a Scheduled Event (the host was told once)
);

-- One row per occurrence, written in the transaction that creates its tournament: (schedule, number) is the
-- occurrence's key, so a restart never creates it twice. tournament_id is NULL for an occurrence whose start had
-- passed before this process could create it (missed, logged).
CREATE TABLE tournament_occurrences (
    schedule_id    BIGINT NOT NULL REFERENCES tournament_schedules (schedule_id),
    occurrence_no  INTEGER NOT NULL,
    tournament_id  BIGINT,
    start_ms       BIGINT NOT NULL,
    PRIMARY KEY (schedule_id, occurrence_no)
);

-- The Discord Scheduled Event of a tournament: event_id once Discord created it; sent = the event status last owed
-- through the outbox (1 scheduled, 2 active, 3 completed, 4 canceled).
CREATE TABLE tournament_events (
    tournament_id  BIGINT PRIMARY KEY,
    guild_id       BIGINT NOT NULL,
    event_id       BIGINT,
    sent           INTEGER NOT NULL
);
