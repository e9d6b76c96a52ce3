// The amqplib instrumentation's own rules: its consumer span ends on the settle, its status saying
// which (an ack leaves it unset), and its process span names the queue.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { readSpan } from '../read.js';
import {
  ACK,
  NONE,
  REJECT,
  REQUEUE,
  journeyOf,
  spanOf,
  deliveredQueue,
} from '../testing/journey.js';
import { shapeNamed } from '../testing/shapes.js';

const SCOPE = shapeNamed('node-amqplib').scope.name;

describe('node-amqplib journeys', () => {
  test('rejected: its span records the reject; the queue has a dead-letter exchange', () => {
    const { journey } = journeyOf('node-amqplib', [REJECT]);
    assert.deepEqual(journey.kinds, ['dead_lettered']);
    assert.equal(journey.verdict, 'dead-lettered after 1 attempt: rejected');
  });
  test('nacked with requeue, then acked: the requeue is recorded: retried, then processed', () => {
    const { journey } = journeyOf('node-amqplib', [REQUEUE, ACK]);
    assert.deepEqual(journey.kinds, ['retried']);
    assert.equal(journey.verdict, 'processed once at 12:00:00 after 1 retry');
  });
  test('never settled: the instrumentation timed its span out: never acked', () => {
    const { journey } = journeyOf('node-amqplib', [NONE]);
    assert.deepEqual(journey.kinds, ['never_acked']);
  });
  test('the span names the queue', () => {
    assert.deepEqual(deliveredQueue(journeyOf('node-amqplib', [ACK]).steps), [
      'shop.work',
      'named',
    ]);
  });
});

describe('how its consumer span ended', () => {
  const ended = (statusCode: number, statusMessage: string) =>
    readSpan({
      ...spanOf(SCOPE, 'shop.work process', 5, { 'messaging.operation': 'process' }),
      statusCode,
      statusMessage,
    }).settle;
  const cases: [number, string, unknown][] = [
    [0, '', { kind: 'outcome', outcome: 'ack' }],
    [2, 'nack called on message without requeue', { kind: 'outcome', outcome: 'nack' }],
    [2, 'reject called on message without requeue', { kind: 'outcome', outcome: 'reject' }],
    [2, 'nack called on message with requeue', { kind: 'outcome', outcome: 'nack_requeue' }],
    [2, 'nackAll called on message', { kind: 'outcome', outcome: 'nack_requeue' }],
    [2, 'channel closed', { kind: 'unsettled' }],
    [2, 'instrumentation timeout called on message with requeue', { kind: 'unsettled' }],
    // The handler's own error status, after an ack: still the ack.
    [2, 'TypeError: x is undefined', { kind: 'outcome', outcome: 'ack' }],
  ];
  for (const [code, message, settle] of cases)
    test(`status ${code} "${message}"`, () => {
      assert.deepEqual(ended(code, message), settle);
    });
});
