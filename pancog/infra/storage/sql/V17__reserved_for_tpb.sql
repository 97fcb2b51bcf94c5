-- V17: a placeholder on the league3 branch only, so V18 runs without a gap. The tpb branch owns V17: when it is merged,
-- delete this file (its real V17 replaces it).
SELECT 1;
