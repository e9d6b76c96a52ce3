// What each case of the journeys bench (journeys.ts) does in one round: ingest (SDK bodies posted
// by concurrent senders), copy (psql \copy of the same rows), lookups (the API, a bare select and
// the store's own read of other events of the same hours).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import pg from 'pg';
import { StepReads } from '@acktrail/exporter/testing/store';
import { SPANS_PER_BODY } from './journeys-bodies.js';
import { PIPELINE_ORDERS, SENDERS, TOKEN, md5Uuid } from './journeys-data.js';

export async function ingestRound(url: string, bodies: Buffer[]): Promise<number> {
  let next = 0;
  const started = performance.now();
  const sender = async () => {
    while (next < bodies.length) {
      const body = bodies[next++]!;
      const res = await fetch(`${url}/v1/traces`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-protobuf' },
        body,
      });
      if (res.status !== 200) throw new Error(`ingest answered ${res.status}`);
      // An empty answer is a full success; a partial success (spans rejected) names them.
      const answer = await res.arrayBuffer();
      if (answer.byteLength > 0) throw new Error('ingest rejected spans (a partial success)');
    }
  };
  await Promise.all(Array.from({ length: SENDERS }, sender));
  return (bodies.length * SPANS_PER_BODY) / ((performance.now() - started) / 1000);
}

export async function copyRound(storeUrl: string, csvPath: string, rows: number): Promise<number> {
  const started = performance.now();
  const psql = spawn(
    'psql',
    [
      storeUrl,
      '-v',
      'ON_ERROR_STOP=1',
      '-qc',
      `\\copy journey_steps (event_id, time, duration_us, stage, service, trace_id, span_id, parent_span_id, name, status, status_message, aggregate_type, aggregate_id, anomaly, attrs) FROM '${csvPath}' CSV`,
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const [code] = (await once(psql, 'exit')) as [number];
  if (code !== 0) throw new Error(`psql \\copy exited ${code}`);
  return rows / ((performance.now() - started) / 1000);
}

export async function lookups(exporterUrl: string, storeUrl: string, ids: number[]) {
  const api: number[] = [];
  const bare: number[] = [];
  const days: number[] = [];
  const db = new pg.Client({ connectionString: storeUrl });
  await db.connect();
  const queries = new StepReads(db);
  for (const n of ids) {
    // Events of the same hours for the three, never one warmed by another.
    const [id, bareId, daysId] = [n, n + 2 * PIPELINE_ORDERS, n + 4 * PIPELINE_ORDERS].map(md5Uuid);
    let t = performance.now();
    const res = await fetch(`${exporterUrl}/api/events/${id}`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    const j = (await res.json()) as { timeline?: unknown[] };
    api.push(performance.now() - t);
    if (res.status !== 200 || (j.timeline?.length ?? 0) < 9)
      throw new Error(`lookup of ${id}: ${res.status}, ${j.timeline?.length ?? 0} entries`);
    t = performance.now();
    const r = await db.query('SELECT * FROM journey_steps WHERE event_id = $1', [bareId]);
    bare.push(performance.now() - t);
    if (r.rowCount !== 5) throw new Error(`select of ${bareId}: ${r.rowCount} rows`);
    t = performance.now();
    const steps = await queries.steps(daysId!);
    days.push(performance.now() - t);
    if (steps.length !== 5) throw new Error(`days read of ${daysId}: ${steps.length} steps`);
  }
  await db.end();
  return { api, bare, days };
}
