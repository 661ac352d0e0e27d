-- Several processes on one database (docs/registry.md, "Running several instances").
--
-- What changed, by topic: each write that changes what a cached answer shows moves
-- `skills` in its own transaction, a revoked token moves `tokens`. A server on SQLite reads
-- these when the file's `data_version` moves, so it sees at once what `skills registry
-- sync` or `token revoke` wrote from another process; on PostgreSQL the same writes are
-- announced with NOTIFY instead, and the table stays as it is.
CREATE TABLE registry_changes (
    topic TEXT PRIMARY KEY,
    serial BIGINT NOT NULL
);
INSERT INTO registry_changes (topic, serial) VALUES ('skills', 0);
INSERT INTO registry_changes (topic, serial) VALUES ('tokens', 0);

-- The background jobs (the health round, the federation sync) and when one last started,
-- by any process (Unix ms): the servers on one database start each at most once per its
-- interval, not once per server.
CREATE TABLE registry_jobs (
    job TEXT PRIMARY KEY,
    started_at BIGINT NOT NULL
);
INSERT INTO registry_jobs (job, started_at) VALUES ('health', 0);
INSERT INTO registry_jobs (job, started_at) VALUES ('sync', 0);
