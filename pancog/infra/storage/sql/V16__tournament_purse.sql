-- V16 (portable: SQLite and PostgreSQL run it unchanged): what an entry bought and what its bounty did. Rebuys and
-- the add-on grow the prize pool (rebuys x buy-in); the bounty on an entry's head stays in escrow until someone
-- knocks it out (knocked_by: the entry that collected it), and bounty_won is what the entry collected. A guarantee and
-- a satellite's target are options, in the config JSON of tournaments.config.
-- Owned by pancog/services/tournaments/repository.py.
ALTER TABLE tournament_entries ADD COLUMN rebuys INTEGER NOT NULL DEFAULT 0;
ALTER TABLE tournament_entries ADD COLUMN addons INTEGER NOT NULL DEFAULT 0;
ALTER TABLE tournament_entries ADD COLUMN bounty BIGINT NOT NULL DEFAULT 0;
ALTER TABLE tournament_entries ADD COLUMN bounty_won BIGINT NOT NULL DEFAULT 0;
ALTER TABLE tournament_entries ADD COLUMN knocked_by INTEGER;
