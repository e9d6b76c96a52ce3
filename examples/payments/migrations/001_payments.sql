-- The payments pipeline's schema: its own names, nothing like the reference pipeline's.
-- pay_intents: the aggregate. pay_outbox: the capture events, written with the intent in one
-- transaction. ledger_entries: the result, one per intent, keyed by the event that booked it.
CREATE TABLE pay_intents (
  intent_ref   text PRIMARY KEY,
  amount_cents bigint NOT NULL,
  currency     text NOT NULL,
  opened_at    timestamptz NOT NULL DEFAULT now(),
  phase        text NOT NULL DEFAULT 'open' -- open, booked
);

CREATE TABLE pay_outbox (
  msg_uuid    uuid PRIMARY KEY,
  intent_ref  text NOT NULL REFERENCES pay_intents,
  topic       text NOT NULL,
  inserted_ts timestamptz NOT NULL DEFAULT now(),
  sent_ts     timestamptz
);
CREATE INDEX pay_outbox_unsent ON pay_outbox (inserted_ts) WHERE sent_ts IS NULL;
CREATE INDEX pay_outbox_sent ON pay_outbox (sent_ts) WHERE sent_ts IS NOT NULL;

CREATE TABLE ledger_entries (
  msg_uuid   uuid PRIMARY KEY,
  intent_ref text NOT NULL UNIQUE REFERENCES pay_intents,
  booked_ts  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX ledger_entries_booked ON ledger_entries (booked_ts);
