// PostgreSQL restarted under load (pg_ctlcluster restart -m fast, as a failover or a minor upgrade
// does: every connection ended with 57P01, then nothing answers for a while): the exporter keeps
// serving, answers 503 while the store is away, stores every span it answered 200, and is ready
// again soon after the server is back. The server restarted is scripts/pg-replica.sh's primary,
// a cluster of acktrail's own, never the one the other tests share; this file runs alone
// (scripts/test.mjs ALONE), since the store-replica test reads that primary too.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  waitFor,
  createReplicatedDatabase,
  ensureReplica,
  restartPrimary,
  type ReplicatedDatabase,
} from '@acktrail/testing';
import { migrate } from '@acktrail/orders-example';
import { ordersConfig, startExporterProcess } from '@acktrail/exporter/testing';
import { assertRecovered, loadSummary, storeLoad } from '@acktrail/exporter/testing/store-load';

const TOKEN = 'restart-reader-token';
const RESTARTS = 2;

let db: ReplicatedDatabase;

before(async () => {
  await ensureReplica();
  db = await createReplicatedDatabase();
  await migrate(db.primaryUrl);
});
after(async () => {
  await db.drop();
});

test('PostgreSQL restarted twice under ingest and lookups: the same process serves, nothing answered 200 is lost', async (t) => {
  const { proc, url } = await startExporterProcess(
    {
      ACKTRAIL_DATABASE_URL: db.primaryUrl,
      DATABASE_URL: db.primaryUrl,
      ACKTRAIL_API_TOKEN: TOKEN,
    },
    ordersConfig({ rabbitmq: { enabled: false } }),
  );
  try {
    const load = storeLoad(url, TOKEN);
    for (let i = 0; i < RESTARTS; i++) {
      const stored = load.acked.length;
      await waitFor('batches stored since the last restart', () => load.acked.length >= stored + 5);
      await restartPrimary();
    }
    const stored = load.acked.length;
    await waitFor('batches stored after the last restart', () => load.acked.length >= stored + 5);
    await load.stop();
    t.diagnostic(`${RESTARTS} restarts; ${loadSummary(load)}`);
    await assertRecovered(proc, url, db.primaryUrl, load);
    assert.ok(
      proc.lines.some((l) => /connection lost/.test(String(l.msg))),
      'the restarts ended the exporter’s connections',
    );
  } finally {
    await proc.stop();
  }
});
