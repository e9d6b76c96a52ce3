import pg from 'pg';

// bigint ids and counts come back as strings by default; ours fit in a JS number.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => Number(v));

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;

export function createPool(connectionString: string, max = 10): pg.Pool {
  const pool = new pg.Pool({ connectionString, max });
  // An idle client losing its connection (database restart) must not crash the process.
  pool.on('error', () => undefined);
  return pool;
}

/** Runs fn inside BEGIN/COMMIT, rolling back on any error. */
export async function inTransaction<T>(
  pool: pg.Pool,
  fn: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
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
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    lost ??= err as Error; // closed, not reused: its state after a failed transaction is unknown
    throw err;
  } finally {
    client.removeListener('error', onError);
    client.release(lost);
  }
}
