// Two exporter processes on one journey store, as a deployment with replicas runs them: OTLP
// round-robin across them per request, the Celery consumer on each, each scraped. Nothing sent is
// doubled or lost, a journey reads the same from either replica, counters summed over the
// replicas equal what was sent (a duplicate publish whose two copies reach the two replicas at
// the same moment included), only one replica migrates and drops expired partitions, and the
// Celery event stream goes to one replica at a time (a task's events stay together), the other
// taking over when it stops.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { SpanKind } from '@opentelemetry/api';
import amqp, { type ChannelModel } from 'amqplib';
import pg from 'pg';
import {
  type RoleProcess,
  type TestDatabase,
  type TestVhost,
  createTestVhost,
  waitFor,
  RoundRobinProxy,
} from '@acktrail/testing';
import { createTestDatabase } from '@acktrail/orders-example/testing';
import { partUp, Scrape, startExporterProcess } from '@acktrail/exporter/testing';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import {
  AMQPLIB,
  childOf,
  exportSpans,
  makeSpans,
  type SpanSpec,
} from '@acktrail/exporter/testing/otlp';
import { readOpenMetrics } from '@acktrail/exporter/testing/openmetrics';

const TOKEN = 'replicas-test-token-0123456789';
const EVENTS = 120;
const PER_REQUEST = 20;
const SERVICE = 'jobs-pipeline';

let store: TestDatabase;
let vhost: TestVhost;
let replicas: { proc: RoleProcess; url: string }[] = [];
let proxy: RoundRobinProxy;
let conn: ChannelModel;

const env = () => ({
  ACKTRAIL_DATABASE_URL: store.url,
  ACKTRAIL_API_TOKEN: TOKEN,
  RABBITMQ_MANAGEMENT_URL: 'http://guest:guest@127.0.0.1:15672',
});
const fileConfig = () => ({
  rabbitmq: { vhosts: [vhost.name], statsIntervalSeconds: 1 },
  celery: { enabled: true, url: vhost.url },
});
const startReplicas = () =>
  Promise.all([0, 1].map(() => startExporterProcess(env(), fileConfig())));
const scrape = async (url: string) => new Scrape(await (await fetch(`${url}/metrics`)).text());
/** A counter's value summed over the replicas (absent: 0). */
const summed = async (name: string, labels: Record<string, string> = {}) =>
  (await Promise.all(replicas.map((r) => scrape(r.url)))).reduce(
    (sum, s) => sum + (s.value(name, labels) ?? 0),
    0,
  );
const logged = (proc: RoleProcess, msg: string) => proc.lines.filter((l) => l.msg === msg);

before(async () => {
  store = await createTestDatabase('acktrail_replicas', false);
  vhost = await createTestVhost('acktrail_replicas');
  conn = await amqp.connect(vhost.url);
  // The queue the spans name: a label takes only the names the broker lists.
  const ch = await conn.createChannel();
  await ch.assertQueue('jobs');
  await ch.close();
  replicas = await startReplicas();
  proxy = await RoundRobinProxy.start(replicas.map((r) => r.url));
});

after(async () => {
  await proxy.close();
  await Promise.all(replicas.map((r) => r.proc.stop()));
  await conn.close();
  await vhost.drop();
  await store.drop();
});

test('the store is migrated by one replica only', () => {
  const migrated = replicas.map((r) => logged(r.proc, 'journey store migrated').length);
  assert.deepEqual(
    migrated.sort(),
    [0, 1],
    'one replica applied the migrations, the other found them done',
  );
});

/**
 * Per event: a publish, its delivery (a third of them redelivered), and for every other event a
 * second publish of the same event id (the relay crashed after the confirm). Each publish is a
 * request of its own, an event's two copies one after the other, so that the balancer hands them
 * to the two replicas at the same moment; the deliveries follow in requests of 20.
 */
function requests(): { spans: ReadableSpan[]; steps: number }[] {
  const out: { spans: ReadableSpan[]; steps: number }[] = [];
  const publish = (id: string, n: number): SpanSpec => ({
    name: 'jobs publish',
    kind: SpanKind.PRODUCER,
    attributes: {
      'messaging.system': 'rabbitmq',
      'messaging.destination': 'jobs',
      'messaging.rabbitmq.routing_key': 'job.created',
      'messaging.message_id': id,
      'test.copy': n,
    },
  });
  const ids = Array.from({ length: EVENTS }, () => randomUUID());
  const made = makeSpans(
    ids.map((id) => publish(id, 1)),
    SERVICE,
    AMQPLIB,
  );
  ids.forEach((id, i) => {
    out.push({ spans: [made[i]!], steps: 1 });
    if (i % 2 === 0) out.push({ spans: makeSpans([publish(id, 2)], SERVICE, AMQPLIB), steps: 1 });
  });
  for (let start = 0; start < EVENTS; start += PER_REQUEST) {
    const delivers: SpanSpec[] = made.slice(start, start + PER_REQUEST).map((p, k) => ({
      name: 'jobs process',
      kind: SpanKind.CONSUMER,
      parent: childOf(p),
      attributes: {
        'messaging.system': 'rabbitmq',
        'messaging.message_id': ids[start + k]!,
        ...((start + k) % 3 === 0 ? { 'acktrail.delivery.redelivered': true } : {}),
      },
    }));
    // A stock consumer span is a delivery and its settle: two steps.
    out.push({ spans: makeSpans(delivers, SERVICE, AMQPLIB), steps: 2 * delivers.length });
  }
  return out;
}

test('OTLP round-robin: every step stored once, journeys alike on both, counters sum to the truth', async () => {
  const batch = requests();
  const before = {
    duplicates: await summed('acktrail_duplicate_publishes_total'),
    redeliveries: await summed('acktrail_redeliveries_total', { queue: 'jobs' }),
  };
  const results = await Promise.all(batch.map((r) => exportSpans(proxy.url, r.spans, 'protobuf')));
  assert.deepEqual(
    results.map((r) => r.code),
    batch.map(() => 0),
    'every export answered 200',
  );
  assert.ok(
    proxy.counts.every((n) => n >= batch.length / 2 - 1),
    `both replicas got requests: ${proxy.counts.join(', ')}`,
  );

  const sentSteps = batch.reduce((n, r) => n + r.steps, 0);
  const sentSpans = batch.reduce((n, r) => n + r.spans.length, 0);
  const db = new pg.Client({ connectionString: store.url });
  await db.connect();
  try {
    const rows = await db.query<{ n: number; distinct_spans: number }>(
      `SELECT count(*)::int AS n, count(DISTINCT (trace_id, span_id))::int AS distinct_spans
         FROM journey_steps WHERE service = 'jobs-pipeline'`,
    );
    assert.deepEqual(rows.rows[0], { n: sentSteps, distinct_spans: sentSteps });
  } finally {
    await db.end();
  }
  assert.equal(await summed('acktrail_spans_received_total', { outcome: 'accepted' }), sentSpans);
  const duplicates = EVENTS / 2;
  const redelivered = Math.ceil(EVENTS / 3);
  assert.equal(
    (await summed('acktrail_duplicate_publishes_total')) - before.duplicates,
    duplicates,
    'each duplicate publish counted once, on one replica',
  );
  assert.equal(
    (await summed('acktrail_redeliveries_total', { queue: 'jobs' })) - before.redeliveries,
    redelivered,
  );

  // One event with a duplicate publish, read from each replica.
  const db2 = new pg.Client({ connectionString: store.url });
  await db2.connect();
  const { rows } = await db2.query<{ event_id: string }>(
    `SELECT event_id FROM journey_steps WHERE service = 'jobs-pipeline' AND stage = 'publish'
      GROUP BY event_id HAVING count(*) = 2 LIMIT 3`,
  );
  await db2.end();
  assert.equal(rows.length, 3);
  for (const { event_id: id } of rows) {
    const [a, b] = await Promise.all(
      replicas.map(async (r) => {
        const res = await fetch(`${r.url}/api/events/${id}`, {
          headers: { authorization: `Bearer ${TOKEN}` },
        });
        assert.equal(res.status, 200);
        return (await res.json()) as { publishes: number; timeline: unknown[]; kinds: string[] };
      }),
    );
    assert.deepEqual(a, b, `the journey of ${id} reads the same from both replicas`);
    assert.equal(a!.publishes, 2);
    assert.equal(a!.timeline.length, 4, 'two publishes, the delivery and its settle');
    assert.ok(a!.kinds.includes('published_twice'), a!.kinds.join(', '));
  }
});

/** Celery events for `n` tasks (sent, received, started, succeeded), as single messages. */
async function publishTasks(n: number, name: string): Promise<void> {
  const ch = await conn.createConfirmChannel();
  const now = Date.now() / 1000;
  for (let i = 0; i < n; i++) {
    const uuid = randomUUID();
    const events = [
      { type: 'task-sent', hostname: 'client@app', name, queue: 'celery', timestamp: now },
      { type: 'task-received', hostname: 'w1@host', name, timestamp: now + 0.1 },
      { type: 'task-started', hostname: 'w1@host', timestamp: now + 0.2 },
      { type: 'task-succeeded', hostname: 'w1@host', runtime: 0.05, timestamp: now + 0.25 },
    ];
    for (const e of events)
      ch.publish(
        'celeryev',
        e.type.replace('-', '.'),
        Buffer.from(JSON.stringify({ ...e, uuid })),
        {
          contentType: 'application/json',
        },
      );
  }
  await ch.waitForConfirms();
  await ch.close();
}

const tasks = (s: Scrape, task: string, state: string) =>
  s.value('acktrail_celery_tasks_total', { task, queue: 'celery', state }) ?? 0;

test('Celery: one replica consumes at a time, task counts sum to the truth; the other takes over', async () => {
  await Promise.all(
    replicas.map((r) =>
      r.proc.waitForLog((l) => l.msg === 'celery: consuming events', 'the celery consumer'),
    ),
  );
  await publishTasks(30, 'tasks.first');
  const counts = await waitFor('30 succeeded tasks over the replicas', async () => {
    const scrapes = await Promise.all(replicas.map((r) => scrape(r.url)));
    const per = scrapes.map((s) => tasks(s, 'tasks.first', 'succeeded'));
    return per.reduce((a, b) => a + b, 0) === 30 ? { scrapes, per } : undefined;
  });
  // Every event to one replica: the task's name (only on task-sent and task-received) labels its
  // started and succeeded counts, and its queue wait is measured.
  const active = counts.per.findIndex((n) => n === 30);
  assert.notEqual(active, -1, `one replica took every task: ${counts.per.join(', ')}`);
  const s = counts.scrapes[active]!;
  for (const state of ['sent', 'received', 'started', 'succeeded'])
    assert.equal(tasks(s, 'tasks.first', state), 30, state);
  assert.equal(
    s.histogram('acktrail_celery_task_queue_wait_seconds', { task: 'tasks.first' }).count,
    30,
  );

  // Celery and the journey store on, beside another replica: OpenMetrics still parses.
  const om = await readOpenMetrics(replicas[active]!.url);
  assert.equal(om.families.acktrail_celery_tasks, 'counter');

  // The active one stops: the other takes the stream over.
  const standby = replicas[1 - active]!;
  await replicas[active]!.proc.stop();
  await publishTasks(10, 'tasks.second');
  await waitFor('the other replica to count them', async () => {
    const t = await scrape(standby.url);
    return (
      tasks(t, 'tasks.second', 'succeeded') === 10 && tasks(t, 'tasks.second', 'started') === 10
    );
  });
  replicas = [standby, ...(await Promise.all([startExporterProcess(env(), fileConfig())]))];
});

test('expired partitions are dropped by one replica only', async () => {
  const old = new Date(Date.now() - 30 * 86_400_000);
  const day = old.toISOString().slice(0, 10);
  const name = `journey_steps_p${day.replace(/-/g, '')}`;
  const admin = new pg.Client({ connectionString: store.url });
  const reader = new pg.Client({ connectionString: store.url });
  await admin.connect();
  await reader.connect();
  try {
    await admin.query(`CREATE TABLE ${name} (LIKE journey_steps INCLUDING DEFAULTS)`);
    const next = new Date(Date.parse(day) + 86_400_000).toISOString();
    await admin.query(
      `ALTER TABLE journey_steps ATTACH PARTITION ${name} FOR VALUES FROM ('${day}') TO ('${next}')`,
    );
    await Promise.all(replicas.map((r) => r.proc.stop()));
    // A long read that still sees the old day: a replica's detach waits for it, so the two
    // replicas' maintenance overlaps for as long as the test wants.
    await reader.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
    await reader.query('SELECT count(*) FROM journey_steps');
    // Both start together, and each maintains the store at start.
    replicas = await Promise.all(
      [0, 1].map(() => startExporterProcess(env(), fileConfig(), { waitForStore: false })),
    );
    const detaching = async () =>
      (
        await admin.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity
            WHERE query ILIKE 'ALTER TABLE journey_steps DETACH PARTITION%' AND state = 'active'`,
        )
      ).rows[0]!.n;
    // One replica waits in its detach; the other found the maintenance lock taken and went on.
    await waitFor('one replica detaching, the other up', async () => {
      const up = await Promise.all(replicas.map((r) => partUp(r.url, 'journey_store')));
      return (await detaching()) === 1 && up.includes(true);
    });
    await reader.query('COMMIT');
    const dropped = await waitFor('the expired day dropped', () => {
      const lines = replicas.flatMap((r) =>
        logged(r.proc, 'journey partitions past retention dropped'),
      );
      return lines.length ? lines : undefined;
    });
    assert.equal(dropped.length, 1);
    assert.deepEqual(dropped[0]!.dropped, [name]);
    await waitFor('both replicas up', async () =>
      (await Promise.all(replicas.map((r) => partUp(r.url, 'journey_store')))).every(Boolean),
    );
    for (const r of replicas)
      assert.equal(
        (await scrape(r.url)).value('acktrail_background_errors_total', { part: 'journey_store' }),
        0,
      );
  } finally {
    await reader.query('ROLLBACK').catch(() => undefined);
    await reader.end();
    await admin.end();
  }
});
