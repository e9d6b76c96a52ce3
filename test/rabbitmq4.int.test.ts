// RabbitMQ 4.0 as the official image ships it (scripts/rabbitmq4.sh: Debian 13's rabbitmq-server
// 4.0.5, management_agent.disable_metrics_collector = true, so the management API has no queue
// statistics): a classic and a quorum queue with 50 published, 20 acked and no consumer read
// right, counters and status included, from the broker's /metrics/detailed; a consumer that never
// acks makes STALL. Without that endpoint, the status is unknown, and acktrail says so.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import amqp from 'amqplib';
import { RABBITMQ4, waitFor } from '@acktrail/testing';
import { TestExporter, type Scrape } from '@acktrail/exporter/testing';

const { management: MANAGEMENT, prometheus: PROMETHEUS, amqp: AMQP } = RABBITMQ4;
const vhost = `acktrail_r4_${randomBytes(4).toString('hex')}`;
const QUEUES = { classic: 'work.classic', quorum: 'work.quorum' };

async function api(method: string, path: string, body?: unknown) {
  const url = new URL(path, MANAGEMENT);
  const res = await fetch(`${url.origin}${url.pathname}`, {
    method,
    headers: {
      authorization: `Basic ${Buffer.from('guest:guest').toString('base64')}`,
      'content-type': 'application/json',
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
}

let conn: amqp.ChannelModel;
const exporters: TestExporter[] = [];

before(async () => {
  await api('PUT', `/api/vhosts/${vhost}`, {});
  await api('PUT', `/api/permissions/${vhost}/guest`, {
    configure: '.*',
    write: '.*',
    read: '.*',
  });
  conn = await amqp.connect(`${AMQP}/${vhost}`);
  const ch = await conn.createConfirmChannel();
  await ch.assertQueue(QUEUES.classic, { durable: true });
  await ch.assertQueue(QUEUES.quorum, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
  for (let i = 0; i < 50; i++)
    for (const q of Object.values(QUEUES)) ch.sendToQueue(q, Buffer.from(String(i)));
  await ch.waitForConfirms();
  const get = await conn.createChannel();
  for (const q of Object.values(QUEUES))
    for (let i = 0; i < 20; i++) {
      const m = await get.get(q);
      assert.ok(m, `a message in ${q}`);
      get.ack(m);
    }
  await get.close();
  await ch.close();
});

after(async () => {
  for (const e of exporters) await e.close();
  await conn.close();
  await api('DELETE', `/api/vhosts/${vhost}`);
});

async function start(prometheusUrl: string) {
  const e = await TestExporter.start(
    { RABBITMQ_MANAGEMENT_URL: MANAGEMENT },
    {
      rabbitmq: { vhosts: [vhost], prometheusUrl, statsIntervalSeconds: 1, statusWindowSeconds: 5 },
    },
  );
  exporters.push(e);
  return e;
}

const labels = (queue: string) => ({ vhost, queue, role: 'work' });

test('the management API has no statistics on this broker (the official image’s setting)', async () => {
  const res = await fetch(`${MANAGEMENT.replace('guest:guest@', '')}/api/queues/${vhost}`, {
    headers: { authorization: `Basic ${Buffer.from('guest:guest').toString('base64')}` },
  });
  const queues = (await res.json()) as { name: string; messages_ready?: number }[];
  assert.equal(queues.length, 2);
  for (const q of queues) assert.equal(q.messages_ready, undefined, q.name);
});

test('counters and STOP from /metrics/detailed, for a classic and a quorum queue', async () => {
  const e = await start(PROMETHEUS);
  const s = await waitFor(
    'the counters and the status of both queues',
    async () => {
      const scrape = await e.scrape();
      return Object.values(QUEUES).every(
        (q) =>
          scrape.value('acktrail_queue_messages_acked_total', labels(q)) === 20 &&
          scrape.value('acktrail_queue_status', { ...labels(q), status: 'stop' }) === 1,
      )
        ? scrape
        : null;
    },
    { timeoutMs: 60_000, intervalMs: 1000 },
  );
  for (const q of Object.values(QUEUES)) {
    assert.equal(s.value('acktrail_queue_messages_published_total', labels(q)), 50, q);
    assert.equal(s.value('acktrail_queue_messages_delivered_total', labels(q)), 20, q);
    assert.equal(s.value('acktrail_queue_messages_ready', labels(q)), 30, q);
    assert.equal(s.value('acktrail_queue_consumers', labels(q)), 0, q);
  }
  assert.equal(s.value('acktrail_rabbitmq_counters_source', { source: 'detailed' }), 1);
  assert.equal(s.value('acktrail_rabbitmq_counters_source', { source: 'none' }), 0);
});

test('a consumer that takes a message and never acks: STALL', async () => {
  const e = exporters[0]!;
  const ch = await conn.createChannel();
  await ch.prefetch(1);
  await ch.consume(QUEUES.classic, () => undefined, { noAck: false });
  const stalled = (scrape: Scrape) =>
    scrape.value('acktrail_queue_status', { ...labels(QUEUES.classic), status: 'stall' }) === 1;
  await waitFor('STALL', async () => stalled(await e.scrape()), {
    timeoutMs: 120_000,
    intervalMs: 1000,
  });
  await ch.close();
});

test('neither source has counters: the status is unknown, and /status and a gauge say why', async () => {
  // The broker's own endpoint unreachable: only the statistics-less management API is left.
  const e = await start('http://127.0.0.1:1');
  const s = await waitFor(
    'the unknown status',
    async () => {
      const scrape = await e.scrape();
      return scrape.value('acktrail_rabbitmq_counters_source', { source: 'none' }) === 1
        ? scrape
        : null;
    },
    { timeoutMs: 60_000, intervalMs: 1000 },
  );
  for (const q of Object.values(QUEUES)) {
    assert.equal(s.value('acktrail_queue_status', { ...labels(q), status: 'unknown' }), 1, q);
    assert.equal(s.value('acktrail_queue_status', { ...labels(q), status: 'stop' }), undefined);
  }
  const status = (await (await fetch(`${e.url}/status`)).json()) as {
    sources: { collector: string; partial: string | null }[];
  };
  const stats = status.sources.find((x) => x.collector === 'rabbitmq_stats');
  assert.match(stats?.partial ?? '', /queue status unknown/);
});
