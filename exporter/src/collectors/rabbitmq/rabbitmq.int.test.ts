// The rabbitmq collectors against the real brokers, this machine's RabbitMQ 3.10, and RabbitMQ 4.0
// and the newest Debian packages (unstable) as the official image ships them (scripts/rabbitmq4.sh): values equal the broker's own figures
// for queues with known ready and unacked counts; roles from dead-letter relations; faults of the
// broker's HTTP endpoints never fail the scrape, are logged once, and recover by themselves.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import amqp, { type ChannelModel } from 'amqplib';
import {
  REPO_ROOT,
  RABBITMQ4,
  RABBITMQ_NEWEST,
  createTestVhost,
  management,
  waitFor,
  type TestVhost,
  listQueuesArgs,
  FaultProxy,
} from '@acktrail/testing';
import { TestExporter } from '../../../testing/exporter.js';

interface QueueFigures {
  name: string;
  messages_ready: number;
  messages_unacknowledged: number;
  consumers: number;
}

interface Broker {
  title: string;
  amqp: string;
  management: string;
  prometheus: string;
  /** Where the depths may come from: with the official image's settings, the management API has none. */
  sources: readonly ('prometheus' | 'management')[];
  /** The broker's own figures for each queue of `vhost`, from outside acktrail's code paths. */
  figures(vhost: string): Promise<QueueFigures[]>;
  /** The broker's own count of messages published into `queue`. */
  published(vhost: string, queue: string): Promise<number | undefined>;
}

const run = promisify(execFile);

/**
 * A broker with the official image's settings in a chroot of scripts/rabbitmq4.sh (`script`: its
 * instance option): no statistics in the management API, so figures come from rabbitmqctl, which
 * asks the queues themselves, and published counts from the broker's own /metrics/detailed.
 */
function asShipped(
  title: string,
  urls: { amqp: string; management: string; prometheus: string },
  script: string[],
): Broker {
  return {
    title,
    ...urls,
    sources: ['prometheus'],
    figures: async (vhost) => {
      const { stdout } = await run('bash', [
        join(REPO_ROOT, 'scripts/rabbitmq4.sh'),
        ...script,
        'ctl',
        ...listQueuesArgs(vhost),
      ]);
      return JSON.parse(stdout) as QueueFigures[];
    },
    published: async (vhost, queue) => {
      const text = await (
        await fetch(`${urls.prometheus}/metrics/detailed?family=queue_exchange_metrics`)
      ).text();
      let sum: number | undefined;
      for (const line of text.split('\n'))
        if (
          line.startsWith('rabbitmq_detailed_queue_exchange_messages_published_total{') &&
          line.includes(`vhost="${vhost}"`) &&
          line.includes(`queue="${queue}"`)
        )
          sum = (sum ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1));
      return sum;
    },
  };
}

const BROKERS: Broker[] = [
  {
    title: 'RabbitMQ 3.10',
    amqp: 'amqp://guest:guest@127.0.0.1:5672',
    management: 'http://guest:guest@127.0.0.1:15672',
    prometheus: 'http://127.0.0.1:15692',
    sources: ['prometheus', 'management'],
    figures: async (vhost) =>
      (await management(`/queues/${encodeURIComponent(vhost)}`)) as QueueFigures[],
    published: async (vhost, queue) =>
      (
        (await management(`/queues/${encodeURIComponent(vhost)}/${queue}`)) as {
          message_stats?: { publish?: number };
        }
      ).message_stats?.publish,
  },
  asShipped('RabbitMQ 4.0 as shipped', RABBITMQ4, []),
  asShipped(`RabbitMQ ${RABBITMQ_NEWEST.version} (Debian unstable) as shipped`, RABBITMQ_NEWEST, [
    '--newest',
  ]),
];

/** The broker's own consumer capacity of a queue, from its /metrics/detailed. */
async function brokerCapacity(prometheus: string, vhost: string, queue: string) {
  const text = await (await fetch(`${prometheus}/metrics/detailed?family=queue_metrics`)).text();
  const series = `rabbitmq_detailed_queue_consumer_capacity{vhost="${vhost}",queue="${queue}"} `;
  const line = text.split('\n').find((l) => l.startsWith(series));
  return line === undefined ? undefined : Number(line.slice(series.length));
}

const scope = (vhost: string) => ({ vhosts: [vhost], statsIntervalSeconds: 1, timeoutSeconds: 2 });

/** Two queues with known figures (jobs: ready 7, unacked 3, consumers 1; graveyard: ready 2). */
async function knownQueues(vhost: TestVhost): Promise<ChannelModel> {
  const conn = await amqp.connect(vhost.url);
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
  // A consumer holding 3 deliveries unacked.
  const consumer = await conn.createChannel();
  await consumer.prefetch(3);
  await consumer.consume('jobs', () => undefined, { noAck: false });
  return conn;
}

for (const broker of BROKERS)
  describe(broker.title, () => {
    let vhost: TestVhost;
    let conn: ChannelModel;
    const labels = (queue: string) => ({ vhost: vhost.name, queue });
    /** A work queue's acktrail_queue_status series for one status, in a scrape. */
    const statusOf = (
      x: Awaited<ReturnType<TestExporter['scrape']>>,
      queue: string,
      status: string,
    ) => x.value('acktrail_queue_status', { ...labels(queue), role: 'work', status });

    before(async () => {
      vhost = await createTestVhost('acktrail_test', broker);
      conn = await knownQueues(vhost);
    });
    after(async () => {
      await conn.close();
      await vhost.drop();
    });

    for (const source of broker.sources)
      describe(`depths from the ${source} source`, () => {
        let exporter: TestExporter;
        before(async () => {
          exporter = await TestExporter.start(
            { RABBITMQ_MANAGEMENT_URL: broker.management },
            { rabbitmq: { ...scope(vhost.name), source, prometheusUrl: broker.prometheus } },
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
          // The broker's statistics may lag its queues: compare once it shows the known figures.
          const figures = await waitFor('the broker to settle', async () => {
            const qs = await broker.figures(vhost.name);
            const jobs = qs.find((q) => q.name === 'jobs');
            const graveyard = qs.find((q) => q.name === 'graveyard');
            return jobs?.messages_ready === 7 &&
              jobs.messages_unacknowledged === 3 &&
              jobs.consumers === 1 &&
              graveyard?.messages_ready === 2
              ? qs
              : undefined;
          });
          assert.equal(figures.length, 3);
          for (const q of figures) {
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
            assert.equal(
              scrape.value('acktrail_queue_consumers', labels(q.name)),
              q.consumers,
              q.name,
            );
          }
        });

        test('a deleted queue disappears from the next scrapes', async () => {
          const ch = await conn.createChannel();
          await ch.assertQueue('jobs.tmp');
          await waitFor(
            'the new queue',
            async () =>
              (await exporter.scrape()).value(
                'acktrail_queue_messages_ready',
                labels('jobs.tmp'),
              ) === 0,
          );
          await ch.deleteQueue('jobs.tmp');
          await ch.close();
          await waitFor(
            'it gone',
            async () =>
              (await exporter.scrape()).value(
                'acktrail_queue_messages_ready',
                labels('jobs.tmp'),
              ) === undefined,
          );
        });

        test('roles come from the dead-letter relations; other vhosts stay out of scope', async () => {
          const s = await exporter.scrape();
          const roles: Record<string, string | undefined> = Object.fromEntries(
            s
              .samples('acktrail_queue_messages_ready')
              .map((x) => [x.labels.queue ?? '', x.labels.role] as const),
          );
          assert.deepEqual(roles, {
            jobs: 'work',
            'jobs.later': 'retry',
            graveyard: 'dead_letter',
          });
          assert.ok(
            s.samples('acktrail_queue_messages_ready').every((x) => x.labels.vhost === vhost.name),
          );
        });
      });

    test('a consumer that goes: STOP at the next scrape, with no stats refresh in between', async () => {
      const ch = await conn.createChannel();
      await ch.assertQueue('halt');
      const { consumerTag } = await ch.consume('halt', (m) => {
        if (m) ch.ack(m);
      });
      // The broker lists the queue before the exporter's one refresh: on RabbitMQ 3.10 the
      // management API lists a queue only once it has emitted its statistics.
      await waitFor('the broker to list halt', async () =>
        (await broker.figures(vhost.name)).some((q) => q.name === 'halt' && q.consumers === 1),
      );
      // One stats refresh, at the first scrape; the next one an hour later.
      const exporter = await TestExporter.start(
        { RABBITMQ_MANAGEMENT_URL: broker.management },
        {
          rabbitmq: {
            ...scope(vhost.name),
            statsIntervalSeconds: 3600,
            prometheusUrl: broker.prometheus,
          },
        },
      );
      try {
        await waitFor('halt consumed and ok', async () => {
          const x = await exporter.scrape();
          return (
            x.value('acktrail_queue_consumers', labels('halt')) === 1 &&
            statusOf(x, 'halt', 'ok') === 1
          );
        });
        await ch.cancel(consumerTag);
        for (let i = 0; i < 2; i++) ch.sendToQueue('halt', Buffer.from(`m${i}`));
        const stopped = await waitFor('STOP', async () => {
          const x = await exporter.scrape();
          return statusOf(x, 'halt', 'stop') === 1 ? x : undefined;
        });
        assert.equal(stopped.value('acktrail_queue_messages_ready', labels('halt')), 2);
        assert.equal(statusOf(stopped, 'halt', 'ok'), 0);
      } finally {
        await exporter.close();
        await ch.deleteQueue('halt');
        await ch.close();
      }
    });

    // Where the management API lists statistics (RabbitMQ 3.10 here). RabbitMQ 4 as shipped has
    // none: there STALL waits for the stats refresh's counters, and nothing is read one by one.
    if (broker.sources.includes('management'))
      test('a consumer that stops acking: STALL a window later, with no stats refresh in between', async () => {
        const ch = await conn.createChannel();
        await ch.assertQueue('stuck');
        await ch.prefetch(1);
        await ch.consume('stuck', () => undefined, { noAck: false });
        for (let i = 0; i < 3; i++) ch.sendToQueue('stuck', Buffer.from(`m${i}`));
        await waitFor('the broker to list stuck', async () =>
          (await broker.figures(vhost.name)).some((q) => q.name === 'stuck' && q.consumers === 1),
        );
        const exporter = await TestExporter.start(
          { RABBITMQ_MANAGEMENT_URL: broker.management },
          {
            rabbitmq: {
              ...scope(vhost.name),
              statsIntervalSeconds: 3600,
              statusWindowSeconds: 5,
              prometheusUrl: broker.prometheus,
            },
          },
        );
        const refreshedAt = () =>
          exporter.exporter.runner.status().find((x) => x.collector === 'rabbitmq_stats')!
            .lastSuccessAt;
        try {
          const first = await waitFor('the first stats refresh', async () => {
            await exporter.scrape();
            return refreshedAt();
          });
          const stalled = await waitFor(
            'STALL',
            async () => {
              const x = await exporter.scrape();
              return statusOf(x, 'stuck', 'stall') === 1 ? x : undefined;
            },
            { timeoutMs: 60_000, intervalMs: 250 },
          );
          assert.equal(refreshedAt(), first, 'no stats refresh came in between');
          assert.equal(statusOf(stalled, 'stuck', 'ok'), 0);
          assert.equal(stalled.value('acktrail_queue_messages_ready', labels('stuck')), 2);
        } finally {
          await exporter.close();
          await ch.deleteQueue('stuck');
          await ch.close();
        }
      });

    test('published totals mirror the broker statistics', async () => {
      const exporter = await TestExporter.start(
        { RABBITMQ_MANAGEMENT_URL: broker.management },
        { rabbitmq: { ...scope(vhost.name), prometheusUrl: broker.prometheus } },
      );
      try {
        const published = await waitFor('broker stats for jobs', async () =>
          (await broker.published(vhost.name, 'jobs')) === 10 ? 10 : undefined,
        );
        await waitFor('the exporter to show them', async () => {
          const s = await exporter.scrape();
          return (
            s.value('acktrail_queue_messages_published_total', {
              ...labels('jobs'),
              role: 'work',
            }) === published
          );
        });
      } finally {
        await exporter.close();
      }
    });

    test("consumer capacity and the cluster's name are the broker's own", async () => {
      // An idle consumer can take a message at once (capacity 1); graveyard has none (0).
      const ch = await conn.createChannel();
      await ch.assertQueue('capable');
      await ch.consume('capable', () => undefined);
      const exporter = await TestExporter.start(
        { RABBITMQ_MANAGEMENT_URL: broker.management },
        { rabbitmq: { ...scope(vhost.name), prometheusUrl: broker.prometheus } },
      );
      try {
        const capacity = (s: Awaited<ReturnType<TestExporter['scrape']>>, queue: string) =>
          s.value('acktrail_queue_consumer_capacity_ratio', { ...labels(queue), role: 'work' });
        const s = await waitFor('the capacities', async () => {
          const x = await exporter.scrape();
          return capacity(x, 'capable') === 1 ? x : undefined;
        });
        assert.equal(await brokerCapacity(broker.prometheus, vhost.name, 'capable'), 1);
        assert.equal(
          s.value('acktrail_queue_consumer_capacity_ratio', {
            ...labels('graveyard'),
            role: 'dead_letter',
          }),
          0,
        );
        const { cluster_name } = (await management('/overview', {}, broker.management)) as {
          cluster_name: string;
        };
        assert.ok(cluster_name);
        assert.equal(
          s.value('acktrail_rabbitmq_identity_info', { rabbitmq_cluster: cluster_name }),
          1,
        );
      } finally {
        await exporter.close();
        await ch.deleteQueue('capable');
        await ch.close();
      }
    });

    test('endpoints answering 500, then stalling, then healthy again: recovery is automatic', async () => {
      const mgmt = await FaultProxy.start(broker.management);
      const prom = await FaultProxy.start(broker.prometheus);
      const exporter = await TestExporter.start(
        { RABBITMQ_MANAGEMENT_URL: mgmt.url },
        { rabbitmq: { ...scope(vhost.name), prometheusUrl: prom.url, timeoutSeconds: 0.5 } },
      );
      const error = () =>
        exporter.exporter.runner.status().find((x) => x.collector === 'rabbitmq')!.error ?? '';
      try {
        assert.equal((await exporter.scrape()).success('rabbitmq'), 1);
        mgmt.mode = prom.mode = 'error';
        let s = await exporter.scrape();
        assert.equal(s.success('rabbitmq'), 0);
        assert.match(error(), /answered 500/);

        mgmt.mode = prom.mode = 'stall';
        s = await exporter.scrape();
        assert.equal(s.success('rabbitmq'), 0);
        assert.match(error(), /timed out/);

        mgmt.mode = prom.mode = 'pass';
        s = await exporter.scrape();
        assert.equal(s.success('rabbitmq'), 1);
        assert.equal(s.value('acktrail_queue_messages_unacked', labels('jobs')), 3);
        const transitions = exporter.logs
          .filter((l) => l.collector === 'rabbitmq')
          .map((l) => l.msg);
        assert.deepEqual(transitions, ['collector failing', 'collector recovered']);
      } finally {
        await exporter.close();
        await mgmt.close();
        await prom.close();
      }
    });
  });

test('broker unreachable: /metrics answers, rabbitmq collectors report 0, others unaffected', async () => {
  const exporter = await TestExporter.start(
    { RABBITMQ_MANAGEMENT_URL: 'http://guest:guest@127.0.0.1:1' },
    { rabbitmq: { ...scope('nowhere'), prometheusUrl: 'http://127.0.0.1:1' } },
  );
  try {
    const before = (await (await fetch(`${exporter.url}/status`)).json()) as {
      status: string;
      down: string[];
    };
    // No collector ran before the first scrape; the topology's refresh may have tried already.
    assert.ok(
      before.status === 'starting' ||
        (before.status === 'degraded' && before.down.join() === 'broker_topology'),
      JSON.stringify(before),
    );
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
    assert.deepEqual(ready.down.sort(), ['broker_topology', 'rabbitmq', 'rabbitmq_stats']);
  } finally {
    await exporter.close();
  }
});
