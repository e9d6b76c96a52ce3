// Provider calls: requests by provider and outcome, and the duration histogram, fed from the
// attempts table newer than a watermark (see watermark.ts).
import { PROVIDER_OUTCOMES } from '@acktrail/conventions';
import { Counter, Histogram, type Registry } from 'prom-client';
import type { ValidatedConfig } from '../../config.js';
import { ident, type Pool } from '../../db/pool.js';
import type { Collector } from '../runner/collector.js';
import { readNewRows } from './incremental.js';
import { BoundedLabel } from '../../labels.js';
import { WatermarkCursor, type TimedRow } from './watermark.js';
import { counter, histogram } from '../../metrics/catalogue.js';

interface AttemptRow extends TimedRow {
  provider: string | null;
  outcome: string | null;
  duration_seconds: number | null;
}

type Section = NonNullable<ValidatedConfig['provider']>;

export function providerSql(p: Section): string {
  if (p.query) return p.query;
  return `SELECT ${ident(p.id)}::text AS id, ${ident(p.createdAt)} AS at, ${ident(p.provider)}::text AS provider,
                 ${ident(p.outcome)}::text AS outcome, extract(epoch FROM ${ident(p.duration)})::float8 AS duration_seconds
            FROM ${ident(p.table)}
           WHERE ${ident(p.createdAt)} >= $1
             AND (${ident(p.createdAt)} > $1 OR ${ident(p.id)}::text > $3)
           ORDER BY ${ident(p.createdAt)}, ${ident(p.id)}::text
           LIMIT $2`;
}

export class ProviderCollector implements Collector {
  readonly name = 'provider';
  readonly timeoutMs: number;
  private readonly requests: Counter;
  private readonly duration: Histogram;
  private readonly cursor: WatermarkCursor;
  private readonly providers: BoundedLabel;
  private readonly sql: string;

  constructor(
    private readonly pool: Pool,
    section: Section,
    latenessMs: number,
    registry: Registry,
  ) {
    this.timeoutMs = section.timeoutSeconds * 1000;
    this.cursor = new WatermarkCursor(latenessMs);
    this.providers = new BoundedLabel(section.maxProviders, { registry, label: 'provider' });
    this.sql = providerSql(section);
    this.requests = new Counter({
      ...counter('acktrail_provider_requests_total'),
      registers: [registry],
    });
    this.duration = new Histogram({
      ...histogram('acktrail_provider_request_duration_seconds', section.buckets),
      registers: [registry],
    });
  }

  async collect(): Promise<() => void> {
    const fresh = await readNewRows<AttemptRow>(this.pool, this.cursor, this.sql);
    return () => {
      for (const r of fresh) {
        const provider = this.providers.of(r.provider);
        const outcome = (PROVIDER_OUTCOMES as readonly string[]).includes(r.outcome ?? '')
          ? r.outcome!
          : 'other';
        this.requests.inc({ provider, outcome });
        if (r.duration_seconds !== null)
          this.duration.observe({ provider }, Math.max(0, r.duration_seconds));
      }
    };
  }
}
