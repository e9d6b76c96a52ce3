// Coverage from spans in both shapes: what each lets journeys read, and the fix for each gap.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Registry } from 'prom-client';
import type { AttributeValue } from '@acktrail/conventions';
import { Coverage, tallyCoverage } from './coverage.js';
import type { ReceivedSpan } from './spans/index.js';

let n = 1;
function span(
  service: string,
  name: string,
  kind: number,
  attrs: Record<string, AttributeValue>,
  status: [number, string] = [0, ''],
): ReceivedSpan {
  return {
    traceId: 'ab'.repeat(16),
    spanId: (n++).toString(16).padStart(16, '0'),
    parentSpanId: '',
    name,
    kind,
    startUs: 1,
    endUs: 2,
    attributes: new Map(Object.entries(attrs)),
    statusCode: status[0],
    statusMessage: status[1],
    service,
    scope: { name: '@opentelemetry/instrumentation-amqplib', version: '0.71.0' },
    links: [],
    traceState: '',
  };
}

const stockPublish = (messageId?: string) =>
  span('shop', 'publish orders', 4, {
    'messaging.system': 'rabbitmq',
    ...(messageId ? { 'messaging.message_id': messageId } : {}),
  });
const stockConsume = (status?: [number, string]) =>
  span(
    'shop-worker',
    'orders.work process',
    5,
    { 'messaging.operation': 'process', 'messaging.message_id': 'e1' },
    status,
  );

function coverage(spans: ReceivedSpan[]) {
  const registry = new Registry();
  const c = new Coverage(registry);
  c.add(tallyCoverage(spans));
  return { report: c.report(), registry };
}

test('a publish without a message id: counted, and the fix says to set messageId', async () => {
  const { report, registry } = coverage([stockPublish(), stockPublish('e1'), stockPublish()]);
  const [row] = report.rows;
  assert.deepEqual(
    { service: row?.service, stage: row?.stage, spans: row?.spans, withEventId: row?.withEventId },
    { service: 'shop', stage: 'publish', spans: 3, withEventId: 1 },
  );
  const gap = row!.gaps.find((g) => g.attribute === 'event_id');
  assert.equal(gap?.spans, 2);
  assert.match(gap.fix, /^set messageId when publishing/);
  assert.equal(row!.gaps.at(-1)?.attribute, 'aggregate_id', 'optional gaps last');
  const text = await registry.metrics();
  assert.match(
    text,
    /acktrail_coverage_attribute_missing_total\{service="shop",stage="publish",attribute="event_id"\} 2/,
  );
  assert.match(
    text,
    /acktrail_coverage_spans_with_event_id_total\{service="shop",stage="publish"\} 1/,
  );
});

test('stock consumer spans: the settle is read from their end; the redelivered flag is missing', () => {
  const { report } = coverage([
    stockConsume(),
    stockConsume([2, 'reject called on message without requeue']),
    stockConsume([2, 'instrumentation timeout called on message']),
  ]);
  const row = report.rows.find((r) => r.stage === 'deliver')!;
  const gaps = Object.fromEntries(row.gaps.map((g) => [g.attribute, g.spans]));
  assert.deepEqual(gaps, { delivery_attempt: 3, settle: 1, aggregate_id: 3 });
  assert.ok(!('queue' in gaps), 'the queue is in the span name');
});

test("acktrail's spans: deliveries settled by settle spans, nothing required missing", () => {
  const ours = (stage: string, extra: Record<string, AttributeValue> = {}) =>
    span('worker', stage, stage === 'deliver' ? 5 : 1, {
      'acktrail.stage': stage,
      'acktrail.event_id': 'e2',
      'acktrail.queue': 'orders.work',
      ...extra,
    });
  const { report } = coverage([
    ours('deliver', { 'acktrail.delivery.redelivered': false, 'acktrail.aggregate_id': '7' }),
    ours('settle', { 'acktrail.settle.outcome': 'ack' }),
    ours('deliver', { 'acktrail.delivery.attempt': 2, 'acktrail.aggregate_id': '7' }),
  ]);
  const deliver = report.rows.find((r) => r.stage === 'deliver')!;
  assert.deepEqual(
    deliver.gaps.map((g) => [g.attribute, g.spans]),
    [['settle', 1]],
  );
  assert.equal(report.rows.find((r) => r.stage === 'settle')?.gaps.length, 0);
});

test('spans that stand for no stage (HTTP, SQL) are not counted', () => {
  const { report } = coverage([span('api', 'GET /orders', 2, { 'http.request.method': 'GET' })]);
  assert.deepEqual(report.rows, []);
});

test('services past the cap fold into "other"', () => {
  const registry = new Registry();
  const c = new Coverage(registry, 2);
  c.add(tallyCoverage(['a', 'b', 'c', 'd'].map((s) => span(s, 'publish x', 4, {}))));
  assert.deepEqual(
    c.report().rows.map((r) => [r.service, r.spans]),
    [
      ['a', 1],
      ['b', 1],
      ['other', 2],
    ],
  );
});

test('services that sample: a threshold in the tracestate, or spans the recording sampler sent', () => {
  const thresholded = { ...stockPublish('e1'), traceState: 'ot=th:c' };
  const recorded = span('billing', 'publish bills', 4, {
    'messaging.system': 'rabbitmq',
    'acktrail.trace.recorded_only': true,
  });
  const { report } = coverage([thresholded, stockPublish('e2'), recorded, stockConsume()]);
  assert.deepEqual(
    report.sampling.map((s) => [s.service, s.recordedOnly, s.withThreshold]),
    [
      ['billing', 1, 0],
      ['shop', 0, 1],
    ],
  );
  assert.match(report.sampling[1]!.says, /adjusted count/);
  assert.match(report.sampling[0]!.says, /journeys and span-derived counts are whole/);
});
