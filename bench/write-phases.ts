// `npm run bench -- write-phases`: where a journey write's time goes, step by step of the path. The
// exporter's side in this process, timed per body: decoding the OTLP protobuf, reading the spans
// into steps (convertSpans: profiles, normalise, keys), and the COPY text of the steps. The
// store's side through the store's own StepStore on a connection whose every statement is timed
// as the client sees it (PostgreSQL's work and the round trip): the partition check, BEGIN with
// the staging table, the version read, the COPY into the staging table, the INSERT ... SELECT into
// journey_steps, the event days, the publish locks, the parents, the publish counts, the journey
// starts, COMMIT. Beside it, in the same run, a plain COPY of the same rows into a table shaped as
// journey_steps with its indexes (what the rows cost PostgreSQL anyway), so that the write's own
// cost prints as a ratio: write / plain COPY (issue 69's aim: a write costs PostgreSQL little more
// than the COPY it contains). Bodies as a pipeline sends them (per event its publish, the delivery
// and the ack: journeys-bodies.ts's `journeys` mix), one write at a time on a fresh store.
import pg from 'pg';
import { convertSpans, decodeProtobuf } from '@acktrail/exporter/testing/spans';
import {
  JOURNEY_STARTS,
  PUBLISH_COUNTS,
  StepStore,
  copyRows,
  copyText,
  migrateStore,
} from '@acktrail/exporter/testing/store';
import { sdkBodies } from './journeys-bodies.js';
import { freshDb, log } from './journeys-data.js';
import { fmt } from './lib.js';

const BODIES = Number(process.env.BENCH_PHASE_BODIES ?? 60);
const SPANS = 498;

/** Each statement's label: what it is in the write (step-store.ts), from its SQL. */
const LABELS: [(sql: string) => boolean, string][] = [
  [(q) => /^BEGIN.*CREATE TEMP TABLE/s.test(q), 'BEGIN + staging table'],
  [(q) => q.startsWith('COPY acktrail_staged_steps'), 'COPY into staging'],
  [(q) => q.startsWith('INSERT INTO journey_steps'), 'INSERT ... SELECT journey_steps'],
  [(q) => /journey_events/.test(q), 'event days (journey_events)'],
  [(q) => /pg_advisory_xact_lock\(\$1::int, b\)/.test(q), 'publish locks'],
  [(q) => /AS k,/.test(q), 'parents'],
  [(q) => q === PUBLISH_COUNTS, 'publish counts'],
  [(q) => q === JOURNEY_STARTS, 'journey starts'],
  [(q) => /AS v\b/.test(q), 'version read'],
  [(q) => q === 'COMMIT', 'COMMIT'],
  [
    (q) =>
      q === 'BEGIN' ||
      /advisory_xact_lock\(\$1\)|pg_inherits|journey_steps_p\d|ATTACH PARTITION/.test(q),
    'partition (the first write only)',
  ],
];
const labelOf = (sql: string) =>
  LABELS.find(([is]) => is(sql.trim()))?.[1] ?? sql.trim().slice(0, 40);

const spent = new Map<string, number>();
const add = (label: string, ms: number) => spent.set(label, (spent.get(label) ?? 0) + ms);

type Query = (...args: unknown[]) => unknown;
/** pg's Client with every statement timed: a promise until it settles, a COPY until it ends. */
class TimedClient extends pg.Client {
  override query(...args: unknown[]): never {
    const first = args[0] as { text?: string; submit?: unknown } | string;
    const sql = typeof first === 'string' ? first : (first.text ?? 'COPY acktrail_staged_steps');
    const started = performance.now();
    const done = () => add(labelOf(sql), performance.now() - started);
    const result = (super.query as Query).apply(this, args);
    if (result instanceof Promise) void result.then(done, done);
    else if (result && typeof (result as NodeJS.EventEmitter).once === 'function') {
      (result as NodeJS.EventEmitter).once('finish', done);
    }
    return result as never;
  }
}

const now = () => performance.now();

/** The JS side: µs per step of decoding, reading into steps, and COPY text, summed over bodies. */
function exporterSide(bodies: Buffer[]) {
  const t = { decode: 0, convert: 0, copyText: 0 };
  const steps = bodies.map((body) => {
    let at = now();
    const spans = decodeProtobuf(body, 10_000);
    t.decode += now() - at;
    at = now();
    const converted = convertSpans(spans, { fromUs: 0, toUs: Number.MAX_SAFE_INTEGER });
    t.convert += now() - at;
    at = now();
    copyRows(converted.steps);
    t.copyText += now() - at;
    return converted.steps;
  });
  return { t, steps };
}

/** A plain COPY of the same rows into a table shaped as journey_steps, with its indexes. */
async function plainCopy(url: string, batches: ReturnType<typeof exporterSide>['steps']) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(
    'CREATE TABLE plain_copy (LIKE journey_steps INCLUDING DEFAULTS INCLUDING INDEXES)',
  );
  let ms = 0;
  for (const steps of batches) {
    const text = copyRows(steps).replace(
      /^([^\t]*)\t([^\t]*)\t/gm,
      (_all, id: string, us: string) => `${id}\t${new Date(Number(us) / 1000).toISOString()}\t`,
    );
    const started = now();
    await copyText(
      client,
      `COPY plain_copy (event_id, time, duration_us, stage, service, trace_id, span_id,
          parent_span_id, name, status, status_message, aggregate_type, aggregate_id, anomaly,
          attrs) FROM STDIN`,
      text,
    );
    ms += now() - started;
  }
  await client.end();
  return ms;
}

export async function runWritePhasesBench(rounds: number): Promise<void> {
  log(`write-phases: ${BODIES} bodies of ${SPANS} spans (publish, delivery, ack per event)`);
  const bodies = await sdkBodies(BODIES, `phases-${Date.now()}`, SPANS, 'journeys');
  for (let round = 1; round <= rounds; round++) {
    spent.clear();
    const url = await freshDb('acktrail_bench_write_phases');
    await migrateStore(url);
    const { t, steps } = exporterSide(bodies);
    const total = steps.reduce((n, s) => n + s.length, 0);
    const pool = new pg.Pool({ connectionString: url, max: 2, Client: TimedClient });
    const store = new StepStore(pool);
    const started = now();
    for (const batch of steps) await store.write(batch);
    const writeMs = now() - started;
    await pool.end();
    const copyMs = await plainCopy(url, steps);
    const us = (ms: number) => fmt((ms * 1000) / total, 1);
    log(`round ${round}: ${total} steps in ${steps.length} writes`);
    log(
      `  exporter side, µs per step: decode ${us(t.decode)}, read into steps ${us(t.convert)}, COPY text ${us(t.copyText)}`,
    );
    const rows = [...spent].sort((a, b) => b[1] - a[1]);
    const statements = rows.reduce((n, [, ms]) => n + ms, 0);
    for (const [label, ms] of rows)
      log(
        `  ${label.padEnd(34)} ${us(ms).padStart(7)} µs/step  ${fmt((100 * ms) / statements, 1).padStart(5)} %`,
      );
    log(`  the write, end to end: ${us(writeMs)} µs/step (its statements ${us(statements)})`);
    log(`  plain COPY into a table shaped as journey_steps: ${us(copyMs)} µs/step`);
    const staged = spent.get('COPY into staging') ?? 0;
    log(
      `  write / plain COPY ${fmt(writeMs / copyMs, 2)}x; write / its staging COPY ${fmt(writeMs / staged, 2)}x`,
    );
  }
}
