// Daily partitions on a real database: created on demand, dropped whole past the retention.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '@acktrail/orders-example/testing';
import { migrateStore } from './migrate.js';
import { Partitions } from './partitions.js';

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
