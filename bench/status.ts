// How soon a work queue's status says what happened to it, among N other queues (BENCH_QUEUES,
// 10,000 by default), with the exporter's default intervals and Prometheus' default scrape
// interval (15 s, BENCH_SCRAPE_SECONDS):
//   STOP   a queue's only consumer goes while messages are published to it
//   STALL  a queue's consumer takes a message and never acks it, while more wait
// Both begin right after the exporter's first scrape; the bench scrapes until both show (or 20
// minutes pass, BENCH_STATUS_BOUND_SECONDS) and prints the time each took, and how many stats
// refreshes ran meanwhile.
import { execFileSync } from 'node:child_process';
import amqp from 'amqplib';
import { createTestVhost, management, waitFor } from '@acktrail/testing';
import { createQueues, rssMb } from './broker.js';
import { startBenchExporter } from './queues.js';
import { fmt } from './lib.js';
import { target } from './figures.js';

const METRICS = 'http://127.0.0.1:9479/metrics';
const BOUND_MS = Number(process.env.BENCH_STATUS_BOUND_SECONDS ?? 20 * 60) * 1000;

const statusLine = (vhost: string, queue: string, status: string) =>
  `acktrail_queue_status{vhost="${vhost}",queue="${queue}",role="work",status="${status}"} 1`;

async function measure(n: number, scrapeMs: number): Promise<string[]> {
  const vhost = await createTestVhost('acktrail_bench');
  try {
    process.stderr.write(`status bench: creating ${n} queues\n`);
    await createQueues([vhost.url], n);
    const conn = await amqp.connect(vhost.url);
    try {
      const ch = await conn.createChannel();
      await ch.assertQueue('status.stop', { durable: false });
      await ch.assertQueue('status.stall', { durable: false });
      const stopping = await ch.consume('status.stop', () => undefined, { noAck: true });
      const holder = await conn.createChannel();
      await holder.prefetch(1);
      await holder.consume('status.stall', () => undefined, { noAck: false });
      // Queues that have been there a while: the broker lists their statistics already, so the
      // exporter's first stats refresh has their counts (a queue just declared has none yet).
      await waitFor(
        'the broker to list both queues with statistics',
        async () => {
          const qs = (await management(
            `/queues/${encodeURIComponent(vhost.name)}?columns=name,messages_ready`,
          )) as {
            name: string;
            messages_ready?: number;
          }[];
          return (
            qs.filter((q) => q.name.startsWith('status.') && q.messages_ready !== undefined)
              .length === 2
          );
        },
        { timeoutMs: 120_000, intervalMs: 1000 },
      );
      const exporter = await startBenchExporter({ rabbitmq: { vhosts: [vhost.name] } });
      try {
        const scrape = async () => (await fetch(METRICS)).text();
        /** The stats data's age: it falls back when a refresh has run. */
        const statsAge = (text: string) =>
          Number(
            /^acktrail_collector_data_age_seconds\{collector="rabbitmq_stats"\} (\S+)/m.exec(
              text,
            )?.[1] ?? NaN,
          );
        let refreshes = 0;
        let age = 0;
        const first = await scrape(); // the first scrape: the first (blocking) stats refresh
        const refreshSeconds = Number(
          /^acktrail_collector_duration_seconds\{collector="rabbitmq_stats"\} (\S+)/m.exec(
            first,
          )?.[1] ?? NaN,
        );
        const t0 = performance.now();
        await ch.cancel(stopping.consumerTag);
        for (let i = 0; i < 3; i++) {
          ch.sendToQueue('status.stop', Buffer.from(`stop ${i}`));
          ch.sendToQueue('status.stall', Buffer.from(`stall ${i}`));
        }
        const seen: Record<'stop' | 'stall', number | null> = { stop: null, stall: null };
        let scrapes = 0;
        while ((seen.stop === null || seen.stall === null) && performance.now() - t0 < BOUND_MS) {
          await new Promise((r) => setTimeout(r, scrapeMs));
          const text = await scrape();
          scrapes++;
          if (statsAge(text) < age) refreshes++;
          age = statsAge(text);
          const at = (performance.now() - t0) / 1000;
          for (const s of ['stop', 'stall'] as const)
            if (seen[s] === null && text.includes(statusLine(vhost.name, `status.${s}`, s))) {
              seen[s] = at;
              process.stderr.write(`  ${s.toUpperCase()} after ${fmt(at)} s\n`);
            }
        }
        const within = `not within ${fmt(BOUND_MS / 1000)} s`;
        const show = (s: number | null) => (s === null ? within : `${fmt(s)} s`);
        const among = `among ${fmt(n)} queues`;
        target(`STOP shown, ${among}`, seen.stop, { atMost: 120 }, 's', within);
        target(`STALL shown, ${among}`, seen.stall, { atMost: 300 }, 's', within);
        return [
          `\n## ${fmt(n)} queues, a scrape every ${scrapeMs / 1000} s (${scrapes} scrapes)`,
          `STOP  after ${show(seen.stop)} (target 120 s)`,
          `STALL after ${show(seen.stall)} (target 300 s)`,
          `stats refreshes meanwhile: ${refreshes} (the data age fell back); the first took ${fmt(refreshSeconds, 1)} s, so the next ran at most every ${fmt(Math.max(60, 100 * refreshSeconds))} s`,
          `exporter RSS: ${fmt(rssMb(exporter.pid!), 0)} MB`,
        ];
      } finally {
        exporter.kill('SIGTERM');
      }
    } finally {
      await conn.close();
    }
  } finally {
    execFileSync('rabbitmqctl', ['-q', 'delete_vhost', vhost.name]);
  }
}

export async function runStatusBench(): Promise<void> {
  execFileSync('npx', ['tsc', '-b', 'exporter/tsconfig.build.json'], { stdio: 'inherit' });
  const n = Number(process.env.BENCH_QUEUES ?? 10_000);
  const scrapeMs = Number(process.env.BENCH_SCRAPE_SECONDS ?? 15) * 1000;
  console.log((await measure(n, scrapeMs)).join('\n'));
}
