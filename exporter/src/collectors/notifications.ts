// Notification status counts (pending / sent / failed). Counting every order is a full scan, so
// this collector refreshes at most every minIntervalSeconds, in the background, and its data age
// is exposed as acktrail_collector_data_age_seconds{collector="notifications"}.
import { Gauge, type Registry } from 'prom-client';
import type { ValidatedConfig } from '../config.js';
import { ident, type Pool } from '../db/pool.js';
import type { Collector } from './collector.js';
import { BoundedLabel } from '../labels.js';

export class NotificationsCollector implements Collector {
  readonly name = 'notifications';
  readonly timeoutMs: number;
  readonly minIntervalMs: number;
  private readonly gauge: Gauge;
  private readonly statuses: BoundedLabel;
  private readonly sql: string;

  constructor(
    private readonly pool: Pool,
    config: ValidatedConfig,
    registry: Registry,
  ) {
    const n = config.notifications;
    const c = config.confirmations;
    this.timeoutMs = n.timeoutSeconds * 1000;
    this.statuses = new BoundedLabel(20, { registry, label: 'status' });
    this.minIntervalMs = n.minIntervalSeconds * 1000;
    this.sql =
      n.query ??
      `SELECT ${ident(c.statusColumn)}::text AS status, count(*) AS count FROM ${ident(c.ordersTable)} GROUP BY 1`;
    this.gauge = new Gauge({
      name: 'acktrail_notifications',
      help: 'Orders by notification status (pending, sent, failed).',
      labelNames: ['status'],
      registers: [registry],
    });
  }

  async collect(): Promise<() => void> {
    const res = await this.pool.query<{ status: string | null; count: string }>(this.sql);
    return () => {
      this.gauge.reset();
      for (const status of ['pending', 'sent', 'failed']) this.gauge.set({ status }, 0);
      for (const r of res.rows)
        this.gauge.inc({ status: this.statuses.of(r.status) }, Number(r.count));
    };
  }
}
