// The dashboard (its standalone production server) against a real exporter and journey store:
//   page200  GET /events/{id} of an event with a 200-step journey (66 deliveries, retries and
//            provider calls), server response time to the last byte
//   page5    the same for a 5-step journey (insert, publish, deliver, provider call, settle)
//   api200   GET /api/events/{id} of the 200-step event from the exporter: what the page adds
//   api5     the same for the 5-step event
// run interleaved, ms per request, p50 / p95; then the JavaScript each route loads on a first
// visit in headless Chromium (raw and gzip-compressed, as `next build` used to print it).
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { SpanKind } from '@opentelemetry/api';
import { chromium } from 'playwright-core';
import { migrate } from '@acktrail/orders-example';
import { REPO_ROOT } from '@acktrail/testing';
import { createTestDatabase } from '@acktrail/orders-example/testing';
import { ordersConfig, TestExporter } from '@acktrail/exporter/testing';
import { exportSpans, makeSpans, type SpanSpec } from '@acktrail/exporter/testing/otlp';
import { startDashboard } from '../dashboard/test/server.js';
import { fmt, interleaved, median, quantile } from './lib.js';
import { target } from './figures.js';

const TOKEN = 'bench-token-0123456789abcdef';
const EVENTS_PER_SIZE = 10;
const REQUESTS_PER_ROUND = 50;
const log = (line: string) => process.stderr.write(`${line}\n`);

/** A journey of `deliveries` delivery rounds (deliver, provider call, settle) after the outbox. */
function journeySpans(eventId: string, orderId: number, deliveries: number): SpanSpec[] {
  const base = { 'acktrail.event_id': eventId, 'acktrail.aggregate_type': 'order' };
  const t0 = Date.now() - 60_000;
  const specs: SpanSpec[] = [
    {
      name: 'outbox insert',
      startMs: t0,
      attributes: {
        ...base,
        'acktrail.aggregate_id': String(orderId),
        'acktrail.stage': 'outbox.insert',
      },
    },
    {
      name: 'orders.events publish',
      kind: SpanKind.PRODUCER,
      startMs: t0 + 5,
      durationMs: 3,
      attributes: {
        ...base,
        'acktrail.stage': 'outbox.publish',
        'acktrail.publish.outcome': 'confirmed',
      },
    },
  ];
  for (let d = 0; d < deliveries; d++) {
    const at = t0 + 10 + d * 200;
    const delivery = {
      ...base,
      'acktrail.delivery.attempt': d + 1,
      'acktrail.queue': 'orders.confirmations',
    };
    specs.push(
      {
        name: 'orders.confirmations process',
        kind: SpanKind.CONSUMER,
        startMs: at,
        durationMs: 40,
        attributes: {
          ...delivery,
          'acktrail.stage': 'deliver',
          'acktrail.delivery.redelivered': d > 0,
        },
      },
      {
        name: 'POST /v1/messages',
        kind: SpanKind.CLIENT,
        startMs: at + 2,
        durationMs: 30,
        attributes: {
          ...delivery,
          'acktrail.stage': 'provider.call',
          'acktrail.provider.name': 'mailer',
          'acktrail.provider.outcome': d === deliveries - 1 ? 'success' : 'transient_error',
          'http.response.status_code': d === deliveries - 1 ? 200 : 503,
        },
      },
      {
        name: 'settle',
        startMs: at + 38,
        attributes: {
          ...delivery,
          'acktrail.stage': 'settle',
          'acktrail.settle.outcome': d === deliveries - 1 ? 'ack' : 'nack_requeue',
        },
      },
    );
  }
  return specs;
}

async function timed(url: string, headers: Record<string, string> = {}): Promise<number> {
  const t = performance.now();
  const res = await fetch(url, { headers });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
  return performance.now() - t;
}

export async function runDashboardBench(rounds: number): Promise<void> {
  if (!existsSync(join(REPO_ROOT, 'dashboard', '.next', 'BUILD_ID')))
    throw new Error('dashboard bench: build the dashboard first (npm run build -w dashboard)');
  log('dashboard bench: journey store, exporter and the standalone dashboard');
  const pipeline = await createTestDatabase();
  await migrate(pipeline.url);
  const exporter = await TestExporter.withStore(
    { DATABASE_URL: pipeline.url, ACKTRAIL_API_TOKEN: TOKEN },
    ordersConfig(),
  );
  const ids = { 200: [] as string[], 5: [] as string[] };
  for (let i = 0; i < EVENTS_PER_SIZE; i++) {
    for (const [size, deliveries] of [
      [200, 66],
      [5, 1],
    ] as const) {
      const id = randomUUID();
      const spans = makeSpans(journeySpans(id, 1000 + i, deliveries), 'orders-worker');
      const r = await exportSpans(exporter.url, spans, 'protobuf');
      if (r.code !== 0) throw new Error(`export failed: ${r.error?.message}`);
      ids[size].push(id);
    }
  }
  for (const [size, list] of Object.entries(ids)) {
    const res = await fetch(`${exporter.url}/api/events/${list[0]}`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    const steps = ((await res.json()) as { timeline: unknown[] }).timeline.length;
    log(`  ${size}-step event: ${steps} timeline entries`);
    if (steps < Number(size)) throw new Error(`the ${size}-step journey has ${steps} entries`);
  }

  const dashboard = await startDashboard({
    ACKTRAIL_API_URL: exporter.url,
    ACKTRAIL_API_TOKEN: TOKEN,
    PROMETHEUS_URL: 'http://127.0.0.1:1',
    // The pages' own cost is measured, not the sign-in's.
    DASHBOARD_AUTH: 'none',
  });
  const url = dashboard.url;
  try {
    let n = 0;
    const pick = (list: string[]) => list[n++ % list.length]!;
    const many = async (one: () => Promise<number>) => {
      const times: number[] = [];
      for (let i = 0; i < REQUESTS_PER_ROUND; i++) times.push(await one());
      return times;
    };
    // Warm-up: Next compiles nothing at run time, but the first requests fill its caches and the JIT.
    for (let i = 0; i < 20; i++) {
      await timed(`${url}/events/${pick(ids[200])}`);
      await timed(`${url}/events/${pick(ids[5])}`);
    }
    const all = {
      page200: [] as number[],
      page5: [] as number[],
      api200: [] as number[],
      api5: [] as number[],
    };
    const round =
      (name: keyof typeof all, path: () => string, headers = {}) =>
      async () => {
        const times = await many(() => timed(path(), headers));
        all[name].push(...times);
        return median(times);
      };
    const auth = { authorization: `Bearer ${TOKEN}` };
    await interleaved(rounds, {
      page200: round('page200', () => `${url}/events/${pick(ids[200])}`),
      page5: round('page5', () => `${url}/events/${pick(ids[5])}`),
      api200: round('api200', () => `${exporter.url}/api/events/${pick(ids[200])}`, auth),
      api5: round('api5', () => `${exporter.url}/api/events/${pick(ids[5])}`, auth),
    });
    const line = (name: keyof typeof all) =>
      `${name}: p50 ${fmt(median(all[name]), 1)} ms, p95 ${fmt(quantile(all[name], 0.95), 1)} ms`;
    target('dashboard event page of 200 steps, p50', median(all.page200), { atMost: 300 }, 'ms');
    console.log('dashboard: event page server response time (ms to the last byte)');
    for (const name of Object.keys(all) as (keyof typeof all)[]) console.log(`  ${line(name)}`);
    console.log(
      `  page200 / page5 median ratio: ${fmt(median(all.page200) / median(all.page5), 2)} (target: page200 p50 <= 300 ms)`,
    );
    await firstLoadJs(url, {
      '/': { path: '/' },
      '/events/[id]': { path: `/events/${ids[200][0]!}`, drawn: '.recharts-bar-rectangle' },
      '/orders/[id]': { path: '/orders/1000' },
      '/signin': { path: '/signin' },
    });
  } finally {
    await dashboard.close();
    await exporter.close();
    await pipeline.drop();
  }
}

/**
 * The scripts of a first visit of each route: those the HTML names (what `next build` used to
 * print as First Load JS) and all of them until the network is idle (with chunks loaded later by
 * the page); raw bytes and gzip -9 bytes.
 */
async function firstLoadJs(
  url: string,
  routes: Record<string, { path: string; drawn?: string }>,
): Promise<void> {
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  console.log('dashboard: first-load JavaScript per route, gzip (target: <= 250 kB)');
  const bytes = (xs: Buffer[], gzip: boolean) =>
    xs.reduce((a, b) => a + (gzip ? gzipSync(b, { level: 9 }) : b).length, 0) / 1024;
  const kB = (xs: Buffer[], gzip: boolean) => fmt(bytes(xs, gzip), 1);
  try {
    for (const [route, { path, drawn }] of Object.entries(routes)) {
      const context = await browser.newContext();
      const page = await context.newPage();
      const scripts: Promise<[string, Buffer]>[] = [];
      page.on('response', (res) => {
        if (res.request().resourceType() === 'script')
          scripts.push(res.body().then((b) => [new URL(res.url()).pathname, b]));
      });
      const doc = await page.goto(`${url}${path}`, { waitUntil: 'networkidle' });
      // A chart's chunk loads after hydration: wait until the chart is drawn.
      if (drawn) await page.locator(drawn).first().waitFor({ timeout: 20_000 });
      const html = (await doc?.text()) ?? '';
      const all = await Promise.all(scripts);
      const initial = all.filter(([p]) => html.includes(p)).map(([, b]) => b);
      const every = all.map(([, b]) => b);
      target(
        `dashboard ${route} first-load JavaScript, gzip`,
        bytes(initial, true),
        {
          atMost: 250,
        },
        'kB',
      );
      console.log(
        `  ${route.padEnd(14)} in the HTML: ${initial.length} scripts, ${kB(initial, true)} kB gzip (${kB(initial, false)} kB raw); ` +
          `all until idle: ${every.length} scripts, ${kB(every, true)} kB gzip`,
      );
      await context.close();
    }
  } finally {
    await browser.close();
  }
}
