// Daily partitions on a real database: created on demand, dropped whole past the retention.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { type TestDatabase, waitFor } from '@acktrail/testing';
import { createTestDatabase } from '@acktrail/orders-example/testing';
import { migrateStore } from './migrate.js';
import { Partitions } from './partitions.js';
import type { Step } from '../model/steps.js';
import { StepReads } from './step-reads.js';
import { StepStore } from './step-store.js';
import { JOURNEY_STARTS, PUBLISH_COUNTS } from './write-queries.js';

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

const step = (id: string, atMs: number, span = id): Step => ({
  eventId: id,
  timeUs: atMs * 1000,
  durationUs: 1,
  stage: 'deliver',
  service: 's',
  traceId: 'a'.repeat(32),
  spanId: span.padStart(16, '0').slice(-16),
  parentSpanId: null,
  name: 'n',
  status: 'unset',
  statusMessage: null,
  aggregateType: null,
  aggregateId: null,
  anomaly: null,
  attrs: {},
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
  // The expired day's event is forgotten with its partition; the others stay findable.
  const events = await pool.query<{ event_id: string }>(
    `SELECT event_id FROM journey_events WHERE event_id IN ('1', '2', '3') ORDER BY 1`,
  );
  assert.deepEqual(
    events.rows.map((r) => r.event_id),
    ['2', '3'],
  );
});

test("an event's steps over several days are found by its days alone, whichever day came first", async () => {
  const now = Date.now();
  const store = new StepStore(pool);
  const queries = new StepReads(pool);
  await store.write([step('multi', now, 'm1')]);
  // Later writes bring a step three days earlier (a late export) and one a day later (a replay).
  await store.write([step('multi', now - 3 * DAY, 'm2')]);
  await store.write([step('multi', now + DAY, 'm3'), step('other', now, 'o1')]);
  const steps = await queries.steps('multi');
  assert.deepEqual(
    steps.map((s) => s.spanId.replace(/^0+/, '')),
    ['m2', 'm1', 'm3'],
  );
  assert.equal((await queries.summaries(['multi', 'other'])).get('multi')?.steps, 3);
  assert.equal((await queries.summaries(['multi', 'other'])).get('other')?.steps, 1);
  assert.deepEqual(await queries.steps('never-seen'), []);
  // Every day between the first and the last is read; only those.
  const days = await pool.query<{ first: string; last: string }>(
    `SELECT first_day::text AS first, last_day::text AS last FROM journey_events WHERE event_id = 'multi'`,
  );
  const iso = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  assert.deepEqual(days.rows[0], { first: iso(now - 3 * DAY), last: iso(now + DAY) });
});

test('the migration gives the steps stored before it their days', async () => {
  const now = Date.now();
  const store = new StepStore(pool);
  await store.write([step('before', now - DAY, 'b1'), step('before', now, 'b2')]);
  // As a store made before migration 005: no journey_events, then the migration runs.
  await pool.query(`DROP TABLE journey_events`);
  await pool.query(`DELETE FROM acktrail_migrations WHERE version = '005_journey_events.sql'`);
  assert.deepEqual(await migrateStore(db.url), ['005_journey_events.sql']);
  assert.equal((await new StepReads(pool).steps('before')).length, 2);
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

test("today's time index is summarised: a search of an hour reads that hour's blocks, not the day's", async () => {
  // A day of its own, whatever the time the test runs at: its 20:00 is "now".
  const now = Date.UTC(2026, 10, 29, 20);
  const partitions = new Partitions(pool);
  await partitions.ensure([now * 1000], now);
  // A step a second over the 11 hours before, in time order (as they arrive).
  await pool.query(
    `INSERT INTO journey_steps (event_id, time, duration_us, stage, service, trace_id, span_id, name, status, attrs)
     SELECT 'sum-' || g, to_timestamp($1 / 1000.0) - (40000 - g) * interval '1 second', 1,
            'deliver', 's', 't', 's' || g, 'n', 'unset', '{}'
       FROM generate_series(1, 40000) g`,
    [now],
  );
  /** Heap blocks the last hour's search reads (the exporter's plan: the BRIN index). */
  const blocksRead = async () => {
    const c = await pool.connect();
    try {
      await c.query('BEGIN; SET LOCAL enable_seqscan = off');
      const r = await c.query<{ 'QUERY PLAN': unknown }>(
        `EXPLAIN (ANALYZE, FORMAT JSON) SELECT count(*) FROM journey_steps
          WHERE time >= to_timestamp($1 / 1000.0) - interval '1 hour'`,
        [now],
      );
      await c.query('COMMIT');
      const text = JSON.stringify(r.rows[0]!['QUERY PLAN']);
      return [...text.matchAll(/"(?:Exact|Lossy) Heap Blocks":(\d+)/g)].reduce(
        (sum, m) => sum + Number(m[1]),
        0,
      );
    } finally {
      c.release();
    }
  };
  const before = await blocksRead();
  await partitions.summariseToday(now);
  const afterwards = await blocksRead();
  assert.ok(before > 0);
  assert.ok(
    afterwards * 4 < before,
    `after summarising, the hour reads ${afterwards} blocks (before: ${before}, the whole day)`,
  );
});

test("a write's reads stay on the event index in a day's partition that has no statistics", async () => {
  // A day of its own holding 60,000 publishes, never analysed (autovacuum off, or a new day).
  const noon = Date.UTC(2026, 10, 27, 12);
  await new Partitions(pool).ensure([noon * 1000], noon);
  await pool.query(
    `INSERT INTO journey_steps (event_id, time, duration_us, stage, service, trace_id, span_id, name, status, attrs)
     SELECT 'plan-' || (g / 2), to_timestamp($1 / 1000.0) - g * interval '100 ms', 1,
            (ARRAY['outbox.publish', 'deliver'])[g % 2 + 1], 's', 't', 'p' || g, 'n', 'unset', '{}'
       FROM generate_series(0, 119999) g`,
    [noon],
  );
  const analysed = await pool.query<{ n: number }>(
    "SELECT reltuples::int AS n FROM pg_class WHERE relname = 'journey_steps_p20261127'",
  );
  assert.equal(analysed.rows[0]?.n, -1, 'the partition has never been analysed');
  const day = { from: new Date(Date.UTC(2026, 10, 27)), to: new Date(Date.UTC(2026, 10, 28)) };
  const ids = Array.from({ length: 100 }, (_, i) => `plan-${i * 7}`);
  for (const [name, sql, stages] of [
    ['publish counts', PUBLISH_COUNTS, ['outbox.publish', 'publish']],
    ['journey starts', JOURNEY_STARTS, ['outbox.insert', 'outbox.publish', 'publish']],
  ] as const) {
    const params = [ids, stages, day.from, day.to];
    const plan = (await pool.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, params)).rows
      .map((r) => r['QUERY PLAN'])
      .join('\n');
    assert.match(plan, /journey_steps_p20261127_event_id_time_idx/, `${name}:\n${plan}`);
    assert.doesNotMatch(plan, /time_event_id_idx|Seq Scan/, `${name}:\n${plan}`);
    const rows = (await pool.query<{ event_id: string }>(sql, params)).rows;
    assert.equal(rows.length, ids.length, `${name}: every event found`);
  }
  const counts = await pool.query<{ n: number }>(PUBLISH_COUNTS, [
    ['plan-7', 'plan-nothing'],
    ['outbox.publish'],
    day.from,
    day.to,
  ]);
  assert.deepEqual(counts.rows, [{ event_id: 'plan-7', n: 1 }]);
});

test("the store's maintenance analyses today's partition once a tenth of it has changed", async () => {
  const now = Date.UTC(2026, 10, 26, 12);
  const partitions = new Partitions(pool);
  await partitions.ensure([now * 1000], now);
  assert.equal(await partitions.analyseToday(now), false, 'an empty new day is not due');
  await pool.query(
    `INSERT INTO journey_steps (event_id, time, duration_us, stage, service, trace_id, span_id, name, status, attrs)
     SELECT 'an-' || g, to_timestamp($1 / 1000.0) - g * interval '1 s', 1, 'deliver', 's', 't',
            'a' || g, 'n', 'unset', '{}'
       FROM generate_series(1, 2000) g`,
    [now],
  );
  // The inserts reach the statistics views when the inserting session reports them (within 10 s).
  await waitFor('the partition to be due and analysed', () => partitions.analyseToday(now), {
    timeoutMs: 30_000,
    intervalMs: 250,
  });
  const { rows } = await pool.query<{ n: number }>(
    "SELECT reltuples::int AS n FROM pg_class WHERE relname = 'journey_steps_p20261126'",
  );
  assert.equal(rows[0]?.n, 2000);
  assert.equal(await partitions.analyseToday(now), false, 'not due again until it grows');
});
