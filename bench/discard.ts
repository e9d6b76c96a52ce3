// A refused body thrown away, side by side in one run: by Node's HTTP parser (the receiver's way
// for a body of a declared length, receiver/discard.ts) and as 'data' events (its way for a chunked
// one, and the only way before). A server in this process answers every POST 503 and discards its
// body; the flood (exporter/src/testing/flood.ts: 8 MB OTLP/JSON bodies, sent again until answered
// 200, so here for ever) sends from a process of its own for BENCH_DISCARD_SECONDS (8) per case
// and round. Printed per case: this thread's CPU per refused body, garbage collections of this
// isolate per 100 bodies and their pause, and the ratios.
import { once } from 'node:events';
import { createServer } from 'node:http';
import { PerformanceObserver } from 'node:perf_hooks';
import { discardBody } from '../exporter/src/receiver/discard.js';
import { runFlood } from '../exporter/src/testing/flood.js';
import { fmt, median } from './lib.js';

const SECONDS = Number(process.env.BENCH_DISCARD_SECONDS ?? 8);
const SENDERS = 4;
const MAX_BYTES = 16 * 1024 * 1024;

const log = (line: string) => process.stderr.write(`${line}\n`);

interface Case {
  cpuMsPerBody: number;
  gcsPer100: number;
  gcMsPer100: number;
}

export async function runDiscardBench(rounds: number): Promise<void> {
  log(`discard: ${rounds} round(s) of ${SECONDS} s per case, ${SENDERS} senders of 8 MB bodies`);
  const mode = { parser: true };
  const server = createServer((req, res) => {
    discardBody(req, MAX_BYTES, 10_000, mode);
    res.writeHead(503, { 'retry-after': '5' }).end();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${String((server.address() as { port: number }).port)}`;
  const gc = { count: 0, ms: 0 };
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      gc.count++;
      gc.ms += e.duration;
    }
  });
  observer.observe({ entryTypes: ['gc'] });

  const measure = async (parser: boolean): Promise<Case> => {
    mode.parser = parser;
    const cpu = process.threadCpuUsage();
    const before = { ...gc };
    const { answers } = await runFlood(url, SECONDS, SENDERS);
    const used = process.threadCpuUsage(cpu);
    const bodies = answers['503'] ?? 0;
    if (bodies === 0) throw new Error(`no body was answered 503: ${JSON.stringify(answers)}`);
    return {
      cpuMsPerBody: (used.user + used.system) / 1000 / bodies,
      gcsPer100: ((gc.count - before.count) * 100) / bodies,
      gcMsPer100: ((gc.ms - before.ms) * 100) / bodies,
    };
  };
  const results = { parser: [] as Case[], events: [] as Case[] };
  try {
    for (let r = 1; r <= rounds; r++) {
      for (const name of ['parser', 'events'] as const) {
        const c = await measure(name === 'parser');
        results[name].push(c);
        log(
          `  round ${r}/${rounds} ${name}: ${fmt(c.cpuMsPerBody, 2)} ms CPU per body, ${fmt(c.gcsPer100, 1)} collections (${fmt(c.gcMsPer100, 1)} ms) per 100 bodies`,
        );
      }
    }
  } finally {
    observer.disconnect();
    server.close();
    server.closeAllConnections();
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
