// The journey store behind a real PgBouncer with transaction pooling (Debian's pgbouncer): with
// ACKTRAIL_DATABASE_POOLER=transaction and a direct ACKTRAIL_DATABASE_MIGRATE_URL, migrations,
// ingest, lookups, dead-letter parking and replay, the SQL collectors and partition maintenance
// all work through it, and no session state is left on its server connections. Without the
// setting, PgBouncer refuses the pools' startup parameters, and /status says so.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import amqp from 'amqplib';
import pg from 'pg';
import { type TestDatabase, waitFor, TestPgBouncer } from '@acktrail/testing';
import { createTestDatabase } from '@acktrail/orders-example/testing';
import { TestExporter, ordersConfig, partUp } from '@acktrail/exporter/testing';
import {
  DLQ,
  deadLetterBench,
  type DeadLetterBench,
} from '@acktrail/exporter/testing/dead-letter-broker';
import { countSteps, exportSpans, journeySpans } from '@acktrail/exporter/testing/otlp';
import { migrateStore } from '@acktrail/exporter/testing/store';

const READER = 'pgbouncer-reader-token-0123456789';
const OPERATOR = 'pgbouncer-operator-token-0123456789';
const KEY = randomBytes(32).toString('base64');
const DAY_MS = 86_400_000;

let bouncer: TestPgBouncer;
let bench: DeadLetterBench;
let pipeline: TestDatabase;
let exporter: TestExporter | undefined;

/** A partition 40 days old, attached before the exporter starts: its maintenance must drop it. */
const OLD = new Date(Date.now() - 40 * DAY_MS);
const oldName = `journey_steps_p${OLD.toISOString().slice(0, 10).replace(/-/g, '')}`;

before(async () => {
  bouncer = await TestPgBouncer.start();
  bench = await deadLetterBench();
  pipeline = await createTestDatabase('acktrail_pipeline');
  await migrateStore(bench.store.url);
  const day = Date.UTC(OLD.getUTCFullYear(), OLD.getUTCMonth(), OLD.getUTCDate());
  await bench.db.query(`CREATE TABLE ${oldName} (LIKE journey_steps INCLUDING DEFAULTS)`);
  await bench.db.query(
    `ALTER TABLE journey_steps ATTACH PARTITION ${oldName}
       FOR VALUES FROM ('${new Date(day).toISOString()}') TO ('${new Date(day + DAY_MS).toISOString()}')`,
  );
});

after(async () => {
  await exporter?.close();
  await bouncer.stop();
  await bench.drop();
  await pipeline.drop();
});

const config = () =>
  ordersConfig({
    rabbitmq: { vhosts: [bench.vhost.name], statsIntervalSeconds: 1 },
    journeys: { retentionDays: 14 },
    deadLetters: {
      enabled: true,
      url: bench.vhost.url,
      queues: [{ queue: DLQ }],
      replay: { stopAfterFailedShare: 1, ratePerSecond: 200, sourceQueues: ['jobs.work'] },
    },
  });

test('without ACKTRAIL_DATABASE_POOLER, PgBouncer refuses the startup parameters: /status says why', async () => {
  const refused = await TestExporter.start(
    { ACKTRAIL_DATABASE_URL: bouncer.through(bench.store.url) },
    { rabbitmq: { enabled: false } },
  );
  try {
    const status = await waitFor('the store reported down', async () => {
      const body = (await (await fetch(`${refused.url}/status`)).json()) as {
        parts: { part: string; up: boolean | null; error: string | null }[];
      };
      const store = body.parts.find((p) => p.part === 'journey_store');
      return store?.up === false ? store : null;
    });
    assert.match(status.error ?? '', /unsupported startup parameter/);
    assert.equal((await fetch(`${refused.url}/readyz`)).status, 503);
  } finally {
    await refused.close();
  }
});

test('a transaction pooler without a direct URL for migrations: the exporter refuses to start, naming it', async () => {
  await assert.rejects(
    TestExporter.start(
      {
        ACKTRAIL_DATABASE_URL: bouncer.through(bench.store.url),
        ACKTRAIL_DATABASE_POOLER: 'transaction',
      },
      { rabbitmq: { enabled: false } },
    ),
    /ACKTRAIL_DATABASE_MIGRATE_URL: needed with ACKTRAIL_DATABASE_POOLER=transaction/,
  );
});

test('through PgBouncer: ingest, lookups, the SQL collectors, parking, replay and maintenance', async () => {
  const e = (exporter = await TestExporter.start(
    {
      ACKTRAIL_DATABASE_POOLER: 'transaction',
      ACKTRAIL_DATABASE_URL: bouncer.through(bench.store.url),
      ACKTRAIL_DATABASE_MIGRATE_URL: bench.store.url,
      DATABASE_URL: bouncer.through(pipeline.url),
      ACKTRAIL_API_TOKEN: READER,
      ACKTRAIL_OPERATOR_TOKEN: OPERATOR,
      ACKTRAIL_DEAD_LETTER_KEY: KEY,
    },
    config(),
  ));
  await e.exporter.ready;
  await waitFor('the store up', async () => (await partUp(e.url, 'journey_store')) === true);

  // Maintenance, on the direct URL: the expired partition is dropped, today's is made.
  await waitFor('the expired partition dropped', async () => {
    const r = await bench.db.query<{ gone: boolean }>(`SELECT to_regclass($1) IS NULL AS gone`, [
      oldName,
    ]);
    return r.rows[0]?.gone === true;
  });

  // Ingest through the pooler, then the lookup.
  assert.equal((await exportSpans(e.url, journeySpans('ev-bouncer'), 'protobuf')).code, 0);
  assert.equal(await countSteps(bench.store.url, 'event_id = $1', ['ev-bouncer']), 4);
  const journey = await e.journey<{ timeline: unknown[] }>(
    READER,
    'ev-bouncer',
    'the journey read through PgBouncer',
    (j) => j.timeline.length === 4,
  );
  assert.equal(journey.timeline.length, 4);

  // The pipeline's tables, read through it too.
  const scrape = await e.scrape();
  assert.equal(scrape.success('outbox'), 1);

  // Parking and replay.
  await waitFor('parking', async () => (await partUp(e.url, 'dead_letters')) === true);
  const conn = await amqp.connect(bench.vhost.url);
  const ch = await conn.createConfirmChannel();
  ch.publish('jobs', 'job', Buffer.from('{}'), { messageId: 'bouncer-1', persistent: true });
  await ch.waitForConfirms();
  await conn.close();
  const parked = await waitFor('the dead letter parked', async () => {
    const r = await bench.db.query<{ id: string }>(
      `SELECT id::text FROM dead_letters WHERE event_id = 'bouncer-1' AND state = 'parked'`,
    );
    return r.rows[0] ?? null;
  });
  const replay = await fetch(`${e.url}/api/dead-letters/replay`, {
    method: 'POST',
    headers: { authorization: `Bearer ${OPERATOR}`, 'content-type': 'application/json' },
    body: JSON.stringify({ ids: [parked.id] }),
  });
  assert.equal(replay.status, 200);
  assert.equal(((await replay.json()) as { outcome: string }).outcome, 'replayed');

  // Nothing of acktrail's stayed on PgBouncer's server connections: a new client sees defaults.
  const c = new pg.Client({ connectionString: bouncer.through(bench.store.url) });
  await c.connect();
  try {
    const r = await c.query<{ statement_timeout: string }>('SHOW statement_timeout');
    assert.equal(r.rows[0]?.statement_timeout, '0');
  } finally {
    await c.end();
  }
});
