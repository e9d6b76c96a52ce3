// Ingest of Celery events, side by side in one run. The same messages (what a Celery 5 prefork
// worker and its clients publish: task-sent one per message, the worker's task events in
// `task.multi` lists of 10, heartbeats) are loaded into a queue first, then drained by:
//   raw       amqplib alone: consume, JSON.parse, ack (the ceiling of any Node consumer)
//   metrics   acktrail's consumer with the metrics only (no journey store)
//   journeys  acktrail's consumer with the metrics and every task event stored as a journey step
//   store     the same steps (parsed and built by the consumer's own code) written straight into
//             a journey store by StepStore, 2,000 at a time, all in flight at once: the store's
//             own ceiling, with no broker traffic
//   redis_metrics, redis_journeys   the same messages through a Redis broker (Celery's Redis
//             transport: PUBLISH of kombu's envelope on /<db>.celeryev/<routing key>), received
//             by acktrail's subscriber; pub/sub keeps nothing, so the messages are published
//             while acktrail listens (from this process, 200 per pipeline), timed from the first
//             publish to the last event counted (and committed)
// Events per second, from the consumer's start until the last event is counted (and, with the
// store, committed). Targets: at least 20,000 events/s (issue 7); the Redis path at least 0.8 of
// the AMQP path (issue 24).
import amqp from 'amqplib';
import { Redis } from 'ioredis';
import pg from 'pg';
import type { Metric } from 'prom-client';
import { type TestVhost, createTestVhost, waitFor } from '@acktrail/testing';
import { createTestDatabase } from '@acktrail/orders-example/testing';
import {
  eventQueueArguments,
  envelope,
  parseBody,
  taskStep,
} from '@acktrail/exporter/testing/celery';
import { migrateStore, StepStore } from '@acktrail/exporter/testing/store';
import { TestExporter } from '@acktrail/exporter/testing';
import { fmt, interleaved, median } from './lib.js';
import { target } from './figures.js';
import { TASKS, messages } from './celery-messages.js';

const QUEUE = 'acktrail.celery.events';
// acktrail's own queue, declared as its consumer declares it (the default celery.queueMaxBytes).
const QUEUE_ARGS = eventQueueArguments({ queueMaxBytes: 128 * 1024 * 1024 });
const log = (line: string) => process.stderr.write(`${line}\n`);
/** The bench's own Redis database (the tests take 12 to 14). */
const REDIS_URL = 'redis://127.0.0.1:6379/15';

async function load(vhost: TestVhost, queue: string, bodies: ReturnType<typeof messages>) {
  const conn = await amqp.connect(vhost.url);
  const ch = await conn.createConfirmChannel();
  await ch.assertExchange('celeryev', 'topic', { durable: true });
  await ch.assertQueue(queue, { durable: true, arguments: QUEUE_ARGS });
  await ch.bindQueue(queue, 'celeryev', '#');
  for (const m of bodies) {
    if (!ch.publish('celeryev', m.key, m.body, { contentType: 'application/json' }))
      await new Promise((r) => ch.once('drain', r));
  }
  await ch.waitForConfirms();
  await ch.unbindQueue(queue, 'celeryev', '#');
  await conn.close();
}

async function raw(vhost: TestVhost, events: number): Promise<number> {
  const conn = await amqp.connect(vhost.url);
  const ch = await conn.createChannel();
  await ch.prefetch(2000);
  let seen = 0;
  const t = performance.now();
  const done = new Promise<void>((resolve) => {
    let n = 0;
    void ch.consume('bench.raw', (msg) => {
      if (!msg) return;
      const body = JSON.parse(msg.content.toString('utf8')) as unknown;
      seen += Array.isArray(body) ? body.length : 1;
      if (++n % 100 === 0 || seen >= events) ch.ack(msg, true);
      if (seen >= events) resolve();
    });
  });
  await done;
  const rate = events / ((performance.now() - t) / 1000);
  await ch.deleteQueue('bench.raw');
  await conn.close();
  return rate;
}

async function total(metric: Metric | undefined): Promise<number> {
  if (!metric) return 0;
  return (await metric.get()).values.reduce((a, v) => a + v.value, 0);
}

async function acktrail(vhost: TestVhost, events: number, store: boolean): Promise<number> {
  const config = {
    celery: { enabled: true, url: vhost.url, prefetch: Number(process.env.BENCH_PREFETCH ?? 2000) },
  };
  const withStore = store ? await TestExporter.withStore({}, config) : null;
  const exporter =
    withStore ??
    (await TestExporter.start(
      {},
      { ...config, rabbitmq: { enabled: false }, journeys: { enabled: false } },
    ));
  await untilIngested(exporter, withStore?.storeUrl ?? null, events);
  const end = Date.now();
  // From the moment the consumer started (after the store's database is made and migrated).
  const started = (exporter.logs as { msg: string; time?: number }[]).find(
    (l) => l.msg === 'celery: consuming events',
  )!.time!;
  await exporter.close();
  const conn = await amqp.connect(vhost.url);
  await (await conn.createChannel()).deleteQueue(QUEUE);
  await conn.close();
  return events / ((end - started) / 1000);
}

/** Waits until every event is counted and, with a store, every task event is stored. */
async function untilIngested(
  exporter: TestExporter,
  storeUrl: string | null,
  events: number,
): Promise<void> {
  const counter = () =>
    total(exporter.exporter.registry.getSingleMetric('acktrail_celery_events_total'));
  await waitFor(
    'every event counted',
    async () => {
      const reconnects = await total(
        exporter.exporter.registry.getSingleMetric('acktrail_celery_broker_reconnects_total'),
      );
      if (reconnects > 0) throw new Error('the broker connection dropped: events were lost');
      return (await counter()) >= events;
    },
    { timeoutMs: 300_000, intervalMs: 20 },
  );
  if (storeUrl === null) return;
  const db = new pg.Client({ connectionString: storeUrl });
  await db.connect();
  const steps = events - Math.ceil(TASKS / 1000);
  await waitFor(
    'every task event stored',
    async () =>
      Number(
        (await db.query<{ n: string }>('SELECT count(*) AS n FROM journey_steps')).rows[0]!.n,
      ) >= steps,
    { timeoutMs: 300_000, intervalMs: 50 },
  );
  await db.end();
}

/** The messages through a Redis broker, published while acktrail's subscriber listens. */
async function viaRedis(
  bodies: ReturnType<typeof messages>,
  events: number,
  store: boolean,
): Promise<number> {
  const config = { celery: { enabled: true, url: REDIS_URL } };
  const withStore = store ? await TestExporter.withStore({}, config) : null;
  const exporter =
    withStore ??
    (await TestExporter.start(
      {},
      { ...config, rabbitmq: { enabled: false }, journeys: { enabled: false } },
    ));
  try {
    await waitFor('subscribed', () =>
      exporter.logs.some((l) => l.msg === 'celery: subscribed to the Redis event channel'),
    );
    // kombu's envelopes, made before the clock starts.
    const payloads = bodies.map((m) => {
      const env = JSON.parse(envelope(null, 'celeryev', m.key)) as { body: string };
      env.body = m.body.toString('base64');
      return [`/15.celeryev/${m.key}`, JSON.stringify(env)] as const;
    });
    const pub = new Redis(REDIS_URL);
    const t = performance.now();
    for (let i = 0; i < payloads.length; i += 200) {
      const pipe = pub.pipeline();
      for (const [channel, payload] of payloads.slice(i, i + 200)) pipe.publish(channel, payload);
      await pipe.exec();
    }
    pub.disconnect();
    await untilIngested(exporter, withStore?.storeUrl ?? null, events);
    return events / ((performance.now() - t) / 1000);
  } finally {
    await exporter.close();
  }
}

/** Every timestamp and size is accepted: the bench's events are all valid. */
const ANY_TIME = {
  fromS: 0,
  toS: Number.MAX_SAFE_INTEGER,
  maxMessageBytes: Number.MAX_SAFE_INTEGER,
};

async function storeOnly(bodies: ReturnType<typeof messages>): Promise<number> {
  const steps = bodies.flatMap((m) =>
    parseBody(m.body, ANY_TIME).flatMap((e) => (e.kind === 'task' ? [taskStep(e, undefined)] : [])),
  );
  const db = await createTestDatabase();
  await migrateStore(db.url);
  const pool = new pg.Pool({ connectionString: db.url, max: 6 });
  const store = new StepStore(pool, Number.MAX_SAFE_INTEGER);
  await store.partitions.ensure(steps.map((s) => s.timeUs));
  const t = performance.now();
  const writes = [];
  for (let i = 0; i < steps.length; i += 2000) writes.push(store.write(steps.slice(i, i + 2000)));
  await Promise.all(writes);
  const rate = steps.length / ((performance.now() - t) / 1000);
  await pool.end();
  await db.drop();
  return rate;
}

export async function runCeleryBench(rounds: number): Promise<void> {
  log(`celery bench: ${fmt(TASKS)} tasks, 4 events each plus heartbeats`);
  const bodies = messages();
  const events = bodies.reduce((a, m) => a + m.events, 0);
  log(`  ${fmt(bodies.length)} messages, ${fmt(events)} events`);
  const vhost = await createTestVhost('acktrail_bench');
  try {
    const results = await interleaved(rounds, {
      raw: async () => {
        await load(vhost, 'bench.raw', bodies);
        return raw(vhost, events);
      },
      metrics: async () => {
        await load(vhost, QUEUE, bodies);
        return acktrail(vhost, events, false);
      },
      journeys: async () => {
        await load(vhost, QUEUE, bodies);
        return acktrail(vhost, events, true);
      },
      store: () => storeOnly(bodies),
      redis_metrics: () => viaRedis(bodies, events, false),
      redis_journeys: () => viaRedis(bodies, events, true),
    });
    const m = (k: keyof typeof results) => median(results[k]);
    target('Celery events, metrics + journeys', m('journeys'), { atLeast: 20_000 }, 'events/s');
    for (const kind of ['metrics', 'journeys'] as const)
      target(`Celery on Redis / on AMQP, ${kind}`, m(`redis_${kind}`) / m(kind), { atLeast: 0.8 });
    console.log(`celery: ingest of ${fmt(events)} events, medians of ${rounds} rounds (events/s)`);
    console.log(`  raw amqplib consume + JSON.parse: ${fmt(m('raw'))}`);
    console.log(
      `  acktrail, metrics only:          ${fmt(m('metrics'))}  (ratio to raw ${fmt(m('metrics') / m('raw'), 2)})`,
    );
    console.log(`  journey store alone (steps/s):    ${fmt(m('store'))}`);
    console.log(
      `  acktrail, metrics + journeys:    ${fmt(m('journeys'))}  (ratio to raw ${fmt(m('journeys') / m('raw'), 2)}; target >= 20,000)`,
    );
    console.log(
      `  Redis broker, metrics only:      ${fmt(m('redis_metrics'))}  (ratio to the AMQP path ${fmt(m('redis_metrics') / m('metrics'), 2)}; target >= 0.8)`,
    );
    console.log(
      `  Redis broker, metrics + journeys: ${fmt(m('redis_journeys'))}  (ratio to the AMQP path ${fmt(m('redis_journeys') / m('journeys'), 2)}; target >= 0.8)`,
    );
  } finally {
    await vhost.drop();
  }
}
