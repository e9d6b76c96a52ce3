// The rabbitmq collector on real three-node clusters (scripts/rabbitmq-cluster.sh), RabbitMQ 3.10
// and RabbitMQ 4.0 as the official image ships it (no statistics in its management API: the
// broker's own figures come from rabbitmqctl there): classic and
// quorum queues declared on each node all appear once, with the broker's own counts, whatever
// node leads them; a quorum leader moved never doubles a series; one node stopped and started
// again: its queues come and go, the others keep their values, and the collector says which node
// is missing. Clients connect to node 3, which no test stops.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import amqp, { type ChannelModel } from 'amqplib';
import {
  createTestVhost,
  management,
  waitFor,
  type TestVhost,
  CLUSTERS,
  listQueuesArgs,
  type Cluster,
} from '@acktrail/testing';
import { TestExporter, type Scrape } from '@acktrail/exporter/testing';
import { readOpenMetrics } from '@acktrail/exporter/testing/openmetrics';

const FAMILIES = [
  'acktrail_queue_messages_ready',
  'acktrail_queue_messages_unacked',
  'acktrail_queue_consumers',
] as const;
/** Per node n: classic c<n> with 10+n messages, quorum q<n> with 20+n. */
const QUEUES = ['c1', 'q1', 'c2', 'q2', 'c3', 'q3'];

interface BrokerQueue {
  name: string;
  node?: string;
  leader?: string;
  messages_ready?: number;
  messages_unacknowledged?: number;
  consumers?: number;
}

for (const cluster of CLUSTERS)
  describe(cluster.title, () => {
    clusterTests(cluster);
  });

function clusterTests(cluster: Cluster): void {
  const CLUSTER = cluster.nodes;
  const [N1, N2, N3] = CLUSTER;
  let vhost: TestVhost;
  let consumer: ChannelModel;
  let exporter: TestExporter;

  const vhostOn = (node: (typeof CLUSTER)[0]) => `${node.amqp}/${encodeURIComponent(vhost.name)}`;
  /** The queues as the broker lists them (through node 3), with its own figures. */
  async function brokerQueues(): Promise<BrokerQueue[]> {
    const listed = (await management(
      `/queues/${encodeURIComponent(vhost.name)}?columns=name,node,leader,messages_ready,messages_unacknowledged,consumers`,
      {},
      N3.management,
    )) as BrokerQueue[];
    if (cluster.statistics) return listed;
    // RabbitMQ 4 as shipped: the management API names queues and leaders, rabbitmqctl asks the
    // queues themselves for their figures.
    const asked = JSON.parse(await cluster.ctl(3, ...listQueuesArgs(vhost.name))) as BrokerQueue[];
    const figures = new Map(asked.map((q) => [q.name, q]));
    return listed.map((q) => ({ ...q, ...figures.get(q.name) }));
  }

  before(async () => {
    await cluster.ensure();
    vhost = await createTestVhost('acktrail_cluster', { amqp: N3.amqp, management: N3.management });
    // Each node declares its own two queues: a classic queue lives on the node it was declared
    // through, a quorum queue's leader starts there.
    for (const node of CLUSTER) {
      const conn = await amqp.connect(vhostOn(node));
      const ch = await conn.createConfirmChannel();
      await ch.assertQueue(`c${node.n}`, { durable: true });
      await ch.assertQueue(`q${node.n}`, {
        durable: true,
        arguments: { 'x-queue-type': 'quorum' },
      });
      for (let i = 0; i < 10 + node.n; i++)
        ch.sendToQueue(`c${node.n}`, Buffer.from('x'), { persistent: true });
      for (let i = 0; i < 20 + node.n; i++)
        ch.sendToQueue(`q${node.n}`, Buffer.from('x'), { persistent: true });
      await ch.waitForConfirms();
      await conn.close();
    }
    // Two deliveries held unacked on c1, q1 and q2, by a consumer on node 3.
    consumer = await amqp.connect(vhostOn(N3));
    for (const q of ['c1', 'q1', 'q2']) {
      const ch = await consumer.createChannel();
      ch.on('error', () => undefined);
      await ch.prefetch(2);
      await ch.consume(q, () => undefined, { noAck: false });
    }
    exporter = await TestExporter.start(
      { RABBITMQ_MANAGEMENT_URL: N1.management },
      {
        rabbitmq: {
          vhosts: [vhost.name],
          prometheusUrl: N1.prometheus,
          statsIntervalSeconds: 1,
          timeoutSeconds: 3,
          holdSeconds: 1,
          // RabbitMQ 4 as shipped lists no listeners, and these three nodes share one host: the
          // endpoints are listed, as docs/metrics.md says to (the test below shows why).
          ...(cluster.statistics
            ? {}
            : {
                nodes: CLUSTER.map((n) => ({
                  url: n.prometheus,
                  name: n.name,
                  management: n.management,
                })),
              }),
        },
      },
    );
  });

  after(async () => {
    await exporter.close();
    await consumer.close().catch(() => undefined);
    await cluster.startNode(1);
    await vhost.drop();
  });

  /** One sample per queue and family, or the scrape is wrong. */
  function assertOnce(s: Scrape): void {
    for (const family of FAMILIES) {
      const names = s.samples(family).map((x) => x.labels.queue);
      assert.equal(
        new Set(names).size,
        names.length,
        `${family}: a queue reported twice: ${names.join(',')}`,
      );
    }
  }

  const figures = (s: Scrape, queue: string) =>
    FAMILIES.map((f) => s.value(f, { vhost: vhost.name, queue }));
  const brokerFigures = (q: BrokerQueue) => [
    q.messages_ready,
    q.messages_unacknowledged,
    q.consumers,
  ];

  /**
   * Scrapes until the exporter shows, for `queues`, the figures the broker itself lists (with the
   * known values where given); every scrape on the way reports each queue at most once.
   */
  async function untilBrokerFigures(queues: string[], known: Record<string, number[]> = {}) {
    let last = '';
    return waitFor(
      `the broker's own figures for ${queues.join(', ')}`,
      async () => {
        const s = await exporter.scrape();
        assertOnce(s);
        const broker = new Map((await brokerQueues()).map((q) => [q.name, q]));
        last = JSON.stringify(
          queues.map((name) => [
            name,
            figures(s, name),
            broker.get(name) && brokerFigures(broker.get(name)!),
          ]),
        );
        const ok = queues.every((name) => {
          const b = broker.get(name);
          const want = known[name] ?? (b ? brokerFigures(b) : undefined);
          return (
            b &&
            want &&
            JSON.stringify(figures(s, name)) === JSON.stringify(want) &&
            JSON.stringify(brokerFigures(b)) === JSON.stringify(want)
          );
        });
        return ok ? s : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 250 },
    ).catch((err: unknown) => {
      throw new Error(`${(err as Error).message}; last [queue, exporter, broker]: ${last}`);
    });
  }

  const KNOWN: Record<string, number[]> = {
    c1: [9, 2, 1],
    q1: [19, 2, 1],
    q2: [20, 2, 1],
    c2: [12, 0, 0],
    c3: [13, 0, 0],
    q3: [23, 0, 0],
  };

  if (!cluster.statistics)
    test('no listeners in the management API: each node is looked for at its host on the configured port; one that answers as another node is reported', async () => {
      const discovering = await TestExporter.start(
        { RABBITMQ_MANAGEMENT_URL: N1.management },
        { rabbitmq: { vhosts: [vhost.name], prometheusUrl: N1.prometheus, timeoutSeconds: 3 } },
      );
      try {
        // Node 1's host and port are the configured endpoint's; nodes 2 and 3 share its host,
        // so the guess reaches node 1 again, which says so in rabbitmq_identity_info.
        const s = await waitFor('node 1 read, nodes 2 and 3 refused', async () => {
          const scrape = await discovering.scrape();
          return scrape.value('acktrail_rabbitmq_node_up', { node: N1.name }) === 1 &&
            scrape.value('acktrail_rabbitmq_node_up', { node: N2.name }) === 0 &&
            scrape.value('acktrail_queue_messages_ready', { vhost: vhost.name, queue: 'c1' }) === 9
            ? scrape
            : undefined;
        });
        assert.equal(s.value('acktrail_rabbitmq_node_up', { node: N3.name }), 0);
        assert.equal(
          s.value('acktrail_queue_messages_ready', { vhost: vhost.name, queue: 'c2' }),
          undefined,
        );
        const status = (await (await fetch(`${discovering.url}/status`)).json()) as {
          sources: { collector: string; partial: string | null }[];
        };
        const partial = status.sources.find((x) => x.collector === 'rabbitmq')!.partial ?? '';
        assert.ok(partial.includes(`${N2.name}: `), partial);
        assert.ok(
          partial.includes(`answers as ${N1.name}: list each node's endpoint in rabbitmq.nodes`),
          partial,
        );
      } finally {
        await discovering.close();
      }
    });

  test('classic and quorum queues on every node appear once, with the broker’s own counts', async () => {
    const s = await untilBrokerFigures(QUEUES, KNOWN);
    const leaders = new Map((await brokerQueues()).map((q) => [q.name, q.leader ?? q.node]));
    assert.deepEqual(
      QUEUES.map((q) => leaders.get(q)),
      CLUSTER.flatMap((n) => [n.name, n.name]),
      'each node leads the two queues declared through it',
    );
    for (const node of CLUSTER)
      assert.equal(s.value('acktrail_rabbitmq_node_up', { node: node.name }), 1, node.name);
    assert.equal(s.success('rabbitmq'), 1);
    // The three nodes' families merged: OpenMetrics declares each once.
    const om = await readOpenMetrics(exporter.url);
    assert.equal(om.families.acktrail_queue_messages_ready, 'gauge');
  });

  test('one node stopped: the others keep their values, the collector says which; back when it starts', async () => {
    await untilBrokerFigures(QUEUES, KNOWN);
    const failingBefore = exporter.logs.filter(
      (l) => l.msg === 'collector partly failing' && l.collector === 'rabbitmq',
    ).length;
    await cluster.stopNode(1);
    // c1 lives on node 1: gone (after holdSeconds). q1's leader moves; its consumer on node 3
    // keeps its two deliveries. Node 1's management API, the one configured, is down too.
    const down = await waitFor(
      'node 1 down and its classic queue gone',
      async () => {
        const s = await exporter.scrape();
        assertOnce(s);
        return s.value('acktrail_rabbitmq_node_up', { node: N1.name }) === 0 &&
          s.value('acktrail_queue_messages_ready', { vhost: vhost.name, queue: 'c1' }) === undefined
          ? s
          : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 250 },
    );
    assert.equal(down.success('rabbitmq'), 1, 'a partial answer is still an answer');
    assert.equal(down.value('acktrail_rabbitmq_node_up', { node: N2.name }), 1);
    assert.equal(down.value('acktrail_rabbitmq_node_up', { node: N3.name }), 1);
    await untilBrokerFigures(['c2', 'c3', 'q1', 'q2', 'q3'], KNOWN);
    const ready = (await (await fetch(`${exporter.url}/status`)).json()) as {
      status: string;
      partial: string[];
      sources: { collector: string; partial: string | null }[];
    };
    assert.equal(ready.status, 'ready');
    // The stats refresh (every second here) can be caught by the stop mid-call and say so too;
    // nothing else is partial.
    assert.deepEqual(
      ready.partial.filter((c) => c !== 'rabbitmq_stats'),
      ['rabbitmq'],
    );
    assert.ok(
      (ready.sources.find((x) => x.collector === 'rabbitmq')!.partial ?? '').includes(N1.name),
      'the partial answer names the node',
    );
    assert.equal(
      exporter.logs.filter(
        (l) => l.msg === 'collector partly failing' && l.collector === 'rabbitmq',
      ).length,
      failingBefore + 1,
      'logged once, not every scrape',
    );

    await cluster.startNode(1);
    // The consumer on c1 was cancelled with its node: its two deliveries are ready again.
    const back = await untilBrokerFigures(QUEUES, { ...KNOWN, c1: [11, 0, 0] });
    assert.equal(back.value('acktrail_rabbitmq_node_up', { node: N1.name }), 1);
    await waitFor('the full answer logged', () =>
      exporter.logs.some((l) => l.msg === 'collector answered in full again'),
    );
  });

  // Last: a member added back after the move catches up in the background, and a node stopped
  // while it does could leave a queue without a majority.
  test('a quorum leader moved: the queue stays one series with its counts', async () => {
    const before = (await brokerQueues()).find((q) => q.name === 'q2')!;
    const oldLeader = before.leader!;
    const owner = CLUSTER.find((n) => n.name === oldLeader)!;
    await cluster.queuesCli(3, 'delete_member', '-p', vhost.name, 'q2', owner.name);
    try {
      const moved = await waitFor('a new leader for q2', async () => {
        const q = (await brokerQueues()).find((x) => x.name === 'q2');
        return q?.leader && q.leader !== oldLeader ? q : undefined;
      });
      assert.notEqual(moved.leader, oldLeader);
      const s = await untilBrokerFigures(['q2'], { q2: KNOWN.q2! });
      const series = s
        .samples('acktrail_queue_messages_ready')
        .filter((x) => x.labels.queue === 'q2');
      assert.deepEqual(
        series.map((x) => x.labels),
        [{ vhost: vhost.name, queue: 'q2', role: 'work' }],
      );
    } finally {
      await cluster.queuesCli(3, 'add_member', '-p', vhost.name, 'q2', owner.name);
    }
  });
}
