// The journey store under pressure, on a real PostgreSQL: a write queue that never grows past its
// bound, and connections that die under it without taking the exporter down.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { waitFor } from '@acktrail/testing';
import { TestExporter } from '../../testing/exporter.js';
import { jsonBody } from '../../testing/otlp.js';

let exporter: Awaited<ReturnType<typeof TestExporter.withStore>>;
let admin: pg.Pool;

before(async () => {
  exporter = await TestExporter.withStore(
    {},
    { journeys: { maxPendingSteps: 100, lockTimeoutSeconds: 60 } },
  );
  admin = new pg.Pool({ connectionString: exporter.storeUrl, max: 3 });
});
after(async () => {
  await admin.end();
  await exporter.close();
});

const spans = (batch: number, n: number) => jsonBody(batch + 1, n, `store-${batch}`);

const post = (body: string) =>
  fetch(`${exporter.url}/v1/traces`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });

test('a full write queue answers 503 at once; what was queued is committed when the store moves', async () => {
  assert.equal((await post(spans(0, 1))).status, 200); // today's partition exists
  const lock = await admin.connect();
  try {
    // Inserts wait behind this lock: the store is "slow".
    await lock.query('BEGIN');
    await lock.query('LOCK TABLE journey_steps IN EXCLUSIVE MODE');
    let firstAnswered = false;
    const first = post(spans(1, 100)).then((r) => {
      firstAnswered = true;
      return r.status;
    });
    await waitFor('the first write to wait for the lock', async () => {
      const text = (await exporter.scrape()).text;
      return /^acktrail_ingest_inflight_bytes [1-9]/m.test(text);
    });
    const second = await post(spans(2, 10));
    assert.equal(second.status, 503, 'the queue holds 100 steps, its bound');
    assert.equal(second.headers.get('retry-after'), '5');
    assert.match(await second.text(), /steps are waiting for the journey store/);
    assert.equal(firstAnswered, false, 'refused while the first write still waits');
    assert.equal(
      (await exporter.scrape()).value('acktrail_ingest_refused_total', { reason: 'store_busy' }),
      1,
    );
    await lock.query('COMMIT');
    assert.equal(await first, 200);
    assert.equal((await post(spans(2, 10))).status, 200, 'taken once there is room');
  } finally {
    lock.release();
  }
  const n = await admin.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM journey_steps WHERE event_id LIKE 'store-%'`,
  );
  assert.equal(n.rows[0]!.n, 111);
});

test('connections killed under the store are logged and counted, and the next write works', async () => {
  const errors = async () =>
    (await exporter.scrape()).value('acktrail_background_errors_total', {
      part: 'journey_store',
    }) ?? 0;
  const before0 = await errors();
  const killed = await admin.query<{ n: number }>(
    `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity
      WHERE datname = current_database() AND application_name = 'acktrail-journeys' AND state = 'idle'`,
  );
  assert.ok(killed.rows[0]!.n > 0, 'the store had idle connections to lose');
  await waitFor('the lost connections counted', async () => (await errors()) > before0);
  assert.ok(exporter.logs.some((l) => l.msg === 'journey store connection lost'));
  assert.equal((await post(spans(3, 5))).status, 200);
});
