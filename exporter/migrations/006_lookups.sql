-- What support has in hand besides an event id (journeys/service.ts): a message id the spans
-- recorded beside another event id (messaging.message.id is kept only when it differs from the
-- step's event id, so the index holds only those rows). A trace id is found by the primary key,
-- whose first column it is.
CREATE INDEX journey_steps_message_id ON journey_steps ((attrs->>'messaging.message.id'))
  WHERE attrs ? 'messaging.message.id';

-- A parked dead letter's message key: the trace context its headers carry (traceparent), which is
-- the journey key of spans that record no message id (the Java agent's, Spring's), so that the
-- journey of such a message shows it parked (deadletters/row-of.ts).
ALTER TABLE dead_letters ADD COLUMN message_key text;
CREATE INDEX dead_letters_message_key ON dead_letters (message_key) WHERE message_key IS NOT NULL;
