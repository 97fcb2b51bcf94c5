-- V9 (portable): reserved. Another branch of this round adds its own V9 in parallel; this placeholder only keeps
-- the versions 1..n without a gap until the two merge (the integrator keeps that V9 and deletes this file). It
-- changes nothing, and V10 does not depend on what V9 does.
SELECT 1;
