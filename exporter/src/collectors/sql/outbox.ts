// Outbox: backlog and oldest unpublished age per table (both index-only on the partial index of
// unpublished rows; the age is 0 when the backlog is empty, never absent), and the published
// total, counted incrementally from published_at.
import { Counter, Gauge, type Registry } from 'prom-client';
import type { ValidatedConfig } from '../../config.js';
import { ident, type Pool } from '../../db/pool.js';
import type { Collector } from '../runner/collector.js';
import { readNewRows } from './incremental.js';
import { WatermarkCursor, type TimedRow } from './watermark.js';
import { counter, gauge } from '../../metrics/catalogue.js';

type Section = NonNullable<ValidatedConfig['outbox']>;
type Table = Section['tables'][number];

export class OutboxCollector implements Collector {
  readonly name = 'outbox';
  readonly timeoutMs: number;
  private readonly unpublished: Gauge;
  private readonly oldestAge: Gauge;
  private readonly published: Counter;
  private readonly cursors = new Map<string, WatermarkCursor>();

  constructor(
    private readonly pool: Pool,
    private readonly section: Section,
    latenessMs: number,
    registry: Registry,
  ) {
    this.timeoutMs = section.timeoutSeconds * 1000;
    this.unpublished = new Gauge({
      ...gauge('acktrail_outbox_unpublished_events'),
      registers: [registry],
    });
    this.oldestAge = new Gauge({
      ...gauge('acktrail_outbox_oldest_unpublished_age_seconds'),
      registers: [registry],
    });
    this.published = new Counter({
      ...counter('acktrail_outbox_published_events_total'),
      registers: [registry],
    });
    for (const t of section.tables) {
      this.cursors.set(t.table, new WatermarkCursor(latenessMs));
      this.published.inc({ table: t.table }, 0);
    }
  }

  async collect(): Promise<() => void> {
    const results = await Promise.all(this.section.tables.map((t) => this.readTable(t)));
    return () => {
      for (const r of results) {
        this.unpublished.set({ table: r.table }, r.unpublished);
        this.oldestAge.set({ table: r.table }, r.oldestAgeSeconds);
        this.published.inc({ table: r.table }, r.newlyPublished);
      }
    };
  }

  clear(): void {
    this.unpublished.reset();
    this.oldestAge.reset();
  }

  private async readTable(t: Table) {
    const table = ident(t.table);
    const backlog = await this.pool.query<{ unpublished: string; oldest_age_seconds: number }>(
      `SELECT count(*) AS unpublished,
              coalesce(extract(epoch FROM now() - min(${ident(t.createdAt)})), 0)::float8 AS oldest_age_seconds
         FROM ${table} WHERE ${ident(t.publishedAt)} IS NULL`,
    );
    const fresh = await readNewRows<TimedRow>(
      this.pool,
      this.cursors.get(t.table)!,
      `SELECT ${ident(t.id)}::text AS id, ${ident(t.publishedAt)} AS at
         FROM ${table}
        WHERE ${ident(t.publishedAt)} >= $1
          AND (${ident(t.publishedAt)} > $1 OR ${ident(t.id)}::text > $3)
        ORDER BY ${ident(t.publishedAt)}, ${ident(t.id)}::text LIMIT $2`,
    );
    const row = backlog.rows[0]!;
    return {
      table: t.table,
      unpublished: Number(row.unpublished),
      oldestAgeSeconds: Math.max(0, row.oldest_age_seconds),
      newlyPublished: fresh.length,
    };
  }
}
