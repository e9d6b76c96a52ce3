-- The journey store: one row per span that belongs to an event (docs/api.md, "What is stored").
-- Partitioned by day on the span's start time; retention drops whole partitions. The primary key
-- makes ingest idempotent: an SDK that retries a batch never doubles a step (a retried span keeps
-- its start time, so it lands in the same partition).
CREATE TABLE journey_steps (
  event_id        text        NOT NULL,
  time            timestamptz NOT NULL,
  duration_us     bigint      NOT NULL,
  stage           text        NOT NULL,
  service         text        NOT NULL,
  trace_id        text        NOT NULL,
  span_id         text        NOT NULL,
  parent_span_id  text,
  name            text        NOT NULL,
  status          text        NOT NULL,
  status_message  text,
  aggregate_type  text,
  aggregate_id    text,
  anomaly         text,
  attrs           jsonb       NOT NULL,
  received_at     timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (trace_id, span_id, time)
) PARTITION BY RANGE (time);

CREATE INDEX journey_steps_event ON journey_steps (event_id, time);
CREATE INDEX journey_steps_aggregate ON journey_steps (aggregate_id, time)
  WHERE aggregate_id IS NOT NULL;
CREATE INDEX journey_steps_anomaly ON journey_steps (anomaly, time) WHERE anomaly IS NOT NULL;
CREATE INDEX journey_steps_publish ON journey_steps (time, event_id)
  WHERE stage = 'outbox.publish';
