// "Not traced" is not "not found": an event whose spans never reached acktrail (its trace sampled
// out, its service not instrumented) but whose outbox row is in the pipeline's database answers
// 200 with what the row says and that no trace was recorded; the dashboard says the same in words.
// An id nothing knows is still a 404. Real PostgreSQL, the exporter reading it as a read-only role.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { Browser } from 'playwright-core';
import type { TestDatabase } from '@acktrail/testing';
import { createTestDatabase } from '@acktrail/orders-example/testing';
import { TestExporter, createReadOnlyRole, ordersConfig } from '@acktrail/exporter/testing';
import {
  launchChromium,
  signedInContext,
  startDashboard,
  type DashboardServer,
} from '../dashboard/test/server.js';

const TOKEN = 'not-traced-token-0123456789';
const SECRET = 'not-traced-dashboard-secret';

interface Journey {
  verdict: string;
  traced: boolean;
  knownFrom: string[];
}

let db: TestDatabase;
let role: Awaited<ReturnType<typeof createReadOnlyRole>>;
let exporter: TestExporter;
let dashboard: DashboardServer | undefined;
let browser: Browser | undefined;
const published = randomUUID();
const waiting = randomUUID();

before(async () => {
  db = await createTestDatabase('acktrail_not_traced');
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    const order = await client.query<{ id: string }>(
      `INSERT INTO orders (total, customer_email) VALUES (10, 'someone@example.com') RETURNING id`,
    );
    const insert = `INSERT INTO outbox_events (id, event_type, aggregate_id, schema_version, payload, published_at, last_publish_error)
       VALUES ($1, 'order.created', $2, 1, '{}', $3, $4)`;
    await client.query(insert, [published, order.rows[0]!.id, new Date(), null]);
    await client.query(insert, [waiting, order.rows[0]!.id, null, 'unroutable: NO_ROUTE']);
  } finally {
    await client.end();
  }
  role = await createReadOnlyRole(db.name);
  exporter = await TestExporter.withStore(
    { DATABASE_URL: role.url, ACKTRAIL_API_TOKEN: TOKEN },
    ordersConfig({}),
  );
});
after(async () => {
  await browser?.close();
  await dashboard?.close();
  await exporter.close();
  await db.drop();
  await role.drop();
});

const get = (id: string) =>
  fetch(`${exporter.url}/api/events/${id}`, { headers: { authorization: `Bearer ${TOKEN}` } });

test('an event known only from its outbox row: 200, "no trace recorded", what the row says', async () => {
  const res = await get(published);
  assert.equal(res.status, 200);
  const j = (await res.json()) as Journey;
  assert.equal(j.traced, false);
  assert.deepEqual(j.knownFrom, ['outbox']);
  assert.match(j.verdict, /^no trace recorded for this message: its trace was sampled out/);
  assert.match(j.verdict, /its outbox row says published at /);

  const w = (await (await get(waiting)).json()) as Journey;
  assert.match(w.verdict, /is not published \(its last error says “unroutable: NO_ROUTE”\)/);
});

test('an id nothing knows is still a 404', async () => {
  assert.equal((await get(randomUUID())).status, 404);
});

test("the dashboard's event page says it was not traced", async () => {
  dashboard = await startDashboard({
    ACKTRAIL_API_URL: exporter.url,
    ACKTRAIL_API_TOKEN: TOKEN,
    DASHBOARD_SECRET: SECRET,
  });
  browser = await launchChromium();
  const context = await signedInContext(browser, dashboard.url, SECRET);
  const page = await context.newPage();
  await page.goto(`${dashboard.url}/events/${published}`);
  const banner = await page.getByTestId('not-traced').innerText();
  assert.match(banner, /Not traced: no span of this message reached acktrail/);
  assert.match(banner, /the outbox row/);
  await context.close();
});
