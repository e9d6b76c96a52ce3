// PostgreSQL ending the exporter's connections (57P01, as a restart, a failover, an
// idle_session_timeout or a DBA's pg_terminate_backend does), over and over, while spans stream in
// and support looks journeys up: the same process keeps serving, every span answered 200 is in
// the store, lookups answer 200, 404 or 503 (never a dropped connection), and /readyz is ready
// again soon after. The backends of every pool are ended, in whatever state they are: idle,
// checked out between statements, mid-statement, mid-COPY. Before withClient, this killed the
// exporter within 21 terminations.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as pace } from 'node:timers/promises';
import pg from 'pg';
import { waitFor, type TestDatabase } from '@acktrail/testing';
import { createTestDatabase } from '@acktrail/orders-example/testing';
import { ordersConfig, startExporterProcess } from '@acktrail/exporter/testing';
import { jsonBody } from '../exporter/src/testing/otlp.js';

const TOKEN = 'blinks-reader-token';
const SIZE = 50;
/** Rounds of terminations, one every 300 ms. */
const ROUNDS = 40;

let db: TestDatabase;
let admin: pg.Client;

before(async () => {
  db = await createTestDatabase('acktrail_blinks');
  admin = new pg.Client({ connectionString: db.url });
  admin.on('error', () => undefined);
  await admin.connect();
});
after(async () => {
  await admin.end();
  await db.drop();
});

/** Ends every connection the exporter has to this test's database; how many it ended. */
async function terminateAll(): Promise<number> {
  const r = await admin.query<{ n: number }>(
    `SELECT count(*) FILTER (WHERE pg_terminate_backend(pid))::int AS n FROM pg_stat_activity
      WHERE datname = current_database() AND application_name LIKE 'acktrail-%'`,
  );
  return r.rows[0]!.n;
}

test('connections ended in a loop under ingest and lookups: the same process serves, nothing answered 200 is lost', async (t) => {
  const { proc, url } = await startExporterProcess(
    { ACKTRAIL_DATABASE_URL: db.url, DATABASE_URL: db.url, ACKTRAIL_API_TOKEN: TOKEN },
    ordersConfig({ rabbitmq: { enabled: false } }),
  );
  try {
    const acked: number[] = [];
    const lookups = new Map<number | string, number>();
    const exports = new Map<number | string, number>();
    let next = 0;
    let stop = false;
    const sender = async () => {
      while (!stop) {
        const batch = next++;
        const status = await fetch(`${url}/v1/traces`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: jsonBody(batch + 1, SIZE, `blink-${batch}`),
        }).then(
          async (res) => (await res.arrayBuffer(), res.status),
          (err: unknown) => `no answer: ${String((err as Error).cause ?? err)}`,
        );
        exports.set(status, (exports.get(status) ?? 0) + 1);
        if (status === 200) acked.push(batch);
      }
    };
    const reader = async () => {
      for (let i = 0; !stop; i++) {
        const id = `blink-${Math.max(0, next - 1 - (i % 5))}-1`;
        const status = await fetch(`${url}/api/events/${id}`, {
          headers: { authorization: `Bearer ${TOKEN}` },
        }).then(
          async (res) => (await res.arrayBuffer(), res.status),
          (err: unknown) => `no answer: ${(err as Error).message}`,
        );
        lookups.set(status, (lookups.get(status) ?? 0) + 1);
      }
    };
    const load = [...Array.from({ length: 4 }, sender), ...Array.from({ length: 8 }, reader)];
    await waitFor('the first batches stored', () => acked.length >= 5);

    let terminated = 0;
    for (let round = 0; round < ROUNDS && proc.running; round++) {
      terminated += await terminateAll();
      await pace(300); // the attack's rhythm, as the operator ran it: not a wait for a state
    }
    stop = true;
    await Promise.allSettled(load);

    const last = [
      ...proc.stderr.slice(-10),
      ...proc.lines.slice(-10).map((l) => JSON.stringify(l)),
    ];
    assert.ok(proc.running, `the exporter exited: ${last.join('\n')}`);
    assert.deepEqual(
      [...exports.keys()].filter((s) => ![200, 503].includes(s as number)),
      [],
      `exports: ${JSON.stringify([...exports])}`,
    );
    assert.ok(terminated >= ROUNDS, `ended ${terminated} connections`);
    const answers = [...lookups.keys()];
    assert.deepEqual(
      answers.filter((s) => ![200, 404, 503].includes(s as number)),
      [],
      `lookups: ${JSON.stringify([...lookups])}`,
    );
    await waitFor(
      '/readyz ready again',
      async () => (await fetch(`${url}/readyz`)).status === 200,
      { timeoutMs: 10_000 },
    );

    const stored = await admin.query<{ trace_id: string; n: number }>(
      'SELECT trace_id, count(*)::int AS n FROM journey_steps GROUP BY trace_id',
    );
    const byTrace = new Map(stored.rows.map((r) => [r.trace_id, r.n]));
    const lost = acked.filter((b) => byTrace.get((b + 1).toString(16).padStart(32, '0')) !== SIZE);
    assert.deepEqual(lost, [], `of ${acked.length} batches answered 200`);
    assert.ok(acked.length > 5, 'batches were stored between the terminations');
    t.diagnostic(
      `${terminated} connections ended in ${ROUNDS} rounds; exports ${JSON.stringify([...exports])}; lookups ${JSON.stringify([...lookups])}`,
    );

    // The pipeline's reader came back too: the outbox collector succeeds on the next scrape.
    await waitFor('the outbox collector succeeding', async () => {
      const text = await (await fetch(`${url}/metrics`)).text();
      return /acktrail_collector_success\{collector="outbox"\} 1/.test(text);
    });
  } finally {
    await proc.stop();
  }
});
