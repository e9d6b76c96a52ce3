-- The reference pipeline's schema (seed 000): orders, their transactional outbox, the
-- idempotent confirmation result and every provider attempt.

CREATE TABLE orders (
  id                  bigserial PRIMARY KEY,
  status              text NOT NULL DEFAULT 'created' CHECK (status IN ('created', 'cancelled')),
  total               numeric(12, 2) NOT NULL CHECK (total >= 0),
  customer_email      text NOT NULL,
  notification_status text NOT NULL DEFAULT 'pending'
                        CHECK (notification_status IN ('pending', 'sent', 'failed')),
  created_at          timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE outbox_events (
  id                 uuid PRIMARY KEY,               -- the event_id, stable across re-publishes
  event_type         text NOT NULL,
  aggregate_id       bigint NOT NULL REFERENCES orders (id),
  schema_version     integer NOT NULL,
  payload            jsonb NOT NULL,
  trace_context      jsonb,                          -- W3C traceparent/tracestate of the writer
  created_at         timestamptz NOT NULL DEFAULT now(),
  published_at       timestamptz,
  publish_attempts   integer NOT NULL DEFAULT 0,
  last_publish_error text,                           -- e.g. 'unroutable: NO_ROUTE'
  next_attempt_at    timestamptz                     -- back-off after a failed publish
);

-- The relay's scan and "oldest unpublished" are index-only lookups on this small index.
CREATE INDEX outbox_events_unpublished_idx
  ON outbox_events (created_at)
  WHERE published_at IS NULL;

CREATE INDEX outbox_events_aggregate_idx ON outbox_events (aggregate_id);

CREATE TABLE order_confirmations (
  event_id   uuid PRIMARY KEY,
  order_id   bigint NOT NULL UNIQUE REFERENCES orders (id),
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE notification_attempts (
  id          bigserial PRIMARY KEY,
  event_id    uuid NOT NULL,
  attempt     integer NOT NULL CHECK (attempt >= 1),
  provider    text NOT NULL,
  outcome     text NOT NULL CHECK (outcome IN
                ('success', 'transient_error', 'permanent_error', 'timeout', 'idempotent_replay')),
  status_code integer,                               -- NULL when no HTTP answer came back
  duration    interval NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX notification_attempts_event_idx ON notification_attempts (event_id, attempt);
CREATE INDEX notification_attempts_created_idx ON notification_attempts (created_at);
