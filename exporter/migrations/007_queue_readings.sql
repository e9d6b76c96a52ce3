-- The broker's counters of a queue as acktrail read them: deliveries, acks, messages delivered and
-- not yet acked, consumers. Kept only for the queues whose consumers' instrumentation records no
-- settle (the .NET client, pika, aio-pika, Spring, Bunny, the Java agent's nacks): where no span
-- says how a delivery ended, the counters of the window that holds it can (journeys/model/
-- inference.ts). A reading has no counts (null) where the broker gives none. Rows older than the
-- journeys' retention are deleted by the store's maintenance (journeys/store/queue-readings.ts).
CREATE TABLE queue_readings (
  queue text NOT NULL,
  vhost text NOT NULL,
  at timestamptz NOT NULL,
  delivered bigint,
  acked bigint,
  unacked integer,
  consumers integer,
  PRIMARY KEY (queue, at, vhost)
);
