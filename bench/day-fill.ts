// `npm run bench -- day-fill`: does a write cost more at the end of a busy day than at its start?
// Two stores made for the run, side by side: one empty, one whose today's partition already holds
// BENCH_DAYFILL_STEPS steps (300,000 by default: a busy day's publishes, deliveries and acks,
// loaded by SQL with no ANALYZE after, as on a PostgreSQL whose autovacuum is off or has not
// reached a new day yet). One exporter on each, started as a user starts it (exporter/src/main.ts
// with ACKTRAIL_CONFIG); the same kind of write to each in turn, one at a time: an OTLP body of 99
// spans from the real SDK (33 events: publish, delivery, ack), so that the write also reads
// parents, publish counts and journey starts. Prints each side's p50 and p90 and the ratio
// full / empty (target 1.2: a write costs the same at the end of a day as at its start), and,
// before the exporters start (the store analyses the day once it runs), the duplicate-publish
// count's plan on the unanalysed partition, as it reads now and with the stage in WHERE.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { ordersConfig } from '@acktrail/exporter/testing';
import { Partitions, migrateStore, PUBLISH_COUNTS } from '@acktrail/exporter/testing/store';
import { target } from './figures.js';
import { startExporter } from './journeys.js';
import { sdkBodies } from './journeys-bodies.js';
import { PIPELINE_DB, ensureDb, freshDb, loadPipeline, log } from './journeys-data.js';
import { fmt, quantile } from './lib.js';

const STEPS = Number(process.env.BENCH_DAYFILL_STEPS ?? 300_000);
const WRITES = Number(process.env.BENCH_DAYFILL_WRITES ?? 60);
const SPANS = 99;

/** STEPS steps in today's partition, spread over the day so far: publish, delivery, ack. */
async function fillToday(url: string): Promise<void> {
  await migrateStore(url);
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  await new Partitions(pool).prepareAhead().finally(() => pool.end());
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    const started = performance.now();
    await db.query(
      `INSERT INTO journey_steps (event_id, time, duration_us, stage, service, trace_id, span_id,
              parent_span_id, name, status, aggregate_type, aggregate_id, attrs)
       SELECT 'dayfill-' || (g / 3),
              date_trunc('day', now()) + (g::float8 / $1) * (now() - interval '1 minute' - date_trunc('day', now())),
              1000, (ARRAY['outbox.publish', 'deliver', 'settle'])[g % 3 + 1], 'bench',
              md5((g / 3)::text), substr(md5(g::text), 1, 16), NULL, 'step', 'ok', 'order',
              (g / 3)::text, '{"acktrail.queue": "orders.confirmations"}'::jsonb
         FROM generate_series(0, $1 - 1) g`,
      [STEPS],
    );
    await db.query(
      `INSERT INTO journey_events (event_id, first_day, last_day)
       SELECT 'dayfill-' || g, current_date, current_date FROM generate_series(0, $1 / 3) g
       ON CONFLICT DO NOTHING`,
      [STEPS],
    );
    log(
      `day-fill: ${fmt(STEPS)} steps in today's partition in ${fmt((performance.now() - started) / 1000, 1)} s, not analysed`,
    );
    await comparePlans(db);
  } finally {
    await db.end();
  }
}

/** The stage in WHERE, as the duplicate-publish count read before issue 69. */
const COUNTS_WITH_STAGE = `SELECT event_id, count(*)::int AS n FROM journey_steps
   WHERE event_id = ANY($1) AND stage = ANY($2) AND time >= $3 AND time < $4 GROUP BY event_id`;

/**
 * The write's duplicate-publish count for 100 of the loaded events on the unanalysed partition,
 * as it reads now (PUBLISH_COUNTS) and with the stage in WHERE: EXPLAIN ANALYZE's time and index.
 */
async function comparePlans(db: pg.Client): Promise<void> {
  const ids = Array.from({ length: 100 }, (_, i) => `dayfill-${Math.floor(STEPS / 3) - 1 - i}`);
  const day = new Date(Math.floor(Date.now() / 86_400_000) * 86_400_000);
  const params = [ids, ['outbox.publish', 'publish'], day, new Date(day.getTime() + 86_400_000)];
  for (const [name, sql] of [
    ['now', PUBLISH_COUNTS],
    ['stage in WHERE', COUNTS_WITH_STAGE],
  ] as const) {
    const plan = (await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN ANALYZE ${sql}`, params)).rows
      .map((r) => r['QUERY PLAN'])
      .join('\n');
    const index = /using (\S+)|on (\S+_idx)/.exec(plan);
    const ms = /Execution Time: ([\d.]+) ms/.exec(plan)?.[1] ?? '?';
    log(
      `day-fill  publish count, ${name.padEnd(14)} ${ms} ms  (${index?.[1] ?? index?.[2] ?? 'no index'})`,
    );
  }
}

async function write(api: string, body: Buffer): Promise<number> {
  const started = performance.now();
  const res = await fetch(`${api}/v1/traces`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-protobuf' },
    body,
  });
  const answer = await res.arrayBuffer();
  if (res.status !== 200 || answer.byteLength > 0)
    throw new Error(`ingest answered ${res.status} (${answer.byteLength} bytes)`);
  return performance.now() - started;
}

export async function runDayFillBench(): Promise<void> {
  const pipelineUrl = await ensureDb(PIPELINE_DB);
  await loadPipeline(pipelineUrl);
  const dir = mkdtempSync(join(tmpdir(), 'acktrail-bench-'));
  const configPath = join(dir, 'acktrail.json');
  writeFileSync(configPath, JSON.stringify(ordersConfig({ rabbitmq: { enabled: false } })));
  const emptyUrl = await freshDb('acktrail_bench_dayfill_empty');
  const fullUrl = await freshDb('acktrail_bench_dayfill_full');
  await fillToday(fullUrl);
  const empty = await startExporter(emptyUrl, pipelineUrl, configPath);
  const full = await startExporter(fullUrl, pipelineUrl, configPath);
  try {
    const tag = `df${Date.now().toString(36)}`;
    const bodies = await sdkBodies(2 * WRITES + 4, tag, SPANS, 'journeys');
    // Warm both (connections, plans), then alternate.
    for (const side of [empty, full])
      for (let i = 0; i < 2; i++) await write(side.api, bodies.pop()!);
    const ms = { empty: [] as number[], full: [] as number[] };
    for (let i = 0; i < WRITES; i++) {
      ms.empty.push(await write(empty.api, bodies.pop()!));
      ms.full.push(await write(full.api, bodies.pop()!));
    }
    const line = (name: string, xs: number[]) =>
      `day-fill  ${name.padEnd(34)} write of ${SPANS} spans p50 ${fmt(quantile(xs, 0.5), 1)} ms  p90 ${fmt(quantile(xs, 0.9), 1)} ms`;
    log(line('empty store', ms.empty));
    log(line(`${fmt(STEPS)} steps today, not analysed`, ms.full));
    const p50 = quantile(ms.full, 0.5) / quantile(ms.empty, 0.5);
    const p90 = quantile(ms.full, 0.9) / quantile(ms.empty, 0.9);
    log(`day-fill  full / empty: p50 ${fmt(p50, 2)}x  p90 ${fmt(p90, 2)}x`);
    target(`write at ${fmt(STEPS)} steps today / empty store, p90`, p90, { atMost: 1.2 }, 'x');
  } finally {
    await empty.exporter.stop();
    await full.exporter.stop();
  }
}
