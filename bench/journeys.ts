// The journey store at two sizes, 10M and 50M steps by default (BENCH_JOURNEY_STEPS), side by side
// in one run, so that the ratio says how cost grows with size:
//   ingest   OTLP/HTTP protobuf bodies (made by the real SDK exporter) -> POST /v1/traces of an
//            exporter process -> committed rows, 4 concurrent senders; steps/s
//   copy     the same rows (other SDK bodies of the same kind, decoded and normalised by the
//            receiver's code) by a raw `COPY journey_steps FROM` (psql \copy)
//            into the same table at the same size; rows/s
//   lookup   GET /api/events/{id} (steps + the pipeline's rows, assembled) against
//   select   a bare indexed select of an event's 5 steps (every partition's event index), and
//   days     the store's own read of an event's steps (journey_events, then its days' partitions);
//            ms per call, p50 / p99. The three read other events (as cold as each other).
// With BENCH_BASELINE naming another checkout (node_modules linked), its exporter ingests into the
// same stores too, round by round beside this one's: the before/after of a change in one run
// (BENCH_BASELINE_NODE_FLAGS and BENCH_BASELINE_ENV set it apart further: lib.ts).
// Each store (N steps: N/5 events x 5 stages over six days of daily partitions) is loaded once and
// kept (acktrail_bench_journeys for 10M, acktrail_bench_journeys_<N>m for the others); one
// exporter process serves each. The pipeline database holds 100k orders with their outbox rows,
// confirmations and attempts for the looked-up events.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT, RoleProcess } from '@acktrail/testing';
import {
  EXPORTER_MALLOC_ENV,
  EXPORTER_NODE_OPTIONS,
  ordersConfig,
} from '@acktrail/exporter/testing';
import {
  baselineEnv,
  baselineNodeFlags,
  fmt,
  interleaved,
  median,
  metered,
  quantile,
  type CpuSpent,
} from './lib.js';
import { target } from './figures.js';
import { SPANS_PER_BODY, SPAN_MIX, copyCsv, sdkBodies } from './journeys-bodies.js';
import { copyRound, ingestRound, lookups } from './journeys-cases.js';
import {
  BODY_SPANS,
  LOOKUPS,
  PIPELINE_DB,
  PIPELINE_ORDERS,
  ROUND_STEPS,
  SIZES,
  STAGES,
  TOKEN,
  ensureDb,
  loadPipeline,
  loadStore,
  log,
  storeDb,
  storeSize,
} from './journeys-data.js';

/** Another checkout whose exporter ingests beside this one's (BENCH_BASELINE). */
const BASELINE = process.env.BENCH_BASELINE;

interface Exporter {
  exporter: RoleProcess;
  api: string;
}

interface Store extends Exporter {
  steps: number;
  url: string;
  csvs: string[];
  baseline: Exporter | null;
}

export async function startExporter(
  storeUrl: string,
  pipelineUrl: string,
  configPath: string,
  /** The baseline's checkout (BENCH_BASELINE); its flags and environment: lib.ts. */
  baseline?: string,
): Promise<Exporter> {
  const root = baseline ?? REPO_ROOT;
  const env = {
    ACKTRAIL_DATABASE_URL: storeUrl,
    DATABASE_URL: pipelineUrl,
    ACKTRAIL_API_TOKEN: TOKEN,
    ACKTRAIL_PORT: '0',
    ACKTRAIL_CONFIG: configPath,
  };
  const exporter = new RoleProcess(
    'exporter',
    baseline
      ? // A baseline from before runtime/flags.ts is given the settings the exporter now gives itself.
        baselineEnv({
          ...env,
          ...EXPORTER_MALLOC_ENV,
          NODE_OPTIONS: [EXPORTER_NODE_OPTIONS, ...baselineNodeFlags()].join(' '),
        })
      : env,
    [],
    join(root, 'exporter/src/main.ts'),
  );
  const ready = await exporter.waitForLog((l) => l.msg === 'ready', 'ready');
  return { exporter, api: `http://127.0.0.1:${String(ready.port)}` };
}

export async function runJourneysBench(rounds: number): Promise<void> {
  const pipelineUrl = await ensureDb(PIPELINE_DB);
  await loadPipeline(pipelineUrl);
  const dir = mkdtempSync(join(tmpdir(), 'acktrail-bench-'));
  const configPath = join(dir, 'acktrail.json');
  // The reference pipeline's tables: each lookup reads the outbox row, order, confirmation and
  // attempts beside the steps.
  writeFileSync(configPath, JSON.stringify(ordersConfig({ rabbitmq: { enabled: false } })));
  const perRound = ROUND_STEPS / BODY_SPANS;
  const stores: Store[] = [];
  try {
    for (const steps of SIZES) {
      const url = await ensureDb(storeDb(steps));
      await loadStore(url, steps / STAGES.length);
      const copyBodies = await sdkBodies(rounds * perRound, `c${steps}${Date.now().toString(36)}`);
      const csvs = Array.from({ length: rounds }, (_, r) => {
        const path = join(dir, `round-${steps}-${r}.csv`);
        writeFileSync(path, copyCsv(copyBodies.slice(r * perRound, (r + 1) * perRound)));
        return path;
      });
      stores.push({
        steps,
        url,
        csvs,
        ...(await startExporter(url, pipelineUrl, configPath)),
        baseline: BASELINE ? await startExporter(url, pipelineUrl, configPath, BASELINE) : null,
      });
    }
    log(`journeys bench: making SDK bodies of ${SPANS_PER_BODY} spans (${SPAN_MIX})`);
    const cases: Record<string, () => Promise<number>> = {};
    const cpu = new Map<string, CpuSpent>();
    const meter = (name: string, run: () => Promise<number>, pid?: number) => {
      const spent = { machine: 0, process: 0, self: 0 };
      cpu.set(name, spent);
      cases[name] = metered(run, spent, pid);
    };
    const ingestCase = async (name: string, tag: string, e: Exporter) => {
      const b = await sdkBodies(rounds * perRound + 10, `${tag}${Date.now().toString(36)}`);
      await ingestRound(e.api, b.splice(0, 10));
      let done = 0;
      const run = () => ingestRound(e.api, b.slice(done * perRound, ++done * perRound));
      meter(name, run, e.exporter.pid);
    };
    for (const s of stores) {
      await ingestCase(`ingest ${s.steps}`, `b${s.steps}`, s);
      if (s.baseline) await ingestCase(`baseline ${s.steps}`, `a${s.steps}`, s.baseline);
      let copied = 0;
      meter(`copy ${s.steps}`, () =>
        copyRound(s.url, s.csvs[copied++]!, perRound * SPANS_PER_BODY),
      );
    }
    const rates = await interleaved(rounds, cases);

    const ids = Array.from({ length: LOOKUPS }, (_, i) => 1 + ((i * 7919) % PIPELINE_ORDERS));
    type Looked = Awaited<ReturnType<typeof lookups>>;
    const looked = new Map<number, Looked>();
    for (const s of stores) await lookups(s.api, s.url, ids.slice(0, 50)); // warm the caches
    // Interleaved in slices of 100, so that drift on the machine hits both sizes alike.
    for (let from = 0; from < LOOKUPS; from += 100)
      for (const s of stores) {
        const l = await lookups(s.api, s.url, ids.slice(from, from + 100));
        const all = looked.get(s.steps) ?? { api: [], bare: [], days: [] };
        looked.set(s.steps, {
          api: [...all.api, ...l.api],
          bare: [...all.bare, ...l.bare],
          days: [...all.days, ...l.days],
        });
      }

    const figures = new Map<
      number,
      { ingest: number; p50: number; p99: number; perStep: number }
    >();
    for (const s of stores) {
      const ingest = median(rates[`ingest ${s.steps}`]!);
      const copy = median(rates[`copy ${s.steps}`]!);
      const l = looked.get(s.steps)!;
      const size = await storeSize(s.url);
      figures.set(s.steps, {
        ingest,
        p50: quantile(l.api, 0.5),
        p99: quantile(l.api, 0.99),
        perStep: size.bytes / size.steps,
      });
      const at = `at ${fmt(s.steps / 1e6)}M stored steps${SPAN_MIX === 'journeys' ? ', whole journeys' : ''}`;
      target(`journey ingest / COPY, ${at}`, ingest / copy, { atLeast: 0.8 });
      target(`journey lookup p50, ${at}`, quantile(l.api, 0.5), { atMost: 2 }, 'ms');
      target(`journey lookup p99, ${at}`, quantile(l.api, 0.99), { atMost: 5 }, 'ms');
      // Issue 69: a lookup costs little more than the store's own select of the same steps.
      const overSelect = quantile(l.api, 0.99) / quantile(l.bare, 0.99);
      target(`journey lookup p99 / the store's select p99, ${at}`, overSelect, { atMost: 1.2 });
      console.log(`\n## journey store, ${fmt(s.steps)} steps stored before the run`);
      console.log(
        `ingest  OTLP protobuf -> committed rows  median ${fmt(ingest)} steps/s  (rounds: ${rates[`ingest ${s.steps}`]!.map((x) => fmt(x)).join(', ')})`,
      );
      console.log(
        `copy    psql \\copy of the same rows       median ${fmt(copy)} rows/s   (rounds: ${rates[`copy ${s.steps}`]!.map((x) => fmt(x)).join(', ')})`,
      );
      console.log(
        `ratio   ingest / copy = ${fmt(ingest / copy, 2)}  (target >= 0.8 at 50M stored steps)`,
      );
      // CPU per step over all rounds: the exporter, the senders (this process), the rest of the
      // machine (PostgreSQL, mostly); the COPY's is psql's and PostgreSQL's.
      const steps = rounds * perRound * SPANS_PER_BODY;
      const us = (ms: number) => fmt((ms * 1000) / steps, 1);
      const [ic, cc] = [cpu.get(`ingest ${s.steps}`)!, cpu.get(`copy ${s.steps}`)!];
      console.log(
        `cpu     per step: ingest ${us(ic.machine)} µs (exporter ${us(ic.process)}, senders ${us(ic.self)}, the rest ${us(ic.machine - ic.process - ic.self)}); copy ${us(cc.machine)} µs`,
      );
      const before = rates[`baseline ${s.steps}`];
      const bc = cpu.get(`baseline ${s.steps}`);
      if (before && bc)
        console.log(
          `before  ${BASELINE}'s exporter, same store  median ${fmt(median(before))} steps/s  (rounds: ${before.map((x) => fmt(x)).join(', ')}); its ingest / copy = ${fmt(median(before) / copy, 2)}; ingest / before = ${fmt(ingest / median(before), 2)}\n` +
            `cpu     per step before: ${us(bc.machine)} µs (exporter ${us(bc.process)}, senders ${us(bc.self)}, the rest ${us(bc.machine - bc.process - bc.self)})`,
        );
      console.log(
        `lookup  GET /api/events/{id}  p50 ${fmt(quantile(l.api, 0.5), 2)} ms  p99 ${fmt(quantile(l.api, 0.99), 2)} ms  (${l.api.length} calls; target p50 <= 2 ms, p99 <= 5 ms)`,
      );
      console.log(
        `select  5 steps by event_id   p50 ${fmt(quantile(l.bare, 0.5), 2)} ms  p99 ${fmt(quantile(l.bare, 0.99), 2)} ms`,
      );
      console.log(
        `days    journey_events, then the event's days  p50 ${fmt(quantile(l.days, 0.5), 2)} ms  p99 ${fmt(quantile(l.days, 0.99), 2)} ms; days / select: p50 ${fmt(quantile(l.days, 0.5) / quantile(l.bare, 0.5), 2)}, p99 ${fmt(quantile(l.days, 0.99) / quantile(l.bare, 0.99), 2)}`,
      );
      console.log(`ratio   lookup p99 / select p99 = ${fmt(overSelect, 2)}  (target <= 1.2)`);
      console.log(
        `size    ${fmt(size.steps)} steps in ${fmt(size.bytes / 2 ** 20)} MiB (tables, indexes and TOAST of every partition): ${fmt(size.bytes / size.steps)} bytes per step, ${fmt(((size.bytes / size.steps) * 1e6) / 2 ** 30, 2)} GiB per million steps`,
      );
    }
    const [small, ...larger] = SIZES;
    const base = figures.get(small!)!;
    for (const n of larger) {
      const f = figures.get(n)!;
      console.log(
        `\n${fmt(n)} against ${fmt(small!)} steps: ingest ${fmt(f.ingest / base.ingest, 2)}x, lookup p50 ${fmt(f.p50 / base.p50, 2)}x, p99 ${fmt(f.p99 / base.p99, 2)}x, bytes per step ${fmt(f.perStep / base.perStep, 2)}x`,
      );
    }
  } finally {
    await Promise.all(
      stores.flatMap((s) =>
        [s.exporter, ...(s.baseline ? [s.baseline.exporter] : [])].map((e) => e.stop()),
      ),
    );
  }
}
