-- V17 (portable: SQLite and PostgreSQL run it unchanged): a final-table deal, proposed and accepted by every player
-- left, so a restart finds a pending proposal (play waits for it) and a deal that left a part to play for (the finish
-- pays the rest). One deal per tournament. Owned by pancog/services/tournaments/deal.py.
CREATE TABLE tournament_deals (
    tournament_id BIGINT PRIMARY KEY REFERENCES tournaments (tournament_id),
    kind          TEXT NOT NULL CHECK (kind IN ('chip', 'icm')),
    keep_chips    BIGINT NOT NULL,
    proposer      BIGINT NOT NULL,
    status        TEXT NOT NULL CHECK (status IN ('asked', 'proposed', 'accepted')),
    amounts       TEXT NOT NULL,  -- JSON: entry id -> bank chips dealt (empty while the proposal waits for a hand)
    stacks        TEXT NOT NULL,  -- JSON: entry id -> tournament chips when the amounts were computed
    accepted      TEXT NOT NULL   -- JSON: the player ids who accepted
);

-- Check-in: who checked in for a scheduled tournament's start (TournamentConfig.checkin_minutes); at the start the
-- registered players not listed here are unregistered and refunded. Owned by pancog/services/tournaments/checkin.py.
CREATE TABLE tournament_checkins (
    tournament_id BIGINT NOT NULL REFERENCES tournaments (tournament_id),
    player_id     BIGINT NOT NULL,
    checked_ms    BIGINT NOT NULL,
    PRIMARY KEY (tournament_id, player_id)
);
