// Confirmations: the order-to-confirmation latency histogram, fed from confirmations newer than
// a watermark (see watermark.ts for the choice), and the age of the oldest order still waiting.
import { Gauge, Histogram, type Registry } from 'prom-client';
import type { ValidatedConfig } from '../config.js';
import { ident, type Pool } from '../db/pool.js';
import type { Collector } from './collector.js';
import { readNewRows } from './incremental.js';
import { BoundedLabel } from '../labels.js';
import { WatermarkCursor, type TimedRow } from './watermark.js';

interface LatencyRow extends TimedRow {
  latency_seconds: number;
  event_type: string | null;
}

export function latencySql(c: ValidatedConfig['confirmations']): string {
  if (c.latencyQuery) return c.latencyQuery;
  const eventType = c.eventsTable ? 'e.event_type' : 'NULL::text';
  const join = c.eventsTable
    ? `LEFT JOIN ${ident(c.eventsTable)} e ON e.id = c.${ident(c.confirmationEventId)}`
    : '';
  return `SELECT c.${ident(c.confirmationEventId)}::text AS id, c.${ident(c.confirmationCreatedAt)} AS at,
                 extract(epoch FROM c.${ident(c.confirmationCreatedAt)} - o.${ident(c.orderCreatedAt)})::float8 AS latency_seconds,
                 ${eventType} AS event_type
            FROM ${ident(c.confirmationsTable)} c
            JOIN ${ident(c.ordersTable)} o ON o.${ident(c.orderId)} = c.${ident(c.confirmationOrderId)}
            ${join}
           WHERE c.${ident(c.confirmationCreatedAt)} >= $1
             AND (c.${ident(c.confirmationCreatedAt)} > $1 OR c.${ident(c.confirmationEventId)}::text > $3)
           ORDER BY c.${ident(c.confirmationCreatedAt)}, c.${ident(c.confirmationEventId)}::text
           LIMIT $2`;
}

export function pendingSql(c: ValidatedConfig['confirmations']): {
  text: string;
  values: unknown[];
} {
  if (c.pendingQuery) return { text: c.pendingQuery, values: [] };
  return {
    text: `SELECT coalesce(extract(epoch FROM now() - min(${ident(c.orderCreatedAt)})), 0)::float8 AS oldest_age_seconds
             FROM ${ident(c.ordersTable)} WHERE ${ident(c.statusColumn)} = $1`,
    values: [c.pendingValue],
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

  constructor(
    private readonly pool: Pool,
    config: ValidatedConfig,
    registry: Registry,
  ) {
    this.timeoutMs = config.confirmations.timeoutSeconds * 1000;
    this.eventTypes = new BoundedLabel(20, { registry, label: 'event_type' });
    this.cursor = new WatermarkCursor(config.watermarkLatenessSeconds * 1000);
    this.latencyQuery = latencySql(config.confirmations);
    this.pendingQuery = pendingSql(config.confirmations);
    this.latency = new Histogram({
      name: 'acktrail_confirmation_latency_seconds',
      help: 'Time from order created to confirmation committed, for confirmations seen since the exporter started.',
      labelNames: ['event_type'],
      buckets: config.confirmations.buckets,
      registers: [registry],
    });
    this.oldestPending = new Gauge({
      name: 'acktrail_oldest_pending_confirmation_age_seconds',
      help: 'Age of the oldest order still waiting for its confirmation; 0 when none waits.',
      registers: [registry],
    });
  }

  async collect(): Promise<() => void> {
    const [fresh, pending] = await Promise.all([
      readNewRows<LatencyRow>(this.pool, this.cursor, this.latencyQuery),
      this.pool.query<{ oldest_age_seconds: number | null }>(this.pendingQuery),
    ]);
    const oldest = Math.max(0, pending.rows[0]?.oldest_age_seconds ?? 0);
    return () => {
      for (const r of fresh) {
        this.latency.observe(
          { event_type: this.eventTypes.of(r.event_type) },
          Math.max(0, r.latency_seconds),
        );
      }
      this.oldestPending.set(oldest);
    };
  }

  clear(): void {
    this.oldestPending.reset();
  }
}
