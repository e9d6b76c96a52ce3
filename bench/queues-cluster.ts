// The queues bench's three-node case (scripts/rabbitmq-cluster.sh): N queues spread over the
// nodes (queue i declared through node i % 3, so each node leads a third), side by side in one
// run:
//   acktrail   GET /metrics on an exporter that discovers the nodes and reads each one
//   nodes      the three nodes' own /metrics/detailed, fetched at once (what a Prometheus
//              scraping every node reads), latency until the last answer, CPU summed
// Broker CPU is the three nodes' processes together. Ratios are against `nodes`.
import { execFileSync } from 'node:child_process';
import { setTimeout as delay } from 'node:timers/promises';
import { createTestVhost, CLUSTERS } from '@acktrail/testing';
import { brokerPid, createQueues, rssMb, timed } from './broker.js';
import { IDLE_SECONDS, caseLines, record, startBenchExporter, stat, type Case } from './queues.js';
import { fmt } from './lib.js';
import { target } from './figures.js';

// This machine's RabbitMQ 3.10 cluster (the figures in docs/benchmarks-history.md were measured on it).
const { nodes: CLUSTER, ensure: ensureCluster } = CLUSTERS[0]!;

export async function measureCluster(n: number, scrapes: number): Promise<string[]> {
  process.stderr.write('queues bench: three-node cluster\n');
  await ensureCluster();
  const [first] = CLUSTER;
  const vhost = await createTestVhost('acktrail_bench', {
    amqp: first.amqp,
    management: first.management,
  });
  const v = encodeURIComponent(vhost.name);
  const pids = CLUSTER.map((node) => brokerPid(node.name));
  try {
    process.stderr.write(`queues bench: creating ${n} queues over 3 nodes\n`);
    await createQueues(
      CLUSTER.map((node) => `${node.amqp}/${v}`),
      n,
    );
    const exporter = await startBenchExporter(
      {
        rabbitmq: {
          vhosts: [vhost.name],
          prometheusUrl: first.prometheus,
          statsIntervalSeconds: 3600,
          timeoutSeconds: 30,
        },
      },
      { RABBITMQ_MANAGEMENT_URL: first.management },
    );
    try {
      const firstScrape = await timed([['http://127.0.0.1:9479/metrics', {}]], pids);
      if (firstScrape instanceof Error) throw firstScrape;
      const body = await (await fetch('http://127.0.0.1:9479/metrics')).text();
      const series = body
        .split('\n')
        .filter((l) => l.startsWith('acktrail_queue_messages_ready{')).length;
      const cases: Record<string, Case> = {
        acktrail: { samples: [], failures: [] },
        nodes: { samples: [], failures: [] },
      };
      const detailed = CLUSTER.map(
        (node) =>
          [
            `${node.prometheus}/metrics/detailed?family=queue_coarse_metrics&family=queue_consumer_count&vhost=${v}`,
            {},
          ] as [string, Record<string, string>],
      );
      for (let r = 0; r < scrapes; r++) {
        record(cases.acktrail!, await timed([['http://127.0.0.1:9479/metrics', {}]], pids));
        record(cases.nodes!, await timed(detailed, pids));
      }
      const rss = rssMb(exporter.pid!);
      // Again once left alone for a scrape interval, as the single-broker case reads it.
      await delay(IDLE_SECONDS * 1000);
      const idle = rssMb(exporter.pid!);
      const [a, b] = [stat(cases.acktrail!), stat(cases.nodes!)];
      target(`scrape at ${fmt(n)} queues, three nodes: p99 / the nodes' p99`, a.p99 / b.p99, {
        atMost: 1.3,
      });
      return [
        `\n## ${fmt(n)} queues on a three-node cluster (${cases.acktrail!.samples.length} scrapes; ${fmt(series)} queues in acktrail's exposition)`,
        ...caseLines(cases, 'nodes'),
        `first scrape (discovery and blocking stats refresh): ${fmt(firstScrape.seconds, 3)} s, broker CPU ${fmt(firstScrape.cpu, 3)} s`,
        `exporter RSS after the scrapes: ${fmt(rss, 0)} MB; after ${IDLE_SECONDS} s without a scrape: ${fmt(idle, 0)} MB`,
      ];
    } finally {
      exporter.kill('SIGTERM');
    }
  } finally {
    execFileSync('rabbitmqctl', ['-n', first.name, '-q', 'delete_vhost', vhost.name]);
  }
}
