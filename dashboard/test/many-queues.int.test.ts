// The overview with 500 real work queues on the broker, each with a message and no consumer, in
// Chromium: per-queue charts draw the top 10 and "others", every legend stays inside its panel,
// the problems strip names five queues and links to the other 495, and the queues table pages
// (25 rows) and filters. A screenshot goes to .artifacts/dashboard/many-queues.png.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import amqp from 'amqplib';
import type { Browser, Page } from 'playwright-core';
import {
  REPO_ROOT,
  cleanUp,
  createTestVhost,
  waitFor,
  type TestVhost,
  TestPrometheus,
} from '@acktrail/testing';
import { TestExporter } from '@acktrail/exporter/testing';
import { launchChromium, signedInContext, startDashboard, type DashboardServer } from './server.js';

const TOKEN = 'many-queues-token-0123456789';
const SECRET = 'many-queues-dashboard-secret';
const ARTIFACTS = join(REPO_ROOT, '.artifacts', 'dashboard');
const QUEUES = 500;
const name = (i: number) => `mq-${String(i).padStart(4, '0')}`;

let vhost: TestVhost;
let exporter: TestExporter;
let prometheus: TestPrometheus;
let dashboard: DashboardServer;
let browser: Browser;
let page: Page;

async function promCount(expr: string): Promise<number> {
  const res = await fetch(`${prometheus.url}/api/v1/query?query=${encodeURIComponent(expr)}`);
  const body = (await res.json()) as { data: { result: { value: [number, string] }[] } };
  return Number(body.data.result[0]?.value[1] ?? 0);
}

before(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  vhost = await createTestVhost();
  const conn = await amqp.connect(vhost.url);
  const ch = await conn.createConfirmChannel();
  for (let i = 0; i < QUEUES; i++) {
    await ch.assertQueue(name(i), { durable: true });
    // Queue i holds i % 7 + 1 messages: the top of the charts is not a tie.
    for (let m = 0; m <= i % 7; m++) ch.sendToQueue(name(i), Buffer.from('{}'));
  }
  await ch.waitForConfirms();
  await conn.close();
  exporter = await TestExporter.start(
    { ACKTRAIL_API_TOKEN: TOKEN },
    { rabbitmq: { vhosts: [vhost.name], statsIntervalSeconds: 1 }, journeys: { enabled: false } },
  );
  prometheus = await TestPrometheus.start({ acktrail: exporter.url });
  await waitFor(
    `Prometheus seeing ${QUEUES} queues`,
    async () => (await promCount('count(acktrail_queue_messages_ready)')) === QUEUES,
    { timeoutMs: 120_000, intervalMs: 1000 },
  );
  await waitFor(
    `every queue in STOP`,
    async () => (await promCount('count(acktrail_queue_status{status="stop"} == 1)')) === QUEUES,
    { timeoutMs: 120_000, intervalMs: 1000 },
  );
  dashboard = await startDashboard({
    ACKTRAIL_API_URL: exporter.url,
    ACKTRAIL_API_TOKEN: TOKEN,
    PROMETHEUS_URL: prometheus.url,
    DASHBOARD_SECRET: SECRET,
  });
  browser = await launchChromium();
  const context = await signedInContext(browser, dashboard.url, SECRET, {
    viewport: { width: 1280, height: 900 },
  });
  page = await context.newPage();
  page.setDefaultTimeout(30_000);
});

after(() =>
  cleanUp(
    () => browser.close(),
    () => dashboard.close(),
    () => prometheus.close(),
    () => exporter.close(),
    () => vhost.drop(),
  ),
);

test('per-queue charts draw the top 10 and "others"; every legend stays inside its panel', async () => {
  const ready = page.getByTestId('chart-ready');
  // The chart draws once Prometheus has scraped the queues (reloaded until then).
  await waitFor(
    'the ready chart drawn',
    async () => {
      await page.goto(`${dashboard.url}/?range=15m`);
      return (await ready.locator('.chart-legend li').count()) > 0;
    },
    { timeoutMs: 90_000, intervalMs: 2000 },
  );
  const names = await ready.locator('.chart-legend li').allInnerTexts();
  assert.equal(names.length, 11);
  assert.match(names.at(-1)!, /^others \(490\)$/);
  // Queues holding 7 messages are the largest: the top 10 are among them.
  for (const n of names.slice(0, 10)) {
    const i = Number(/mq-(\d+)/.exec(n)?.[1]);
    assert.equal(i % 7, 6, n);
  }
  const panels = page.locator('figure.panel');
  const count = await panels.count();
  assert.ok(count >= 8, `${count} panels`);
  for (let i = 0; i < count; i++) {
    const panel = panels.nth(i);
    const legend = panel.locator('.chart-legend');
    if ((await legend.count()) === 0) continue;
    const [p, l] = [await panel.boundingBox(), await legend.boundingBox()];
    assert.ok(p && l);
    const what = await panel.locator('figcaption').innerText();
    assert.ok(l.y >= p.y && l.y + l.height <= p.y + p.height + 0.5, `${what}: legend inside`);
    assert.ok(l.x >= p.x - 0.5 && l.x + l.width <= p.x + p.width + 0.5, `${what}: legend inside`);
  }
  // Figures for the record (docs/benchmarks-history.md), never asserted: the page's height and how long
  // the browser took to load it, this machine being shared.
  const { height, loadMs } = await page.evaluate(() => {
    const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
    return {
      height: document.documentElement.scrollHeight,
      loadMs: nav.loadEventEnd - nav.startTime,
    };
  });
  console.log(
    `many-queues: ${QUEUES} queues, page height ${height} px, loaded in ${Math.round(loadMs)} ms`,
  );
  await page.screenshot({ path: join(ARTIFACTS, 'many-queues.png'), fullPage: true });
});

test('the problems strip names five queues and links to all 500, in the queues table', async () => {
  await page.goto(`${dashboard.url}/?range=15m`);
  const consumers = page.getByTestId('problems').locator('li[data-problem="consumers"]');
  await waitFor(
    'consumers down in the strip',
    async () => {
      await page.goto(`${dashboard.url}/?range=15m`);
      return (await consumers.getAttribute('data-state')) === 'problem';
    },
    { timeoutMs: 60_000, intervalMs: 1000 },
  );
  const text = await consumers.innerText();
  assert.match(text, /and 495 more/);
  assert.ok(text.length < 300, `the strip stays short: ${text.length} characters`);
  await consumers.getByRole('link', { name: 'all 500' }).click();
  await page.waitForURL(/qstatus=stop/);
  const table = page.getByTestId('queue-health');
  assert.equal(await table.locator('tbody tr').count(), 25);
  assert.equal(await page.getByTestId('queue-count').innerText(), '500 of 500 work queues');
  assert.match(await page.getByTestId('queue-pages').innerText(), /page 1 of 20/);
  await page.getByTestId('queue-pages').getByRole('link', { name: 'next' }).click();
  await page.waitForURL(/qpage=2/);
  assert.match(await page.getByTestId('queue-pages').innerText(), /page 2 of 20/);
  assert.equal(await table.locator('tbody tr').count(), 25);
});

test('the queues table filters by name and by status', async () => {
  await page.goto(`${dashboard.url}/?qname=mq-0042#queues`);
  const rows = page.getByTestId('queue-health').locator('tbody tr');
  assert.equal(await rows.count(), 1);
  assert.equal(await rows.first().getAttribute('data-queue'), 'mq-0042');
  await page.goto(`${dashboard.url}/?qstatus=ok#queues`);
  assert.equal(await page.getByTestId('queue-count').innerText(), '0 of 500 work queues');
  // The form keeps the range when it filters.
  await page.goto(`${dashboard.url}/?range=6h`);
  await page.getByLabel('Queue name').fill('mq-049');
  await page.getByRole('button', { name: 'Filter' }).click();
  await page.waitForURL(/qname=mq-049/);
  assert.match(page.url(), /range=6h/);
  assert.equal(await page.getByTestId('queue-health').locator('tbody tr').count(), 10);
});
