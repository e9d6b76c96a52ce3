// `npm run bench -- soak`: the demo's load plus a steady sender, for BENCH_SOAK_MINUTES (30).
// Starts `npm run demo` as a user does (the reference pipeline under its load, traced into the
// demo's exporter and store) and, once its exporter answers, sends it BENCH_SOAK_STEPS (500) steps
// a second more: OTLP bodies of 99 spans from the real SDK (33 events: publish, delivery, ack),
// one request at a time, as the soak of issue 69 did. Every 30 s it reads the exporter's RSS and
// its write-duration histogram. Prints the first and the last five minutes side by side: the
// sender's write p50/p90, the store's mean write (acktrail_journey_store_write_duration_seconds),
// the RSS, and the ratio last / first (target 1.2: a write costs the same at the end).
import { spawn, execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { waitFor, REPO_ROOT } from '@acktrail/testing';
import { target } from './figures.js';
import { sdkBodies } from './journeys-bodies.js';
import { log } from './journeys-data.js';
import { fmt, quantile } from './lib.js';

const MINUTES = Number(process.env.BENCH_SOAK_MINUTES ?? 30);
const STEPS_PER_S = Number(process.env.BENCH_SOAK_STEPS ?? 500);
const SPANS = 99;
const PORT = '9470';
const EXPORTER = `http://127.0.0.1:${PORT}`;
const SAMPLE_MS = 30_000;
const WINDOW_MS = 5 * 60_000;

interface Sample {
  atMs: number;
  rssMb: number;
  writeSum: number;
  writeCount: number;
}

/** The exporter's pid: the process listening on its port. */
function exporterPid(): number {
  const out = execFileSync('ss', ['-ltnpH', `sport = :${PORT}`], { encoding: 'utf8' });
  const pid = /pid=(\d+)/.exec(out)?.[1];
  if (!pid) throw new Error(`nothing listens on ${PORT}`);
  return Number(pid);
}

async function sample(pid: number): Promise<Sample> {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  const text = await (await fetch(`${EXPORTER}/metrics`)).text();
  const value = (name: string) =>
    Number(new RegExp(`^${name}\\{result="stored"\\} (\\S+)`, 'm').exec(text)?.[1] ?? NaN);
  return {
    atMs: Date.now(),
    rssMb: rssKb / 1024,
    writeSum: value('acktrail_journey_store_write_duration_seconds_sum'),
    writeCount: value('acktrail_journey_store_write_duration_seconds_count'),
  };
}

export async function runSoakBench(): Promise<void> {
  const demo = spawn('npm', ['run', 'demo'], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
    detached: true,
  });
  const stop = () => {
    if (demo.pid && demo.exitCode === null) process.kill(-demo.pid, 'SIGINT');
  };
  try {
    await waitFor(
      'the demo exporter to answer',
      async () => (await fetch(`${EXPORTER}/readyz`)).ok,
      {
        timeoutMs: 300_000,
        intervalMs: 1000,
      },
    ).catch((err: unknown) => {
      throw new Error(`the demo did not start: ${String(err)}`);
    });
    const pid = exporterPid();
    const perBodyMs = (SPANS / STEPS_PER_S) * 1000;
    log(`soak: ${MINUTES} min, ${STEPS_PER_S} steps/s beside the demo's load`);
    // Bodies are made 50 at a time, each batch with ids of its own (so every write is new rows).
    let bodies: Buffer[] = [];
    const nextBody = async (i: number) => {
      if (i % 50 === 0)
        bodies = await sdkBodies(50, `soak${Date.now().toString(36)}${i}`, SPANS, 'journeys');
      return bodies[i % 50]!;
    };
    const writes: { atMs: number; ms: number }[] = [];
    const samples: Sample[] = [await sample(pid)];
    const started = Date.now();
    let nextSample = started + SAMPLE_MS;
    for (let i = 0; Date.now() - started < MINUTES * 60_000; i++) {
      const body = await nextBody(i);
      // Paced to the rate (not a wait for a condition): a late write is sent at once.
      const due = started + i * perBodyMs;
      if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
      const t = performance.now();
      const res = await fetch(`${EXPORTER}/v1/traces`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-protobuf' },
        body,
      });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`ingest answered ${res.status}`);
      writes.push({ atMs: Date.now(), ms: performance.now() - t });
      if (Date.now() >= nextSample) {
        samples.push(await sample(pid));
        nextSample += SAMPLE_MS;
        const last = samples.at(-1)!;
        log(
          `soak: ${fmt((last.atMs - started) / 60_000, 1)} min, RSS ${fmt(last.rssMb)} MB, ${fmt(writes.length)} writes`,
        );
      }
    }
    samples.push(await sample(pid));
    report(started, writes, samples);
  } finally {
    stop();
  }
}

function report(started: number, writes: { atMs: number; ms: number }[], samples: Sample[]): void {
  const end = writes.at(-1)!.atMs;
  const windows = {
    first: (at: number) => at - started <= WINDOW_MS,
    last: (at: number) => end - at <= WINDOW_MS,
  };
  const figures = Object.fromEntries(
    Object.entries(windows).map(([name, inside]) => {
      const ms = writes.filter((w) => inside(w.atMs)).map((w) => w.ms);
      const s = samples.filter((x) => inside(x.atMs));
      const a = s[0]!;
      const b = s.at(-1)!;
      const storeMs = ((b.writeSum - a.writeSum) / Math.max(1, b.writeCount - a.writeCount)) * 1000;
      const rss = Math.max(...s.map((x) => x.rssMb));
      return [name, { p50: quantile(ms, 0.5), p90: quantile(ms, 0.9), storeMs, rss }];
    }),
  );
  for (const [name, f] of Object.entries(figures))
    log(
      `soak  ${name} 5 min: sender's write p50 ${fmt(f.p50, 1)} ms  p90 ${fmt(f.p90, 1)} ms  | store's mean write ${fmt(f.storeMs, 1)} ms  | RSS max ${fmt(f.rss)} MB`,
    );
  const ratio = figures.last!.p90 / figures.first!.p90;
  log(
    `soak  last / first: write p90 ${fmt(ratio, 2)}x  store mean ${fmt(figures.last!.storeMs / figures.first!.storeMs, 2)}x  RSS ${fmt(figures.last!.rss / figures.first!.rss, 2)}x`,
  );
  target(`soak ${MINUTES} min: write p90, last / first 5 min`, ratio, { atMost: 1.2 }, 'x');
}
