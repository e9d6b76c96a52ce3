// The read token cannot starve writes: API reads run on a pool of their own, and one token runs a
// bounded number of event lists at once. The reads are made to hang on a real lock (yesterday's
// partition held in ACCESS EXCLUSIVE mode) while spans for today arrive.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { TestExporter, type Scrape } from '../../testing/exporter.js';
import { exportSpans, makeSpans } from '../../testing/otlp.js';
import { waitFor } from '@acktrail/testing';

const READ = 'reads-test-read-token-0123';
const OPERATE = 'reads-test-operate-token-01';
const DAY_MS = 86_400_000;
let exporter: Awaited<ReturnType<typeof TestExporter.withStore>>;
let admin: pg.Client;

const deliver = (eventId: string, startMs: number) => ({
  name: 'deliver',
  startMs,
  attributes: { 'acktrail.event_id': eventId, 'acktrail.stage': 'deliver' },
});

before(async () => {
  exporter = await TestExporter.withStore(
    { ACKTRAIL_API_TOKEN: READ, ACKTRAIL_OPERATOR_TOKEN: OPERATE },
    { journeys: { maxConcurrentListsPerToken: 3, readPoolSize: 6 } },
  );
  // Yesterday's partition exists once a step of yesterday is stored.
  const spans = makeSpans([deliver('yesterday-1', Date.now() - DAY_MS)]);
  assert.equal((await exportSpans(exporter.url, spans, 'protobuf')).code, 0);
  admin = new pg.Client({ connectionString: exporter.storeUrl });
  await admin.connect();
});
after(async () => {
  await admin.end();
  await exporter.close();
});

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10).replaceAll('-', '');
const today = () => dayOf(Date.now());

const list = (token: string) =>
  fetch(`${exporter.url}/api/events?anomaly=published_twice&since=3650d`, {
    headers: { authorization: `Bearer ${token}` },
  });

test('six of the heaviest reads hang while spans arrive: every span is stored, ingest answers 200', async () => {
  const day = dayOf(Date.now() - DAY_MS);
  await admin.query('BEGIN');
  await admin.query(`LOCK TABLE journey_steps_p${day} IN ACCESS EXCLUSIVE MODE`);
  const reads = [READ, READ, READ, OPERATE, OPERATE, OPERATE].map(list);
  try {
    // Watched from a session of its own: inside a transaction pg_stat_activity is a snapshot.
    await waitFor('six reads waiting on the lock', async () => {
      const watch = new pg.Client({ connectionString: exporter.storeUrl });
      await watch.connect();
      try {
        const r = await watch.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity
            WHERE wait_event_type = 'Lock' AND application_name = 'acktrail-journeys-api'`,
        );
        return r.rows[0]!.n === 6;
      } finally {
        await watch.end();
      }
    });
    const limited = await list(READ);
    assert.equal(limited.status, 429, 'a fourth list of one token waits its turn');
    assert.equal(limited.headers.get('retry-after'), '1');
    const now = Date.now();
    const spans = makeSpans(Array.from({ length: 50 }, (_, i) => deliver(`today-${i}`, now + i)));
    const sent = await exportSpans(exporter.url, spans, 'protobuf');
    assert.equal(sent.code, 0, `ingest answered: ${String(sent.error)}`);
    // Read on a connection of its own: today's partition is not the locked one.
    const check = new pg.Client({ connectionString: exporter.storeUrl });
    await check.connect();
    try {
      const stored = await check.query<{ n: number }>(
        `SELECT count(DISTINCT event_id)::int AS n FROM journey_steps_p${today()}
          WHERE event_id LIKE 'today-%'`,
      );
      assert.equal(stored.rows[0]!.n, 50);
    } finally {
      await check.end();
    }
  } finally {
    await admin.query('ROLLBACK');
  }
  const answers = await Promise.all(reads);
  assert.deepEqual(
    answers.map((r) => r.status),
    [200, 200, 200, 200, 200, 200],
  );
  const scrape: Scrape = await exporter.scrape();
  assert.equal(scrape.value('acktrail_ingest_refused_total', { reason: 'store_unavailable' }), 0);
});
