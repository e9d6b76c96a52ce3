// `npm run bench -- journey-search`: the journeys list (GET /api/journeys, the dashboard's
// /events) on the 10M-step store the journeys bench keeps (bench/journeys-data.ts: 2M events over
// six days), through an exporter started as a user starts it (exporter/src/main.ts with
// ACKTRAIL_CONFIG). One event in 500 has a dead-lettered settle (set once, kept; the synthetic
// settles record no reject, so no journey's verdict is dead-lettered: those pages run to their
// time bound, the worst case). Each case is asked SEARCHES times, the cases interleaved; beside
// each, the same candidates' SQL as PostgreSQL plans it by itself on a connection of the bench's
// (the exporter's runs with the index plan forced, journeys/store/search-steps.ts), so the ratio
// is the API's whole page (the plan, assembling each row's journey, the count, JSON) against the
// store's default plan of its first read.
//
// Target: p95 <= 500 ms per page of 50 at 10M steps. Why: the page is opened by a person in an
// incident, who reads it; half a second is the bound the dashboard's other pages keep (the
// overview's panels, bench/overview.ts), and a list that takes longer is reloaded, which doubles
// the load when the store is already busy.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { ordersConfig } from '@acktrail/exporter/testing';
import { target } from './figures.js';
import { startExporter } from './journeys.js';
import { fmt, quantile } from './lib.js';
import {
  PIPELINE_DB,
  TOKEN,
  ensureDb,
  loadPipeline,
  loadStore,
  log,
  storeDb,
} from './journeys-data.js';

const STEPS = 10_000_000;
const SEARCHES = Number(process.env.BENCH_SEARCHES ?? 40);
/** One event in this many has a dead-lettered settle. */
const DEAD_EVERY = 500;

/** The filters support and SREs reach for; `sql` is the store's own read of the same candidates. */
const CASES: { name: string; query: string; sql: string }[] = [
  {
    name: 'last hour, no filter',
    query: 'since=1h',
    sql: `SELECT event_id, max(time) FROM journey_steps WHERE time >= now() - interval '1 hour'
           GROUP BY event_id ORDER BY max(time) DESC, event_id DESC LIMIT 50`,
  },
  {
    name: 'last hour, queue and stage',
    query: 'since=1h&queue=orders.confirmations&stage=settle',
    sql: `SELECT event_id, max(time) FROM journey_steps WHERE time >= now() - interval '1 hour'
            AND stage = 'settle' AND (attrs->>'acktrail.queue' = 'orders.confirmations'
                                      OR attrs->>'celery.queue' = 'orders.confirmations')
           GROUP BY event_id ORDER BY max(time) DESC, event_id DESC LIMIT 50`,
  },
  {
    name: 'last 24 h, dead-lettered of a queue',
    query: 'since=24h&verdict=dead_lettered&queue=orders.confirmations',
    sql: `SELECT event_id, max(time) FROM journey_steps WHERE time >= now() - interval '24 hours'
            AND anomaly = 'dead_lettered' AND attrs->>'acktrail.queue' = 'orders.confirmations'
           GROUP BY event_id ORDER BY max(time) DESC, event_id DESC LIMIT 50`,
  },
  {
    name: 'last hour, processed by a service',
    query: 'since=1h&service=bench&verdict=processed',
    sql: `SELECT event_id, max(time) FROM journey_steps WHERE time >= now() - interval '1 hour'
            AND service = 'bench'
           GROUP BY event_id ORDER BY max(time) DESC, event_id DESC LIMIT 50`,
  },
];

/** Marks one event in DEAD_EVERY dead-lettered at its settle, once (kept with the store). */
async function markDeadLetters(url: string): Promise<void> {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    const has = await db.query(
      "SELECT 1 FROM journey_steps WHERE anomaly = 'dead_lettered' LIMIT 1",
    );
    if (has.rowCount) return;
    log(`journey-search bench: one event in ${DEAD_EVERY} dead-lettered (once)`);
    await db.query(
      `UPDATE journey_steps SET anomaly = 'dead_lettered'
        WHERE stage = 'settle' AND aggregate_id::bigint % ${DEAD_EVERY} = 0`,
    );
    await db.query('VACUUM ANALYZE journey_steps');
  } finally {
    await db.end();
  }
}

async function timed(run: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await run();
  return performance.now() - t0;
}

export async function runJourneySearchBench(): Promise<void> {
  const pipelineUrl = await ensureDb(PIPELINE_DB);
  await loadPipeline(pipelineUrl);
  const url = await ensureDb(storeDb(STEPS));
  await loadStore(url, STEPS / 5);
  await markDeadLetters(url);
  const dir = mkdtempSync(join(tmpdir(), 'acktrail-bench-'));
  const configPath = join(dir, 'acktrail.json');
  writeFileSync(configPath, JSON.stringify(ordersConfig({ rabbitmq: { enabled: false } })));
  const { exporter, api } = await startExporter(url, pipelineUrl, configPath);
  const db = new pg.Client({ connectionString: url });
  try {
    await db.connect();
    const ask = async (query: string) => {
      const res = await fetch(`${api}/api/journeys?${query}`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      if (res.status !== 200) throw new Error(`${query}: ${res.status} ${await res.text()}`);
      return (await res.json()) as { journeys: unknown[]; count: { value: number } | null };
    };
    for (const c of CASES) {
      const plan = await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${c.sql}`);
      log(`plan, ${c.name}:\n  ${plan.rows.map((r) => r['QUERY PLAN']).join('\n  ')}`);
      const first = await ask(c.query); // warm, and say what a page holds
      log(`${c.name}: ${first.journeys.length} rows, count ${String(first.count?.value ?? '-')}`);
    }
    const api_ms = new Map<string, number[]>(CASES.map((c) => [c.name, []]));
    const sql_ms = new Map<string, number[]>(CASES.map((c) => [c.name, []]));
    for (let i = 0; i < SEARCHES; i++)
      for (const c of CASES) {
        api_ms.get(c.name)!.push(await timed(() => ask(c.query)));
        sql_ms.get(c.name)!.push(await timed(() => db.query(c.sql)));
      }
    let worst = 0;
    for (const c of CASES) {
      const a = api_ms.get(c.name)!;
      const s = sql_ms.get(c.name)!;
      const p95 = quantile(a, 0.95);
      worst = Math.max(worst, p95);
      log(
        `search  ${c.name.padEnd(38)} API p50 ${fmt(quantile(a, 0.5), 1)} ms  p95 ${fmt(p95, 1)} ms` +
          `  | store's SQL, default plan, p50 ${fmt(quantile(s, 0.5), 1)} ms  p95 ${fmt(quantile(s, 0.95), 1)} ms` +
          `  | ratio p95 ${fmt(p95 / Math.max(quantile(s, 0.95), 0.01), 1)}x`,
      );
    }
    target('journeys list p95, worst filter, 10M steps', worst, { atMost: 500 }, 'ms');
  } finally {
    await db.end().catch(() => undefined);
    await exporter.stop();
  }
}
