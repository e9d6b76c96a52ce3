// Hostile input against the exporter as its own process, side by side in one run:
//   flood    32 concurrent senders of 8 MB OTLP/JSON bodies for BENCH_FLOOD_SECONDS (60), from
//            a process of their own (exporter/testing/flood.ts) at nice BENCH_FLOOD_NICE (19:
//            on two cores, at the exporter's priority the flood's own sending takes one of them),
//            with `Expect: 100-continue` when BENCH_FLOOD_EXPECT=1,
//            while /healthz is probed every 50 ms and the exporter's RSS sampled every 200 ms;
//   idle     the same probes and samples with nothing else going on;
//            each round twice, in turn first, each time on a fresh exporter process: OTLP on the
//            exporter's own port, and on a port of its own (ACKTRAIL_INGEST_PORT: the ingest
//            thread, receiver/thread/), the flood sent there and /healthz still asked on the main
//            port (use an even --rounds);
//            printed: /healthz p50 and p99 and RSS (mean, max) of both, as flood/idle ratios,
//            the peak RSS (VmHWM) and what the flood's requests were answered;
//   holds    a gRPC hold and a slow drip (hostile-hold.ts);
//   big      POST /v1/traces of one span whose name and three attributes are 1 MB each,
//   short    the same span with short strings; ms per request from the send to the 200 (decoded
//            and committed), median, as a big/short ratio, in protobuf and in JSON.
import { availableParallelism } from 'node:os';
import pg from 'pg';
import { ADMIN_DATABASE_URL, databaseUrl } from '@acktrail/testing';
import { startExporterProcess } from '@acktrail/exporter/testing';
import { runFlood } from '@acktrail/exporter/testing/flood';
import { fmt, machineCpuMs, median, procMemoryMb, quantile, threadSchedMs } from './lib.js';
import { target } from './figures.js';
import { stringBench } from './hostile-strings.js';
import { holds } from './hostile-hold.js';

const FLOOD_SECONDS = Number(process.env.BENCH_FLOOD_SECONDS ?? 60);
/** The flood's CPU priority (nice, 0 to 19): 19 by default, see runFlood. */
const FLOOD_NICE = Number(process.env.BENCH_FLOOD_NICE ?? 19);
/** 1: the flood's requests ask `Expect: 100-continue` (curl's way; SDKs do not by default). */
const FLOOD_EXPECT = process.env.BENCH_FLOOD_EXPECT === '1';
const IDLE_SECONDS = 10;
const SENDERS = 32;
const DB = 'acktrail_bench_hostile';

const log = (line: string) => process.stderr.write(`${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** /healthz latencies (ms) and RSS samples (MB) until `until()` says stop. */
async function observe(url: string, pid: number, until: () => boolean) {
  const latencies: number[] = [];
  const rss: number[] = [];
  const sampler = setInterval(() => rss.push(procMemoryMb(pid, 'VmRSS')), 200);
  while (!until()) {
    const t = performance.now();
    const res = await fetch(`${url}/healthz`);
    await res.arrayBuffer();
    latencies.push(performance.now() - t);
    await sleep(50);
  }
  clearInterval(sampler);
  return { latencies, rss };
}

/**
 * Where the exporter's event loop was over a phase: on a core, runnable but waiting for one (the
 * cores busy with other work: /healthz waits too), or asleep (nothing to do); and how busy the
 * machine's cores were. What the exporter's own work explains of the p99, and what it cannot.
 */
function schedLine(
  phase: string,
  before: { loop: { ran: number; waited: number } | null; machine: number; at: number },
  loop: { ran: number; waited: number } | null,
  machine: number,
) {
  const wall = Date.now() - before.at;
  const cores = availableParallelism();
  const busy = `machine ${fmt((100 * (machine - before.machine)) / (wall * cores))} % busy over ${cores} cores`;
  if (!loop || !before.loop) {
    log(`  ${phase}: ${busy}`);
    return;
  }
  const pct = (ms: number) => `${fmt((100 * ms) / wall, 1)} %`;
  log(
    `  ${phase}: exporter event loop on a core ${pct(loop.ran - before.loop.ran)}, waiting for one ${pct(loop.waited - before.loop.waited)}; ${busy}`,
  );
}

async function freshDatabase(): Promise<string> {
  const admin = new pg.Client({ connectionString: ADMIN_DATABASE_URL });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${DB}`);
  await admin.end();
  return databaseUrl(DB);
}

/** Where the flood's requests go: the exporter's own port, or OTLP's own (the ingest thread). */
type Placement = 'shared port' | 'own port';

interface Phases {
  idle: { latencies: number[]; rss: number[] };
  flood: { latencies: number[]; rss: number[] };
  answers: Map<string, number>;
  firstIdleRss: number[];
  peak: number;
}

const emptyPhases = (): Phases => ({
  idle: { latencies: [], rss: [] },
  flood: { latencies: [], rss: [] },
  answers: new Map(),
  firstIdleRss: [],
  peak: 0,
});

/**
 * One round of idle then flood against an exporter process of its own, started as the image
 * starts one (exporter/src/main.ts, which applies its own runtime settings), /healthz probed on its
 * main port; added to `out`.
 */
async function round(store: string, placement: Placement, r: number, rounds: number, out: Phases) {
  const { proc, url, ingestUrl } = await startExporterProcess(
    {
      ACKTRAIL_DATABASE_URL: store,
      ...(placement === 'own port' ? { ACKTRAIL_INGEST_PORT: '0' } : {}),
    },
    { rabbitmq: { enabled: false } },
  );
  try {
    const idleUntil = Date.now() + IDLE_SECONDS * 1000;
    const quiet = { loop: threadSchedMs(proc.pid), machine: machineCpuMs(), at: Date.now() };
    const i = await observe(url, proc.pid, () => Date.now() > idleUntil);
    schedLine(`${placement}, idle`, quiet, threadSchedMs(proc.pid), machineCpuMs());
    if (out.firstIdleRss.length === 0) out.firstIdleRss.push(...i.rss);
    out.idle.latencies.push(...i.latencies);
    out.idle.rss.push(...i.rss);

    // The flood comes from a process of its own: this one only measures.
    const sched = { loop: threadSchedMs(proc.pid), machine: machineCpuMs(), at: Date.now() };
    const flooding = runFlood(ingestUrl, FLOOD_SECONDS, SENDERS, null, {
      nice: FLOOD_NICE,
      expect: FLOOD_EXPECT,
    });
    const state = { done: false };
    const over = () => {
      state.done = true;
    };
    flooding.then(over, over);
    const f = await observe(url, proc.pid, () => state.done);
    for (const [k, v] of Object.entries((await flooding).answers))
      out.answers.set(k, (out.answers.get(k) ?? 0) + v);
    out.flood.latencies.push(...f.latencies);
    out.flood.rss.push(...f.rss);
    schedLine(`${placement}, the flood`, sched, threadSchedMs(proc.pid), machineCpuMs());
    log(
      `  ${placement} round ${r}/${rounds}: /healthz p99 idle ${fmt(quantile(i.latencies, 0.99), 1)} ms, flood ${fmt(quantile(f.latencies, 0.99), 1)} ms; RSS max idle ${fmt(Math.max(...i.rss))} MB, flood ${fmt(Math.max(...f.rss))} MB`,
    );
    out.peak = Math.max(out.peak, procMemoryMb(proc.pid, 'VmHWM'));
  } finally {
    await proc.stop();
  }
}

function summary(placement: Placement, p: Phases): void {
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const { idle, flood } = p;
  log(`hostile: flood (32 x 8 MB bodies) against idle, OTLP on the ${placement}`);
  log(
    `  /healthz p50  idle ${fmt(median(idle.latencies), 2)} ms  flood ${fmt(median(flood.latencies), 2)} ms  ratio ${fmt(median(flood.latencies) / median(idle.latencies), 1)}`,
  );
  log(
    `  /healthz p99  idle ${fmt(quantile(idle.latencies, 0.99), 2)} ms  flood ${fmt(quantile(flood.latencies, 0.99), 2)} ms  ratio ${fmt(quantile(flood.latencies, 0.99) / quantile(idle.latencies, 0.99), 1)}`,
  );
  // Memory a flood took is not all given back to the system: the baseline is the first idle
  // phase, before any flood.
  const before = Math.max(...p.firstIdleRss);
  log(
    `  RSS mean      idle ${fmt(mean(idle.rss))} MB  flood ${fmt(mean(flood.rss))} MB  ratio ${fmt(mean(flood.rss) / mean(idle.rss), 2)}`,
  );
  log(
    `  RSS max       before any flood ${fmt(before)} MB  flood ${fmt(Math.max(...flood.rss))} MB  ratio ${fmt(Math.max(...flood.rss) / before, 2)}; peak (VmHWM) ${fmt(p.peak)} MB`,
  );
  const answers = Object.fromEntries(p.answers);
  const total = Object.values(answers).reduce((a, b) => a + b, 0);
  const refused = answers['503'] ?? 0;
  const unanswered = Object.entries(answers)
    .filter(([k]) => !/^\d+$/.test(k))
    .reduce((n, [, v]) => n + v, 0);
  log(
    `  flood answers: ${JSON.stringify(answers)}; of ${refused + unanswered} refused, ${fmt((100 * refused) / Math.max(1, refused + unanswered), 1)} % read their 503 (${total} requests)`,
  );
}

export async function runHostileBench(rounds: number): Promise<void> {
  log(
    `hostile: ${rounds} round(s) of ${IDLE_SECONDS} s idle and ${FLOOD_SECONDS} s of flood (its process at nice ${FLOOD_NICE}${FLOOD_EXPECT ? ', every request asking Expect: 100-continue' : ''}), OTLP on the exporter's port and on its own (the ingest thread), in turn first`,
  );
  const store = await freshDatabase();
  try {
    // Each round runs both, in turn first: the one that runs second meets the store still busy
    // with the first one's flood (its idle p99 was 2 to 3 times higher, whichever it was).
    const shared = emptyPhases();
    const own = emptyPhases();
    for (let r = 1; r <= rounds; r++) {
      const order: [Placement, Phases][] = [
        ['shared port', shared],
        ['own port', own],
      ];
      for (const [placement, out] of r % 2 ? order : order.reverse())
        await round(store, placement, r, rounds, out);
    }
    summary('shared port', shared);
    summary('own port', own);
    const p99 = (x: number[]) => quantile(x, 0.99);
    const flooded = `under a flood of ${SENDERS} x 8 MB bodies`;
    const ownRatio = p99(own.flood.latencies) / p99(own.idle.latencies);
    log(
      `hostile: /healthz p99 flood/idle with OTLP on its own port ${fmt(ownRatio, 2)}, on the exporter's port ${fmt(p99(shared.flood.latencies) / p99(shared.idle.latencies), 2)}; flood p99 own/shared ${fmt(p99(own.flood.latencies) / p99(shared.flood.latencies), 2)}`,
    );
    target(
      `/healthz p99 ${flooded} / idle`,
      p99(shared.flood.latencies) / p99(shared.idle.latencies),
      { atMost: 3 },
    );
    target(`/healthz p99 ${flooded}, OTLP on its own port (the ingest thread) / idle`, ownRatio, {
      atMost: 1.5,
    });
    target(`/healthz p99 ${flooded}`, p99(shared.flood.latencies), { atMost: 50 }, 'ms');
    target(`exporter peak RSS (VmHWM) ${flooded}`, shared.peak, { atMost: 400 }, 'MB');
    target(
      `exporter peak RSS (VmHWM) ${flooded}, OTLP on its own port`,
      own.peak,
      { atMost: 400 },
      'MB',
    );
    await holds(store);
    const { proc, url } = await startExporterProcess(
      { ACKTRAIL_DATABASE_URL: store },
      { rabbitmq: { enabled: false } },
    );
    try {
      await stringBench(url);
    } finally {
      await proc.stop();
    }
  } finally {
    const admin = new pg.Client({ connectionString: ADMIN_DATABASE_URL });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`);
    await admin.end();
  }
}
