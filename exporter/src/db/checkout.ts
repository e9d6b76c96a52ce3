// The one way acktrail checks a connection out of a pool. pg-pool listens for an idle
// connection's `error` (a restart, a failover, `pg_terminate_backend`: 57P01), but takes its
// listener off while the connection is checked out: one held between two statements (a
// transaction's steps, an advisory lock, a lookup between connect and query) that the server ends
// emits `error` with nobody listening, and Node ends the process. Here a checked-out connection
// is listened to for as long as it is out, and goes back broken (closed, never reused) when it
// failed. exporter/src/architecture.test.ts refuses `.connect()` on a pool anywhere else.
import type pg from 'pg';
import { beginOf } from './session.js';

/**
 * A database as its users see it: statements, and connections checked out here. A pool is one;
 * the journey store hands out nothing wider (its tables' other users, dead-letter parking).
 */
export type Database = Pick<pg.Pool, 'query' | 'connect'>;

/** What `fn` may do besides using the connection: close it on release instead of reusing it. */
export type Discard = (err: Error) => void;

/**
 * Runs `fn` on a connection of `pool`. The connection goes back to the pool when `fn` ends, or is
 * closed instead when it emitted `error` meanwhile, `fn` threw, or `fn` called `discard`; unless
 * `healthy(err)` says the error `fn` threw left it fit for reuse (a value the server refused).
 */
export async function withClient<T>(
  pool: Database,
  fn: (client: pg.PoolClient, discard: Discard) => Promise<T>,
  healthy: (err: unknown) => boolean = () => false,
): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  const lost = (err: Error) => {
    broken ??= err;
  };
  client.on('error', lost);
  try {
    return await fn(client, lost);
  } catch (err) {
    if (!healthy(err)) broken ??= err instanceof Error ? err : new Error(String(err));
    throw err;
  } finally {
    client.removeListener('error', lost);
    client.release(broken);
  }
}

/**
 * Runs `fn` inside a transaction on a connection of `pool` (BEGIN as the pool opens one, with
 * `prelude` in the same round trip), committed when `fn` returns, rolled back when it throws. The
 * connection is closed, not reused, when the transaction failed at all: a rollback that could not
 * be sent leaves it in an unknown state.
 */
export async function withTransaction<T>(
  pool: Database,
  fn: (client: pg.PoolClient) => Promise<T>,
  prelude = '',
): Promise<T> {
  return withClient(pool, async (client) => {
    await client.query(prelude ? `${beginOf(pool)}; ${prelude}` : beginOf(pool));
    try {
      const result = await fn(client);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    }
  });
}
