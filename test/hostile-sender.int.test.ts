// A holder of the ingest token forging what a span may claim, against the exporter as its own
// process with every listener of its own (main, /metrics, OTLP on the ingest thread): sampling
// thresholds that would make a counter 2^53 or Infinity count as one message each and are counted
// as refused; consumer spans linking 40 messages each store no more than the request's step bound,
// the rest refused as a partial success; and whatever a route throws or no route answers is JSON,
// with no stack and no path of the exporter's, on every listener.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { type RoleProcess, type TestDatabase } from '@acktrail/testing';
import { createTestDatabase } from '@acktrail/orders-example/testing';
import { Scrape, startExporterProcess } from '@acktrail/exporter/testing';

const TOKEN = 'hostile-sender-ingest-0123456789';
const API = 'hostile-sender-api-0123456789ab';
const OPERATOR = 'hostile-sender-operator-01234567';
const MAX_STEPS = 20_000;

let store: TestDatabase;
let db: pg.Pool;
let exporter: { proc: RoleProcess; url: string; ingestUrl: string; metricsUrl: string };

before(async () => {
  store = await createTestDatabase('acktrail_hostile_sender');
  db = new pg.Pool({ connectionString: store.url, max: 2 });
  exporter = await startExporterProcess(
    {
      ACKTRAIL_DATABASE_URL: store.url,
      ACKTRAIL_INGEST_TOKEN: TOKEN,
      ACKTRAIL_API_TOKEN: API,
      ACKTRAIL_OPERATOR_TOKEN: OPERATOR,
      ACKTRAIL_METRICS_PORT: '0',
      ACKTRAIL_INGEST_PORT: '0',
    },
    { rabbitmq: { enabled: false }, journeys: { maxStepsPerRequest: MAX_STEPS } },
  );
});
after(async () => {
  await exporter.proc.stop();
  await db.end();
  await store.drop();
});

const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');
let nextSpan = 1;

function span(attributes: Record<string, string>, over: Record<string, unknown> = {}) {
  const t = BigInt(Date.now()) * 1_000_000n;
  const n = nextSpan++;
  return {
    traceId: hex(n, 32),
    spanId: hex(n, 16),
    name: 'x',
    kind: 5,
    startTimeUnixNano: String(t),
    endTimeUnixNano: String(t + 1_000_000n),
    attributes: Object.entries(attributes).map(([key, value]) => ({
      key,
      value: { stringValue: value },
    })),
    ...over,
  };
}

async function post(spans: unknown[]) {
  const res = await fetch(`${exporter.ingestUrl}/v1/traces`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
    body: JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans }] }] }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const scrape = async () => new Scrape(await (await fetch(`${exporter.metricsUrl}/metrics`)).text());
const rejects = async () =>
  (await scrape()).value('acktrail_messages_rejected_total', { queue: 'jobs.work' }) ?? 0;

const reject = (eventId: string, traceState = '') =>
  span(
    {
      'acktrail.event_id': eventId,
      'acktrail.stage': 'settle',
      'acktrail.settle.outcome': 'reject',
      'acktrail.queue': 'jobs.work',
    },
    { traceState },
  );

test('forged sampling thresholds count one message each, never 2^53 or Infinity; later rejects still count', async () => {
  const before = await rejects();
  const forged = await post([
    reject('ev-th-1', 'ot=th:fffffffffffff'),
    reject('ev-th-2', 'ot=th:fffffffffffff'),
  ]);
  assert.equal(forged.status, 200);
  assert.equal(await rejects(), before + 2);
  // 14 `f`: 2^56 / 1 as a float, Infinity before; stored and answered 200 all the same.
  const infinite = await post([reject('ev-th-inf', 'ot=th:ffffffffffffff')]);
  assert.equal(infinite.status, 200);
  const stored = await db.query('SELECT 1 FROM journey_steps WHERE event_id = $1', ['ev-th-inf']);
  assert.equal(stored.rowCount, 1);
  const five = await post(Array.from({ length: 5 }, (_, i) => reject(`ev-real-${i}`)));
  assert.equal(five.status, 200);
  const metrics = await scrape();
  assert.equal(
    metrics.value('acktrail_messages_rejected_total', { queue: 'jobs.work' }),
    before + 8,
  );
  assert.equal(metrics.value('acktrail_sampling_thresholds_refused_total'), 3);
  // A threshold inside the bound still counts what it stands for (th:c: 1 in 4).
  assert.equal((await post([reject('ev-th-c', 'ot=th:c')])).status, 200);
  assert.equal(await rejects(), before + 12);
});

test('consumer spans linking 40 messages each store at most the step bound; the rest are refused by name', async () => {
  const links = (i: number) =>
    Array.from({ length: 40 }, (_, l) => ({
      traceId: hex(1_000_000 + i * 40 + l, 32),
      spanId: hex(1_000_000 + i * 40 + l, 16),
    }));
  const spans = Array.from({ length: 1500 }, (_, i) =>
    span(
      { 'messaging.system': 'rabbitmq', 'messaging.operation.type': 'receive' },
      { name: 'receive jobs', links: links(i) },
    ),
  );
  const { status, body } = await post(spans);
  assert.equal(status, 200);
  const partial = body.partialSuccess as { rejectedSpans: number; errorMessage: string };
  assert.ok(partial.rejectedSpans > 0, JSON.stringify(body));
  assert.match(partial.errorMessage, /more than 20000 journey steps/);
  const count = await db.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM journey_steps WHERE stage = 'deliver' AND name = 'receive jobs'",
  );
  assert.ok(count.rows[0]!.n <= MAX_STEPS, `${count.rows[0]!.n} steps stored`);
  // Every span answered for: stored, or refused in the partial success.
  const perSpan = 32; // links read per span (MAX_LINKS)
  assert.equal(count.rows[0]!.n, (1500 - partial.rejectedSpans) * perSpan);
});

test('whatever no route answers or a route throws is JSON without a stack or a path, on every listener', async () => {
  const noPath = (text: string) => {
    assert.doesNotMatch(text, /\bat \w|\/work\/|node_modules|<pre>|Error:/);
  };
  for (const base of [exporter.url, exporter.metricsUrl, exporter.ingestUrl]) {
    const res = await fetch(`${base}/no/such/thing`);
    assert.equal(res.status, 404, base);
    assert.match(res.headers.get('content-type') ?? '', /application\/json/);
    noPath(await res.text());
  }
  // A path that does not decode: the router throws (URIError); Express's own page shows a stack.
  const undecodable = await fetch(`${exporter.url}/api/events/%E0%A4%A`, {
    headers: { authorization: `Bearer ${API}` },
  });
  assert.equal(undecodable.status, 400);
  assert.match(undecodable.headers.get('content-type') ?? '', /application\/json/);
  noPath(await undecodable.text());
  // A malformed JSON body: the body parser throws.
  const malformed = await fetch(`${exporter.url}/api/dead-letters/replay`, {
    method: 'POST',
    headers: { authorization: `Bearer ${OPERATOR}`, 'content-type': 'application/json' },
    body: '{"ids": [1,',
  });
  assert.equal(malformed.status, 400);
  assert.match(malformed.headers.get('content-type') ?? '', /application\/json/);
  noPath(await malformed.text());
});
