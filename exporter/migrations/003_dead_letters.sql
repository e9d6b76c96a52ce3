-- Parked dead letters (exporter/src/deadletters/, docs/dead-letters.md): one row per message taken
-- from a dead-letter queue. What the message says (properties, headers, body) is sealed with
-- AES-256-GCM under ACKTRAIL_DEAD_LETTER_KEY; in the clear are only the broker's facts (queue,
-- routing, x-death's summary) and the masked reason that groups it.
CREATE TABLE dead_letters (
  id             bigserial   PRIMARY KEY,
  vhost          text        NOT NULL,
  queue          text        NOT NULL,
  event_id       text,
  parked_at      timestamptz NOT NULL DEFAULT now(),
  expires_at     timestamptz NOT NULL,
  -- parked | replaying | replayed | discarded | too_large
  state          text        NOT NULL,
  state_at       timestamptz NOT NULL DEFAULT now(),
  reason         text        NOT NULL,
  reason_source  text        NOT NULL,
  -- The reason with ids, numbers and addresses masked: what groups failures.
  reason_group   text        NOT NULL,
  exchange       text        NOT NULL,
  routing_key    text        NOT NULL,
  -- Where a replay publishes it, and what said so (x-death, a header, config).
  replay_exchange    text,
  replay_routing_key text,
  replay_source      text,
  deaths         jsonb       NOT NULL,
  body_bytes     integer     NOT NULL,
  key_id         text,
  sealed         bytea,
  last_error     text,
  replays        integer     NOT NULL DEFAULT 0,
  -- A message set aside as too large is listed once per broker copy (its delivery's identity).
  fingerprint    text        NOT NULL,
  -- The replay this message came back from (x-acktrail-replay-id), where its headers said.
  replayed_from  text
);

CREATE INDEX dead_letters_group ON dead_letters (queue, reason_group, parked_at) WHERE state = 'parked';
CREATE INDEX dead_letters_event ON dead_letters (event_id) WHERE event_id IS NOT NULL;
CREATE INDEX dead_letters_expiry ON dead_letters (expires_at);
CREATE INDEX dead_letters_fingerprint ON dead_letters (queue, fingerprint);
CREATE INDEX dead_letters_replayed_from ON dead_letters (replayed_from) WHERE replayed_from IS NOT NULL;

-- Every operator action and its outcome. Kept as long as the dead letters themselves.
CREATE TABLE dead_letter_audit (
  id         bigserial   PRIMARY KEY,
  at         timestamptz NOT NULL DEFAULT now(),
  actor      text        NOT NULL,
  action     text        NOT NULL,
  dead_letter_id bigint,
  event_id   text,
  queue      text,
  outcome    text        NOT NULL,
  detail     text
);
CREATE INDEX dead_letter_audit_at ON dead_letter_audit (at);
