-- V9: reserved. A parallel branch adds the real V9; this file keeps the versions gapless (1..n) on the web branch
-- and is to be deleted when that V9 is merged. It changes nothing.
SELECT 1;
