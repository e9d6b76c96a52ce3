// Hostile input against the exporter as its own process, side by side in one run:
//   flood    32 concurrent senders of 8 MB OTLP/JSON bodies for BENCH_FLOOD_SECONDS (60), from
//            a process of their own (exporter/src/testing/flood.ts) at nice BENCH_FLOOD_NICE (19:
//            on two cores, at the exporter's priority the flood's own sending takes one of them),
//            with `Expect: 100-continue` when BENCH_FLOOD_EXPECT=1,
//            while /healthz is probed every 50 ms and the exporter's RSS sampled every 200 ms;
//   idle     the same probes and samples with nothing else going on;
//            printed: /healthz p50 and p99 and RSS (mean, max) of both, as flood/idle ratios,
//            the peak RSS (VmHWM) and what the flood's requests were answered;
//   big      POST /v1/traces of one span whose name and three attributes are 1 MB each,
//   short    the same span with short strings; ms per request from the send to the 200 (decoded
//            and committed), median, as a big/short ratio, in protobuf and in JSON.
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { availableParallelism } from 'node:os';
import pg from 'pg';
import { ADMIN_DATABASE_URL, databaseUrl } from '@acktrail/testing';
import { startExporterProcess } from '../exporter/src/testing/exporter.js';
import { runFlood } from '../exporter/src/testing/flood.js';
import { ExportTraceServiceRequest } from '../exporter/src/receiver/otlp-schema.js';
import { fmt, machineCpuMs, median, quantile, threadSchedMs } from './lib.js';
import { target } from './figures.js';

const FLOOD_SECONDS = Number(process.env.BENCH_FLOOD_SECONDS ?? 60);
/** The flood's CPU priority (nice, 0 to 19): 19 by default, see runFlood. */
const FLOOD_NICE = Number(process.env.BENCH_FLOOD_NICE ?? 19);
/** 1: the flood's requests ask `Expect: 100-continue` (curl's way; SDKs do not by default). */
const FLOOD_EXPECT = process.env.BENCH_FLOOD_EXPECT === '1';
const IDLE_SECONDS = 10;
const SENDERS = 32;
const MB = 1024 * 1024;
const STRING_REQUESTS = 40;
const DB = 'acktrail_bench_hostile';

const log = (line: string) => process.stderr.write(`${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const nowNs = () => BigInt(Date.now()) * 1_000_000n;
const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');

function span(traceId: string, spanId: string, name: string, attrs: [string, string][]) {
  const t = nowNs();
  return {
    traceId,
    spanId,
    name,
    kind: 5,
    startTimeUnixNano: String(t),
    endTimeUnixNano: String(t + 1_000_000n),
    attributes: [['acktrail.stage', 'deliver'], ...attrs].map(([key, value]) => ({
      key,
      value: { stringValue: value },
    })),
  };
}
const body = (spans: unknown[]) => JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans }] }] });

interface SpanShape {
  traceId: string;
  name: string;
  value: string;
  eventId: string;
}

const spanOf = (traceId: string, name: string, value: string, eventId: string): SpanShape => ({
  traceId,
  name,
  value,
  eventId,
});

/** POSTs one span in the given encoding; resolves with the ms until the 200 arrived. */
async function postBody(url: string, encoding: 'json' | 'protobuf', s: SpanShape) {
  const attrs: [string, string][] = [
    ['acktrail.event_id', s.eventId],
    ['acktrail.queue', s.value],
    ['acktrail.dead_letter.reason', s.value],
    ['messaging.destination.name', s.value],
  ];
  let payload: Buffer;
  if (encoding === 'json') {
    payload = Buffer.from(body([span(s.traceId, '1'.padStart(16, '0'), s.name, attrs)]));
  } else {
    const t = Date.now() * 1e6;
    payload = Buffer.from(
      ExportTraceServiceRequest.encode(
        ExportTraceServiceRequest.fromObject({
          resourceSpans: [
            {
              scopeSpans: [
                {
                  spans: [
                    {
                      traceId: Buffer.from(s.traceId, 'hex'),
                      spanId: Buffer.from('1'.padStart(16, '0'), 'hex'),
                      name: s.name,
                      kind: 5,
                      startTimeUnixNano: t,
                      endTimeUnixNano: t + 1e6,
                      attributes: [['acktrail.stage', 'deliver'], ...attrs].map(([key, value]) => ({
                        key,
                        value: { stringValue: value },
                      })),
                    },
                  ],
                },
              ],
            },
          ],
        }),
      ).finish(),
    );
  }
  const type = encoding === 'json' ? 'application/json' : 'application/x-protobuf';
  const started = performance.now();
  // node:http rather than fetch: fetch's own handling of a 4 MB body costs about as much as the
  // exporter's (measured against curl), and it is the exporter that is measured here.
  const code = await new Promise<number>((resolve, reject) => {
    const req = request(`${url}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': type, 'content-length': String(payload.length) },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => {
        resolve(res.statusCode!);
      });
    });
    req.end(payload);
  });
  if (code !== 200) throw new Error(`a ${s.name.length}-character ${encoding} span: ${code}`);
  return performance.now() - started;
}

function status(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${field}:`))!;
  return Number(/(\d+)/.exec(line)![1]) / 1024;
}

/** /healthz latencies (ms) and RSS samples (MB) until `until()` says stop. */
async function observe(url: string, pid: number, until: () => boolean) {
  const latencies: number[] = [];
  const rss: number[] = [];
  const sampler = setInterval(() => rss.push(status(pid, 'VmRSS')), 200);
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

export async function runHostileBench(rounds: number): Promise<void> {
  log(
    `hostile: ${rounds} round(s) of ${IDLE_SECONDS} s idle and ${FLOOD_SECONDS} s of flood (its process at nice ${FLOOD_NICE}${FLOOD_EXPECT ? ', every request asking Expect: 100-continue' : ''})`,
  );
  const store = await freshDatabase();
  const { proc, url } = await startExporterProcess(
    { ACKTRAIL_DATABASE_URL: store },
    { rabbitmq: { enabled: false } },
  );
  try {
    const idle = { latencies: [] as number[], rss: [] as number[] };
    const flood = { latencies: [] as number[], rss: [] as number[] };
    const answers = new Map<string, number>();
    const firstIdleRss: number[] = [];
    for (let r = 1; r <= rounds; r++) {
      const idleUntil = Date.now() + IDLE_SECONDS * 1000;
      const quiet = { loop: threadSchedMs(proc.pid), machine: machineCpuMs(), at: Date.now() };
      const i = await observe(url, proc.pid, () => Date.now() > idleUntil);
      schedLine('idle', quiet, threadSchedMs(proc.pid), machineCpuMs());
      if (r === 1) firstIdleRss.push(...i.rss);
      idle.latencies.push(...i.latencies);
      idle.rss.push(...i.rss);

      // The flood comes from a process of its own: this one only measures.
      const sched = { loop: threadSchedMs(proc.pid), machine: machineCpuMs(), at: Date.now() };
      const flooding = runFlood(url, FLOOD_SECONDS, SENDERS, null, {
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
        answers.set(k, (answers.get(k) ?? 0) + v);
      flood.latencies.push(...f.latencies);
      flood.rss.push(...f.rss);
      schedLine('the flood', sched, threadSchedMs(proc.pid), machineCpuMs());
      log(
        `  round ${r}/${rounds}: /healthz p99 idle ${fmt(quantile(i.latencies, 0.99), 1)} ms, flood ${fmt(quantile(f.latencies, 0.99), 1)} ms; RSS max idle ${fmt(Math.max(...i.rss))} MB, flood ${fmt(Math.max(...f.rss))} MB`,
      );
    }
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const peak = status(proc.pid, 'VmHWM');
    log('hostile: flood (32 x 8 MB bodies) against idle');
    log(
      `  /healthz p50  idle ${fmt(median(idle.latencies), 2)} ms  flood ${fmt(median(flood.latencies), 2)} ms  ratio ${fmt(median(flood.latencies) / median(idle.latencies), 1)}`,
    );
    log(
      `  /healthz p99  idle ${fmt(quantile(idle.latencies, 0.99), 2)} ms  flood ${fmt(quantile(flood.latencies, 0.99), 2)} ms  ratio ${fmt(quantile(flood.latencies, 0.99) / quantile(idle.latencies, 0.99), 1)}`,
    );
    // Memory a flood took is not all given back to the system: the baseline is the first idle
    // phase, before any flood.
    const before = Math.max(...firstIdleRss);
    log(
      `  RSS mean      idle ${fmt(mean(idle.rss))} MB  flood ${fmt(mean(flood.rss))} MB  ratio ${fmt(mean(flood.rss) / mean(idle.rss), 2)}`,
    );
    log(
      `  RSS max       before any flood ${fmt(before)} MB  flood ${fmt(Math.max(...flood.rss))} MB  ratio ${fmt(Math.max(...flood.rss) / before, 2)}; peak (VmHWM) ${fmt(peak)} MB`,
    );
    log(`  flood answers: ${JSON.stringify(Object.fromEntries(answers))}`);
    const p99 = quantile(flood.latencies, 0.99);
    const flooded = `under a flood of ${SENDERS} x 8 MB bodies`;
    target(`/healthz p99 ${flooded} / idle`, p99 / quantile(idle.latencies, 0.99), { atMost: 3 });
    target(`/healthz p99 ${flooded}`, p99, { atMost: 50 }, 'ms');
    target(`exporter peak RSS (VmHWM) ${flooded}`, peak, { atMost: 400 }, 'MB');

    // One span of 1 MB strings against one of short strings, interleaved, in both encodings.
    const huge = `${'a'.repeat(MB)}@`;
    const times = new Map<string, number[]>();
    for (let n = 0; n < STRING_REQUESTS; n++) {
      for (const [size, value] of [
        ['1 MB', huge],
        ['short', 'orders.confirmations'],
      ] as const) {
        for (const encoding of ['protobuf', 'json'] as const) {
          const traceId = hex(10_000_000 + times.size * 1000 + n, 32);
          const s = spanOf(traceId, size === 'short' ? 'deliver' : value, value, `strings-${n}`);
          const res = await postBody(url, encoding, s);
          const key = `${size} ${encoding}`;
          times.set(key, [...(times.get(key) ?? []), res]);
        }
      }
    }
    const m = (k: string) => median(times.get(k)!);
    log(
      'hostile: one span with a 1 MB name and three 1 MB attributes against one with short strings',
    );
    for (const encoding of ['protobuf', 'json'])
      log(
        `  ${encoding.padEnd(8)} POST /v1/traces, decoded and committed: 1 MB strings median ${fmt(m(`1 MB ${encoding}`), 2)} ms (p99 ${fmt(quantile(times.get(`1 MB ${encoding}`)!, 0.99), 2)}), short ${fmt(m(`short ${encoding}`), 2)} ms; ratio ${fmt(m(`1 MB ${encoding}`) / m(`short ${encoding}`), 1)}`,
      );
  } finally {
    await proc.stop();
    const admin = new pg.Client({ connectionString: ADMIN_DATABASE_URL });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`);
    await admin.end();
  }
}
