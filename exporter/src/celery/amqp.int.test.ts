// The Celery consumer against hostile publishers on a real broker and store: bad events are set
// aside and counted without holding up the stream, the queue is bounded in bytes, and no label
// grows past its cap.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import amqp from 'amqplib';
import pg from 'pg';
import { createTestVhost, management, waitFor, type TestVhost } from '@acktrail/testing';
import { TestExporter } from '../../testing/exporter.js';

let vhost: TestVhost;
let exporter: Awaited<ReturnType<typeof TestExporter.withStore>>;

before(async () => {
  vhost = await createTestVhost();
  exporter = await TestExporter.withStore(
    {},
    {
      celery: {
        enabled: true,
        url: vhost.url,
        maxMessageBytes: 4096,
        maxTaskNames: 3,
        maxTaskQueuePairs: 4,
        maxWorkers: 2,
      },
    },
  );
  await waitFor('the celery consumer', () =>
    exporter.logs.some((l) => l.msg === 'celery: consuming events'),
  );
});
after(async () => {
  await exporter.close();
  await vhost.drop();
});

async function publish(bodies: (string | Buffer)[]): Promise<void> {
  const conn = await amqp.connect(vhost.url);
  const ch = await conn.createConfirmChannel();
  for (const b of bodies)
    ch.publish('celeryev', 'task.x', Buffer.isBuffer(b) ? b : Buffer.from(b), {
      contentType: 'application/json',
    });
  await ch.waitForConfirms();
  await conn.close();
}

const now = () => Date.now() / 1000;
const event = (over: Record<string, unknown>) =>
  JSON.stringify({
    type: 'task-sent',
    uuid: crypto.randomUUID(),
    timestamp: now(),
    hostname: 'client@host',
    name: 'tasks.ok',
    queue: 'celery',
    ...over,
  });

const skipped = async (reason: string) =>
  (await exporter.scrape()).value('acktrail_celery_events_skipped_total', { reason }) ?? 0;

test("acktrail's event queue is bounded in bytes as well as in messages", async () => {
  const v = encodeURIComponent(vhost.name);
  const q = (await management(`/queues/${v}/acktrail.celery.events`)) as {
    arguments: Record<string, unknown>;
  };
  assert.equal(q.arguments['x-max-length-bytes'], 128 * 1024 * 1024);
  assert.equal(q.arguments['x-max-length'], 1_000_000);
  // Several exporter replicas take turns on the stream (test/replicas.int.test.ts).
  assert.equal(q.arguments['x-single-active-consumer'], true);
});

test('bad events are set aside with their reason; the good one behind them is stored', async () => {
  const good = crypto.randomUUID();
  await publish([
    event({ uuid: 'bad\u0000id' }),
    event({ uuid: 'x'.repeat(300) }),
    event({ timestamp: 4_102_444_800 }), // the year 2100
    Buffer.alloc(10_000, 0x20), // past maxMessageBytes
    '{"type": ',
    event({ uuid: good, name: `tasks.\u0000odd\ud800` }),
  ]);
  const db = new pg.Client({ connectionString: exporter.storeUrl });
  await db.connect();
  try {
    await waitFor('the good event stored', async () => {
      const r = await db.query('SELECT name FROM journey_steps WHERE event_id = $1', [good]);
      return r.rows.length === 1;
    });
    assert.equal(await skipped('invalid_id'), 2);
    assert.equal(await skipped('out_of_window'), 1);
    assert.equal(await skipped('too_large'), 1);
    assert.equal(await skipped('malformed'), 1);
    const parts = await db.query<{ name: string }>(
      `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = 'journey_steps'::regclass`,
    );
    assert.ok(
      parts.rows.every((r) => !r.name.startsWith('journey_steps_p2100')),
      parts.rows.map((r) => r.name).join(', '),
    );
  } finally {
    await db.end();
  }
});

test('task names, task x queue pairs and workers stop at their caps; the rest is counted as overflow', async () => {
  const names = ['a', 'b', 'c', 'd', 'e'].map((n) => `tasks.${n}`);
  await publish(
    names.flatMap((name) =>
      ['q1', 'q2'].map((queue) => event({ name, queue, type: 'task-received' })),
    ),
  );
  await publish(
    ['w1', 'w2', 'w3', 'w4'].map((w) =>
      JSON.stringify({
        type: 'worker-heartbeat',
        hostname: `${w}@host`,
        timestamp: now(),
        freq: 2,
      }),
    ),
  );
  await waitFor('the events counted', async () => {
    const s = await exporter.scrape();
    return (s.value('acktrail_celery_events_total', { type: 'worker-heartbeat' }) ?? 0) >= 4;
  });
  const s = await exporter.scrape();
  const series = s
    .samples('acktrail_celery_tasks_total')
    .filter((x) => x.labels.state === 'received');
  const pairs = series.map((x) => `${x.labels.task}/${x.labels.queue}`);
  assert.ok(pairs.length <= 5, `at most the cap and other/other: ${pairs.join(', ')}`);
  assert.ok(pairs.includes('other/other'));
  assert.equal(
    series.reduce((n, x) => n + x.value, 0),
    10,
    'every event is still counted, in other when beyond the caps',
  );
  assert.ok(s.samples('acktrail_celery_worker_up').length <= 2);
  assert.ok((s.value('acktrail_label_overflow_total', { label: 'celery_worker' }) ?? 0) >= 2);
  assert.ok((s.value('acktrail_label_overflow_total', { label: 'celery_task_queue' }) ?? 0) > 0);
});
