-- V10: reserved. A parallel branch adds the real V10; this file keeps the versions gapless (1..n) on the web
-- branch and is to be deleted when that V10 is merged. It changes nothing.
SELECT 1;
