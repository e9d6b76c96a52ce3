// The reads of stored steps: one event's steps (by event id, trace or message id), lists of events
// by aggregate or anomaly with keyset pagination on (last step time, event_id), and for the parts
// beside the API the latest trace of events (exemplars) and an aggregate's steps (Celery's
// workflows). The writes are step-store.ts's; where reads go, replica.ts's.
import { ATTR, SEMCONV, type AttributeValue } from '@acktrail/conventions';
import type { VersionedDelivery } from '../model/ordering.js';
import { STEP_ATTR, type Stage, type StoredRow } from '../model/steps.js';
import { eventDays } from './event-days.js';
import type { Reader } from './replica.js';

export interface EventSummary {
  eventId: string;
  aggregateType: string | null;
  aggregateId: string | null;
  firstSeenUs: number;
  lastSeenUs: number;
  steps: number;
  anomalies: string[];
}

/** A step of a trace, as a lookup by trace id reads it. */
export interface TraceStep {
  eventId: string;
  stage: string;
  spanId: string;
  messageKey: string | null;
}

export interface Cursor {
  lastUs: number;
  eventId: string;
}

export const MAX_STEPS = 2000;

export class StepReads {
  constructor(private readonly pool: Reader) {}

  /**
   * The steps of one journey key (an event id, or a message's trace context), or of several at
   * once, read from the partitions of their days only (journey_events).
   */
  async steps(keys: string | readonly string[]): Promise<StoredRow[]> {
    const ids = typeof keys === 'string' ? [keys] : [...keys];
    if (ids.length === 0) return [];
    const days = await eventDays(this.pool, ids);
    if (!days) return [];
    const res = await this.pool.query<{
      event_id: string;
      t: number;
      duration_us: string;
      stage: Stage;
      service: string;
      trace_id: string;
      span_id: string;
      parent_span_id: string | null;
      name: string;
      status: string;
      status_message: string | null;
      aggregate_type: string | null;
      aggregate_id: string | null;
      anomaly: string | null;
      attrs: Record<string, AttributeValue>;
    }>(
      `SELECT event_id, (extract(epoch FROM time) * 1e6)::float8 AS t, duration_us, stage, service,
              trace_id, span_id, parent_span_id, name, status, status_message, aggregate_type,
              aggregate_id, anomaly, attrs
         FROM journey_steps WHERE event_id = ANY($1) AND time >= $2 AND time < $3
        ORDER BY time, span_id LIMIT ${MAX_STEPS}`,
      [ids, days.from, days.to],
    );
    return res.rows.map((r) => ({
      eventId: r.event_id,
      timeUs: Math.round(r.t),
      durationUs: Number(r.duration_us),
      stage: r.stage,
      service: r.service,
      traceId: r.trace_id,
      spanId: r.span_id,
      parentSpanId: r.parent_span_id,
      name: r.name,
      status: r.status,
      statusMessage: r.status_message,
      aggregateType: r.aggregate_type,
      aggregateId: r.aggregate_id,
      anomaly: r.anomaly,
      attrs: r.attrs,
    }));
  }

  /**
   * The steps of one trace, as far as its journeys go: each step's journey key, stage, span and
   * message key (at most MAX_STEPS). Found by the primary key, whose first column is the trace.
   */
  async ofTrace(traceId: string): Promise<TraceStep[]> {
    const res = await this.pool.query<{
      event_id: string;
      stage: string;
      span_id: string;
      message_key: string | null;
    }>(
      `SELECT event_id, stage, span_id, attrs->>'${STEP_ATTR.messageKey}' AS message_key
         FROM journey_steps WHERE trace_id = $1 ORDER BY time LIMIT ${MAX_STEPS}`,
      [traceId],
    );
    return res.rows.map((r) => ({
      eventId: r.event_id,
      stage: r.stage,
      spanId: r.span_id,
      messageKey: r.message_key,
    }));
  }

  /** The journeys whose spans recorded this message id beside another event id (at most 20). */
  async ofMessageId(messageId: string): Promise<string[]> {
    const res = await this.pool.query<{ event_id: string }>(
      `SELECT DISTINCT event_id FROM journey_steps
        WHERE attrs->>'${SEMCONV.messageId}' = $1 AND attrs ? '${SEMCONV.messageId}' LIMIT 20`,
      [messageId],
    );
    return res.rows.map((r) => r.event_id);
  }

  /** Event ids whose steps match, newest last step first, after the cursor. */
  async eventIds(
    filter: { aggregateId?: string; anomaly?: string; publishedTwice?: boolean },
    sinceUs: number,
    cursor: Cursor | null,
    limit: number,
  ): Promise<Cursor[]> {
    const where = ['time >= to_timestamp($1 / 1e6)'];
    const params: unknown[] = [sinceUs];
    if (filter.aggregateId !== undefined) {
      params.push(filter.aggregateId);
      where.push(`aggregate_id = $${params.length}`);
    }
    if (filter.anomaly !== undefined) {
      params.push(filter.anomaly);
      where.push(`anomaly = $${params.length}`);
    }
    let having = '';
    if (filter.publishedTwice) {
      where.push(`stage IN ('outbox.publish', 'publish') AND anomaly IS NULL`);
      having = 'count(*) > 1';
    }
    if (cursor) {
      params.push(cursor.lastUs, cursor.eventId);
      const c = `(max(time), event_id) < (to_timestamp($${params.length - 1} / 1e6), $${params.length})`;
      having = having ? `${having} AND ${c}` : c;
    }
    params.push(limit);
    const res = await this.pool.query<{ event_id: string; t: number }>(
      `SELECT event_id, (extract(epoch FROM max(time)) * 1e6)::float8 AS t
         FROM journey_steps WHERE ${where.join(' AND ')}
        GROUP BY event_id ${having ? `HAVING ${having}` : ''}
        ORDER BY max(time) DESC, event_id DESC LIMIT $${params.length}`,
      params,
    );
    return res.rows.map((r) => ({ eventId: r.event_id, lastUs: Math.round(r.t) }));
  }

  /** The versioned deliveries of an aggregate, oldest first (at most 1000). */
  async versionedDeliveries(aggregateId: string): Promise<VersionedDelivery[]> {
    const res = await this.pool.query<{
      event_id: string;
      v: string;
      t: number;
      result: string | null;
    }>(
      `SELECT event_id, (attrs->>'${ATTR.aggregateVersion}')::bigint::text AS v,
              (extract(epoch FROM time) * 1e6)::float8 AS t, attrs->>'${ATTR.result}' AS result
         FROM journey_steps
        WHERE aggregate_id = $1 AND stage = 'deliver' AND attrs ? '${ATTR.aggregateVersion}'
        ORDER BY time LIMIT 1000`,
      [aggregateId],
    );
    return res.rows.map((r) => ({
      eventId: r.event_id,
      aggregateId,
      version: Number(r.v),
      timeUs: Math.round(r.t),
      result: r.result,
    }));
  }

  async summaries(eventIds: string[]): Promise<Map<string, EventSummary>> {
    if (eventIds.length === 0) return new Map();
    const days = await eventDays(this.pool, eventIds);
    if (!days) return new Map();
    const res = await this.pool.query<{
      event_id: string;
      aggregate_type: string | null;
      aggregate_id: string | null;
      first: number;
      last: number;
      n: number;
      anomalies: string[] | null;
    }>(
      `SELECT event_id, max(aggregate_type) AS aggregate_type, max(aggregate_id) AS aggregate_id,
              (extract(epoch FROM min(time)) * 1e6)::float8 AS first,
              (extract(epoch FROM max(time)) * 1e6)::float8 AS last, count(*)::int AS n,
              array_agg(DISTINCT anomaly) FILTER (WHERE anomaly IS NOT NULL) AS anomalies
         FROM journey_steps WHERE event_id = ANY($1) AND time >= $2 AND time < $3
        GROUP BY event_id`,
      [eventIds, days.from, days.to],
    );
    return new Map(
      res.rows.map((r) => [
        r.event_id,
        {
          eventId: r.event_id,
          aggregateType: r.aggregate_type,
          aggregateId: r.aggregate_id,
          firstSeenUs: Math.round(r.first),
          lastSeenUs: Math.round(r.last),
          steps: r.n,
          anomalies: r.anomalies ?? [],
        },
      ]),
    );
  }
}

/** The trace of each event's latest step, for the events that have any. */
export async function latestTraces(
  reader: Reader,
  eventIds: readonly string[],
): Promise<Map<string, string>> {
  if (eventIds.length === 0) return new Map();
  const res = await reader.query<{ event_id: string; trace_id: string }>(
    `SELECT DISTINCT ON (event_id) event_id, trace_id FROM journey_steps
      WHERE event_id = ANY($1) ORDER BY event_id, time DESC`,
    [[...new Set(eventIds)]],
  );
  return new Map(res.rows.map((r) => [r.event_id, r.trace_id]));
}

/** The steps of one aggregate (its type and id), in time order, at most MAX_STEPS. */
export async function aggregateSteps(
  reader: Reader,
  aggregateType: string,
  aggregateId: string,
): Promise<{ eventId: string; stage: string; attrs: Record<string, unknown> }[]> {
  const res = await reader.query<{
    event_id: string;
    stage: string;
    attrs: Record<string, unknown>;
  }>(
    `SELECT event_id, stage, attrs FROM journey_steps
      WHERE aggregate_id = $1 AND aggregate_type = $2
      ORDER BY time LIMIT ${MAX_STEPS}`,
    [aggregateId, aggregateType],
  );
  return res.rows.map((r) => ({ eventId: r.event_id, stage: r.stage, attrs: r.attrs }));
}
