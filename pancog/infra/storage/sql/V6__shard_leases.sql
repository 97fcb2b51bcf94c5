-- Table ownership in a cluster (docs/storage.md, "Shard leases"): one row per shard of a shard count. A process
-- that starts with shards S takes their leases (epoch + 1) and checks its epoch in every table write's
-- transaction, so a process that lost its shard to a newer one can no longer write that shard's tables.
CREATE TABLE shard_leases (
    shard_count BIGINT NOT NULL CHECK (shard_count >= 1),
    shard_id    BIGINT NOT NULL CHECK (shard_id >= 0 AND shard_id < shard_count),
    epoch       BIGINT NOT NULL CHECK (epoch >= 1),
    holder      TEXT NOT NULL,
    taken_at    DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (shard_count, shard_id)
);
