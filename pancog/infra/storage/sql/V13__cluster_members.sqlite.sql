-- Cluster coordination is PostgreSQL's (pancog/infra/coord.py): a single SQLite process has no peers. The tables
-- exist so both schemas keep one version sequence.
CREATE TABLE cluster_members (
    holder      TEXT PRIMARY KEY,
    cluster     TEXT NOT NULL,
    shard_count INTEGER NOT NULL,
    shards      TEXT NOT NULL,
    state       TEXT NOT NULL CHECK (state IN ('waiting', 'serving', 'draining')),
    started_at  REAL NOT NULL,
    beat_at     REAL NOT NULL
);
CREATE TABLE gateway_identify (
    bucket      INTEGER PRIMARY KEY,
    last_at     REAL NOT NULL
);
