import pg from 'pg';
import { sessionSettings, type Pooler } from './session.js';

export type Pool = pg.Pool;

/**
 * A small pool for the pipeline's database. Every session is read-only and every statement has a
 * timeout, on top of the read-only role the exporter should connect as (docs/metrics.md).
 */
export function createReadOnlyPool(
  connectionString: string,
  statementTimeoutMs: number,
  max = 4,
  pooler: Pooler = 'none',
): pg.Pool {
  return new pg.Pool({
    connectionString,
    max,
    connectionTimeoutMillis: Math.min(statementTimeoutMs, 5000),
    idleTimeoutMillis: 30_000,
    // Behind a pooler, read-only and the server's timeout come from the role (docs/metrics.md).
    ...sessionSettings(pooler, { statementTimeoutMs, readOnly: true }),
    application_name: 'acktrail-exporter',
  });
}

/**
 * One read-only pool per reader of the pipeline's database, each with the reader's own statement
 * timeout: a query that a collector's runner gives up on is cancelled by PostgreSQL at the same
 * moment, so it never keeps holding a connection that the next scrape needs.
 */
export class ReadOnlyPools {
  private readonly pools: pg.Pool[] = [];

  /** @param onError an idle connection that drops (a restart of PostgreSQL): logged and counted. */
  constructor(
    private readonly url: string,
    private readonly pooler: Pooler,
    private readonly onError: (err: Error) => void,
  ) {}

  create(statementTimeoutMs: number, max = 2): pg.Pool {
    const pool = createReadOnlyPool(this.url, statementTimeoutMs, max, this.pooler);
    pool.on('error', this.onError);
    this.pools.push(pool);
    return pool;
  }

  async end(): Promise<void> {
    await Promise.all(this.pools.map((p) => p.end()));
  }
}

/** Quotes a validated name (`column`, `table` or `schema.table`) for use in generated SQL. */
export function ident(name: string): string {
  return name
    .split('.')
    .map((part) => `"${part.replace(/"/g, '""')}"`)
    .join('.');
}
