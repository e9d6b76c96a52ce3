// The exporter's per-scrape SQL on large tables: 10M orders, 10M outbox rows (1,000 unpublished),
// 10M confirmations. Times each collector's collect() (its queries through the read-only pool,
// as a scrape runs them), with the partial index on unpublished outbox rows and, interleaved by
// round, without it. Prints medians, p99s and the ratio. The database is kept between runs when
// BENCH_KEEP_DB=1 (loading takes minutes); otherwise it is dropped at the end.
import pg from 'pg';
import { Registry } from 'prom-client';
import { migrate } from '@acktrail/orders-example';
import { ADMIN_DATABASE_URL, databaseUrl } from '@acktrail/testing';
import { loadConfig } from '@acktrail/exporter';
import {
  createReadOnlyPool,
  OutboxCollector,
  ConfirmationsCollector,
  AggregatesCollector,
} from '@acktrail/exporter/testing/collectors';
import type { Collector } from '@acktrail/exporter/testing/collectors';
import { fmt, quantile } from './lib.js';
import { target } from './figures.js';

const DB = 'acktrail_bench_10m';
const ROWS = Number(process.env.BENCH_SQL_ROWS ?? 10_000_000);
const UNPUBLISHED = 1000;

const log = (line: string) => process.stderr.write(`${line}\n`);

/** The 10M-row pipeline database, loaded once (minutes) and kept while it is there. */
export async function ensureLoaded(): Promise<void> {
  const admin = new pg.Client({ connectionString: ADMIN_DATABASE_URL });
  await admin.connect();
  const exists = (await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [DB])).rowCount;
  if (!exists) await admin.query(`CREATE DATABASE ${DB}`);
  await admin.end();
  const url = databaseUrl(DB);
  await migrate(url);
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    const n = await db.query<{ n: string }>('SELECT count(*) AS n FROM orders');
    if (Number(n.rows[0]!.n) === ROWS) return;
    log(`sql bench: loading ${fmt(ROWS)} rows per table (minutes; kept with BENCH_KEEP_DB=1)`);
    await db.query('TRUNCATE notification_attempts, order_confirmations, outbox_events, orders');
    await db.query('SET synchronous_commit = off');
    await db.query(`SET maintenance_work_mem = '512MB'`);
    // The foreign keys only slow the load of generated, consistent rows.
    await db.query(
      'ALTER TABLE outbox_events DROP CONSTRAINT IF EXISTS outbox_events_aggregate_id_fkey',
    );
    await db.query(
      'ALTER TABLE order_confirmations DROP CONSTRAINT IF EXISTS order_confirmations_order_id_fkey',
    );
    const t0 = performance.now();
    await db.query(
      `INSERT INTO orders (id, total, customer_email, notification_status, created_at)
       SELECT g, 10, 'bench@example.com', CASE WHEN g > $1 - $2 THEN 'pending' ELSE 'sent' END,
              now() - make_interval(secs => ($1 - g) * 0.25)
         FROM generate_series(1, $1) g`,
      [ROWS, UNPUBLISHED],
    );
    log(`  orders: ${fmt((performance.now() - t0) / 1000, 0)} s`);
    await db.query(
      `INSERT INTO outbox_events (id, event_type, aggregate_id, schema_version, payload, created_at, published_at)
       SELECT md5(g::text)::uuid, 'order.created', g, 1, jsonb_build_object('order_id', g),
              now() - make_interval(secs => ($1 - g) * 0.25),
              CASE WHEN g > $1 - $2 THEN NULL ELSE now() - make_interval(secs => ($1 - g) * 0.25 - 0.1) END
         FROM generate_series(1, $1) g`,
      [ROWS, UNPUBLISHED],
    );
    log(`  outbox_events: ${fmt((performance.now() - t0) / 1000, 0)} s`);
    await db.query(
      `INSERT INTO order_confirmations (event_id, order_id, created_at)
       SELECT md5(g::text)::uuid, g, now() - make_interval(secs => ($1 - g) * 0.25 - 1.5)
         FROM generate_series(1, $1) g`,
      [ROWS],
    );
    log(`  order_confirmations: ${fmt((performance.now() - t0) / 1000, 0)} s`);
    await db.query(
      'VACUUM ANALYZE orders, outbox_events, order_confirmations, notification_attempts',
    );
    log(`  vacuum analyze: ${fmt((performance.now() - t0) / 1000, 0)} s`);
  } finally {
    await db.end();
  }
}

async function timeRuns(c: Collector, runs: number): Promise<number[]> {
  const ms: number[] = [];
  const signal = new AbortController().signal;
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    const apply = await c.collect(signal);
    ms.push(performance.now() - t);
    apply();
  }
  return ms;
}

export async function runSqlBench(rounds: number): Promise<void> {
  await ensureLoaded();
  const url = databaseUrl(DB);
  // The reference pipeline's tables (the exporter has no defaults for them).
  const config = loadConfig({
    DATABASE_URL: url,
    ACKTRAIL_CONFIG: 'examples/orders/acktrail.yaml',
  });
  const lateness = config.watermarkLatenessSeconds * 1000;
  const pool = createReadOnlyPool(url, 60_000);
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  const registry = new Registry();
  const outbox = new OutboxCollector(pool, config.outbox!, lateness, registry);
  const confirmations = new ConfirmationsCollector(pool, config.confirmations!, lateness, registry);
  const aggregates = new AggregatesCollector(
    pool,
    config.aggregateCounts!,
    config.confirmations!.aggregates,
    registry,
  );
  const samples = {
    outbox: [] as number[],
    confirmations: [] as number[],
    outboxNoIndex: [] as number[],
    aggregates: [] as number[],
  };
  try {
    await timeRuns(outbox, 3); // first runs initialise the watermarks and warm the cache
    await timeRuns(confirmations, 3);
    for (let r = 1; r <= rounds; r++) {
      // A few new confirmations each round, so that the incremental query has rows to read.
      await db.query(
        `INSERT INTO order_confirmations (event_id, order_id)
         SELECT gen_random_uuid(), o.id FROM orders o
          WHERE o.notification_status = 'pending' AND NOT EXISTS (SELECT 1 FROM order_confirmations c WHERE c.order_id = o.id)
          LIMIT 5`,
      );
      samples.outbox.push(...(await timeRuns(outbox, 100)));
      samples.confirmations.push(...(await timeRuns(confirmations, 100)));
      samples.aggregates.push(...(await timeRuns(aggregates, 1)));
      await db.query('DROP INDEX outbox_events_unpublished_idx');
      samples.outboxNoIndex.push(...(await timeRuns(outbox, 5)));
      await db.query(
        'CREATE INDEX outbox_events_unpublished_idx ON outbox_events (created_at) WHERE published_at IS NULL',
      );
      log(
        `  round ${r}/${rounds}: outbox ${fmt(quantile(samples.outbox, 0.5), 2)} ms, without the partial index ${fmt(quantile(samples.outboxNoIndex, 0.5), 1)} ms`,
      );
    }
    const line = (name: string, xs: number[]) =>
      `${name.padEnd(34)} median ${fmt(quantile(xs, 0.5), 2)} ms  p99 ${fmt(quantile(xs, 0.99), 2)} ms  (${xs.length} runs)`;
    console.log(
      `\n## exporter SQL per scrape, ${fmt(ROWS)} rows per table, ${UNPUBLISHED} unpublished`,
    );
    for (const [name, xs] of [
      ['outbox', samples.outbox],
      ['confirmations', samples.confirmations],
    ] as const)
      target(
        `${name} collector's SQL per scrape, ${fmt(ROWS / 1e6)}M rows, median`,
        quantile(xs, 0.5),
        { atMost: 2 },
        'ms',
      );
    console.log(line('outbox collector', samples.outbox));
    console.log(line('confirmations collector', samples.confirmations));
    console.log(line('outbox, no partial index', samples.outboxNoIndex));
    console.log(line('aggregates (background, full)', samples.aggregates));
    console.log(
      `ratio outbox without / with the partial index: ${fmt(quantile(samples.outboxNoIndex, 0.5) / quantile(samples.outbox, 0.5), 0)}x`,
    );
  } finally {
    await db.end();
    await pool.end();
    if (process.env.BENCH_KEEP_DB !== '1') {
      const admin = new pg.Client({ connectionString: ADMIN_DATABASE_URL });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`);
      await admin.end();
    }
  }
}
