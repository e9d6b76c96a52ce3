// Support without an id, and the pages during the incident they are opened for (issue 68), in
// headless Chromium against the real reference pipeline, exporter, Prometheus and dashboard:
// every dead-lettered event of one queue found from the overview (the count the store's); a
// customer's e-mail leading to their order and its verdict (and never into a URL); a row stuck in
// the outbox that no span names, with the relay down, shown by the overview and the journeys list
// instead of crashing them; then each page in the incidents the demo can inject (the provider
// failing, the consumers gone, a poison message, the store unreachable) shows the state, never
// "This page could not be shown".
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import amqp from 'amqplib';
import postgres from 'pg';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ADMIN_DATABASE_URL, cleanUp, REPO_ROOT, waitFor, TestPrometheus } from '@acktrail/testing';
import { TestPipeline, type Role } from '@acktrail/orders-example/testing';
import { createReadOnlyRole, ordersConfig, TestExporter } from '@acktrail/exporter/testing';
import { launchChromium, signedInContext, startDashboard, type DashboardServer } from './server.js';

const TOKEN = 'journeys-test-token-0123456789';
const SECRET = 'journeys-dashboard-secret-0123';
const QUEUE = 'orders.confirmations';
const EMAIL = 'grace.lookup@example.org';
const ARTIFACTS = join(REPO_ROOT, '.artifacts', 'dashboard');
let p: TestPipeline;
let role: Awaited<ReturnType<typeof createReadOnlyRole>>;
let exporter: Awaited<ReturnType<typeof TestExporter.withStore>>;
let prometheus: TestPrometheus;
let dashboard: DashboardServer;
let browser: Browser;
let signedIn: BrowserContext;
const dead: string[] = [];
let sent: { order_id: number; event_id: string };
/** An outbox row no span names, older than journeys.stuckAfterSeconds, with the relay down. */
const stuck = { eventId: randomUUID(), orderId: 0 };

const api = async (path: string) => {
  const res = await fetch(`${exporter.url}${path}`, {
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  return { status: res.status, body: (await res.json().catch(() => null)) as unknown };
};

async function journey(eventId: string, check: (kinds: string[]) => boolean) {
  await waitFor(
    `journey of ${eventId}`,
    async () => {
      const r = await api(`/api/events/${eventId}`);
      return r.status === 200 && check((r.body as { kinds: string[] }).kinds);
    },
    { timeoutMs: 60_000 },
  );
}

before(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  p = await TestPipeline.create({ PROVIDER_REJECT_ADDRESSES: '*@invalid.example' });
  role = await createReadOnlyRole(p.db.name);
  exporter = await TestExporter.withStore(
    { DATABASE_URL: role.url, ACKTRAIL_API_TOKEN: TOKEN },
    ordersConfig({ rabbitmq: { vhosts: [p.vhost.name], statsIntervalSeconds: 1 } }),
  );
  prometheus = await TestPrometheus.start({ acktrail: exporter.url });
  const otel = { OTEL_EXPORTER_OTLP_ENDPOINT: exporter.url, OTEL_BSP_SCHEDULE_DELAY: '100' };
  for (const r of ['provider', 'api', 'worker', 'relay'] as Role[]) await p.start(r, otel);
  for (let i = 0; i < 3; i++)
    dead.push(
      (await p.createOrder({ customer_email: `dead${i}@invalid.example`, total: 3 })).event_id,
    );
  sent = await p.createOrder({ customer_email: EMAIL, total: 7 });
  for (const id of dead) await journey(id, (k) => k.includes('dead_lettered'));
  await journey(sent.event_id, (k) => k.includes('delivered_once'));
  dashboard = await startDashboard({
    ACKTRAIL_API_URL: exporter.url,
    ACKTRAIL_API_TOKEN: TOKEN,
    PROMETHEUS_URL: prometheus.url,
    DASHBOARD_SECRET: SECRET,
  });
  browser = await launchChromium();
  signedIn = await signedInContext(browser, dashboard.url, SECRET, {
    viewport: { width: 1366, height: 900 },
  });
});

after(() =>
  cleanUp(
    () => signedIn.close(),
    () => browser.close(),
    () => dashboard.close(),
    () => p.close(),
    () => prometheus.close(),
    () => exporter.close(),
    () => role.drop(),
  ),
);

async function page(): Promise<Page> {
  const pg = await signedIn.newPage();
  pg.setDefaultTimeout(60_000);
  return pg;
}

/** The page rendered, and not the whole-page error. */
async function holds(pg: Page, what: string) {
  assert.equal(
    await pg.getByText('This page could not be shown').count(),
    0,
    `${what}: the page failed as a whole`,
  );
}

/** What the store says: the journeys with a dead-lettered step of the queue in the last hour. */
async function storeCount(): Promise<number> {
  const db = new postgres.Client({ connectionString: exporter.storeUrl });
  await db.connect();
  try {
    const r = await db.query<{ n: number }>(
      `SELECT count(DISTINCT event_id)::int AS n FROM journey_steps
        WHERE anomaly = 'dead_lettered' AND time >= now() - interval '1 hour'
          AND (attrs->>'acktrail.queue' = $1 OR attrs->>'celery.queue' = $1)`,
      [QUEUE],
    );
    return r.rows[0]!.n;
  } finally {
    await db.end();
  }
}

test("from the overview's dead-letter tile to every dead-lettered event of one queue, counted as the store counts them", async () => {
  const pg = await page();
  await pg.goto(dashboard.url);
  await pg
    .getByTestId('problems')
    .locator('li[data-problem="dead-letters"] a.journeys-link')
    .click();
  await pg.waitForURL(/\/events\?verdict=dead_lettered/);
  await pg.locator('form[aria-label="Journey filters"] input[name="queue"]').fill(QUEUE);
  await pg.getByRole('button', { name: 'Find' }).click();
  await pg.waitForURL(/queue=orders\.confirmations/);
  const rows = pg.getByTestId('journeys').locator('tbody tr');
  await rows.first().waitFor();
  const shown = await rows.evaluateAll((trs) =>
    trs.map((tr) => ({
      cls: tr.getAttribute('data-class'),
      id: tr.querySelector('code')?.textContent ?? '',
    })),
  );
  assert.deepEqual(
    shown.map((r) => r.id).sort(),
    [...dead].sort(),
    'every dead-lettered event of the queue, and only those',
  );
  assert.ok(shown.every((r) => r.cls === 'dead_lettered'));
  const n = await storeCount();
  assert.equal(n, dead.length);
  assert.match(
    await pg.getByTestId('count').innerText(),
    new RegExp(`^${n} dead-lettered journeys`),
  );
  // Each row says the verdict in words, as its page does.
  assert.match(await rows.first().innerText(), /dead-lettered/i);
  await pg.screenshot({ path: join(ARTIFACTS, 'journeys-dead-lettered.png'), fullPage: true });
  // The page's export is the same journeys, as CSV.
  const csv = await signedIn.request.get(
    `${dashboard.url}/events/export?verdict=dead_lettered&queue=${QUEUE}&since=1h&format=csv`,
  );
  assert.equal(csv.status(), 200);
  const lines = (await csv.text()).trim().split('\r\n');
  assert.equal(lines.length, dead.length + 1, 'a header and one line per journey');
  await pg.close();
});

test("a customer's e-mail in the search box leads to their order and its verdict, and is in no URL", async () => {
  const pg = await page();
  const urls: string[] = [];
  pg.on('request', (r) => urls.push(r.url()));
  await pg.goto(dashboard.url);
  await pg.getByRole('search').getByRole('searchbox').fill(EMAIL);
  await pg.getByRole('button', { name: 'Look up' }).click();
  await pg.waitForURL(`**/orders/${sent.order_id}`);
  const row = pg.getByTestId('journeys').locator('tbody tr');
  await row.first().waitFor();
  assert.equal(await row.count(), 1);
  assert.match(await row.innerText(), /processed/);
  assert.match(await row.innerText(), /confirmation sent once/);
  assert.match(await row.getByTestId('kinds').innerText(), /delivered once/);
  assert.deepEqual(
    urls.filter((u) => u.includes('grace')),
    [],
    'the e-mail went into no request URL',
  );
  assert.ok(!(await pg.evaluate(() => location.href)).includes('grace'));
  await pg.close();
});

test('an e-mail no order has says so without echoing it', async () => {
  const pg = await page();
  await pg.goto(dashboard.url);
  await pg.getByRole('search').getByRole('searchbox').fill('nobody.here@example.org');
  await pg.getByRole('button', { name: 'Look up' }).click();
  await pg.getByTestId('lookup-none').waitFor();
  assert.ok(!pg.url().includes('nobody'));
  assert.equal(await pg.getByText('nobody.here').count(), 0);
  await pg.close();
});

test('relay down with a row waiting that no span names: the overview and the lists show it stuck', async () => {
  await p.stop('relay');
  const db = new postgres.Client({ connectionString: p.db.url });
  await db.connect();
  try {
    const order = await db.query<{ id: number }>(
      `INSERT INTO orders (total, customer_email, notification_status, created_at)
       VALUES (9, 'stuck@example.org', 'pending', now() - interval '10 minutes') RETURNING id`,
    );
    stuck.orderId = order.rows[0]!.id;
    await db.query(
      `INSERT INTO outbox_events (id, event_type, aggregate_id, schema_version, payload, created_at)
       VALUES ($1, 'order.created', $2, 1, '{}', now() - interval '10 minutes')`,
      [stuck.eventId, stuck.orderId],
    );
  } finally {
    await db.end();
  }
  const pg = await page();
  // The overview's lists are read once per 10 s for every viewer: a reload or two (bounded).
  await waitFor(
    'the overview to list the stuck row',
    async () => {
      await pg.goto(dashboard.url);
      await holds(pg, 'the overview');
      return (await pg.getByRole('link', { name: stuck.eventId }).count()) > 0;
    },
    { timeoutMs: 30_000, intervalMs: 1000 },
  );
  await pg.goto(`${dashboard.url}/events?verdict=stuck&since=24h`);
  const row = pg.getByTestId('journeys').locator(`tr:has(code:text("${stuck.eventId}"))`);
  assert.equal(await row.getAttribute('data-class'), 'stuck');
  assert.match(await row.innerText(), new RegExp(String(stuck.orderId)));
  await pg.goto(`${dashboard.url}/events/${stuck.eventId}`);
  await pg.getByTestId('verdict').waitFor();
  assert.doesNotMatch(await pg.locator('main').innerText(), /in flight/i);
  // Its rows are instants: points on the waterfall, the legend says so.
  await pg.locator('circle[data-row="point"]').first().waitFor();
  assert.match(await pg.getByTestId('waterfall-legend').innerText(), /row in the pipeline/);
  await pg.screenshot({ path: join(ARTIFACTS, 'stuck-untraced.png'), fullPage: true });
  await pg.close();
});

/** Runs `work` as PostgreSQL's administrator. */
async function asAdmin(work: (admin: postgres.Client) => Promise<unknown>): Promise<void> {
  const admin = new postgres.Client({ connectionString: ADMIN_DATABASE_URL });
  await admin.connect();
  try {
    await work(admin);
  } finally {
    await admin.end();
  }
}

/** Every page support and SREs open, each rendered and not failed as a whole. */
const PAGES = ['/', '/events?since=1h', '/coverage', '/dead-letters'];

async function everyPageHolds(state: string, expect: (pg: Page, path: string) => Promise<void>) {
  const pg = await page();
  for (const path of [...PAGES, `/events/${dead[0]!}`, `/orders/${sent.order_id}`]) {
    await pg.goto(`${dashboard.url}${path}`);
    await pg.locator('main').waitFor();
    await holds(pg, `${path} with ${state}`);
    await expect(pg, path);
    if (path === '/')
      await pg.screenshot({
        path: join(ARTIFACTS, `incident-${state.replace(/\W+/g, '-')}.png`),
        fullPage: true,
      });
  }
  await pg.close();
}

test('the provider failing and a poison message on the work queue: every page holds', async () => {
  await p.start('relay', { OTEL_EXPORTER_OTLP_ENDPOINT: exporter.url });
  await p.providerSettings({ failureRate: 1 });
  const failing = await p.createOrder({ customer_email: 'fails@example.org', total: 4 });
  const conn = await amqp.connect(p.vhost.url);
  try {
    const ch = await conn.createConfirmChannel();
    ch.sendToQueue(QUEUE, Buffer.from('{not json'), { messageId: 'poison-1' });
    await ch.waitForConfirms();
  } finally {
    await conn.close();
  }
  await journey(failing.event_id, (k) => k.length > 0);
  await everyPageHolds('the provider failing', async (pg, path) => {
    if (path === '/') await pg.getByTestId('problems').waitFor();
  });
  await p.providerSettings({ failureRate: 0 });
});

test('the consumers gone: every page holds, the work queue listed with no consumer', async () => {
  await p.stop('worker');
  await p.createOrder({ customer_email: 'waits@example.org', total: 5 });
  // The broker's statistics and the exporter's refresh trail the stop by seconds (bounded).
  const pg = await page();
  await waitFor(
    'the queues table to show no consumer',
    async () => {
      await pg.goto(dashboard.url);
      const cells = pg.getByTestId('queue-health').locator(`tr[data-queue="${QUEUE}"] td`);
      return (await cells.count()) >= 5 && (await cells.nth(4).innerText()).trim() === '0';
    },
    { timeoutMs: 60_000, intervalMs: 1000 },
  );
  await pg.close();
  await everyPageHolds('no consumer', async (page, path) => {
    if (path === '/') await page.getByTestId('queue-health').waitFor();
  });
});

test('the journey store unreachable: every page says so in its panel, none fails as a whole', async () => {
  const store = new URL(exporter.storeUrl).pathname.slice(1);
  await asAdmin(async (admin) => {
    await admin.query(`ALTER DATABASE "${store}" ALLOW_CONNECTIONS false`);
    await admin.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
      [store],
    );
  });
  try {
    await waitFor('the journey API to say the store is away', async () => {
      const r = await api('/api/journeys?since=1h');
      return r.status === 503;
    });
    await everyPageHolds('the store unreachable', async (pg, path) => {
      if (path.startsWith('/events?'))
        await pg
          .getByText(/unavailable|unreachable|does not answer/i)
          .first()
          .waitFor();
    });
  } finally {
    await asAdmin((admin) => admin.query(`ALTER DATABASE "${store}" ALLOW_CONNECTIONS true`));
  }
});
