// Confirmations: the order-to-confirmation latency histogram, fed from confirmations newer than
// a watermark (see watermark.ts for the choice), and the age of the oldest order still waiting.
// Where an event has a journey, the latest confirmation in each bucket is its exemplar (trace id
// from the journey store, event id from the row).
import { Gauge, Histogram, type Registry } from 'prom-client';
import type { ValidatedConfig } from '../../config.js';
import { ident, type Pool } from '../../db/pool.js';
import type { Collector } from '../runner/collector.js';
import { readNewRows } from './incremental.js';
import { BoundedLabel } from '../../labels.js';
import { WatermarkCursor, type TimedRow } from './watermark.js';
import type { Exemplars } from '../../exposition/exemplars.js';
import { latestTraces } from '../../journeys/store/index.js';
import type { Reader } from '../../journeys/store/index.js';
import { gauge, histogram } from '../../metrics/catalogue.js';

interface LatencyRow extends TimedRow {
  latency_seconds: number;
  event_type: string | null;
}

type Section = NonNullable<ValidatedConfig['confirmations']>;

export function latencySql(c: Section): string {
  if (c.latencyQuery) return c.latencyQuery;
  const { aggregates: a, results: r, eventTypes: t } = c;
  const eventType = t ? `e.${ident(t.type)}::text` : 'NULL::text';
  const join = t ? `LEFT JOIN ${ident(t.table)} e ON e.${ident(t.id)} = c.${ident(r.eventId)}` : '';
  return `SELECT c.${ident(r.eventId)}::text AS id, c.${ident(r.createdAt)} AS at,
                 extract(epoch FROM c.${ident(r.createdAt)} - o.${ident(a.createdAt)})::float8 AS latency_seconds,
                 ${eventType} AS event_type
            FROM ${ident(r.table)} c
            JOIN ${ident(a.table)} o ON o.${ident(a.id)} = c.${ident(r.aggregateId)}
            ${join}
           WHERE c.${ident(r.createdAt)} >= $1
             AND (c.${ident(r.createdAt)} > $1 OR c.${ident(r.eventId)}::text > $3)
           ORDER BY c.${ident(r.createdAt)}, c.${ident(r.eventId)}::text
           LIMIT $2`;
}

/** The oldest aggregate still waiting: by its status, or (without one) with no result yet. */
export function pendingSql(c: Section): { text: string; values: unknown[] } {
  if (c.pendingQuery) return { text: c.pendingQuery, values: [] };
  const { aggregates: a, results: r } = c;
  const age = `coalesce(extract(epoch FROM now() - min(o.${ident(a.createdAt)})), 0)::float8 AS oldest_age_seconds`;
  // config.ts requires pendingValue with status.
  if (a.status && a.pendingValue !== undefined)
    return {
      text: `SELECT ${age} FROM ${ident(a.table)} o WHERE o.${ident(a.status)} = $1`,
      values: [a.pendingValue],
    };
  return {
    text: `SELECT ${age} FROM ${ident(a.table)} o
            WHERE NOT EXISTS (SELECT 1 FROM ${ident(r.table)} c WHERE c.${ident(r.aggregateId)} = o.${ident(a.id)})`,
    values: [],
  };
}

export class ConfirmationsCollector implements Collector {
  readonly name = 'confirmations';
  readonly timeoutMs: number;
  private readonly latency: Histogram;
  private readonly oldestPending: Gauge;
  private readonly cursor: WatermarkCursor;
  private readonly eventTypes: BoundedLabel;
  private readonly latencyQuery: string;
  private readonly pendingQuery: { text: string; values: unknown[] };
  private readonly buckets: number[];

  constructor(
    private readonly pool: Pool,
    section: Section,
    latenessMs: number,
    registry: Registry,
    private readonly journeys: { reads: Reader; exemplars: Exemplars } | null = null,
  ) {
    this.timeoutMs = section.timeoutSeconds * 1000;
    this.eventTypes = new BoundedLabel(20, { registry, label: 'event_type' });
    this.cursor = new WatermarkCursor(latenessMs);
    this.latencyQuery = latencySql(section);
    this.pendingQuery = pendingSql(section);
    this.buckets = [...section.buckets].sort((a, b) => a - b);
    this.latency = new Histogram({
      ...histogram('acktrail_confirmation_latency_seconds', section.buckets),
      registers: [registry],
    });
    this.oldestPending = new Gauge({
      ...gauge('acktrail_oldest_pending_confirmation_age_seconds'),
      registers: [registry],
    });
  }

  async collect(): Promise<() => void> {
    const [fresh, pending] = await Promise.all([
      readNewRows<LatencyRow>(this.pool, this.cursor, this.latencyQuery),
      this.pool.query<{ oldest_age_seconds: number | null }>(this.pendingQuery),
    ]);
    const oldest = Math.max(0, pending.rows[0]?.oldest_age_seconds ?? 0);
    const traces = await this.traceIds(fresh);
    return () => {
      for (const r of fresh) {
        const labels = { event_type: this.eventTypes.of(r.event_type) };
        const seconds = Math.max(0, r.latency_seconds);
        this.latency.observe(labels, seconds);
        const traceId = traces.get(r.id);
        if (traceId)
          this.journeys?.exemplars.observe(
            'acktrail_confirmation_latency_seconds',
            this.buckets,
            labels,
            seconds,
            { traceId, eventId: r.id },
          );
      }
      this.oldestPending.set(oldest);
    };
  }

  /**
   * The trace of each event that will be a bucket's exemplar (the latest row in each bucket),
   * read from the journey store; none where the event has no journey, or the store does not
   * answer (exemplars are a help, never a reason for the collector to fail).
   */
  private async traceIds(rows: LatencyRow[]): Promise<Map<string, string>> {
    if (!this.journeys || rows.length === 0) return new Map();
    const latest = new Map<number, string>();
    for (const r of rows) {
      const i = this.buckets.findIndex((b) => Math.max(0, r.latency_seconds) <= b);
      latest.set(i, r.id);
    }
    try {
      return await latestTraces(this.journeys.reads, [...latest.values()]);
    } catch {
      return new Map();
    }
  }

  clear(): void {
    this.oldestPending.reset();
  }
}
