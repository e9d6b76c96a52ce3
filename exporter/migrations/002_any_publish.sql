-- Publishes that do not come from an outbox are stage `publish`: the index that finds an event's
-- publishes (duplicate publishes, "published twice" lists) covers both kinds.
CREATE INDEX journey_steps_publishes ON journey_steps (time, event_id)
  WHERE stage IN ('outbox.publish', 'publish');
DROP INDEX journey_steps_publish;
