// Daily partitions on a real database: created on demand, dropped whole past the retention.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { createTestDatabase, waitFor, type TestDatabase } from '@acktrail/orders-example/testing';
import { migrateStore } from './migrate.js';
import { Partitions } from './partitions.js';
import type { Step } from '../steps.js';
import { StepStore } from './store.js';

const DAY = 86_400_000;
let db: TestDatabase;
let pool: pg.Pool;
before(async () => {
  db = await createTestDatabase();
  await migrateStore(db.url);
  pool = new pg.Pool({ connectionString: db.url });
});
after(async () => {
  await pool.end();
  await db.drop();
});

async function partitionNames(): Promise<string[]> {
  const r = await pool.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = 'journey_steps'::regclass ORDER BY 1`,
  );
  return r.rows.map((x) => x.name);
}

test('partitions are made for the days written to, and dropped whole after the retention', async () => {
  const now = Date.UTC(2026, 10, 30, 12);
  const partitions = new Partitions(pool);
  await partitions.ensure(
    [now, now - 3 * DAY, now - 20 * DAY, now - 20 * DAY + 1].map((ms) => ms * 1000),
  );
  assert.deepEqual(await partitionNames(), [
    'journey_steps_p20261110',
    'journey_steps_p20261127',
    'journey_steps_p20261130',
  ]);
  await pool.query(
    `INSERT INTO journey_steps (event_id, time, duration_us, stage, service, trace_id, span_id, name, status, attrs)
     VALUES ('old', $1, 1, 'deliver', 's', 't', 's1', 'n', 'unset', '{}'),
            ('new', $2, 1, 'deliver', 's', 't', 's2', 'n', 'unset', '{}')`,
    [new Date(now - 20 * DAY), new Date(now)],
  );
  assert.deepEqual(await partitions.dropExpired(14, now), ['journey_steps_p20261110']);
  assert.deepEqual(await partitionNames(), ['journey_steps_p20261127', 'journey_steps_p20261130']);
  const left = await pool.query<{ event_id: string }>('SELECT event_id FROM journey_steps');
  assert.deepEqual(
    left.rows.map((r) => r.event_id),
    ['new'],
  );
  // A write for a dropped day makes its partition again.
  await partitions.ensure([(now - 20 * DAY) * 1000]);
  assert.equal((await partitionNames()).length, 3);
});

test('dropping an expired day never blocks writes, even while a long read holds it', async () => {
  const now = Date.now();
  const store = new StepStore(pool);
  const partitions = store.partitions;
  await partitions.ensure([now * 1000, (now - 20 * DAY) * 1000]);
  const step = (id: string, atMs: number): Step => ({
    eventId: id,
    timeUs: atMs * 1000,
    durationUs: 1,
    stage: 'deliver',
    service: 's',
    traceId: 'a'.repeat(32),
    spanId: id.padStart(16, '0').slice(-16),
    parentSpanId: null,
    name: 'n',
    status: 'unset',
    statusMessage: null,
    aggregateType: null,
    aggregateId: null,
    anomaly: null,
    attrs: {},
  });
  await store.write([step('1', now - 20 * DAY)]);
  const existing = await partitionNames();

  // An API read in a transaction that sees every partition, the expired one included.
  const reader = await pool.connect();
  await reader.query('BEGIN');
  await reader.query('SELECT count(*) FROM journey_steps');
  let dropped: string[] | null = null;
  const dropping = partitions.dropExpired(14, now).then((d) => (dropped = d));
  try {
    await waitFor('the detach to be waiting for the read', async () => {
      const r = await pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE state = 'active'
            AND (query LIKE 'ALTER TABLE journey_steps DETACH%' OR query LIKE 'DROP TABLE%')`,
      );
      return r.rows[0]!.n === 1;
    });
    // Writes go on meanwhile, to today's partition and to a new day's.
    const writes = (async () => {
      await store.write([step('2', now)]);
      await partitions.ensure([(now + DAY) * 1000], now);
      await store.write([step('3', now + DAY)]);
      return 'written';
    })();
    const bound = new Promise((r) => setTimeout(r, 15_000, 'still blocked'));
    assert.equal(await Promise.race([writes, bound]), 'written');
    assert.equal(dropped, null, 'the detach still waits for the read');
  } finally {
    await reader.query('COMMIT');
    reader.release();
  }
  await dropping;
  // Every day before the cutoff goes: this test's and any an earlier test left behind.
  const day = (ms: number) =>
    `journey_steps_p${new Date(ms).toISOString().slice(0, 10).replace(/-/g, '')}`;
  const expired = day(now - 20 * DAY);
  assert.deepEqual(
    [...dropped!].sort(),
    existing.filter((n) => n < day(now - 14 * DAY)),
  );
  assert.ok(dropped!.includes(expired));
  assert.ok(!(await partitionNames()).includes(expired));
  const left = await pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM journey_steps WHERE event_id IN ('2', '3')`,
  );
  assert.equal(left.rows[0]!.n, 2);
});

test('a time too far ahead never makes a partition', async () => {
  const now = Date.now();
  await assert.rejects(
    new Partitions(pool).ensure([(now + 400 * DAY) * 1000], now),
    /too far ahead/,
  );
  const names = await partitionNames();
  assert.ok(
    names.every(
      (n) =>
        n <
        `journey_steps_p${new Date(now + 3 * DAY).toISOString().slice(0, 10).replace(/-/g, '')}`,
    ),
  );
});
