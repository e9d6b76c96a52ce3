// A team's own service, traced by the stock OpenTelemetry SDK and amqplib instrumentation alone
// (test/fixtures/stock-client.ts), sending to acktrail; a pipeline database with none of the
// reference pipeline's tables behind a configuration that still names them. Publish, deliver, ack;
// nack into a dead-letter exchange; nack on a queue without one: each reads as it should, through
// the API and through the dashboard in Chromium, and the missing tables are notes, not errors.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Browser, BrowserContext } from 'playwright-core';
import {
  RABBITMQ4,
  REPO_ROOT,
  RoleProcess,
  type TestDatabase,
  type TestVhost,
  createTestVhost,
} from '@acktrail/testing';
import { createTestDatabase } from '@acktrail/orders-example/testing';
import { TestExporter, createReadOnlyRole, ordersConfig } from '@acktrail/exporter/testing';
import { launchChromium, startDashboard, type DashboardServer } from '../dashboard/test/server.js';

const TOKEN = 'stock-test-token-0123456789';
const SECRET = 'stock-dashboard-secret';

interface Journey {
  verdict: string;
  kinds: string[];
  notes: string[];
  deadLetter: { reason: string } | null;
  timeline: { stage: string }[];
}

let bare: TestDatabase;
let vhost: TestVhost;
let role: Awaited<ReturnType<typeof createReadOnlyRole>>;
let exporter: Awaited<ReturnType<typeof TestExporter.withStore>>;
let dashboard: DashboardServer | undefined;
let browser: Browser | undefined;
let signedIn: BrowserContext | undefined;
type Ids = { acked: string; deadLettered: string; discarded: string };
let ids: Ids;

before(async () => {
  bare = await createTestDatabase('acktrail_bare', false);
  vhost = await createTestVhost();
  role = await createReadOnlyRole(bare.name);
  exporter = await TestExporter.withStore(
    { DATABASE_URL: role.url, ACKTRAIL_API_TOKEN: TOKEN, ACKTRAIL_OTLP_GRPC_PORT: '0' },
    ordersConfig({
      rabbitmq: { vhosts: [vhost.name], statsIntervalSeconds: 1 },
      // The orders tables (missing here, for the notes), not the orders worker's result words:
      // a stock consumer records none, so its ack is the work done.
      journeys: {
        words: {
          aggregate: 'shipment',
          done: 'shipped',
          results: { done: [], alreadyDone: [], stale: [] },
        },
      },
    }),
  );
  ids = await runStockClient({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${exporter.url}/v1/traces` });
});

after(async () => {
  await signedIn?.close();
  await browser?.close();
  await dashboard?.close();
  await exporter.close();
  await vhost.drop();
  await bare.drop();
  await role.drop();
});

/** Runs the stock client with these OTLP settings; resolves with the ids it printed. */
async function runStockClient(env: Record<string, string>, amqpUrl = vhost.url): Promise<Ids> {
  const client = new RoleProcess(
    'stock-client',
    env,
    [amqpUrl],
    join(REPO_ROOT, 'test/fixtures/stock-client.ts'),
  );
  assert.equal(await client.exited, 0, client.stderr.join('\n'));
  // Its last line is the ids, as JSON (parsed by RoleProcess).
  const last = client.lines.at(-1) ?? {};
  return {
    acked: String(last.acked),
    deadLettered: String(last.deadLettered),
    discarded: String(last.discarded),
  };
}

/**
 * Waits for the journey of `eventId` to have `kind`. A reject's fate needs the queue's facts: the
 * spans that name a new queue bring the topology's refresh forward (broker/refresh.ts), but beside
 * the cluster test's six nodes starting on two cores the broker answered late for over 30 s (CI,
 * 2026-12-04), hence the longer bound.
 */
const journey = (eventId: string, kind: string) =>
  exporter.journey<Journey>(
    TOKEN,
    eventId,
    `${eventId} ${kind}`,
    (j) => j.kinds.includes(kind),
    120_000,
  );

const NOTES = [
  'outbox: table outbox_events not found',
  'attempts: table notification_attempts not found',
];

test('publish, deliver, ack: delivered once, in the pipeline’s words; missing tables are notes', async () => {
  const j = await journey(ids.acked, 'delivered_once');
  assert.deepEqual(j.kinds, ['delivered_once']);
  assert.match(j.verdict, /^shipped once at \d\d:\d\d:\d\d$/);
  assert.deepEqual(
    j.timeline.map((e) => e.stage),
    ['publish', 'deliver', 'settle'],
  );
  for (const n of NOTES) assert.ok(j.notes.includes(n), `${n} in ${JSON.stringify(j.notes)}`);
});

test('nack without requeue on a queue with a dead-letter exchange: dead-lettered', async () => {
  const j = await journey(ids.deadLettered, 'dead_lettered');
  assert.deepEqual(j.kinds, ['dead_lettered']);
  assert.equal(j.deadLetter?.reason, 'rejected');
  assert.equal(j.verdict, 'dead-lettered after 1 attempt: rejected');
});

test('nack without requeue on a queue without one: discarded', async () => {
  const j = await journey(ids.discarded, 'discarded');
  assert.deepEqual(j.kinds, ['discarded']);
  assert.equal(
    j.verdict,
    'discarded: rejected without requeue on stock.nodlx, which has no dead-letter exchange: the message is gone',
  );
});

test('coverage: the gaps of stock spans, each with its fix', async () => {
  const res = await fetch(`${exporter.url}/api/coverage`, {
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  const { rows } = (await res.json()) as {
    rows: {
      service: string;
      stage: string;
      spans: number;
      withEventId: number;
      gaps: { attribute: string; spans: number }[];
    }[];
  };
  const of = (stage: string) => rows.find((r) => r.service === 'stock-client' && r.stage === stage);
  assert.deepEqual(
    { spans: of('publish')?.spans, withEventId: of('publish')?.withEventId },
    { spans: 3, withEventId: 3 },
  );
  const deliver = of('deliver')!;
  assert.deepEqual(
    Object.fromEntries(deliver.gaps.map((g) => [g.attribute, g.spans])),
    { delivery_attempt: 3, aggregate_id: 3 },
    'the settle is read from the stock span, the queue from its name',
  );
  assert.equal((await fetch(`${exporter.url}/api/coverage`)).status, 401);
});

test('the dashboard shows the same verdicts, and the notes', async () => {
  const server = (dashboard = await startDashboard({
    ACKTRAIL_API_URL: exporter.url,
    ACKTRAIL_API_TOKEN: TOKEN,
    DASHBOARD_SECRET: SECRET,
  }));
  browser = await launchChromium();
  const context = (signedIn = await browser.newContext());
  const res = await context.request.post(`${server.url}/signin/submit`, {
    form: { secret: SECRET, next: '/' },
  });
  assert.equal(res.status(), 200);
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  const expected = {
    [ids.acked]: /^shipped once at \d\d:\d\d:\d\d$/,
    [ids.deadLettered]: /^dead-lettered after 1 attempt: rejected$/,
    [ids.discarded]: /^discarded: rejected without requeue on stock\.nodlx/,
  };
  for (const [id, verdict] of Object.entries(expected)) {
    await page.goto(`${server.url}/events/${id}`);
    assert.match(await page.getByTestId('verdict').innerText(), verdict);
  }
  await page.goto(`${server.url}/events/${ids.acked}`);
  const notes = await page.getByTestId('notes').innerText();
  for (const n of NOTES) assert.ok(notes.includes(n), notes);
  // The search box speaks of the configured aggregate.
  await page.getByLabel('Event, shipment, message or trace id').first().waitFor();
  // Coverage: the stock client's deliveries lack the redelivered flag; the fix is on the page.
  await page.getByRole('link', { name: 'Coverage' }).click();
  await page.waitForURL('**/coverage');
  const row = page.getByTestId('coverage').locator('tr', { hasText: 'stock-client' }).filter({
    hasText: 'deliver',
  });
  assert.match(
    await row.innerText(),
    /delivery attempt\s+on 3 of 3: record the broker's redelivered flag/,
  );
  await page.close();
});

/**
 * The three journeys of another run of the stock client (`other`, read with `read`) read as the
 * first run's did: the same kinds, stages, dead letter and verdict (but its clock time).
 */
async function sameJourneys(
  other: Ids,
  read: (eventId: string, kind: string) => Promise<Journey>,
): Promise<void> {
  const shape = (j: Journey) => ({
    kinds: j.kinds,
    stages: j.timeline.map((e) => e.stage),
    deadLetter: j.deadLetter,
    verdict: j.verdict.replace(/\d\d:\d\d:\d\d/, 'T'),
  });
  for (const [which, kind] of [
    ['acked', 'delivered_once'],
    ['deadLettered', 'dead_lettered'],
    ['discarded', 'discarded'],
  ] as const)
    assert.deepEqual(
      shape(await read(other[which], kind)),
      shape(await journey(ids[which], kind)),
      which,
    );
}

test('the same client over OTLP/gRPC (the SDK default of most languages): the same journeys', async () => {
  const grpc = await runStockClient({
    OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc',
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `http://127.0.0.1:${exporter.ports.otlpGrpc}`,
  });
  await sameJourneys(grpc, (id, kind) => journey(id, kind));
});

// RabbitMQ 4.0 as the official image ships it (scripts/rabbitmq4.sh: no statistics in the
// management API): the same client, the same journeys as on this machine's RabbitMQ 3.10.

test('on RabbitMQ 4.0 as shipped: the same three journeys', async () => {
  const v4 = await createTestVhost('acktrail_test', RABBITMQ4);
  const e4 = await TestExporter.withStore(
    {
      DATABASE_URL: role.url,
      ACKTRAIL_API_TOKEN: TOKEN,
      RABBITMQ_MANAGEMENT_URL: RABBITMQ4.management,
    },
    ordersConfig({
      rabbitmq: { vhosts: [v4.name], statsIntervalSeconds: 1, prometheusUrl: RABBITMQ4.prometheus },
      // The orders tables (missing here, for the notes), not the orders worker's result words:
      // a stock consumer records none, so its ack is the work done.
      journeys: {
        words: {
          aggregate: 'shipment',
          done: 'shipped',
          results: { done: [], alreadyDone: [], stale: [] },
        },
      },
    }),
  );
  try {
    const on4 = await runStockClient(
      { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${e4.url}/v1/traces` },
      v4.url,
    );
    await sameJourneys(on4, (id, kind) =>
      e4.journey<Journey>(TOKEN, id, `${id} ${kind} on 4.0`, (j) => j.kinds.includes(kind)),
    );
  } finally {
    await e4.close();
    await v4.drop();
  }
});
