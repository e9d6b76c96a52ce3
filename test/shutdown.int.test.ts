// SIGTERM drains the exporter: it stops taking connections, lets the requests in flight wait for
// their commits and answer, then exits 0. Nothing answered 200 is lost, nothing is cut mid-way.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { type TestDatabase, waitFor } from '@acktrail/testing';
import { createTestDatabase } from '@acktrail/orders-example/testing';
import { startExporterProcess } from '@acktrail/exporter/testing';
import { jsonBody } from '@acktrail/exporter/testing/otlp';

let store: TestDatabase;
let admin: pg.Pool;
before(async () => {
  store = await createTestDatabase();
  admin = new pg.Pool({ connectionString: store.url, max: 2 });
});
after(async () => {
  await admin.end();
  await store.drop();
});

const body = (batch: number) => jsonBody(batch + 1, 50, `drain-${batch}`);

test('SIGTERM: in-flight requests finish with their commits, new ones are refused, exit 0', async () => {
  const { proc, url } = await startExporterProcess(
    { ACKTRAIL_DATABASE_URL: store.url },
    { rabbitmq: { enabled: false }, journeys: { lockTimeoutSeconds: 60 } },
  );
  const post = (batch: number) =>
    fetch(`${url}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: body(batch),
    });
  assert.equal((await post(0)).status, 200); // the day's partition exists

  const lock = await admin.connect();
  let exit: Promise<number | null> | undefined;
  const answers: Promise<number | string>[] = [];
  try {
    // The commits of the next requests wait behind this lock: they are in flight.
    await lock.query('BEGIN');
    await lock.query('LOCK TABLE journey_steps IN EXCLUSIVE MODE');
    for (let b = 1; b <= 4; b++)
      answers.push(
        post(b).then(
          (r) => r.status,
          (e: unknown) => `${String(e)} ${String((e as Error).cause)}`,
        ),
      );
    await waitFor('their commit waiting for the lock', async () => {
      const r = await admin.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE application_name = 'acktrail-journeys' AND wait_event_type = 'Lock'`,
      );
      return r.rows[0]!.n >= 1;
    });
    exit = proc.stop(30_000);
    await proc.waitForLog((l) => String(l.msg).startsWith('stopping'), 'the drain to begin');
    // A new connection is refused cleanly: nothing listens any more.
    await assert.rejects(post(5), (e: Error) => /ECONNREFUSED/.test(String(e.cause)));
  } finally {
    await lock.query('COMMIT');
    lock.release();
  }
  assert.deepEqual(await Promise.all(answers), [200, 200, 200, 200]);
  assert.equal(await exit, 0);
  const stored = await admin.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM journey_steps WHERE event_id LIKE 'drain-%'`,
  );
  assert.equal(stored.rows[0]!.n, 5 * 50, 'every batch answered 200 is stored');
  assert.ok(proc.lines.some((l) => l.msg === 'stopped'));
});
