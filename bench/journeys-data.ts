// The journey benchmark's data: the stores it loads once and keeps (N steps: N/5 events x 5
// stages over six days of daily partitions), the pipeline database beside them, and what a store
// takes on disk.
import { createHash } from 'node:crypto';
import pg from 'pg';
import { migrate } from '@acktrail/orders-example';
import { ADMIN_DATABASE_URL, databaseUrl } from '@acktrail/testing';
import { migrateStore, Partitions } from '@acktrail/exporter/testing/store';
import { fmt } from './lib.js';

export const PIPELINE_DB = 'acktrail_bench_pipeline';
export const PIPELINE_ORDERS = 100_000;
/**
 * The lookups read events up to 5 x PIPELINE_ORDERS (three sets of orders, two sets apart), five
 * steps each, and a store is named by its millions of steps.
 */
const MIN_STEPS = 5 * 5 * PIPELINE_ORDERS;
export const SIZES = (process.env.BENCH_JOURNEY_STEPS ?? '10000000,50000000')
  .split(',')
  .map(Number);
for (const steps of SIZES)
  if (!Number.isSafeInteger(steps) || steps < MIN_STEPS || steps % 1_000_000 !== 0)
    throw new Error(
      `BENCH_JOURNEY_STEPS: ${String(steps)} is not a size the bench can load and read back: whole millions, at least ${MIN_STEPS.toLocaleString('en')}`,
    );
export const storeDb = (steps: number) =>
  steps === 10_000_000 ? 'acktrail_bench_journeys' : `acktrail_bench_journeys_${steps / 1e6}m`;
export const STAGES = ['outbox.insert', 'outbox.publish', 'deliver', 'provider.call', 'settle'];
export const BODY_SPANS = 500;
export const ROUND_STEPS = 100_000;
export const SENDERS = 4;
export const LOOKUPS = 1000;
export const TOKEN = 'bench-token-0123456789abcdef';

export const log = (line: string) => process.stderr.write(`${line}\n`);

export async function ensureDb(name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: ADMIN_DATABASE_URL });
  await admin.connect();
  if (!(await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount)
    await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  return databaseUrl(name);
}

/** A database of this name made anew (dropped first when it exists). */
export async function freshDb(name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: ADMIN_DATABASE_URL });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  return databaseUrl(name);
}

/** Loads `events` x 5 steps over six days (inside the default 14-day retention), two writers. */
export async function loadStore(url: string, events: number): Promise<void> {
  const m0 = performance.now();
  const applied = await migrateStore(url);
  // A store loaded before a migration gets it here, on its rows (005 fills journey_events).
  if (applied.length)
    log(
      `journeys bench: ${applied.join(', ')} applied to ${new URL(url).pathname} in ${fmt((performance.now() - m0) / 1000, 1)} s`,
    );
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    const want = events * STAGES.length;
    const have = Number(
      (await db.query<{ n: string }>('SELECT count(*) AS n FROM journey_steps')).rows[0]!.n,
    );
    if (have >= want) return;
    log(`journeys bench: loading ${fmt(want)} steps (minutes; kept in ${new URL(url).pathname})`);
    await db.query('TRUNCATE journey_steps, journey_events');
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    const now = Date.now();
    const spanMs = Math.min(250, (6 * 86_400_000) / events);
    const days = [];
    for (let t = now - events * spanMs - 86_400_000; t <= now + 86_400_000; t += 86_400_000)
      days.push(t * 1000);
    await new Partitions(pool).ensure(days);
    const chunk = 200_000;
    const t0 = performance.now();
    let next = 1;
    let done = 0;
    // Two connections on two cores, each taking the next chunk.
    const writer = async () => {
      const c = await pool.connect();
      try {
        await c.query('SET synchronous_commit = off');
        while (next <= events) {
          const from = next;
          next += chunk;
          await c.query(
            `INSERT INTO journey_steps (event_id, time, duration_us, stage, service, trace_id, span_id,
                parent_span_id, name, status, aggregate_type, aggregate_id, anomaly, attrs)
             SELECT md5(e::text)::uuid::text,
                    to_timestamp(($4::float8 - ($3 - e) * $6::float8 + s * 5) / 1000),
                    2000, ($5::text[])[s], 'bench', md5('trace' || e), lpad(to_hex(e * 8 + s), 16, '0'),
                    CASE WHEN s > 1 THEN lpad(to_hex(e * 8 + s - 1), 16, '0') END,
                    ($5::text[])[s], 'unset', 'order', e::text, NULL,
                    jsonb_build_object('acktrail.queue', 'orders.confirmations', 'acktrail.delivery.attempt', 1)
               FROM generate_series($1::int, $2::int) e, generate_series(1, 5) s`,
            [from, Math.min(events, from + chunk - 1), events, now, STAGES, spanMs],
          );
          done += Math.min(chunk, events - from + 1);
          log(`  ${fmt(done * 5)} steps, ${fmt((performance.now() - t0) / 1000)} s`);
        }
      } finally {
        c.release();
      }
    };
    await Promise.all([writer(), writer()]);
    await pool.end();
    // What the store writes beside the steps: each event's days (migration 005's statement).
    await db.query(
      `INSERT INTO journey_events (event_id, first_day, last_day)
       SELECT event_id, min((time AT TIME ZONE 'UTC')::date), max((time AT TIME ZONE 'UTC')::date)
         FROM journey_steps GROUP BY event_id`,
    );
    log(`  journey_events: ${fmt((performance.now() - t0) / 1000)} s`);
    await db.query('VACUUM ANALYZE journey_steps, journey_events');
    log(`  vacuum analyze: ${fmt((performance.now() - t0) / 1000)} s`);
  } finally {
    await db.end();
  }
}

export async function loadPipeline(url: string): Promise<void> {
  await migrate(url);
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    const n = Number(
      (await db.query<{ n: string }>('SELECT count(*) AS n FROM orders')).rows[0]!.n,
    );
    if (n >= PIPELINE_ORDERS) return;
    await db.query('TRUNCATE notification_attempts, order_confirmations, outbox_events, orders');
    await db.query(
      `INSERT INTO orders (id, total, customer_email, notification_status)
       SELECT g, 10, 'bench@example.com', 'sent' FROM generate_series(1, $1) g`,
      [PIPELINE_ORDERS],
    );
    await db.query(
      `INSERT INTO outbox_events (id, event_type, aggregate_id, schema_version, payload, published_at)
       SELECT md5(g::text)::uuid, 'order.created', g, 1, '{}', now() FROM generate_series(1, $1) g`,
      [PIPELINE_ORDERS],
    );
    await db.query(
      `INSERT INTO order_confirmations (event_id, order_id)
       SELECT md5(g::text)::uuid, g FROM generate_series(1, $1) g`,
      [PIPELINE_ORDERS],
    );
    await db.query(
      `INSERT INTO notification_attempts (event_id, attempt, provider, outcome, status_code, duration)
       SELECT md5(g::text)::uuid, 1, 'mailer', 'success', 202, interval '40 ms' FROM generate_series(1, $1) g`,
      [PIPELINE_ORDERS],
    );
    await db.query('VACUUM ANALYZE');
  } finally {
    await db.end();
  }
}

/** What the store takes on disk: every partition with its indexes and TOAST, and its rows. */
export async function storeSize(url: string): Promise<{ bytes: number; steps: number }> {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    const r = await db.query<{ bytes: string; steps: string }>(
      `SELECT (SELECT sum(pg_total_relation_size(inhrelid)) FROM pg_inherits
                WHERE inhparent = 'journey_steps'::regclass) AS bytes,
              (SELECT count(*) FROM journey_steps) AS steps`,
    );
    return { bytes: Number(r.rows[0]!.bytes), steps: Number(r.rows[0]!.steps) };
  } finally {
    await db.end();
  }
}

/** md5(n::text)::uuid, as the loaders write them. */
export function md5Uuid(n: number): string {
  const h = createHash('md5').update(String(n)).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
