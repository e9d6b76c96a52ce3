// The payments database: a pool, one transaction helper, and the schema (migrations/, applied in
// order, each once, under an advisory lock).
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

export type Pool = pg.Pool;
export type Client = pg.PoolClient;

export function createPool(connectionString: string, max = 5): pg.Pool {
  const pool = new pg.Pool({ connectionString, max });
  pool.on('error', () => undefined);
  return pool;
}

export async function inTransaction<T>(pool: pg.Pool, fn: (c: Client) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  // pg-pool stops listening to a checked-out client: a connection the server ends mid-transaction
  // (a restart, a failover, pg_terminate_backend) would emit 'error' unheard and end the process.
  let lost: Error | undefined;
  const onError = (err: Error) => {
    lost ??= err;
  };
  client.on('error', onError);
  try {
    await client.query('BEGIN');
    const out = await fn(client);
    await client.query('COMMIT');
    return out;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    lost ??= err as Error; // closed, not reused: its state after a failed transaction is unknown
    throw err;
  } finally {
    client.removeListener('error', onError);
    client.release(lost);
  }
}

export const MIGRATIONS_DIR = fileURLToPath(new URL('../migrations/', import.meta.url));

export async function migrate(connectionString: string): Promise<string[]> {
  const client = new pg.Client({ connectionString });
  client.on('error', () => undefined); // a lost connection fails the query that is waiting
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock(7461200002)');
    await client.query(
      'CREATE TABLE IF NOT EXISTS pay_schema (file text PRIMARY KEY, at timestamptz NOT NULL DEFAULT now())',
    );
    const done = new Set(
      (await client.query<{ file: string }>('SELECT file FROM pay_schema')).rows.map((r) => r.file),
    );
    const applied: string[] = [];
    for (const file of (await readdir(MIGRATIONS_DIR)).filter((f) => f.endsWith('.sql')).sort()) {
      if (done.has(file)) continue;
      await client.query('BEGIN');
      try {
        await client.query(await readFile(`${MIGRATIONS_DIR}${file}`, 'utf8'));
        await client.query('INSERT INTO pay_schema (file) VALUES ($1)', [file]);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK');
        throw new Error(`migration ${file} failed`, { cause: err });
      }
      applied.push(file);
    }
    return applied;
  } finally {
    await client.end();
  }
}
