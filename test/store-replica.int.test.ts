// The journey API reading from a real streaming replica (scripts/pg-replica.sh: a second
// PostgreSQL cluster made with pg_basebackup): writes go to the primary and reads to the replica
// (a step the paused replica has not replayed is not found there); its lag is in /status and a
// metric, and an exporter that allows less lag reads from the primary; the replica stopped, the
// API answers from the primary; started again, reads go back to it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { SpanKind } from '@opentelemetry/api';
import pg from 'pg';
import {
  waitFor,
  createReplicatedDatabase,
  ensureReplica,
  pauseReplay,
  resumeReplay,
  startReplica,
  stopReplica,
  type ReplicatedDatabase,
} from '@acktrail/testing';
import { TestExporter } from '@acktrail/exporter/testing';
import { exportSpans, makeSpans } from '@acktrail/exporter/testing/otlp';

const TOKEN = 'replica-test-token-0123456789';
let db: ReplicatedDatabase;
/** Allows an hour of lag: reads stay on the replica. */
let patient: TestExporter;
/** Allows one second: reads leave a replica that falls behind. */
let strict: TestExporter;

interface Replica {
  up: boolean | null;
  lagSeconds: number | null;
  readsFrom: 'replica' | 'primary';
}

const readyz = async (e: TestExporter) => {
  const res = await fetch(`${e.url}/status`);
  return { status: res.status, body: (await res.json()) as { status: string; replica: Replica } };
};
const lookup = async (e: TestExporter, id: string) =>
  (await fetch(`${e.url}/api/events/${id}`, { headers: { authorization: `Bearer ${TOKEN}` } }))
    .status;
const reads = async (e: TestExporter, pool: string) =>
  (await e.scrape()).value('acktrail_store_reads_total', { pool }) ?? 0;
const readsFrom = (e: TestExporter, where: 'replica' | 'primary') =>
  waitFor(
    `reads from the ${where}`,
    async () => (await readyz(e)).body.replica.readsFrom === where,
    { timeoutMs: 30_000 },
  );

/** One publish of a new event, stored (a 200 from the receiver: committed on the primary). */
async function publishEvent(e: TestExporter): Promise<string> {
  const id = randomUUID();
  const spans = makeSpans(
    [
      {
        name: 'jobs publish',
        kind: SpanKind.PRODUCER,
        attributes: { 'messaging.system': 'rabbitmq', 'messaging.message_id': id },
      },
    ],
    'jobs-api',
  );
  assert.equal((await exportSpans(e.url, spans, 'protobuf')).code, 0);
  return id;
}

async function onPrimary(id: string): Promise<number> {
  const c = new pg.Client({ connectionString: db.primaryUrl });
  await c.connect();
  try {
    const r = await c.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM journey_steps WHERE event_id = $1',
      [id],
    );
    return r.rows[0]!.n;
  } finally {
    await c.end();
  }
}

before(async () => {
  await ensureReplica();
  db = await createReplicatedDatabase();
  const start = (maxReadLagSeconds: number) =>
    TestExporter.start(
      {
        ACKTRAIL_DATABASE_URL: db.primaryUrl,
        ACKTRAIL_DATABASE_READ_URL: db.replicaUrl,
        ACKTRAIL_API_TOKEN: TOKEN,
      },
      { rabbitmq: { enabled: false }, journeys: { maxReadLagSeconds } },
    );
  patient = await start(3600);
  strict = await start(1);
  await patient.exporter.ready;
  await strict.exporter.ready;
});

after(async () => {
  await resumeReplay().catch(() => undefined);
  await startReplica();
  await patient.close();
  await strict.close();
  await db.drop();
});

test('writes go to the primary, reads to the replica', async () => {
  await readsFrom(patient, 'replica');
  const id = await publishEvent(patient);
  assert.equal(await onPrimary(id), 1);
  await waitFor(
    'the journey, read through the replica',
    async () => (await lookup(patient, id)) === 200,
  );

  // With replay paused, a step committed on the primary is not on the replica: the API, reading
  // there, does not find it.
  await pauseReplay();
  try {
    const late = await publishEvent(patient);
    assert.equal(await onPrimary(late), 1);
    const before = await reads(patient, 'replica');
    assert.equal(
      await lookup(patient, late),
      404,
      'read from the replica, which has not replayed it',
    );
    assert.ok((await reads(patient, 'replica')) > before);

    // Its lag shows in /readyz and the metric; the strict exporter reads from the primary now.
    const lagging = await waitFor('the lag in /readyz', async () => {
      const r = await readyz(patient);
      return (r.body.replica.lagSeconds ?? 0) > 1 ? r : undefined;
    });
    assert.equal(lagging.status, 200);
    assert.equal(lagging.body.replica.readsFrom, 'replica', 'within the patient exporter’s bound');
    assert.ok(((await patient.scrape()).value('acktrail_store_replica_lag_seconds') ?? 0) > 1);
    await readsFrom(strict, 'primary');
    assert.equal(await lookup(strict, late), 200, 'the strict exporter reads from the primary');
  } finally {
    await resumeReplay();
  }
  await readsFrom(strict, 'replica');
});

test('the replica stopped: the API answers from the primary; started again, reads go back', async () => {
  const id = await publishEvent(patient);
  await waitFor('the journey', async () => (await lookup(patient, id)) === 200);
  await stopReplica();
  try {
    const primaryBefore = await reads(patient, 'primary');
    assert.equal(await lookup(patient, id), 200, 'served all the same');
    assert.ok((await reads(patient, 'primary')) > primaryBefore, 'by the primary');
    const r = await readyz(patient);
    assert.equal(r.status, 200, 'still ready: reads fall back');
    assert.equal(r.body.status, 'ready');
    assert.equal(r.body.replica.up, false);
    assert.equal((await patient.scrape()).value('acktrail_store_replica_up'), 0);
    assert.ok(
      patient.logs.some(
        (l) => l.msg === 'journey store reads: from the primary (the replica does not answer)',
      ),
    );
  } finally {
    await startReplica();
  }
  await readsFrom(patient, 'replica');
  assert.equal((await readyz(patient)).body.replica.up, true);
  const replicaBefore = await reads(patient, 'replica');
  assert.equal(await lookup(patient, id), 200);
  assert.ok((await reads(patient, 'replica')) > replicaBefore, 'by the replica again');
});
