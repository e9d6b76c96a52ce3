// A connection ended by the server while it is checked out (57P01, as a restart, a failover or
// pg_terminate_backend ends it), in each state a checkout holds one: between two statements, in
// a transaction, holding a session advisory lock. pg-pool does not listen to a checked-out
// connection; without withClient's listener its `error` would end this test's process. Real
// PostgreSQL.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { createTestDatabase, waitFor, type TestDatabase } from '@acktrail/testing';
import { withClient, withTransaction } from './checkout.js';

let db: TestDatabase;
let pool: pg.Pool;
let admin: pg.Client;

before(async () => {
  db = await createTestDatabase('acktrail_checkout');
  pool = new pg.Pool({ connectionString: db.url, max: 2 });
  pool.on('error', () => undefined); // idle connections: pg-pool's own listener covers them
  admin = new pg.Client({ connectionString: db.url });
  await admin.connect();
});
after(async () => {
  await admin.end();
  await pool.end();
  await db.drop();
});

/** Ends the backend of `client` as an operator would, and waits until its socket has closed. */
async function terminate(client: pg.PoolClient): Promise<void> {
  const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
  // Not events.once: it listens for 'error' too, which is what must not be needed here.
  const ended = new Promise((resolve) => client.once('end', resolve));
  const r = await admin.query<{ ok: boolean }>('SELECT pg_terminate_backend($1) AS ok', [pid]);
  assert.equal(r.rows[0]!.ok, true);
  await ended; // after 'error': had nobody listened, the process would have ended before this
}

/** What is left of the pool once the checkout ended: the connection was closed, not reused. */
const settled = () =>
  waitFor('the ended connection gone from the pool', () => pool.totalCount === 0);

test('between two statements: the next one fails, the connection is closed, nothing crashes', async () => {
  const err = await withClient(pool, async (client) => {
    await client.query('SELECT 1');
    await terminate(client);
    await client.query('SELECT 2');
  }).then(
    () => assert.fail('a statement on an ended connection succeeded'),
    (e: unknown) => e as Error,
  );
  assert.match(err.message, /terminat|connection/i);
  await settled();
  assert.equal((await pool.query<{ n: number }>('SELECT 3 AS n')).rows[0]!.n, 3, 'pool usable');
});

test('in a transaction: rolled back by the server, the caller told, the pool usable', async () => {
  await pool.query('CREATE TABLE IF NOT EXISTS t (n int)');
  await assert.rejects(
    withTransaction(pool, async (client) => {
      await client.query('INSERT INTO t VALUES (1)');
      await terminate(client);
      await client.query('INSERT INTO t VALUES (2)');
    }),
  );
  await settled();
  assert.equal((await pool.query('SELECT * FROM t')).rowCount, 0, 'nothing of it committed');
});

test('holding a session advisory lock: released with the session, taken again at once', async () => {
  await assert.rejects(
    withClient(pool, async (client) => {
      await client.query('SELECT pg_advisory_lock(4242)');
      await terminate(client);
      await client.query('SELECT pg_advisory_unlock(4242)');
    }),
  );
  await settled();
  const again = await pool.query<{ ok: boolean }>('SELECT pg_try_advisory_lock(4242) AS ok');
  assert.equal(again.rows[0]!.ok, true);
});

test('a connection whose caller discards it is closed; a healthy one goes back', async () => {
  await withClient(pool, (client) => client.query('SELECT 1'));
  assert.equal(pool.idleCount, 1, 'kept for reuse');
  await withClient(pool, async (client, discard) => {
    await client.query('SET statement_timeout = 0');
    discard(new Error('a session setting could not be reset'));
  });
  await settled();
});
