-- 20: the event publisher's numbering walks `events_unpublished` entry by entry (issue 33).
--
-- Every event the publisher numbers leaves its entry in `events_unpublished` until the table is
-- vacuumed, and the planner read the index with a bitmap scan, which visits the row of every
-- entry and never marks one dead: over a 10,000-simulation run the numbering's walk grew from
-- 262 to 882 pages for the same thirty-odd events (`auto_explain`, first third against last),
-- and a publishing that found nothing still read 370 pages. A plain index scan marks each
-- entry whose rows are dead to every transaction, and the walks after it pass such entries by,
-- as migration 15 made the picks' reads do.
ALTER FUNCTION sb_publish_events(BIGINT, TEXT, TEXT) SET enable_bitmapscan = off;
