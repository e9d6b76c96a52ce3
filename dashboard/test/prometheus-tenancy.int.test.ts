// The dashboard against a Prometheus shared by tenants and jobs, in Chromium: a real Prometheus
// scrapes one exporter as two jobs (two clusters' worth of the same series), behind a proxy of
// ours that refuses any request without X-Scope-OrgID (as Mimir, Cortex and Thanos do). With
// PROMETHEUS_HEADERS the overview draws; with PROMETHEUS_SELECTOR every query it sends selects
// one job; without the header, the page says Prometheus refused it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import { join } from 'node:path';
import amqp from 'amqplib';
import type { Browser } from 'playwright-core';
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

const TOKEN = 'tenancy-test-token-0123456789';
const SECRET = 'tenancy-dashboard-secret';
const ARTIFACTS = join(REPO_ROOT, '.artifacts', 'dashboard');
const TENANT = 'team-a';

let vhost: TestVhost;
let exporter: TestExporter;
let prometheus: TestPrometheus;
let proxy: Server;
let proxyUrl: string;
/** The `query` of every request the proxy let through, and the requests it refused. */
const seen = { queries: [] as string[], refused: 0 };
const dashboards: DashboardServer[] = [];
let browser: Browser;

before(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  vhost = await createTestVhost();
  // A work queue with a message and no consumer: AcktrailConsumersDown's expression returns it.
  const conn = await amqp.connect(vhost.url);
  const ch = await conn.createConfirmChannel();
  await ch.assertQueue('tenancy.work', { durable: true });
  ch.sendToQueue('tenancy.work', Buffer.from('{}'));
  await ch.waitForConfirms();
  await conn.close();
  exporter = await TestExporter.start(
    { ACKTRAIL_API_TOKEN: TOKEN },
    { rabbitmq: { vhosts: [vhost.name], statsIntervalSeconds: 1 }, journeys: { enabled: false } },
  );
  // The same exporter as two jobs: every acktrail series twice, as from two clusters.
  prometheus = await TestPrometheus.start({ acktrail: exporter.url, other: exporter.url });
  proxy = createServer((req, res) => {
    if (req.headers['x-scope-orgid'] !== TENANT) {
      seen.refused++;
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status: 'error', error: 'no org id' }));
      return;
    }
    const url = new URL(req.url ?? '/', prometheus.url);
    const q = url.searchParams.get('query');
    if (q !== null) seen.queries.push(q);
    void fetch(url).then(async (answer) => {
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(Buffer.from(await answer.arrayBuffer()));
    });
  }).listen(0, '127.0.0.1');
  await once(proxy, 'listening');
  proxyUrl = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;
  await waitFor(
    'both jobs scraped',
    async () => {
      const res = await fetch(
        `${prometheus.url}/api/v1/query?query=${encodeURIComponent('count by (job) (acktrail_queue_messages_ready)')}`,
      );
      const body = (await res.json()) as { data: { result: unknown[] } };
      return body.data.result.length === 2;
    },
    { timeoutMs: 60_000 },
  );
  browser = await launchChromium();
});

after(() =>
  cleanUp(
    () => browser.close(),
    ...dashboards.map((d) => () => d.close()),
    () => proxy.close(),
    () => prometheus.close(),
    () => exporter.close(),
    () => vhost.drop(),
  ),
);

async function overview(env: Record<string, string>) {
  const d = await startDashboard({
    ACKTRAIL_API_URL: exporter.url,
    ACKTRAIL_API_TOKEN: TOKEN,
    PROMETHEUS_URL: proxyUrl,
    DASHBOARD_SECRET: SECRET,
    ...env,
  });
  dashboards.push(d);
  const context = await signedInContext(browser, d.url, SECRET);
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  return { page, url: d.url, context };
}

test('with the tenant header and a selector: the overview draws, every query selects one job', async () => {
  const { page, url, context } = await overview({
    PROMETHEUS_HEADERS: `X-Scope-OrgID=${TENANT}`,
    PROMETHEUS_SELECTOR: 'job="acktrail"',
  });
  const before = seen.queries.length;
  await page.goto(url);
  const consumers = page.getByTestId('problems').locator('li[data-problem="consumers"]');
  await waitFor(
    'the problems strip seeing the queue without consumers',
    async () => {
      await page.goto(url);
      return (await consumers.getAttribute('data-state')) === 'problem';
    },
    { timeoutMs: 60_000, intervalMs: 1000 },
  );
  assert.match(await consumers.innerText(), /yes: tenancy\.work/);
  assert.equal(await page.getByText('Prometheus is unreachable').count(), 0);
  const sent = seen.queries.slice(before);
  assert.ok(sent.length >= 5, `${sent.length} queries`);
  for (const q of sent) assert.match(q, /job="acktrail"/, q);
  assert.ok(!sent.some((q) => q.includes('job="other"')));
  await page.screenshot({ path: join(ARTIFACTS, 'tenancy.png'), fullPage: true });
  await context.close();
});

test('without the tenant header: Prometheus refuses, and the page says so', async () => {
  const refused = seen.refused;
  const { page, url, context } = await overview({});
  await page.goto(url);
  await page.getByText('Prometheus is unreachable').first().waitFor();
  assert.match(await page.getByRole('alert').first().innerText(), /no org id/);
  assert.ok(seen.refused > refused);
  await context.close();
});
