// The rabbitmq collectors against the real broker: values equal the broker's own figures for
// queues with known ready and unacked counts; roles from dead-letter relations; faults of the
// broker's HTTP endpoints never fail the scrape, are logged once, and recover by themselves.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import amqp, { type ChannelModel } from 'amqplib';
import {
  createTestVhost,
  management,
  waitFor,
  type TestVhost,
} from '@acktrail/orders-example/testing';
import { FaultProxy } from '../testing/fault-proxy.js';
import { TestExporter } from '../testing/exporter.js';

const MANAGEMENT = 'http://guest:guest@127.0.0.1:15672';
const PROMETHEUS = 'http://127.0.0.1:15692';

let vhost: TestVhost;
let conn: ChannelModel;

before(async () => {
  vhost = await createTestVhost();
  conn = await amqp.connect(vhost.url);
  const ch = await conn.createConfirmChannel();
  await ch.assertExchange('jobs.dlx', 'fanout');
  await ch.assertQueue('jobs', { arguments: { 'x-dead-letter-exchange': 'jobs.dlx' } });
  await ch.assertQueue('jobs.later', {
    arguments: { 'x-dead-letter-exchange': '', 'x-dead-letter-routing-key': 'jobs' },
  });
  await ch.assertQueue('graveyard');
  await ch.bindQueue('graveyard', 'jobs.dlx', '');
  for (let i = 0; i < 10; i++) ch.sendToQueue('jobs', Buffer.from(`job ${i}`));
  for (let i = 0; i < 2; i++) ch.sendToQueue('graveyard', Buffer.from(`dead ${i}`));
  await ch.waitForConfirms();
  // A consumer holding 3 deliveries unacked: ready 7, unacked 3, consumers 1.
  const consumer = await conn.createChannel();
  await consumer.prefetch(3);
  await consumer.consume('jobs', () => undefined, { noAck: false });
});

after(async () => {
  await conn.close();
  await vhost.drop();
});

const scope = () => ({ vhosts: [vhost.name], statsIntervalSeconds: 1, timeoutSeconds: 2 });
const labels = (queue: string) => ({ vhost: vhost.name, queue });

interface ManagementQueue {
  name: string;
  messages_ready: number;
  messages_unacknowledged: number;
  consumers: number;
  message_stats?: { publish?: number };
}

for (const source of ['prometheus', 'management'] as const) {
  describe(`depths from the ${source} source`, () => {
    let exporter: TestExporter;
    before(async () => {
      exporter = await TestExporter.start(
        { RABBITMQ_MANAGEMENT_URL: MANAGEMENT },
        { rabbitmq: { ...scope(), source, prometheusUrl: PROMETHEUS } },
      );
    });
    after(() => exporter.close());

    test('ready, unacked and consumers equal the broker figures', async () => {
      const scrape = await waitFor('the known figures', async () => {
        const s = await exporter.scrape();
        return s.value('acktrail_queue_messages_ready', labels('jobs')) === 7 &&
          s.value('acktrail_queue_messages_unacked', labels('jobs')) === 3 &&
          s.value('acktrail_queue_consumers', labels('jobs')) === 1 &&
          s.value('acktrail_queue_messages_ready', labels('graveyard')) === 2
          ? s
          : undefined;
      });
      // Both sources are refreshed by the broker's statistics timer: compare once both show the
      // known figures.
      const broker = await waitFor('the management API to settle', async () => {
        const qs = (await management(
          `/queues/${encodeURIComponent(vhost.name)}`,
        )) as ManagementQueue[];
        const jobs = qs.find((q) => q.name === 'jobs');
        const graveyard = qs.find((q) => q.name === 'graveyard');
        return jobs?.messages_ready === 7 &&
          jobs.messages_unacknowledged === 3 &&
          jobs.consumers === 1 &&
          graveyard?.messages_ready === 2
          ? qs
          : undefined;
      });
      for (const q of broker) {
        assert.equal(
          scrape.value('acktrail_queue_messages_ready', labels(q.name)),
          q.messages_ready,
          q.name,
        );
        assert.equal(
          scrape.value('acktrail_queue_messages_unacked', labels(q.name)),
          q.messages_unacknowledged,
          q.name,
        );
        assert.equal(scrape.value('acktrail_queue_consumers', labels(q.name)), q.consumers, q.name);
      }
      assert.equal(scrape.value('acktrail_queue_consumers', labels('jobs')), 1);
      assert.equal(scrape.value('acktrail_queue_messages_ready', labels('graveyard')), 2);
    });

    test('a deleted queue disappears from the next scrapes', async () => {
      const ch = await conn.createChannel();
      await ch.assertQueue('jobs.tmp');
      await waitFor(
        'the new queue',
        async () =>
          (await exporter.scrape()).value('acktrail_queue_messages_ready', labels('jobs.tmp')) ===
          0,
      );
      await ch.deleteQueue('jobs.tmp');
      await ch.close();
      await waitFor(
        'it gone',
        async () =>
          (await exporter.scrape()).value('acktrail_queue_messages_ready', labels('jobs.tmp')) ===
          undefined,
      );
    });

    test('roles come from the dead-letter relations; other vhosts stay out of scope', async () => {
      const s = await exporter.scrape();
      const roles: Record<string, string | undefined> = Object.fromEntries(
        s
          .samples('acktrail_queue_messages_ready')
          .map((x) => [x.labels.queue ?? '', x.labels.role] as const),
      );
      assert.deepEqual(roles, { jobs: 'work', 'jobs.later': 'retry', graveyard: 'dead_letter' });
      assert.ok(
        s.samples('acktrail_queue_messages_ready').every((x) => x.labels.vhost === vhost.name),
      );
    });
  });
}

test('published totals mirror the broker statistics', async () => {
  const exporter = await TestExporter.start(
    { RABBITMQ_MANAGEMENT_URL: MANAGEMENT },
    { rabbitmq: scope() },
  );
  try {
    const broker = await waitFor('broker stats for jobs', async () => {
      const qs = (await management(
        `/queues/${encodeURIComponent(vhost.name)}/jobs`,
      )) as ManagementQueue;
      return qs.message_stats?.publish === 10 ? qs : undefined;
    });
    await waitFor('the exporter to show them', async () => {
      const s = await exporter.scrape();
      return (
        s.value('acktrail_queue_messages_published_total', { ...labels('jobs'), role: 'work' }) ===
        broker.message_stats?.publish
      );
    });
  } finally {
    await exporter.close();
  }
});

describe('faults', () => {
  test('broker unreachable: /metrics answers, rabbitmq collectors report 0, others unaffected', async () => {
    const exporter = await TestExporter.start(
      { RABBITMQ_MANAGEMENT_URL: 'http://guest:guest@127.0.0.1:1' },
      { rabbitmq: { ...scope(), prometheusUrl: 'http://127.0.0.1:1' } },
    );
    try {
      const before = (await (await fetch(`${exporter.url}/status`)).json()) as { status: string };
      assert.equal(before.status, 'starting', 'nothing collected before the first scrape');
      for (let i = 0; i < 3; i++) {
        const s = await exporter.scrape();
        assert.equal(s.success('rabbitmq'), 0);
        assert.equal(s.success('rabbitmq_stats'), 0);
        assert.equal(s.value('acktrail_build_info'), 1);
        assert.deepEqual(s.samples('acktrail_queue_messages_ready'), []);
      }
      const failing = exporter.logs.filter((l) => l.msg === 'collector failing');
      assert.deepEqual(
        failing.map((l) => l.collector).sort(),
        ['rabbitmq', 'rabbitmq_stats'],
        'one line per collector, not per scrape',
      );
      const ready = (await (await fetch(`${exporter.url}/status`)).json()) as {
        status: string;
        down: string[];
      };
      assert.equal(ready.status, 'degraded');
      assert.deepEqual(ready.down.sort(), ['rabbitmq', 'rabbitmq_stats']);
    } finally {
      await exporter.close();
    }
  });

  test('endpoints answering 500, then stalling, then healthy again: recovery is automatic', async () => {
    const mgmt = await FaultProxy.start(MANAGEMENT);
    const prom = await FaultProxy.start(PROMETHEUS);
    const exporter = await TestExporter.start(
      { RABBITMQ_MANAGEMENT_URL: mgmt.url },
      { rabbitmq: { ...scope(), prometheusUrl: prom.url, timeoutSeconds: 0.5 } },
    );
    try {
      assert.equal((await exporter.scrape()).success('rabbitmq'), 1);
      mgmt.mode = prom.mode = 'error';
      let s = await exporter.scrape();
      assert.equal(s.success('rabbitmq'), 0);
      assert.match(
        exporter.exporter.runner.status().find((x) => x.collector === 'rabbitmq')!.error ?? '',
        /answered 500/,
      );

      mgmt.mode = prom.mode = 'stall';
      s = await exporter.scrape();
      assert.equal(s.success('rabbitmq'), 0);
      assert.match(
        exporter.exporter.runner.status().find((x) => x.collector === 'rabbitmq')!.error ?? '',
        /timed out/,
      );

      mgmt.mode = prom.mode = 'pass';
      s = await exporter.scrape();
      assert.equal(s.success('rabbitmq'), 1);
      assert.equal(s.value('acktrail_queue_messages_unacked', labels('jobs')), 3);
      const transitions = exporter.logs.filter((l) => l.collector === 'rabbitmq').map((l) => l.msg);
      assert.deepEqual(transitions, ['collector failing', 'collector recovered']);
    } finally {
      await exporter.close();
      await mgmt.close();
      await prom.close();
    }
  });
});
