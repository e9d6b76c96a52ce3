-- Where each event's steps are: the first and the last day (UTC, the partitions' days) its steps
-- fall in. A lookup reads this row, then only those days' partitions of journey_steps, instead of
-- probing the event index of every day in retention. Written in the same transaction as the steps
-- (store.ts); rows whose last day has left retention go with the partitions (partitions.ts).
CREATE TABLE journey_events (
  event_id  text PRIMARY KEY,
  first_day date NOT NULL,
  last_day  date NOT NULL
);

-- The steps stored before this table: one pass over the store (docs/operations.md, upgrading).
INSERT INTO journey_events (event_id, first_day, last_day)
SELECT event_id, min((time AT TIME ZONE 'UTC')::date), max((time AT TIME ZONE 'UTC')::date)
  FROM journey_steps GROUP BY event_id;
