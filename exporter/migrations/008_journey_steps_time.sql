-- Finding journeys by a time range (journeys/store/search-steps.ts, GET /api/journeys): a BRIN
-- index on the steps' time. Steps arrive in about time order, so each block range holds a narrow
-- span of time and a search of the last hour reads that hour's blocks, not the day's partition. A
-- BRIN index costs an insert nothing (a range is summarised later), and its size is a few pages
-- per day. New ranges are summarised by the store every minute (journey-store.ts: autovacuum's
-- autosummarize does it too where autovacuum runs; an unsummarised range is read, never skipped).
CREATE INDEX journey_steps_time ON journey_steps USING brin (time)
  WITH (pages_per_range = 32, autosummarize = on);
