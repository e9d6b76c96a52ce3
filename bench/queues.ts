// RabbitMQ with many queues, side by side in one run on the same broker, for N = 1,000, 10,000
// and 50,000 queues in a bench vhost:
//   acktrail   GET /metrics on the exporter (its per-scrape path: the detailed endpoint)
//   detailed   the broker's /metrics/detailed?family=queue_coarse_metrics&family=queue_consumer_count
//   columns    /api/queues?columns=… as acktrail's background stats refresh asks for it
//   full       /api/queues, what kbudde/rabbitmq_exporter reads
// For each: latency p50/p99 and broker CPU-seconds per call (beam.smp utime+stime from /proc),
// plus the exporter's RSS. Ratios are against the detailed endpoint.
import { spawn, execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import amqp from 'amqplib';
import { createTestVhost, waitFor, REPO_ROOT } from '@acktrail/orders-example/testing';
import { fmt, quantile } from './lib.js';

const MANAGEMENT = 'http://127.0.0.1:15672';
const AUTH = `Basic ${Buffer.from('guest:guest').toString('base64')}`;
const TICKS = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim());

function brokerPid(): number {
  return Number(execFileSync('pgrep', ['-f', 'beam.smp.*rabbit']).toString().trim().split('\n')[0]);
}

function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS; // utime + stime
}

function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'))!;
  return Number(line.split(/\s+/)[1]) / 1024;
}

/** One call's latency and broker CPU; a failed call (error status, closed socket) is counted apart. */
async function timed(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ seconds: number; cpu: number } | Error> {
  const pid = brokerPid();
  const cpu0 = cpuSeconds(pid);
  const t0 = performance.now();
  try {
    const res = await fetch(url, { headers, signal: AbortSignal.timeout(120_000) });
    await res.arrayBuffer();
    if (!res.ok) return new Error(`status ${res.status}`);
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err));
  }
  return { seconds: (performance.now() - t0) / 1000, cpu: cpuSeconds(pid) - cpu0 };
}

async function createQueues(vhostUrl: string, n: number): Promise<void> {
  const conn = await amqp.connect(vhostUrl);
  const channels = await Promise.all(Array.from({ length: 8 }, () => conn.createChannel()));
  let next = 0;
  await Promise.all(
    channels.map(async (ch) => {
      while (next < n) {
        const i = next++;
        await ch.assertQueue(`bench.q${i}`, { durable: false });
        if (i % 5000 === 0) process.stderr.write(`  ${i}/${n} queues\n`);
      }
    }),
  );
  await conn.close();
}

interface Case {
  samples: { seconds: number; cpu: number }[];
  failures: string[];
}

function record(c: Case, r: { seconds: number; cpu: number } | Error): void {
  if (r instanceof Error) c.failures.push(r.message);
  else c.samples.push(r);
}

async function measure(n: number, rounds: number, fullRounds: number) {
  const vhost = await createTestVhost('acktrail_bench');
  const v = encodeURIComponent(vhost.name);
  const dir = mkdtempSync(join(tmpdir(), 'acktrail-bench-'));
  const config = join(dir, 'acktrail.json');
  writeFileSync(
    config,
    JSON.stringify({
      rabbitmq: { vhosts: [vhost.name], statsIntervalSeconds: 3600, timeoutSeconds: 30 },
    }),
  );
  try {
    process.stderr.write(`queues bench: creating ${n} queues\n`);
    await createQueues(vhost.url, n);
    // The built exporter, run as `npm run exporter` runs it (docs/metrics.md says why the flag).
    const exporter = spawn(process.execPath, ['--expose-gc', 'exporter/dist/main.js'], {
      cwd: REPO_ROOT,
      env: {
        PATH: process.env.PATH,
        ACKTRAIL_PORT: '9479',
        ACKTRAIL_CONFIG: config,
        LOG_LEVEL: 'warn',
      },
      stdio: 'ignore',
    });
    try {
      await waitFor('the exporter', async () => (await fetch('http://127.0.0.1:9479/healthz')).ok, {
        timeoutMs: 30_000,
      });
      // First scrape: also the first (blocking) stats refresh; measured on its own below.
      const first = await timed('http://127.0.0.1:9479/metrics');
      if (first instanceof Error) throw first;
      const cases: Record<string, Case> = {
        acktrail: { samples: [], failures: [] },
        detailed: { samples: [], failures: [] },
        columns: { samples: [], failures: [] },
        full: { samples: [], failures: [] },
      };
      const urls: Record<string, [string, Record<string, string>]> = {
        acktrail: ['http://127.0.0.1:9479/metrics', {}],
        detailed: [
          `http://127.0.0.1:15692/metrics/detailed?family=queue_coarse_metrics&family=queue_consumer_count&vhost=${v}`,
          {},
        ],
        columns: [
          `${MANAGEMENT}/api/queues/${v}?columns=vhost,name,arguments,message_stats.publish,message_stats.deliver_get,message_stats.ack,message_stats.redeliver`,
          { authorization: AUTH },
        ],
        full: [`${MANAGEMENT}/api/queues/${v}`, { authorization: AUTH }],
      };
      for (let r = 0; r < rounds; r++) {
        for (const name of ['acktrail', 'detailed'] as const)
          record(cases[name]!, await timed(...urls[name]!));
        if (r < fullRounds)
          for (const name of ['columns', 'full'] as const)
            record(cases[name]!, await timed(...urls[name]!));
      }
      const rss = rssMb(exporter.pid!);
      return { n, cases, first, rss };
    } finally {
      exporter.kill('SIGTERM');
    }
  } finally {
    // rabbitmqctl, not the HTTP API: deleting tens of thousands of queues outlasts an HTTP call.
    execFileSync('rabbitmqctl', ['-q', 'delete_vhost', vhost.name]);
  }
}

export async function runQueuesBench(rounds: number): Promise<void> {
  execFileSync('npx', ['tsc', '-p', 'exporter/tsconfig.build.json'], {
    cwd: REPO_ROOT,
    stdio: 'inherit',
  });
  const sizes = (process.env.BENCH_QUEUES ?? '1000,10000,50000').split(',').map(Number);
  const scrapes = Math.max(30, rounds * 20);
  const lines: string[] = [];
  for (const n of sizes) {
    const r = await measure(n, scrapes, Math.max(3, rounds));
    const stat = (c: Case) => ({
      p50: quantile(
        c.samples.map((s) => s.seconds),
        0.5,
      ),
      p99: quantile(
        c.samples.map((s) => s.seconds),
        0.99,
      ),
      cpu: quantile(
        c.samples.map((s) => s.cpu),
        0.5,
      ),
    });
    const base = stat(r.cases.detailed!);
    lines.push(
      `\n## ${fmt(n)} queues (${r.cases.acktrail!.samples.length} scrapes; columns/full ${r.cases.full!.samples.length} calls)`,
    );
    for (const [name, c] of Object.entries(r.cases)) {
      if (c.samples.length === 0) {
        lines.push(`${name.padEnd(9)} every call failed: ${c.failures[0] ?? ''}`);
        continue;
      }
      const s = stat(c);
      lines.push(
        `${name.padEnd(9)} p50 ${fmt(s.p50, 3)} s  p99 ${fmt(s.p99, 3)} s  broker CPU ${fmt(s.cpu, 3)} s/call   ratio to detailed: p99 ${fmt(s.p99 / base.p99, 2)}  CPU ${fmt(s.cpu / Math.max(base.cpu, 1 / TICKS), 2)}${c.failures.length ? `  (${c.failures.length} failed: ${c.failures[0]})` : ''}`,
      );
    }
    lines.push(
      `first scrape (blocking stats refresh): ${fmt(r.first.seconds, 3)} s, broker CPU ${fmt(r.first.cpu, 3)} s`,
    );
    lines.push(`exporter RSS after the scrapes: ${fmt(r.rss, 0)} MB`);
    console.log(lines.slice(-8).join('\n'));
  }
}
