// The overview page with many queues, in headless Chromium against the standalone dashboard, a
// real exporter per size and one real Prometheus that scrapes them as three jobs (each dashboard
// reads its own with PROMETHEUS_SELECTOR, as in a Prometheus shared by clusters):
//   q10     10 work queues
//   q500    500 work queues
//   q1000   1,000 work queues
// every queue holding 1 to 7 messages and no consumer (so each is in STOP, on the problems strip),
// at the demo's pace (statistics every 60 s, scrapes every 10 s).
// Loaded interleaved, one after the other, `rounds` times each. Two figures per load: `load`, the
// browser's navigation start to its load event; `complete`, navigation start until no section is
// still streaming (no `aria-busy`) and the ready chart has drawn its legend. Printed: p50 / p95
// per size, the ratios to 10 queues, and the 2 s target of issue 23 against the 1,000-queue p95.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import amqp from 'amqplib';
import type { Page } from 'playwright-core';
import { REPO_ROOT, createTestVhost, waitFor, TestPrometheus } from '@acktrail/testing';
import { TestExporter } from '@acktrail/exporter/testing';
import {
  launchChromium,
  signedInContext,
  startDashboard,
  type DashboardServer,
} from '../dashboard/test/server.js';
import { fmt, interleaved, median, quantile } from './lib.js';
import { target } from './figures.js';

const TOKEN = 'bench-overview-token-0123456789';
const SECRET = 'bench-overview-dashboard-secret';
const SIZES = [10, 500, 1000] as const;
type Size = (typeof SIZES)[number];
const TARGET_MS = 2000;
const log = (line: string) => process.stderr.write(`${line}\n`);

async function queues(url: string, n: number): Promise<void> {
  const conn = await amqp.connect(url);
  const ch = await conn.createConfirmChannel();
  for (let i = 0; i < n; i++) {
    const q = `ov-${String(i).padStart(4, '0')}`;
    await ch.assertQueue(q, { durable: true });
    for (let m = 0; m <= i % 7; m++) ch.sendToQueue(q, Buffer.from('{}'));
  }
  await ch.waitForConfirms();
  await conn.close();
}

async function promValue(prometheus: TestPrometheus, expr: string): Promise<number> {
  const r = await prometheus.query(expr);
  return Number(r[0]?.value[1] ?? 0);
}

/** One load of the overview: [load, complete] in ms from navigation start. */
async function load(page: Page, url: string, timeout = 60_000): Promise<[number, number]> {
  await page.goto(url, { waitUntil: 'load' });
  // Functions, not strings (the dashboard's CSP forbids eval); they run in the page, whose DOM
  // types this package's TypeScript does not have.
  await page
    .waitForFunction(
      () => {
        const doc = (globalThis as unknown as InPage).document;
        return (
          doc.querySelector('[aria-busy="true"]') === null &&
          doc.querySelector('[data-testid="chart-ready"] .chart-legend li') !== null
        );
      },
      undefined,
      { timeout, polling: 10 },
    )
    .catch(async (err: unknown) => {
      const busy = await page
        .locator('[aria-busy="true"]')
        .evaluateAll((els) =>
          els.map((e) => (e as unknown as { outerHTML: string }).outerHTML.slice(0, 200)),
        );
      const legend = await page.locator('[data-testid="chart-ready"]').count();
      throw new Error(`${url}: still busy ${JSON.stringify(busy)}; ready chart ${legend}`, {
        cause: err,
      });
    });
  return page.evaluate((): [number, number] => {
    const { performance: perf } = globalThis as unknown as InPage;
    const nav = perf.getEntriesByType('navigation')[0]!;
    return [nav.loadEventEnd - nav.startTime, perf.now() - nav.startTime];
  });
}

/** What the page functions above use of the browser's globals. */
interface InPage {
  document: {
    querySelector(selector: string): unknown;
    documentElement: { scrollHeight: number };
  };
  performance: {
    now(): number;
    getEntriesByType(type: 'navigation'): { startTime: number; loadEventEnd: number }[];
  };
}

export async function runOverviewBench(rounds: number): Promise<void> {
  if (!existsSync(join(REPO_ROOT, 'dashboard', '.next', 'BUILD_ID')))
    throw new Error('overview bench: build the dashboard first (npm run build -w dashboard)');
  log(`overview bench: ${SIZES.join(', ')} queues, one exporter each, one Prometheus`);
  const vhosts = await Promise.all(SIZES.map(() => createTestVhost('acktrail_bench')));
  const exporters: TestExporter[] = [];
  const dashboards: DashboardServer[] = [];
  let prometheus: TestPrometheus | null = null;
  const browser = await launchChromium();
  try {
    for (const [i, size] of SIZES.entries()) {
      await queues(vhosts[i]!.url, size);
      exporters.push(
        await TestExporter.start(
          { ACKTRAIL_API_TOKEN: TOKEN },
          {
            // The demo's pace: statistics at most every 60 s (the default), scrapes every 10 s.
            rabbitmq: { vhosts: [vhosts[i]!.name] },
            journeys: { enabled: false },
          },
        ),
      );
    }
    prometheus = await TestPrometheus.start(
      Object.fromEntries(SIZES.map((size, i) => [`q${size}`, exporters[i]!.url])),
      { scrapeInterval: '10s' },
    );
    for (const size of SIZES) {
      await waitFor(
        `Prometheus seeing job q${size}'s ${size} queues in STOP`,
        async () =>
          (await promValue(
            prometheus!,
            `count(acktrail_queue_status{job="q${size}", status="stop"} == 1)`,
          )) === size,
        { timeoutMs: 300_000, intervalMs: 1000 },
      );
      log(`  q${size}: ${size} queues in STOP in Prometheus`);
    }
    for (const [i, size] of SIZES.entries())
      dashboards.push(
        await startDashboard({
          ACKTRAIL_API_URL: exporters[i]!.url,
          ACKTRAIL_API_TOKEN: TOKEN,
          PROMETHEUS_URL: prometheus.url,
          PROMETHEUS_SELECTOR: `job="q${size}"`,
          DASHBOARD_SECRET: SECRET,
        }),
      );
    const pages = await Promise.all(
      dashboards.map(async (d) => {
        const context = await signedInContext(browser, d.url, SECRET, {
          viewport: { width: 1280, height: 900 },
        });
        return context.newPage();
      }),
    );
    // One load each first: the server's first render of a route compiles nothing (standalone),
    // but the browser's caches and the dashboard's connection pools start cold.
    // The charts draw once Prometheus has two scrapes of the queues: reloaded until then.
    for (const [i, size] of SIZES.entries())
      await waitFor(
        `q${size}'s overview drawn`,
        () =>
          load(pages[i]!, `${dashboards[i]!.url}/?range=15m`, 15_000).then(
            () => true,
            () => false,
          ),
        { timeoutMs: 120_000, intervalMs: 1000 },
      );
    const loads = Object.fromEntries(SIZES.map((s) => [s, [] as number[]])) as Record<
      Size,
      number[]
    >;
    const complete = await interleaved(
      rounds,
      Object.fromEntries(
        SIZES.map((size, i) => [
          `q${size}`,
          async () => {
            const [l, c] = await load(pages[i]!, `${dashboards[i]!.url}/?range=15m`);
            loads[size].push(l);
            return c;
          },
        ]),
      ) as Record<`q${Size}`, () => Promise<number>>,
      () => undefined,
    );
    const heights = await Promise.all(
      pages.map((p) =>
        p.evaluate(() => (globalThis as unknown as InPage).document.documentElement.scrollHeight),
      ),
    );
    const line = (name: string, xs: number[]) =>
      `${name} p50 ${fmt(median(xs))} ms, p95 ${fmt(quantile(xs, 0.95))} ms`;
    console.log(`\nOverview page, ${rounds} loads per size, interleaved (Chromium, 1280x900)`);
    for (const [i, size] of SIZES.entries())
      console.log(
        `  ${String(size).padStart(5)} queues: ${line('load', loads[size])}; ${line('complete', complete[`q${size}`])}; page ${fmt(heights[i]!)} px`,
      );
    const base = median(complete.q10);
    for (const size of [500, 1000] as const)
      console.log(
        `  complete p50, ${size} / 10 queues: ${fmt(median(complete[`q${size}`]) / base, 2)}`,
      );
    const p95 = quantile(complete.q1000, 0.95);
    target(
      'overview page with 1,000 queues complete, p95',
      p95 / 1000,
      { atMost: TARGET_MS / 1000 },
      's',
    );
    console.log(
      `  1,000 queues, complete p95 / the 2 s target: ${fmt(p95 / TARGET_MS, 2)} (${p95 <= TARGET_MS ? 'met' : 'NOT met'})`,
    );
  } finally {
    await browser.close();
    for (const d of dashboards) await d.close();
    await prometheus?.close();
    for (const e of exporters) await e.close();
    for (const v of vhosts) await v.drop();
  }
}
