import pg from 'pg';

export type Pool = pg.Pool;

/**
 * A small pool for the pipeline's database. Every session is read-only and every statement has a
 * timeout, on top of the read-only role the exporter should connect as (docs/metrics.md).
 */
export function createReadOnlyPool(connectionString: string, statementTimeoutMs: number): pg.Pool {
  const pool = new pg.Pool({
    connectionString,
    max: 4,
    connectionTimeoutMillis: 2000,
    idleTimeoutMillis: 30_000,
    statement_timeout: statementTimeoutMs,
    options: '-c default_transaction_read_only=on',
    application_name: 'acktrail-exporter',
  });
  // A dropped idle connection (database restart) must not crash the process.
  pool.on('error', () => undefined);
  return pool;
}

/** Quotes a validated name (`column`, `table` or `schema.table`) for use in generated SQL. */
export function ident(name: string): string {
  return name
    .split('.')
    .map((part) => `"${part.replace(/"/g, '""')}"`)
    .join('.');
}
