// The head of a queue as the journeys see it (collectors/rabbitmq/heads.ts): the oldest event
// published towards it that no delivery from it has taken yet.
import { ATTR, SEMCONV } from '@acktrail/conventions';
import type { Reader } from './replica.js';
import { TOPIC_SUBJECT_SQL, topicSqlRegex } from '../../broker/topic.js';

/** A delivery this much before its publish (clocks of two services) still counts for it. */
const CLOCK_SKEW_MS = 5_000;

// The head: the oldest publish, after the time the head cannot be older than, that a binding
// routes to the queue, never unroutable, with no delivery of the same event from that queue
// since. Index-backed: the publishes' (time, event_id) index in time order, each checked against
// the event index.
const HEAD_SQL = `
SELECT (extract(epoch FROM p.time))::float8 AS published, p.event_id
  FROM journey_steps p
 WHERE p.stage IN ('outbox.publish', 'publish')
   AND p.time >= $1
   AND coalesce(p.attrs->>'${ATTR.publishOutcome}', '') <> 'unroutable'
   AND (
         (coalesce(p.attrs->>'${SEMCONV.destination}', ''), p.attrs->>'${SEMCONV.routingKey}')
           IN (SELECT * FROM unnest($2::text[], $3::text[]))
      OR coalesce(p.attrs->>'${SEMCONV.destination}', '') = ANY($4::text[])
      OR EXISTS (SELECT 1 FROM unnest($5::text[], $6::text[]) AS t(exchange, regex)
                  WHERE t.exchange = coalesce(p.attrs->>'${SEMCONV.destination}', '')
                    AND ${TOPIC_SUBJECT_SQL(`coalesce(p.attrs->>'${SEMCONV.routingKey}', '')`)} ~ t.regex)
       )
   AND NOT EXISTS (
         SELECT 1 FROM journey_steps d
          WHERE d.event_id = p.event_id AND d.stage = 'deliver'
            AND d.attrs->>'${ATTR.queue}' = $7
            AND d.time >= p.time - make_interval(secs => ${CLOCK_SKEW_MS / 1000})
       )
 ORDER BY p.time
 LIMIT 1`;

/** What reaches a queue: exact bindings, exchanges that route everything, binding patterns. */
export interface QueueRoutes {
  exact: readonly { exchange: string; key: string }[];
  any: readonly string[];
  /** Topic bindings: the exchange and the binding key (broker/topic.ts). */
  pattern: readonly { exchange: string; key: string }[];
}

/** The oldest publish since `since` that reaches the queue and was not delivered from it yet. */
export async function queueHead(
  reader: Reader,
  queue: string,
  routes: QueueRoutes,
  since: Date,
): Promise<{ publishedS: number; eventId: string } | null> {
  const { exact, any, pattern } = routes;
  const res = await reader.query<{ published: number; event_id: string }>(HEAD_SQL, [
    since,
    exact.map((r) => r.exchange),
    exact.map((r) => r.key),
    any,
    pattern.map((r) => r.exchange),
    pattern.map((r) => topicSqlRegex(r.key)),
    queue,
  ]);
  const row = res.rows[0];
  return row ? { publishedS: row.published, eventId: row.event_id } : null;
}
