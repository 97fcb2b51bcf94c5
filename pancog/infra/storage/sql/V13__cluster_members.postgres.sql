-- Cluster coordination (pancog/infra/coord.py, docs/storage.md "Cluster members"): one row per running bot process
-- of a cluster, its heartbeat on the database server's clock. A shard lease whose holder has no row, or a row whose
-- heartbeat is older than the timeout, is free: a waiting process takes it. Coordination state, not data: UNLOGGED
-- (a crash empties it; every live process writes its row again at its next heartbeat).
CREATE UNLOGGED TABLE cluster_members (
    holder      TEXT PRIMARY KEY,
    cluster     TEXT NOT NULL,
    shard_count BIGINT NOT NULL,
    shards      TEXT NOT NULL,
    state       TEXT NOT NULL CHECK (state IN ('waiting', 'serving', 'draining')),
    started_at  DOUBLE PRECISION NOT NULL,
    beat_at     DOUBLE PRECISION NOT NULL
);
-- The gateway IDENTIFY queue across hosts: when each rate-limit bucket (shard_id % max_concurrency) last let a
-- shard identify, on the database server's clock; read and written under an advisory lock per bucket.
CREATE UNLOGGED TABLE gateway_identify (
    bucket      BIGINT PRIMARY KEY,
    last_at     DOUBLE PRECISION NOT NULL
);
