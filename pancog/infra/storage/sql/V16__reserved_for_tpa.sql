-- V16: a placeholder on the league3 branch only, so V18 runs without a gap. The tpa branch owns V16: when it is merged,
-- delete this file (its real V16 replaces it).
SELECT 1;
