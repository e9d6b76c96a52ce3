// Journey assembly on its own: ordering, clock skew, classification and verdicts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assemble } from './assemble.js';
import type { StoredRow } from '../model/steps.js';

const T = Date.parse('2026-11-30T12:00:00Z') * 1000;
let n = 0;
function step(stage: StoredRow['stage'], atMs: number, over: Partial<StoredRow> = {}): StoredRow {
  n++;
  return {
    eventId: 'ev',
    timeUs: T + atMs * 1000,
    durationUs: 2000,
    stage,
    service: 'svc',
    traceId: 't'.repeat(32),
    spanId: String(n).padStart(16, '0'),
    parentSpanId: null,
    name: stage,
    status: 'unset',
    statusMessage: null,
    aggregateType: 'order',
    aggregateId: '9',
    anomaly: null,
    attrs: {},
    ...over,
  };
}
const opts = {
  nowMs: T / 1000 + 60_000,
  stuckAfterSeconds: 60,
  unackedAfterSeconds: 300,
  failedStatus: 'failed',
  words: { aggregate: 'order', done: 'confirmation sent' },
  queues: () => null,
};

test('steps arriving out of order are put in time order; a child before its parent is skew', () => {
  const publish = step('outbox.publish', 100, { service: 'relay' });
  // The worker's clock runs 40 ms behind the relay's: its delivery "starts" before the publish.
  const deliver = step('deliver', 60, {
    service: 'worker',
    parentSpanId: publish.spanId,
    attrs: { 'acktrail.result': 'sent' },
  });
  const settle = step('settle', 90, {
    parentSpanId: deliver.spanId,
    attrs: { 'acktrail.settle.outcome': 'ack', 'acktrail.result': 'sent' },
  });
  const j = assemble('ev', [settle, publish, deliver], null, opts);
  assert.deepEqual(
    j.timeline.map((e) => e.stage),
    ['deliver', 'settle', 'outbox.publish'],
  );
  const d = j.timeline[0]!;
  assert.equal(d.skewMs, 40);
  assert.equal(d.waitMs, null, 'no wait is shown across skewed clocks');
  for (const e of j.timeline) {
    assert.ok(e.gapMs === null || e.gapMs >= 0);
    assert.ok(e.waitMs === null || e.waitMs >= 0);
  }
  assert.deepEqual(j.kinds, ['delivered_once']);
  assert.equal(j.verdict, 'confirmation sent once at 12:00:00');
});

test('retries with their delays and provider codes in the verdict', () => {
  const steps = [
    step('outbox.publish', 0),
    step('deliver', 10, { attrs: { 'acktrail.delivery.attempt': 1, 'acktrail.result': 'retry' } }),
    step('provider.call', 12, {
      attrs: {
        'acktrail.provider.idempotency_key': 'k',
        'acktrail.provider.outcome': 'transient_error',
      },
    }),
    step('retry.publish', 20, { attrs: { 'acktrail.retry.delay_ms': 5000 } }),
    // A retry calls the provider with the same key: that is no duplicate call.
    step('provider.call', 5032, {
      attrs: {
        'acktrail.provider.idempotency_key': 'k',
        'acktrail.provider.outcome': 'transient_error',
      },
    }),
    step('deliver', 5030, {
      attrs: { 'acktrail.delivery.attempt': 2, 'acktrail.result': 'retry' },
    }),
    step('retry.publish', 5040, { attrs: { 'acktrail.retry.delay_ms': 10000 } }),
    step('deliver', 15050, {
      attrs: { 'acktrail.delivery.attempt': 3, 'acktrail.result': 'sent' },
    }),
  ];
  const at = (ms: number) => new Date(T / 1000 + ms);
  const j = assemble(
    'ev',
    steps,
    {
      outbox: {
        eventType: 'order.created',
        aggregateId: '9',
        createdAt: at(-5),
        publishedAt: at(1),
        lastError: null,
      },
      aggregate: { id: '9', createdAt: at(-5), status: 'sent' },
      aggregateRead: true,
      result: { createdAt: at(15060) },
      notes: [],
      attempts: [
        {
          attempt: 1,
          outcome: 'transient_error',
          statusCode: 503,
          createdAt: at(15),
          durationSeconds: 0.01,
        },
        {
          attempt: 2,
          outcome: 'transient_error',
          statusCode: 503,
          createdAt: at(5035),
          durationSeconds: 0.01,
        },
        {
          attempt: 3,
          outcome: 'success',
          statusCode: 202,
          createdAt: at(15055),
          durationSeconds: 0.01,
        },
      ],
    },
    opts,
  );
  assert.deepEqual(j.kinds, ['retried']);
  assert.deepEqual(j.retries, { count: 2, delaysMs: [5000, 10000] });
  assert.equal(
    j.verdict,
    'confirmation sent once at 12:00:15 after 2 retries (provider 503 twice)',
  );
});

test('a delivery that never settles is "never acked" once it is old enough', () => {
  const deliver = step('deliver', 0, { status: 'error', statusMessage: 'channel closed' });
  const j = assemble('ev', [step('outbox.publish', -5), deliver], null, opts);
  assert.deepEqual(j.kinds, ['never_acked']);
  assert.equal(j.verdict, 'delivered but never acked');
});
