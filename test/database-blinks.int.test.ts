// PostgreSQL ending the exporter's connections (57P01, as a restart, a failover, an
// idle_session_timeout or a DBA's pg_terminate_backend does), over and over, while spans stream in
// and support looks journeys up: the same process keeps serving, every span answered 200 is in
// the store, lookups answer 200, 404 or 503 (never a dropped connection), and /readyz is ready
// again soon after. The backends of every pool are ended, in whatever state they are: idle,
// checked out between statements, mid-statement, mid-COPY. Before db/checkout.ts and the COPY's
// early listener, this ended the exporter in its first rounds.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as pace } from 'node:timers/promises';
import pg from 'pg';
import { waitFor, type TestDatabase } from '@acktrail/testing';
import { createTestDatabase } from '@acktrail/orders-example/testing';
import { ordersConfig, startExporterProcess } from '@acktrail/exporter/testing';
import { assertRecovered, loadSummary, storeLoad } from '@acktrail/exporter/testing/store-load';

const TOKEN = 'blinks-reader-token';
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
    const load = storeLoad(url, TOKEN);
    await waitFor('the first batches stored', () => load.acked.length >= 5);
    let terminated = 0;
    for (let round = 0; round < ROUNDS && proc.running; round++) {
      terminated += await terminateAll();
      await pace(300); // the attack's rhythm, as the operator ran it: not a wait for a state
    }
    const storedDuring = load.acked.length;
    await load.stop();
    t.diagnostic(`${terminated} connections ended in ${ROUNDS} rounds; ${loadSummary(load)}`);
    await assertRecovered(proc, url, db.url, load);
    assert.ok(terminated >= ROUNDS, `ended ${terminated} connections`);
    assert.ok(storedDuring > 5, 'batches were stored between the terminations');
  } finally {
    await proc.stop();
  }
});
