// The journey store at two sizes, 10M and 50M steps by default (BENCH_JOURNEY_STEPS), side by side
// in one run, so that the ratio says how cost grows with size:
//   ingest   OTLP/HTTP protobuf bodies (made by the real SDK exporter) -> POST /v1/traces of an
//            exporter process -> committed rows, 4 concurrent senders; steps/s
//   copy     the same rows (other SDK bodies of the same kind, decoded and normalised by the
//            receiver's code) by a raw `COPY journey_steps FROM` (psql \copy)
//            into the same table at the same size; rows/s
//   lookup   GET /api/events/{id} (steps + the pipeline's rows, assembled) against
//   select   a bare indexed select of the same event's 5 steps; ms per call, p50 / p99
// Each store (N steps: N/5 events x 5 stages over six days of daily partitions) is loaded once and
// kept (acktrail_bench_journeys for 10M, acktrail_bench_journeys_<N>m for the others); one
// exporter process serves each. The pipeline database holds 100k orders with their outbox rows,
// confirmations and attempts for the looked-up events.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { migrate } from '@acktrail/orders-example';
import {
  ADMIN_DATABASE_URL,
  REPO_ROOT,
  RoleProcess,
  databaseUrl,
} from '@acktrail/orders-example/testing';
import { SpanKind } from '@opentelemetry/api';
import { exportSpans, makeSpans } from '../exporter/src/testing/otlp.js';
import { ordersConfig } from '../exporter/src/testing/exporter.js';
import { migrateStore } from '../exporter/src/journeys/store/migrate.js';
import { Partitions } from '../exporter/src/journeys/store/partitions.js';
import { normalise } from '../exporter/src/receiver/normalize.js';
import { decodeProtobuf } from '../exporter/src/receiver/decode.js';
import { fmt, interleaved, median, quantile } from './lib.js';

const PIPELINE_DB = 'acktrail_bench_pipeline';
const SIZES = (process.env.BENCH_JOURNEY_STEPS ?? '10000000,50000000').split(',').map(Number);
const storeDb = (steps: number) =>
  steps === 10_000_000 ? 'acktrail_bench_journeys' : `acktrail_bench_journeys_${steps / 1e6}m`;
const STAGES = ['outbox.insert', 'outbox.publish', 'deliver', 'provider.call', 'settle'];
const PIPELINE_ORDERS = 100_000;
const BODY_SPANS = 500;
const ROUND_STEPS = 100_000;
const SENDERS = 4;
const LOOKUPS = 1000;
const TOKEN = 'bench-token-0123456789abcdef';

const log = (line: string) => process.stderr.write(`${line}\n`);

async function ensureDb(name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: ADMIN_DATABASE_URL });
  await admin.connect();
  if (!(await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount)
    await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  return databaseUrl(name);
}

/** Loads `events` x 5 steps over six days (inside the default 14-day retention), two writers. */
async function loadStore(url: string, events: number): Promise<void> {
  await migrateStore(url);
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    const want = events * STAGES.length;
    const have = Number(
      (await db.query<{ n: string }>('SELECT count(*) AS n FROM journey_steps')).rows[0]!.n,
    );
    if (have >= want) return;
    log(`journeys bench: loading ${fmt(want)} steps (minutes; kept in ${new URL(url).pathname})`);
    await db.query('TRUNCATE journey_steps');
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
    await db.query('VACUUM ANALYZE journey_steps');
    log(`  vacuum analyze: ${fmt((performance.now() - t0) / 1000)} s`);
  } finally {
    await db.end();
  }
}

async function loadPipeline(url: string): Promise<void> {
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

/** Captures the bodies the real SDK's OTLP/HTTP protobuf exporter sends. */
async function sdkBodies(count: number, tag: string): Promise<Buffer[]> {
  const bodies: Buffer[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      bodies.push(Buffer.concat(chunks));
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as { port: number }).port;
  for (let b = 0; b < count; b++) {
    const spans = makeSpans(
      Array.from({ length: BODY_SPANS }, (_, i) => ({
        name: 'orders.confirmations process',
        kind: SpanKind.CONSUMER,
        attributes: {
          'acktrail.event_id': `${tag}-${b}-${i}`,
          'acktrail.stage': 'deliver',
          'acktrail.aggregate_type': 'order',
          'acktrail.aggregate_id': String(b * BODY_SPANS + i),
          'acktrail.queue': 'orders.confirmations',
          'acktrail.delivery.redelivered': false,
          'acktrail.delivery.attempt': 1,
          'messaging.system': 'rabbitmq',
          'messaging.operation.type': 'process',
          'messaging.destination.name': 'orders.events',
          'messaging.rabbitmq.destination.routing_key': 'order.created',
          'messaging.rabbitmq.message.delivery_tag': i + 1,
          'net.peer.name': '127.0.0.1',
        },
      })),
      'orders-worker',
    );
    const result = await exportSpans(`http://127.0.0.1:${port}`, spans, 'protobuf');
    if (result.code !== 0) throw new Error('capture failed');
  }
  server.close();
  return bodies;
}

/**
 * The same rows as a round of ingest, as CSV for COPY: other bodies made the same way by the SDK
 * (so ids are just as random and nothing conflicts), decoded and normalised by the receiver's own
 * code, each step written as the INSERT would write it.
 */
function copyCsv(bodies: Buffer[]): string {
  const csv = (v: string | number | null) =>
    v === null ? '' : typeof v === 'number' ? String(v) : `"${v.replace(/"/g, '""')}"`;
  const now = Date.now() * 1000;
  const window = { fromUs: now - 86_400_000_000, toUs: now + 86_400_000_000 };
  const lines: string[] = [];
  for (const body of bodies) {
    for (const span of decodeProtobuf(body)) {
      const n = normalise(span, window);
      if (n.kind !== 'steps') throw new Error('bench span not a step');
      for (const s of n.steps)
        lines.push(
          [
            s.eventId,
            new Date(s.timeUs / 1000).toISOString(),
            s.durationUs,
            s.stage,
            s.service,
            s.traceId,
            s.spanId,
            s.parentSpanId,
            s.name,
            s.status,
            s.statusMessage,
            s.aggregateType,
            s.aggregateId,
            s.anomaly,
            JSON.stringify(s.attrs),
          ]
            .map(csv)
            .join(','),
        );
    }
  }
  return lines.join('\n') + '\n';
}

async function ingestRound(url: string, bodies: Buffer[]): Promise<number> {
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
      await res.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: SENDERS }, sender));
  return (bodies.length * BODY_SPANS) / ((performance.now() - started) / 1000);
}

async function copyRound(storeUrl: string, csvPath: string, rows: number): Promise<number> {
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

async function lookups(exporterUrl: string, storeUrl: string, ids: string[]) {
  const api: number[] = [];
  const bare: number[] = [];
  const db = new pg.Client({ connectionString: storeUrl });
  await db.connect();
  for (const id of ids) {
    let t = performance.now();
    const res = await fetch(`${exporterUrl}/api/events/${id}`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    const j = (await res.json()) as { timeline?: unknown[] };
    api.push(performance.now() - t);
    if (res.status !== 200 || (j.timeline?.length ?? 0) < 9)
      throw new Error(`lookup of ${id}: ${res.status}, ${j.timeline?.length ?? 0} entries`);
    t = performance.now();
    const r = await db.query('SELECT * FROM journey_steps WHERE event_id = $1', [id]);
    bare.push(performance.now() - t);
    if (r.rowCount !== 5) throw new Error(`select of ${id}: ${r.rowCount} rows`);
  }
  await db.end();
  return { api, bare };
}

interface Store {
  steps: number;
  url: string;
  exporter: RoleProcess;
  api: string;
  csvs: string[];
}

async function startExporter(storeUrl: string, pipelineUrl: string, configPath: string) {
  const exporter = new RoleProcess(
    'exporter',
    {
      ACKTRAIL_DATABASE_URL: storeUrl,
      DATABASE_URL: pipelineUrl,
      ACKTRAIL_API_TOKEN: TOKEN,
      ACKTRAIL_PORT: '0',
      ACKTRAIL_CONFIG: configPath,
    },
    [],
    join(REPO_ROOT, 'exporter/src/main.ts'),
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
      stores.push({ steps, url, csvs, ...(await startExporter(url, pipelineUrl, configPath)) });
    }
    log(`journeys bench: making SDK bodies of ${BODY_SPANS} spans`);
    const bodies = new Map<number, Buffer[]>();
    for (const s of stores) {
      const b = await sdkBodies(rounds * perRound + 10, `b${s.steps}${Date.now().toString(36)}`);
      await ingestRound(s.api, b.splice(0, 10));
      bodies.set(s.steps, b);
    }
    const cases: Record<string, () => Promise<number>> = {};
    for (const s of stores) {
      let ingested = 0;
      let copied = 0;
      cases[`ingest ${s.steps}`] = () =>
        ingestRound(s.api, bodies.get(s.steps)!.slice(ingested * perRound, ++ingested * perRound));
      cases[`copy ${s.steps}`] = () => copyRound(s.url, s.csvs[copied++]!, ROUND_STEPS);
    }
    const rates = await interleaved(rounds, cases);

    const ids = Array.from({ length: LOOKUPS }, (_, i) =>
      md5Uuid(1 + ((i * 7919) % PIPELINE_ORDERS)),
    );
    const looked = new Map<number, Awaited<ReturnType<typeof lookups>>>();
    for (const s of stores) await lookups(s.api, s.url, ids.slice(0, 50)); // warm the caches
    // Interleaved in slices of 100, so that drift on the machine hits both sizes alike.
    for (let from = 0; from < LOOKUPS; from += 100)
      for (const s of stores) {
        const l = await lookups(s.api, s.url, ids.slice(from, from + 100));
        const all = looked.get(s.steps) ?? { api: [], bare: [] };
        looked.set(s.steps, { api: [...all.api, ...l.api], bare: [...all.bare, ...l.bare] });
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
      console.log(`\n## journey store, ${fmt(s.steps)} steps stored before the run`);
      console.log(
        `ingest  OTLP protobuf -> committed rows  median ${fmt(ingest)} steps/s  (rounds: ${rates[`ingest ${s.steps}`]!.map((x) => fmt(x)).join(', ')})`,
      );
      console.log(
        `copy    psql \\copy of the same rows       median ${fmt(copy)} rows/s   (rounds: ${rates[`copy ${s.steps}`]!.map((x) => fmt(x)).join(', ')})`,
      );
      console.log(
        `ratio   ingest / copy = ${fmt(ingest / copy, 2)}  (target >= 0.5; ingest target >= 20,000 steps/s)`,
      );
      console.log(
        `lookup  GET /api/events/{id}  p50 ${fmt(quantile(l.api, 0.5), 2)} ms  p99 ${fmt(quantile(l.api, 0.99), 2)} ms  (${l.api.length} calls; target p99 <= 10 ms)`,
      );
      console.log(
        `select  5 steps by event_id   p50 ${fmt(quantile(l.bare, 0.5), 2)} ms  p99 ${fmt(quantile(l.bare, 0.99), 2)} ms`,
      );
      console.log(
        `ratio   lookup p99 / select p99 = ${fmt(quantile(l.api, 0.99) / quantile(l.bare, 0.99), 1)}`,
      );
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
    await Promise.all(stores.map((s) => s.exporter.stop()));
  }
}

/** What the store takes on disk: every partition with its indexes and TOAST, and its rows. */
async function storeSize(url: string): Promise<{ bytes: number; steps: number }> {
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
function md5Uuid(n: number): string {
  const h = createHash('md5').update(String(n)).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
