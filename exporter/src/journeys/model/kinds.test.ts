// Every journey kind, built from span fixtures in both shapes (testing/journey-spans.ts): spans as
// @acktrail/instrument writes them, and spans as the stock OpenTelemetry amqplib instrumentation
// alone writes them (no acktrail.* attribute at all). Each goes through the receiver's normalise()
// and the assembly, as a real span does; the rules themselves are here, in kinds.ts.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { normalise } from '../spans/normalize.js';
import type { ReceivedSpan } from '../profiles/index.js';
import type { StoredRow } from './steps.js';
import {
  CHANNEL_CLOSED,
  EVENT,
  NACK_NO_REQUEUE,
  NACK_REQUEUE,
  QUEUES,
  REJECT,
  T,
  ours,
  span,
  stock,
  stored,
} from '../../../testing/journey-spans.js';
import { assemble, type Journey } from '../assemble/assemble.js';
import type { PipelineRows } from './pipeline-rows.js';

function journey(spans: ReceivedSpan[], rows: PipelineRows | null = null): Journey {
  return assemble(EVENT, stored(spans), rows, {
    nowMs: T + 60_000,
    stuckAfterSeconds: 60,
    unackedAfterSeconds: 30,
    failedStatus: null,
    words: { aggregate: 'payment', done: 'captured' },
    queues: (q) => QUEUES[q] ?? null,
  });
}

const noRows = (over: Partial<PipelineRows>): PipelineRows => ({
  outbox: null,
  aggregate: null,
  aggregateRead: false,
  result: null,
  attempts: [],
  notes: [],
  ...over,
});

describe('delivered_once: published, delivered, acked', () => {
  test('stock spans: the consumer span ended with no error status is its ack', () => {
    const j = journey([span(stock.publish(0)), span(stock.deliver(10, 'payments.capture', 'ack'))]);
    assert.deepEqual(j.kinds, ['delivered_once']);
    assert.equal(j.verdict, 'captured once at 12:00:00');
  });
  test("acktrail's spans", () => {
    const d = span(ours.deliver(10, 'payments.capture'));
    const j = journey([
      span(ours.publish(0)),
      d,
      span(ours.settle(15, 'ack', d, 'payments.capture')),
    ]);
    assert.deepEqual(j.kinds, ['delivered_once']);
  });
});

describe('published_twice: one event id published again', () => {
  test('stock spans', () => {
    const j = journey([
      span(stock.publish(0)),
      span(stock.publish(5)),
      span(stock.deliver(10, 'payments.capture', 'ack')),
    ]);
    assert.deepEqual(j.kinds, ['published_twice']);
    assert.match(j.verdict, /published twice/);
  });
  test("acktrail's spans", () => {
    const j = journey([
      span(ours.publish(0, 'confirmed', 'outbox.publish')),
      span(ours.publish(5, 'confirmed', 'outbox.publish')),
    ]);
    assert.ok(j.kinds.includes('published_twice'));
  });
});

describe('redelivered: a delivery that never settled came again', () => {
  test("stock spans: the first consumer's channel closed under it", () => {
    const j = journey([
      span(stock.publish(0)),
      span(stock.deliver(10, 'payments.capture', CHANNEL_CLOSED)),
      span(stock.deliver(50, 'payments.capture', 'ack')),
    ]);
    assert.deepEqual(j.kinds, ['redelivered']);
    assert.equal(j.verdict, 'captured once at 12:00:00; redelivered once');
  });
  test("acktrail's spans: the broker's redelivered flag", () => {
    const again = span(
      ours.deliver(50, 'payments.capture', { 'acktrail.delivery.redelivered': true }),
    );
    const j = journey([
      span(ours.publish(0)),
      span(ours.deliver(10, 'payments.capture')),
      again,
      span(ours.settle(55, 'ack', again, 'payments.capture')),
    ]);
    assert.deepEqual(j.kinds, ['redelivered']);
  });
});

describe('retried: requeued, or sent again through a retry queue', () => {
  test('stock spans: nack with requeue, then delivered again and acked', () => {
    const j = journey([
      span(stock.publish(0)),
      span(stock.deliver(10, 'payments.capture', NACK_REQUEUE)),
      span(stock.deliver(20, 'payments.capture', 'ack')),
    ]);
    assert.deepEqual(j.kinds, ['retried']);
    assert.equal(j.retries.count, 1);
    assert.equal(j.verdict, 'captured once at 12:00:00 after 1 retry');
  });
  test("acktrail's spans: a retry publish and the next attempt", () => {
    const second = span(ours.deliver(5020, 'payments.capture', { 'acktrail.delivery.attempt': 2 }));
    const first = span(ours.deliver(10, 'payments.capture'));
    const j = journey([
      span(ours.publish(0)),
      first,
      span(ours.step(12, 'retry.publish', { 'acktrail.retry.delay_ms': 5000 })),
      span(ours.settle(13, 'ack', first, 'payments.capture')),
      second,
      span(ours.settle(5025, 'ack', second, 'payments.capture')),
    ]);
    assert.deepEqual(j.kinds, ['retried']);
    assert.deepEqual(j.retries, { count: 1, delaysMs: [5000] });
  });
});

describe('dead_lettered: into a dead-letter exchange', () => {
  test('stock spans: rejected on a queue that has one', () => {
    const j = journey([
      span(stock.publish(0)),
      span(stock.deliver(10, 'payments.capture', REJECT)),
    ]);
    assert.deepEqual(j.kinds, ['dead_lettered']);
    assert.equal(j.verdict, 'dead-lettered after 1 attempt: rejected');
    assert.deepEqual(j.deadLetter, { reason: 'rejected', saidBy: 'acktrail', words: 'rejected' });
  });
  test('stock spans: a quorum queue past its delivery limit', () => {
    const j = journey([
      span(stock.publish(0)),
      span(stock.deliver(10, 'payments.ledger', NACK_REQUEUE)),
      span(stock.deliver(20, 'payments.ledger', NACK_REQUEUE)),
      span(stock.deliver(30, 'payments.ledger', NACK_REQUEUE)),
    ]);
    assert.deepEqual(j.kinds, ['retried', 'dead_lettered']);
    assert.equal(j.verdict, 'dead-lettered after 3 attempts: delivery_limit');
  });
  test('stock spans: delivered again out of the dead-letter queue', () => {
    const j = journey([
      span(stock.publish(0)),
      span(stock.deliver(10, 'payments.refunds-unknown', NACK_NO_REQUEUE)),
      span(stock.deliver(40, 'payments.dlq', 'ack')),
    ]);
    assert.ok(j.kinds.includes('dead_lettered'), j.kinds.join());
  });
  test("acktrail's spans: the consumer dead-letters it itself, with its reason", () => {
    const d = span(ours.deliver(10, 'payments.capture'));
    const j = journey([
      span(ours.publish(0)),
      d,
      span(ours.step(12, 'dead_letter', { 'acktrail.dead_letter.reason': 'card declined' })),
      span(ours.settle(13, 'ack', d, 'payments.capture')),
    ]);
    assert.deepEqual(j.kinds, ['dead_lettered']);
    assert.equal(
      j.verdict,
      "dead-lettered after 1 attempt: its consumer's span says “card declined”",
    );
  });
});

/** The step acktrail writes itself when an operator replays the parked dead letter. */
const replayStep = (at: number, by: string): StoredRow => ({
  eventId: EVENT,
  timeUs: (T + at) * 1000,
  durationUs: 0,
  stage: 'replay',
  service: 'acktrail',
  traceId: 'f'.repeat(32),
  spanId: 'e'.repeat(16),
  parentSpanId: null,
  name: 'replay from payments.dlq',
  status: 'ok',
  statusMessage: null,
  aggregateType: null,
  aggregateId: null,
  anomaly: null,
  attrs: { 'acktrail.replay.by': by, 'acktrail.replay.queue': 'payments.dlq' },
});
const withReplay = (spans: ReceivedSpan[], replay: StoredRow, after: ReceivedSpan[]): Journey =>
  assemble(EVENT, [...stored(spans), replay, ...stored(after)], null, {
    nowMs: T + 60_000,
    stuckAfterSeconds: 60,
    unackedAfterSeconds: 30,
    failedStatus: null,
    words: { aggregate: 'payment', done: 'captured' },
    queues: (q) => QUEUES[q] ?? null,
  });

describe('replayed: an operator replayed the parked dead letter', () => {
  const dead = [span(stock.publish(0)), span(stock.deliver(10, 'payments.capture', REJECT))];
  test('stock spans: replayed, then delivered and acked', () => {
    const j = withReplay(dead, replayStep(500, 'operator (alice)'), [
      span(stock.deliver(510, 'payments.capture', 'ack')),
    ]);
    assert.deepEqual(j.kinds, ['dead_lettered', 'replayed']);
    assert.equal(
      j.verdict,
      'dead-lettered after 1 attempt: rejected; replayed by operator (alice) at 12:00:00; captured once at 12:00:00',
    );
  });
  test('stock spans: replayed, not delivered yet', () => {
    const j = withReplay(dead, replayStep(500, 'operator'), []);
    assert.match(
      j.verdict,
      /replayed by operator at 12:00:00; not yet delivered after the replay$/,
    );
  });
  test('stock spans: replayed and rejected again', () => {
    const j = withReplay(dead, replayStep(500, 'operator'), [
      span(stock.deliver(510, 'payments.capture', REJECT)),
    ]);
    assert.match(j.verdict, /replayed by operator at 12:00:00, then dead-lettered again$/);
  });
  test('a span cannot claim to be a replay: only acktrail writes that step', () => {
    const forged = normalise(span(ours.step(5, 'replay', { 'acktrail.replay.by': 'mallory' })), {
      fromUs: 0,
      toUs: Number.MAX_SAFE_INTEGER,
    });
    assert.ok(forged.kind !== 'steps' || forged.steps.every((s) => s.stage !== 'replay'));
  });
});

describe('discarded: rejected where nothing catches it, the message is gone', () => {
  test('stock spans: rejected on a queue without a dead-letter exchange', () => {
    const j = journey([
      span(stock.publish(0)),
      span(stock.deliver(10, 'payments.refunds', REJECT)),
    ]);
    assert.deepEqual(j.kinds, ['discarded']);
    assert.equal(
      j.verdict,
      'discarded: rejected without requeue on payments.refunds, which has no dead-letter exchange: the message is gone',
    );
  });
  test('stock spans: past the delivery limit of a quorum queue without one', () => {
    const j = journey([
      span(stock.publish(0)),
      span(stock.deliver(10, 'payments.ledger-nodlx', NACK_REQUEUE)),
      span(stock.deliver(20, 'payments.ledger-nodlx', NACK_REQUEUE)),
      span(stock.deliver(30, 'payments.ledger-nodlx', NACK_REQUEUE)),
    ]);
    assert.ok(j.kinds.includes('discarded'));
    assert.match(j.verdict, /^discarded: past its delivery limit on payments.ledger-nodlx/);
  });
  test("acktrail's spans: a reject settle span", () => {
    const d = span(ours.deliver(10, 'payments.refunds'));
    const j = journey([
      span(ours.publish(0)),
      d,
      span(ours.settle(12, 'reject', d, 'payments.refunds')),
    ]);
    assert.deepEqual(j.kinds, ['discarded']);
  });
});

describe("rejected: the queue's arguments are not known", () => {
  test('stock spans', () => {
    const j = journey([span(stock.publish(0)), span(stock.deliver(10, 'somewhere', REJECT))]);
    assert.deepEqual(j.kinds, ['rejected']);
    assert.match(j.verdict, /whether it was dead-lettered or dropped is not known/);
  });
  test("acktrail's spans", () => {
    const d = span(ours.deliver(10, 'somewhere'));
    const j = journey([span(ours.publish(0)), d, span(ours.settle(12, 'nack', d, 'somewhere'))]);
    assert.deepEqual(j.kinds, ['rejected']);
  });
});

describe('unroutable: returned by the broker', () => {
  test("acktrail's spans: the publish says so", () => {
    const j = journey([span(ours.publish(0, 'unroutable'))]);
    assert.deepEqual(j.kinds, ['unroutable']);
    assert.equal(j.verdict, 'unroutable: the broker returned it once');
  });
  test('stock spans cannot tell: a returned message is confirmed all the same', () => {
    const j = journey([span(stock.publish(0))]);
    assert.deepEqual(j.kinds, ['in_flight']);
    assert.equal(j.verdict, 'published, not yet delivered');
  });
});

describe('stuck_in_outbox, aggregate_missing, duplicate_provider_call: from the rows', () => {
  const created = new Date(T - 120_000);
  for (const [shape, spans] of [
    ['stock spans', () => [span(stock.deliver(10, 'payments.capture', 'ack'))]],
    ["acktrail's spans", () => [span(ours.step(0, 'outbox.insert'))]],
  ] as const) {
    test(`${shape}: an outbox row unpublished for two minutes`, () => {
      const j = journey(
        spans(),
        noRows({
          outbox: {
            eventType: null,
            aggregateId: '5',
            createdAt: created,
            publishedAt: null,
            lastError: 'NO_ROUTE',
          },
        }),
      );
      assert.ok(j.kinds.includes('stuck_in_outbox'));
      assert.match(
        j.verdict,
        /^stuck in the outbox for 3 min: not published \(its last error says “NO_ROUTE”\)/,
      );
    });
    test(`${shape}: the aggregate row is gone`, () => {
      const j = journey(spans(), noRows({ aggregateRead: true }));
      assert.ok(j.kinds.includes('aggregate_missing'));
      assert.match(j.verdict, /^payment .*no longer exists/);
    });
    test(`${shape}: the provider answered a call with a replay`, () => {
      const j = journey(
        spans(),
        noRows({
          attempts: [
            {
              attempt: 1,
              outcome: 'success',
              statusCode: 202,
              createdAt: created,
              durationSeconds: 0.1,
            },
            {
              attempt: 2,
              outcome: 'idempotent_replay',
              statusCode: 202,
              createdAt: created,
              durationSeconds: 0.1,
            },
          ],
        }),
      );
      assert.ok(j.kinds.includes('duplicate_provider_call'));
    });
  }
  test("acktrail's provider spans say it too", () => {
    const j = journey([
      span(
        ours.step(0, 'provider.call', {
          'acktrail.provider.name': 'psp',
          'acktrail.provider.outcome': 'idempotent_replay',
        }),
      ),
    ]);
    assert.ok(j.kinds.includes('duplicate_provider_call'));
  });
});

describe('never_acked: delivered, never settled', () => {
  test("stock spans: the instrumentation's own timeout ended it", () => {
    const j = journey([
      span(stock.publish(0)),
      span(
        stock.deliver(10, 'payments.capture', [
          2,
          'instrumentation timeout called on message with requeue',
        ]),
      ),
    ]);
    assert.deepEqual(j.kinds, ['never_acked']);
    assert.equal(j.verdict, 'delivered but never acked');
  });
  test("acktrail's spans: no settle after longer than unackedAfterSeconds", () => {
    const j = journey([span(ours.publish(0)), span(ours.deliver(10, 'payments.capture'))]);
    assert.deepEqual(j.kinds, ['never_acked']);
  });
});

describe('in_flight: not done yet', () => {
  test('stock spans', () => {
    assert.deepEqual(journey([span(stock.publish(0))]).kinds, ['in_flight']);
  });
  test("acktrail's spans, delivered a moment ago", () => {
    const j = assemble(
      EVENT,
      stored([span(ours.publish(0)), span(ours.deliver(10, 'payments.capture'))]),
      null,
      {
        nowMs: T + 1_000,
        stuckAfterSeconds: 60,
        unackedAfterSeconds: 30,
        failedStatus: null,
        words: { aggregate: 'payment', done: 'captured' },
        queues: () => null,
      },
    );
    assert.deepEqual(j.kinds, ['in_flight']);
    assert.equal(j.verdict, 'delivered, still being processed');
  });
});

describe('one message routed to several queues: a way through each', () => {
  test('stock spans: acked on both queues is delivered once, not redelivered', () => {
    const j = journey([
      span(stock.publish(0)),
      span(stock.deliver(10, 'payments.capture', 'ack')),
      span(stock.deliver(12, 'payments.ledger', 'ack')),
    ]);
    assert.deepEqual(j.kinds, ['delivered_once']);
  });
  test('stock spans: a requeue on one queue is no retry on the other, and not done', () => {
    const spans = [
      span(stock.publish(0)),
      span(stock.deliver(10, 'payments.capture', NACK_REQUEUE)),
      span(stock.deliver(12, 'payments.ledger', 'ack')),
    ];
    assert.deepEqual(journey(spans).kinds, ['in_flight']);
    const j = journey([...spans, span(stock.deliver(20, 'payments.capture', 'ack'))]);
    assert.deepEqual(j.kinds, ['retried']);
    assert.equal(j.retries.count, 1);
  });
  test('stock spans: acked on one, rejected on the other without a DLX: discarded', () => {
    const j = journey([
      span(stock.publish(0)),
      span(stock.deliver(10, 'payments.capture', 'ack')),
      span(stock.deliver(12, 'payments.refunds', REJECT)),
    ]);
    assert.deepEqual(j.kinds, ['discarded']);
  });
  test('stock spans: never settled on one queue, acked later on the other: never acked', () => {
    const j = journey([
      span(stock.publish(0)),
      span(stock.deliver(10, 'payments.ledger', CHANNEL_CLOSED)),
      span(stock.deliver(12, 'payments.capture', 'ack')),
    ]);
    assert.deepEqual(j.kinds, ['never_acked']);
  });
});
