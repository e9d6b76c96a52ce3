// The head of each queue with messages waiting, from the journeys: the oldest publish that
// reaches the queue by its bindings and has no delivery from it yet. Its event id is what the
// queue API and the dashboard link to; its publish time is the head age of queues the broker gives
// no head timestamp for (quorum and stream queues, and classic queues whose messages carry no
// timestamp property), served by the depth collector as acktrail_queue_head_age_seconds. Read in
// the background from the journey store (SQL: the same answer on every exporter replica), at most
// every rabbitmq.statsIntervalSeconds.
import { ATTR, SEMCONV } from '@acktrail/conventions';
import type { Reader } from '../journeys/store/reads.js';
import type { Collector } from './collector.js';
import type { JourneyHead, QueueCatalog, WaitingQueue } from './rabbitmq/catalog.js';
import { queueKey } from './rabbitmq/detailed.js';

/** A delivery this much before its publish (clocks of two services) still counts for it. */
const CLOCK_SKEW_MS = 5_000;
/**
 * The search starts this much before the time the head cannot be older than (the queue seen
 * empty, the broker's head timestamp, the last head found): the broker's statistics are emitted
 * every 5 s by default, and the publishers' clocks differ.
 */
const MARGIN_MS = 60_000;
/** Queues looked up per run, those with the oldest bound first: a bound on one run's work. */
const MAX_QUEUES = 200;

// The head: the oldest publish, after the time the head cannot be older than, that a binding routes to it,
// never unroutable, with no delivery of the same event from that queue since. Index-backed: the
// publishes' (time, event_id) index in time order, each checked against the event index.
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
                    AND ('.' || coalesce(p.attrs->>'${SEMCONV.routingKey}', '')) ~ t.regex)
       )
   AND NOT EXISTS (
         SELECT 1 FROM journey_steps d
          WHERE d.event_id = p.event_id AND d.stage = 'deliver'
            AND d.attrs->>'${ATTR.queue}' = $7
            AND d.time >= p.time - make_interval(secs => ${CLOCK_SKEW_MS / 1000})
       )
 ORDER BY p.time
 LIMIT 1`;

export class QueueHeadsCollector implements Collector {
  readonly name = 'queue_heads';
  readonly timeoutMs: number;
  readonly minIntervalMs: number;

  constructor(
    private readonly pool: Reader,
    private readonly catalog: QueueCatalog,
    private readonly retentionDays: number,
    intervalSeconds: number,
    timeoutSeconds: number,
  ) {
    this.minIntervalMs = intervalSeconds * 1000;
    this.timeoutMs = timeoutSeconds * 1000;
  }

  async collect(signal: AbortSignal): Promise<() => void> {
    const waiting = this.catalog
      .waiting()
      .sort((a, b) => (a.notBeforeMs ?? 0) - (b.notBeforeMs ?? 0));
    // Past the bound, a waiting queue keeps the head found for it before.
    const heads = new Map<string, JourneyHead>();
    for (const q of waiting.slice(MAX_QUEUES)) {
      const key = queueKey(q.vhost, q.queue);
      const before = this.catalog.journeyHead(key);
      if (before) heads.set(key, before);
    }
    for (const q of waiting.slice(0, MAX_QUEUES)) {
      if (signal.aborted) break;
      const head = await this.head(q);
      if (head) heads.set(queueKey(q.vhost, q.queue), head);
    }
    return () => {
      this.catalog.updateJourneyHeads(heads);
    };
  }

  private async head(q: WaitingQueue): Promise<JourneyHead | null> {
    const oldest = Date.now() - this.retentionDays * 86_400_000;
    // A queue with no bound at all (never seen empty, no timestamp, no head found yet) is searched
    // over the whole retention window, once: the head found then bounds the next searches.
    const since = new Date(Math.max(oldest, (q.notBeforeMs ?? oldest) - MARGIN_MS));
    const { exact, any, pattern } = q.routes;
    const res = await this.pool.query<{ published: number; event_id: string }>(HEAD_SQL, [
      since,
      exact.map((r) => r.exchange),
      exact.map((r) => r.key),
      any,
      pattern.map((r) => r.exchange),
      pattern.map((r) => r.regex),
      q.queue,
    ]);
    const row = res.rows[0];
    return row ? { publishedS: row.published, eventId: row.event_id } : null;
  }
}
