// RabbitMQ with many queues, side by side in one run on the same broker, for N = 1,000, 10,000
// and 50,000 queues in a bench vhost:
//   acktrail   GET /metrics on the exporter (its per-scrape path: the detailed endpoint)
//   acktrail-om the same in OpenMetrics (Accept as Prometheus sends it)
//   baseline, baseline-om  the same on another build, when BENCH_BASELINE names its checkout
//               (built: exporter/dist), so that a change is measured beside what it changes;
//               BENCH_BASELINE_NODE_FLAGS and BENCH_BASELINE_ENV set it apart further (lib.ts;
//               BENCH_BASELINE may name this checkout, to compare flags on one build)
//   detailed   the broker's /metrics/detailed?family=queue_coarse_metrics&family=queue_consumer_count
//   columns    /api/queues?columns=… as acktrail's background stats refresh asks for it
//   full       /api/queues, what kbudde/rabbitmq_exporter reads
// For each: latency p50/p99 and broker CPU-seconds per call (beam.smp utime+stime from /proc),
// plus the exporter's RSS and its CPU per scrape (beside the baseline's). Ratios are against the
// detailed endpoint.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { createTestVhost, waitFor, REPO_ROOT } from '@acktrail/testing';
import { brokerPid, createQueues, rssMb, timed, TICKS, type Sample } from './broker.js';
import { measureCluster } from './queues-cluster.js';
import { baselineEnv, baselineNodeFlags, fmt, processCpuMs, quantile } from './lib.js';
import { target } from './figures.js';
import { EXPORTER_MALLOC_ENV, EXPORTER_NODE_OPTIONS } from '@acktrail/exporter/testing';

const MANAGEMENT = 'http://127.0.0.1:15672';
/** Another checkout, built, whose exporter is measured beside this one's (BENCH_BASELINE). */
const BASELINE = process.env.BENCH_BASELINE;
/** How long the exporters are left alone before their memory is read again (a scrape interval). */
export const IDLE_SECONDS = 15;
/** Megabytes of this exporter, and of the baseline's beside them when there is one. */
const mb = (mine: number, baseline: number | null) =>
  `${fmt(mine, 0)} MB${baseline === null ? '' : `, baseline ${fmt(baseline, 0)} MB`}`;
export const AUTH = `Basic ${Buffer.from('guest:guest').toString('base64')}`;
/** What Prometheus 2.x sends: OpenMetrics first. */
const OPENMETRICS_ACCEPT =
  'application/openmetrics-text;version=1.0.0;q=0.5,text/plain;version=0.0.4;q=0.3,*/*;q=0.2';

export interface Case {
  samples: Sample[];
  failures: string[];
}

export function record(c: Case, r: Sample | Error): void {
  if (r instanceof Error) c.failures.push(r.message);
  else c.samples.push(r);
}

/**
 * The built exporter on port 9479 with `config`, run as `npm run exporter` runs it; `root`: the
 * checkout whose build to run, `port` its port (a baseline beside this one).
 */
export async function startBenchExporter(
  config: object,
  env: Record<string, string> = {},
  {
    root = REPO_ROOT,
    port = 9479,
    nodeFlags = process.env.BENCH_NODE_FLAGS,
    baseline = false,
  } = {},
): Promise<ChildProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'acktrail-bench-'));
  const file = join(dir, 'acktrail.json');
  writeFileSync(file, JSON.stringify(config));
  // As `npm start` runs it: the exporter gives itself its flags (runtime/flags.ts), before these;
  // BENCH_NODE_FLAGS come after them (the last wins), to compare others. A baseline from before
  // it did is given them here.
  const flags = [
    ...(baseline ? EXPORTER_NODE_OPTIONS.split(' ') : []),
    ...(nodeFlags?.split(' ').filter(Boolean) ?? []),
    'exporter/dist/main.js',
  ];
  const exporterEnv = {
    PATH: process.env.PATH ?? '',
    ACKTRAIL_PORT: String(port),
    ACKTRAIL_CONFIG: file,
    LOG_LEVEL: 'warn',
    ...(baseline ? EXPORTER_MALLOC_ENV : {}),
    ...env,
  };
  const exporter = spawn(process.execPath, flags, {
    cwd: root,
    env: baseline ? baselineEnv(exporterEnv) : exporterEnv,
    stdio: 'ignore',
  });
  await waitFor('the exporter', async () => (await fetch(`http://127.0.0.1:${port}/healthz`)).ok, {
    timeoutMs: 30_000,
  });
  return exporter;
}

async function measure(n: number, rounds: number, fullRounds: number) {
  const vhost = await createTestVhost('acktrail_bench');
  const v = encodeURIComponent(vhost.name);
  const pids = [brokerPid()];
  try {
    process.stderr.write(`queues bench: creating ${n} queues\n`);
    await createQueues([vhost.url], n);
    const config = {
      rabbitmq: { vhosts: [vhost.name], statsIntervalSeconds: 3600, timeoutSeconds: 30 },
    };
    const exporter = await startBenchExporter(config);
    const baseline = BASELINE
      ? await startBenchExporter(
          config,
          {},
          {
            root: BASELINE,
            port: 9478,
            nodeFlags: [process.env.BENCH_NODE_FLAGS ?? '', ...baselineNodeFlags()].join(' '),
            baseline: true,
          },
        )
      : null;
    try {
      // First scrape: also the first (blocking) stats refresh; measured on its own below.
      const first = await timed([['http://127.0.0.1:9479/metrics', {}]], pids);
      if (first instanceof Error) throw first;
      if (baseline) await fetch('http://127.0.0.1:9478/metrics').then((r) => r.arrayBuffer());
      const cases: Record<string, Case> = {
        acktrail: { samples: [], failures: [] },
        'acktrail-om': { samples: [], failures: [] },
        ...(baseline && {
          baseline: { samples: [], failures: [] },
          'baseline-om': { samples: [], failures: [] },
        }),
        detailed: { samples: [], failures: [] },
        columns: { samples: [], failures: [] },
        full: { samples: [], failures: [] },
      };
      const urls: Record<string, [string, Record<string, string>]> = {
        acktrail: ['http://127.0.0.1:9479/metrics', {}],
        'acktrail-om': ['http://127.0.0.1:9479/metrics', { accept: OPENMETRICS_ACCEPT }],
        baseline: ['http://127.0.0.1:9478/metrics', {}],
        'baseline-om': ['http://127.0.0.1:9478/metrics', { accept: OPENMETRICS_ACCEPT }],
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
      const scraped = Object.keys(cases).filter((c) => c !== 'columns' && c !== 'full');
      // Each exporter's CPU over its own scrapes (both formats), collections after them included.
      const cpu0 = processCpuMs(exporter.pid!);
      const baselineCpu0 = baseline ? processCpuMs(baseline.pid!) : 0;
      for (let r = 0; r < rounds; r++) {
        for (const name of scraped) record(cases[name]!, await timed([urls[name]!], pids));
        if (r < fullRounds)
          for (const name of ['columns', 'full'] as const)
            record(cases[name]!, await timed([urls[name]!], pids));
      }
      const cpu = (processCpuMs(exporter.pid!) - cpu0) / (2 * rounds);
      const baselineCpu = baseline
        ? (processCpuMs(baseline.pid!) - baselineCpu0) / (2 * rounds)
        : null;
      const rss = rssMb(exporter.pid!);
      const baselineRss = baseline ? rssMb(baseline.pid!) : null;
      const peak = rssMb(exporter.pid!, 'VmHWM');
      const baselinePeak = baseline ? rssMb(baseline.pid!, 'VmHWM') : null;
      // And once the exporters have been left alone for one scrape interval (Prometheus' default),
      // as they are between a scraper's visits: what they hold then, not just after a burst.
      await delay(IDLE_SECONDS * 1000);
      const idle = rssMb(exporter.pid!);
      const baselineIdle = baseline ? rssMb(baseline.pid!) : null;
      return {
        n,
        cases,
        first,
        rss,
        baselineRss,
        peak,
        baselinePeak,
        idle,
        baselineIdle,
        cpu,
        baselineCpu,
      };
    } finally {
      exporter.kill('SIGTERM');
      baseline?.kill('SIGTERM');
    }
  } finally {
    // rabbitmqctl, not the HTTP API: deleting tens of thousands of queues outlasts an HTTP call.
    execFileSync('rabbitmqctl', ['-q', 'delete_vhost', vhost.name]);
  }
}

export const stat = (c: Case) => ({
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

/** One line per case, with its ratios to `base`. */
export function caseLines(cases: Record<string, Case>, base: string): string[] {
  const b = stat(cases[base]!);
  return Object.entries(cases).map(([name, c]) => {
    if (c.samples.length === 0)
      return `${name.padEnd(11)} every call failed: ${c.failures[0] ?? ''}`;
    const s = stat(c);
    return `${name.padEnd(11)} p50 ${fmt(s.p50, 3)} s  p99 ${fmt(s.p99, 3)} s  broker CPU ${fmt(s.cpu, 3)} s/call   ratio to ${base}: p99 ${fmt(s.p99 / b.p99, 2)}  CPU ${fmt(s.cpu / Math.max(b.cpu, 1 / TICKS), 2)}${c.failures.length ? `  (${c.failures.length} failed: ${c.failures[0]})` : ''}`;
  });
}

export async function runQueuesBench(rounds: number): Promise<void> {
  execFileSync('npx', ['tsc', '-b', 'exporter/tsconfig.build.json'], {
    cwd: REPO_ROOT,
    stdio: 'inherit',
  });
  const sizes = (process.env.BENCH_QUEUES ?? '1000,10000,50000')
    .split(',')
    .map(Number)
    .filter((n) => n > 0);
  const scrapes = Math.max(30, rounds * 20);
  const lines: string[] = [];
  for (const n of sizes) {
    const r = await measure(n, scrapes, Math.max(3, rounds));
    lines.push(
      `\n## ${fmt(n)} queues (${r.cases.acktrail!.samples.length} scrapes; columns/full ${r.cases.full!.samples.length} calls)`,
      ...caseLines(r.cases, 'detailed'),
      `first scrape (blocking stats refresh): ${fmt(r.first.seconds, 3)} s, broker CPU ${fmt(r.first.cpu, 3)} s`,
      `exporter CPU per scrape: ${fmt(r.cpu, 0)} ms${r.baselineCpu === null ? '' : `, baseline ${fmt(r.baselineCpu, 0)} ms (ratio ${fmt(r.cpu / r.baselineCpu, 2)})`}`,
      `exporter RSS after the scrapes: ${mb(r.rss, r.baselineRss)}`,
      `exporter peak RSS (VmHWM): ${mb(r.peak, r.baselinePeak)}`,
      `exporter RSS after ${IDLE_SECONDS} s without a scrape: ${mb(r.idle, r.baselineIdle)}`,
    );
    console.log(lines.slice(-(Object.keys(r.cases).length + 6)).join('\n'));
    const d = stat(r.cases.detailed!);
    for (const [name, format] of [
      ['acktrail', 'text'],
      ['acktrail-om', 'OpenMetrics'],
    ] as const) {
      const s = stat(r.cases[name]!);
      const at = `scrape at ${fmt(n)} queues, ${format}`;
      target(`${at}: p99 / detailed p99`, s.p99 / d.p99, { atMost: 1.2 });
      target(`${at}: broker CPU / detailed`, s.cpu / Math.max(d.cpu, 1 / TICKS), { atMost: 1 });
    }
    // Read once the exporter has been left alone for a scrape interval, as between a scraper's
    // visits (right after the last scrape its collection may not have run yet).
    target(
      `exporter RSS at ${fmt(n)} queues, ${IDLE_SECONDS} s after the scrapes`,
      r.idle,
      { atMost: 150 },
      'MB',
    );
  }
  const clusterQueues = Number(process.env.BENCH_CLUSTER_QUEUES ?? 10_000);
  if (clusterQueues > 0) console.log((await measureCluster(clusterQueues, scrapes)).join('\n'));
}
