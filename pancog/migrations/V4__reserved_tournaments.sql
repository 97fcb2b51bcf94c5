-- Placeholder for version 4, taken by the tournaments branch (issue #17 work runs concurrently; the lease
-- table below is V6). Replace this file with the real V4 when that branch merges: two files for version 4
-- make load_migrations refuse the folder, so the merge cannot silently keep both.
SELECT 1;
