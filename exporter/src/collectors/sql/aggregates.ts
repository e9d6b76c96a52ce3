// Counts of aggregates by the status of their event's work (the reference pipeline's: pending /
// sent / failed). Counting every aggregate is a full scan, so this collector refreshes at most
// every minIntervalSeconds, in the background, and its data age is exposed as
// acktrail_collector_data_age_seconds{collector="aggregates"}.
import { Gauge, type Registry } from 'prom-client';
import type { ValidatedConfig } from '../../config.js';
import { ident, type Pool } from '../../db/pool.js';
import type { Collector } from '../runner/collector.js';
import { BoundedLabel } from '../../labels.js';
import { gauge } from '../../metrics/catalogue.js';

export class AggregatesCollector implements Collector {
  readonly name = 'aggregates';
  readonly timeoutMs: number;
  readonly minIntervalMs: number;
  private readonly gauge: Gauge;
  private readonly statuses: BoundedLabel;
  private readonly sql: string;
  private readonly seen = new Set<string>();

  /**
   * `aggregates`: the table and status column counted (config validation makes sure there is a
   * status column when there is no query).
   */
  constructor(
    private readonly pool: Pool,
    n: NonNullable<ValidatedConfig['aggregateCounts']>,
    aggregates: { table: string; status?: string | undefined } | undefined,
    registry: Registry,
  ) {
    this.timeoutMs = n.timeoutSeconds * 1000;
    this.statuses = new BoundedLabel(20, { registry, label: 'status' });
    this.minIntervalMs = n.minIntervalSeconds * 1000;
    this.sql =
      n.query ??
      `SELECT ${ident(aggregates!.status!)}::text AS status, count(*) AS count FROM ${ident(aggregates!.table)} GROUP BY 1`;
    this.gauge = new Gauge({ ...gauge('acktrail_aggregates'), registers: [registry] });
  }

  async collect(): Promise<() => void> {
    const res = await this.pool.query<{ status: string | null; count: string }>(this.sql);
    return () => {
      // A status no row has any more goes to 0, not away: a panel of it shows the drop.
      for (const status of this.seen) this.gauge.set({ status }, 0);
      for (const r of res.rows) {
        const status = this.statuses.of(r.status);
        this.seen.add(status);
        this.gauge.inc({ status }, Number(r.count));
      }
    };
  }
}
