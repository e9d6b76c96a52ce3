// The SQL collectors against a real PostgreSQL database of the reference schema, read through a
// read-only role: values equal what SQL over the same rows says; faults never fail the scrape.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { type TestDatabase, waitFor } from '@acktrail/testing';
import { createTestDatabase } from '@acktrail/orders-example/testing';
import {
  createReadOnlyRole,
  merge,
  ordersConfig,
  TestExporter,
} from '../../../testing/exporter.js';

let db: TestDatabase;
let role: Awaited<ReturnType<typeof createReadOnlyRole>>;
let admin: pg.Pool;

before(async () => {
  db = await createTestDatabase('acktrail_sql');
  role = await createReadOnlyRole(db.name);
  admin = new pg.Pool({ connectionString: db.url, max: 2 });
});
after(async () => {
  await admin.end();
  await db.drop();
  await role.drop();
});

const noBroker = ordersConfig({
  rabbitmq: { enabled: false },
  aggregateCounts: { minIntervalSeconds: 0.001 },
  // A collection that outruns its timeout counts nothing (the next one counts). Counting 100,000
  // rows of one timestamp took longer than the default 2 s in CI runs on a loaded machine, every
  // scrape for a minute: these tests are about what is counted, not how fast.
  outbox: { timeoutSeconds: 30 },
});

async function order(ageSeconds: number, status = 'pending'): Promise<number> {
  const r = await admin.query<{ id: number }>(
    `INSERT INTO orders (total, customer_email, notification_status, created_at)
     VALUES (1, 'x@example.com', $1, now() - make_interval(secs => $2)) RETURNING id`,
    [status, ageSeconds],
  );
  return r.rows[0]!.id;
}

async function outboxRow(orderId: number, ageSeconds: number, published: boolean): Promise<string> {
  const r = await admin.query<{ id: string }>(
    `INSERT INTO outbox_events (id, event_type, aggregate_id, schema_version, payload, created_at, published_at)
     VALUES (gen_random_uuid(), 'order.created', $1, 1, '{}', now() - make_interval(secs => $2), CASE WHEN $3 THEN now() END)
     RETURNING id`,
    [orderId, ageSeconds, published],
  );
  return r.rows[0]!.id;
}

async function confirm(orderId: number, eventId: string, ageSeconds = 0): Promise<void> {
  await admin.query(
    `INSERT INTO order_confirmations (event_id, order_id, created_at) VALUES ($1, $2, now() - make_interval(secs => $3))`,
    [eventId, orderId, ageSeconds],
  );
}

describe('outbox', () => {
  test('backlog, oldest age and published total equal SQL over the same rows', async () => {
    const exporter = await TestExporter.start({ DATABASE_URL: role.url }, noBroker);
    try {
      const o = await order(0);
      await outboxRow(o, 100, false);
      await outboxRow(o, 50, false);
      await outboxRow(o, 10, true);
      let s = await exporter.scrape(); // also initialises the published cursor
      const sql = await admin.query<{ n: string; age: number }>(
        `SELECT count(*) AS n, extract(epoch FROM now() - min(created_at))::float8 AS age
           FROM outbox_events WHERE published_at IS NULL`,
      );
      assert.equal(
        s.value('acktrail_outbox_unpublished_events', { table: 'outbox_events' }),
        Number(sql.rows[0]!.n),
      );
      const age = s.value('acktrail_outbox_oldest_unpublished_age_seconds', {
        table: 'outbox_events',
      })!;
      assert.ok(
        age >= 100 && Math.abs(age - sql.rows[0]!.age) < 5,
        `age ${age} vs SQL ${sql.rows[0]!.age}`,
      );
      assert.equal(
        s.value('acktrail_outbox_published_events_total', { table: 'outbox_events' }),
        0,
        'rows published before the start are not counted',
      );

      await admin.query('UPDATE outbox_events SET published_at = now() WHERE published_at IS NULL');
      s = await exporter.scrape();
      assert.equal(s.value('acktrail_outbox_unpublished_events', { table: 'outbox_events' }), 0);
      assert.equal(
        s.value('acktrail_outbox_oldest_unpublished_age_seconds', { table: 'outbox_events' }),
        0,
        '0 when empty, not absent',
      );
      assert.equal(
        s.value('acktrail_outbox_published_events_total', { table: 'outbox_events' }),
        2,
      );
      s = await exporter.scrape();
      assert.equal(
        s.value('acktrail_outbox_published_events_total', { table: 'outbox_events' }),
        2,
        'no double counting',
      );
    } finally {
      await exporter.close();
    }
  });
});

describe('the published counter never stalls', () => {
  test('100,000 rows published by one UPDATE (one timestamp) count once, and the watermark moves on', async () => {
    const exporter = await TestExporter.start({ DATABASE_URL: role.url }, noBroker);
    const total = async () =>
      (await exporter.scrape()).value('acktrail_outbox_published_events_total', {
        table: 'outbox_events',
      })!;
    try {
      const start = await total(); // initialises the cursor
      const o = await order(0);
      await admin.query(
        `INSERT INTO outbox_events (id, event_type, aggregate_id, schema_version, payload, created_at)
         SELECT gen_random_uuid(), 'order.created', $1, 1, '{}', now() FROM generate_series(1, 100000)`,
        [o],
      );
      // One statement, one transaction: every row gets the same published_at, twice the page.
      await admin.query('UPDATE outbox_events SET published_at = now() WHERE published_at IS NULL');
      // Exactly this total, reached by a scrape: one whose collection outran the collector's
      // timeout (this suite runs six files at a time) counts nothing, and the next one counts.
      const reaches = (n: number) =>
        waitFor(`the published total at ${n}`, async () => (await total()) === n);
      await reaches(start + 100_000);
      assert.equal(await total(), start + 100_000, 'each counted once, however often re-read');
      // A row published after them is counted: the cursor went past the 100,000 equal times.
      await outboxRow(o, 0, true);
      await reaches(start + 100_001);
      assert.equal(await total(), start + 100_001, 'and once only');
    } finally {
      await exporter.close();
    }
  });
});

describe('confirmations, provider and aggregate counts', () => {
  let exporter: TestExporter;
  let before0: number;
  before(async () => {
    // A confirmation that exists before the exporter starts is never counted.
    const old = await order(30, 'sent');
    await confirm(old, await outboxRow(old, 30, true), 5);
    before0 = old;
    exporter = await TestExporter.start({ DATABASE_URL: role.url }, noBroker);
    await exporter.scrape();
  });
  after(() => exporter.close());

  test('the latency histogram equals SQL over the new confirmations, each counted once', async () => {
    const fresh: number[] = [];
    for (const age of [1.5, 20, 400]) {
      const o = await order(age, 'sent');
      await confirm(o, await outboxRow(o, age, true));
      fresh.push(o);
    }
    // Committed now but stamped 5 s ago (its transaction began earlier): still counted, once.
    const late = await order(60, 'sent');
    await confirm(late, await outboxRow(late, 60, true), 5);
    fresh.push(late);

    const s = await exporter.scrape();
    const sql = await admin.query<{ latency: number }>(
      `SELECT extract(epoch FROM c.created_at - o.created_at)::float8 AS latency
         FROM order_confirmations c JOIN orders o ON o.id = c.order_id WHERE c.order_id = ANY($1)`,
      [fresh],
    );
    const latencies = sql.rows.map((r) => r.latency);
    const hist = s.histogram('acktrail_confirmation_latency_seconds', {
      event_type: 'order.created',
    });
    assert.equal(
      hist.count,
      latencies.length,
      'the confirmation from before the start is not counted',
    );
    assert.ok(Math.abs(hist.sum! - latencies.reduce((a, b) => a + b, 0)) < 1e-6);
    assert.ok(Object.keys(hist.buckets).length > 5);
    for (const [le, count] of Object.entries(hist.buckets)) {
      const expected =
        le === '+Inf' ? latencies.length : latencies.filter((l) => l <= Number(le)).length;
      assert.equal(count, expected, `bucket le=${le}`);
    }
    assert.ok(!fresh.includes(before0));
    const again = (await exporter.scrape()).histogram('acktrail_confirmation_latency_seconds');
    assert.equal(again.count, latencies.length, 'a second scrape adds nothing');
  });

  test('the oldest pending confirmation age equals SQL', async () => {
    await order(300, 'pending');
    const s = await exporter.scrape();
    const sql = await admin.query<{ age: number }>(
      `SELECT extract(epoch FROM now() - min(created_at))::float8 AS age FROM orders WHERE notification_status = 'pending'`,
    );
    const age = s.value('acktrail_oldest_pending_confirmation_age_seconds')!;
    assert.ok(
      age >= 300 && Math.abs(age - sql.rows[0]!.age) < 5,
      `age ${age} vs SQL ${sql.rows[0]!.age}`,
    );
  });

  test('provider requests and durations equal SQL grouped by provider and outcome', async () => {
    const rows: [string, string, number][] = [
      ['mailer', 'success', 0.05],
      ['mailer', 'success', 0.2],
      ['mailer', 'transient_error', 1.5],
      ['sms', 'timeout', 5],
      ['sms', 'idempotent_replay', 0.01],
    ];
    for (const [provider, outcome, seconds] of rows) {
      await admin.query(
        `INSERT INTO notification_attempts (event_id, attempt, provider, outcome, status_code, duration)
         VALUES (gen_random_uuid(), 1, $1, $2, 200, make_interval(secs => $3))`,
        [provider, outcome, seconds],
      );
    }
    const s = await exporter.scrape();
    const sql = await admin.query<{ provider: string; outcome: string; n: string }>(
      'SELECT provider, outcome, count(*) AS n FROM notification_attempts GROUP BY 1, 2',
    );
    for (const r of sql.rows) {
      assert.equal(
        s.value('acktrail_provider_requests_total', { provider: r.provider, outcome: r.outcome }),
        Number(r.n),
      );
    }
    const sums = await admin.query<{ provider: string; total: number; n: string }>(
      'SELECT provider, sum(extract(epoch FROM duration))::float8 AS total, count(*) AS n FROM notification_attempts GROUP BY 1',
    );
    for (const r of sums.rows) {
      const h = s.histogram('acktrail_provider_request_duration_seconds', { provider: r.provider });
      assert.equal(h.count, Number(r.n));
      assert.ok(Math.abs(h.sum! - r.total) < 1e-6);
    }
  });

  test('notification counts equal SQL', async () => {
    const sql = await admin.query<{ status: string; n: string }>(
      'SELECT notification_status AS status, count(*) AS n FROM orders GROUP BY 1',
    );
    await waitFor('the background refresh to catch up', async () => {
      const s = await exporter.scrape();
      return sql.rows.every(
        (r) => s.value('acktrail_aggregates', { status: r.status }) === Number(r.n),
      );
    });
    // A status no row has any more goes to 0, not away.
    await admin.query(
      `UPDATE orders SET notification_status = 'sent' WHERE notification_status = 'pending'`,
    );
    await waitFor('pending to read 0', async () => {
      const s = await exporter.scrape();
      return s.value('acktrail_aggregates', { status: 'pending' }) === 0;
    });
  });
});

describe('faults', () => {
  test('database unreachable: /metrics answers and the SQL collectors report 0', async () => {
    const exporter = await TestExporter.start(
      { DATABASE_URL: 'postgres://nobody:x@127.0.0.1:1/none' },
      noBroker,
    );
    try {
      const s = await exporter.scrape();
      for (const c of ['outbox', 'confirmations', 'aggregates', 'provider'])
        assert.equal(s.success(c), 0, c);
      assert.equal(s.value('acktrail_build_info'), 1);
      assert.deepEqual(s.samples('acktrail_outbox_unpublished_events'), []);
    } finally {
      await exporter.close();
    }
  });

  test('a query that times out, a missing table and a revoked grant fail only their collector', async () => {
    const exporter = await TestExporter.start(
      { DATABASE_URL: role.url },
      merge(noBroker, {
        outbox: {
          tables: ['outbox_events', 'no_such_outbox'].map((table) => ({
            table,
            id: 'id',
            createdAt: 'created_at',
            publishedAt: 'published_at',
          })),
        },
        confirmations: {
          latencyQuery: 'SELECT pg_sleep(2), $1::timestamptz, $2::int, $3::text',
          timeoutSeconds: 0.3,
        },
      }),
    );
    try {
      const s = await exporter.scrape();
      assert.equal(s.success('confirmations'), 0);
      assert.equal(s.success('outbox'), 0);
      assert.equal(s.success('provider'), 1);
      const status = Object.fromEntries(
        exporter.exporter.runner.status().map((x) => [x.collector, x.error]),
      );
      // The runner gives up at 300 ms; PostgreSQL cancels the query at its own 300 ms too.
      assert.match(status.confirmations ?? '', /timed out after 300 ms|statement timeout/);
      assert.match(status.outbox ?? '', /relation "no_such_outbox" does not exist/);
    } finally {
      await exporter.close();
    }
  });

  test('a query the runner gives up on is cancelled by PostgreSQL too: no connection stays busy', async () => {
    const exporter = await TestExporter.start(
      { DATABASE_URL: role.url },
      merge(noBroker, {
        confirmations: {
          // Sleeps a minute: only the collector's own statement timeout can end it early.
          pendingQuery: 'SELECT 0::float8 AS oldest_age_seconds FROM pg_sleep(60)',
          timeoutSeconds: 0.5,
        },
      }),
    );
    const sleeping = async () =>
      (
        await admin.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity
            WHERE usename = $1 AND state = 'active' AND query LIKE '%pg_sleep(60)%'`,
          [role.name],
        )
      ).rows[0]!.n;
    try {
      assert.equal((await exporter.scrape()).success('confirmations'), 0);
      // With the pool's old 30 s timeout the query would run on, holding its connection.
      await waitFor('the abandoned query to be cancelled', async () => (await sleeping()) === 0, {
        timeoutMs: 10_000,
      });
      assert.equal((await exporter.scrape()).success('outbox'), 1, 'the others are unaffected');
    } finally {
      await exporter.close();
    }
  });

  test('a revoked grant fails the collector; granting it back recovers it, logged once each way', async () => {
    const exporter = await TestExporter.start({ DATABASE_URL: role.url }, noBroker);
    try {
      assert.equal((await exporter.scrape()).success('outbox'), 1);
      await admin.query(`REVOKE SELECT ON outbox_events FROM "${role.name}"`);
      assert.equal((await exporter.scrape()).success('outbox'), 0);
      assert.equal((await exporter.scrape()).success('outbox'), 0);
      assert.match(
        exporter.exporter.runner.status().find((x) => x.collector === 'outbox')?.error ?? '',
        /permission denied/,
      );
      await admin.query(`GRANT SELECT ON outbox_events TO "${role.name}"`);
      assert.equal((await exporter.scrape()).success('outbox'), 1);
      assert.deepEqual(
        exporter.logs.filter((l) => l.collector === 'outbox').map((l) => l.msg),
        ['collector failing', 'collector recovered'],
      );
    } finally {
      await exporter.close();
    }
  });
});
