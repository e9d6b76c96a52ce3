// A refused body thrown away, side by side in one run: by Node's HTTP parser (the receiver's way
// for a body of a declared length, exporter/src/receiver/discard.ts) and as 'data' events (its
// way with ACKTRAIL_PARSER_DISCARD=off, and for a chunked body). Each case is an exporter started
// as a user starts one (exporter/src/main.ts), the switch set each way, with a journey store that
// never answers, so that it refuses (503) every span body. The flood
// (exporter/testing/flood.ts: 8 MB OTLP/JSON bodies, sent again until answered 200, so here
// for ever) sends from a process of its own for BENCH_DISCARD_SECONDS (8) per case and round.
// Printed per case: the exporter's event-loop thread's CPU per refused body
// (/proc/<pid>/task/<pid>/schedstat), its isolate's garbage collections per 100 bodies and their
// pause (nodejs_gc_duration_seconds from its own /metrics), and the ratios.
import { startExporterProcess } from '@acktrail/exporter/testing';
import { runFlood } from '@acktrail/exporter/testing/flood';
import { fmt, median, threadSchedMs } from './lib.js';

const SECONDS = Number(process.env.BENCH_DISCARD_SECONDS ?? 8);
const SENDERS = 4;
/** A store that never answers: every span body is refused, and its rest thrown away. */
const NO_STORE = 'postgres://acktrail@127.0.0.1:1/nothing';

const log = (line: string) => process.stderr.write(`${line}\n`);

interface Case {
  cpuMsPerBody: number;
  gcsPer100: number;
  gcMsPer100: number;
}

/** The exporter's garbage collections so far, from its own metrics: how many, and their seconds. */
async function collections(url: string): Promise<{ count: number; ms: number }> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const sum = (name: string) =>
    [...text.matchAll(new RegExp(`^${name}\\{[^}]*\\} (\\S+)$`, 'gm'))].reduce(
      (n, m) => n + Number(m[1]),
      0,
    );
  return {
    count: sum('nodejs_gc_duration_seconds_count'),
    ms: sum('nodejs_gc_duration_seconds_sum') * 1000,
  };
}

/** One case: an exporter with the switch set `parser` or not, flooded for SECONDS. */
async function measure(parser: boolean): Promise<Case> {
  const { proc, url, ingestUrl } = await startExporterProcess(
    { ACKTRAIL_DATABASE_URL: NO_STORE, ACKTRAIL_PARSER_DISCARD: parser ? 'on' : 'off' },
    { rabbitmq: { enabled: false } },
    { waitForStore: false },
  );
  try {
    const cpu = threadSchedMs(proc.pid);
    const gc = await collections(url);
    const { answers } = await runFlood(ingestUrl, SECONDS, SENDERS);
    const used = threadSchedMs(proc.pid);
    const after = await collections(url);
    if (!cpu || !used) throw new Error('this kernel keeps no schedstat: no thread CPU to read');
    const bodies = answers['503'] ?? 0;
    if (bodies === 0) throw new Error(`no body was answered 503: ${JSON.stringify(answers)}`);
    return {
      cpuMsPerBody: (used.ran - cpu.ran) / bodies,
      gcsPer100: ((after.count - gc.count) * 100) / bodies,
      gcMsPer100: ((after.ms - gc.ms) * 100) / bodies,
    };
  } finally {
    await proc.kill();
  }
}

export async function runDiscardBench(rounds: number): Promise<void> {
  log(`discard: ${rounds} round(s) of ${SECONDS} s per case, ${SENDERS} senders of 8 MB bodies`);
  const results = { parser: [] as Case[], events: [] as Case[] };
  for (let r = 1; r <= rounds; r++) {
    for (const name of ['parser', 'events'] as const) {
      const c = await measure(name === 'parser');
      results[name].push(c);
      log(
        `  round ${r}/${rounds} ${name}: ${fmt(c.cpuMsPerBody, 2)} ms CPU per body, ${fmt(c.gcsPer100, 1)} collections (${fmt(c.gcMsPer100, 1)} ms) per 100 bodies`,
      );
    }
  }
  const m = (name: keyof typeof results, k: keyof Case) => median(results[name].map((c) => c[k]));
  log('discard: a refused 8 MB body thrown away by the parser against as data events (medians)');
  log(
    `  event-loop CPU per body  parser ${fmt(m('parser', 'cpuMsPerBody'), 2)} ms  events ${fmt(m('events', 'cpuMsPerBody'), 2)} ms  ratio ${fmt(m('parser', 'cpuMsPerBody') / m('events', 'cpuMsPerBody'), 2)}`,
  );
  log(
    `  collections per 100      parser ${fmt(m('parser', 'gcsPer100'), 1)}  events ${fmt(m('events', 'gcsPer100'), 1)}; pause per 100 parser ${fmt(m('parser', 'gcMsPer100'), 1)} ms  events ${fmt(m('events', 'gcMsPer100'), 1)} ms`,
  );
}
