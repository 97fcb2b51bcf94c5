-- V7 (portable: SQLite and PostgreSQL run it unchanged): the Discord messages a tournament keeps editing, so a
-- restart finds them again (issue 15). Until V7 the announcement's id lived in memory only and, after a restart,
-- its live entry count stopped following registrations. Owned by pancog/services/tournaments/repository.py.
CREATE TABLE tournament_messages (
    tournament_id BIGINT NOT NULL REFERENCES tournaments (tournament_id),
    kind          TEXT NOT NULL CHECK (kind IN ('announcement')),  -- room for more kinds in a later migration
    channel_id    BIGINT NOT NULL,
    message_id    BIGINT NOT NULL,
    PRIMARY KEY (tournament_id, kind)
);
