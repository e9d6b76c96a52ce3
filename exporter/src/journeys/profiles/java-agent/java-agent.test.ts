// The Java agent's own rules: settle spans (basic.ack, basic.nack, basic.reject) as children of
// the process span, without a nack's or reject's requeue flag; old and v1.43 destination names.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { normalise } from '../../spans/normalize.js';
import { readSpan } from '../read.js';
import {
  ACK,
  ALL_TIME,
  DIRTY,
  PARKED,
  REJECT,
  REQUEUE,
  evidence,
  journeyOf,
  spanOf,
  deliveredQueue,
} from '../testing/journey.js';

for (const name of ['java-agent', 'java-agent-stable'])
  describe(`${name} journeys`, () => {
    test('basic.reject without its requeue flag; nothing else: not recorded', () => {
      const { journey } = journeyOf(name, [REJECT]);
      assert.deepEqual(journey.kinds, ['settle_not_recorded']);
      assert.match(
        journey.verdict,
        /^rejected at 12:00:00 on shop\.work; whether it was requeued is not recorded by OpenTelemetry Java agent/,
      );
    });
    test("parking's record shows the broker dead-lettered it", () => {
      const { journey } = journeyOf(name, [REJECT], PARKED);
      assert.deepEqual(journey.kinds, ['dead_lettered', 'settle_inferred']);
      assert.equal(
        journey.verdict,
        'dead-lettered after 1 attempt: rejected (shown by dead-letter parking; no span recorded the reject)',
      );
    });
    test('basic.nack, then a second delivery: it was requeued', () => {
      const { journey } = journeyOf(name, [REQUEUE, ACK]);
      assert.deepEqual(journey.kinds, ['retried', 'settle_inferred']);
      assert.equal(journey.deliveries, 2);
    });
    test('the span names the queue', () => {
      assert.deepEqual(deliveredQueue(journeyOf(name, [ACK]).steps), ['shop.work', 'named']);
    });
  });

describe('the Java agent, beyond one message', () => {
  test('basic.reject, no dead letter where parked, not delivered again: requeued', () => {
    const { journey } = journeyOf('java-agent', [REJECT], evidence(DIRTY, 'shop.dlq'));
    assert.deepEqual(
      journey.inferred.map((i) => [i.fate, i.evidence]),
      [['requeued', 'no_dead_letter']],
    );
    assert.doesNotMatch(journey.verdict, /processed once/);
  });
  test("its HTTP client span with acktrail's provider attributes is a provider call", () => {
    const n = normalise(
      spanOf('io.opentelemetry.java-http-client', 'POST', 3, {
        'acktrail.event_id': 'e1',
        'acktrail.provider.name': 'mail',
      }),
      ALL_TIME,
    );
    assert.equal(n.kind === 'steps' ? n.steps[0]!.stage : n.kind, 'provider.call');
  });
  test("spring-rabbit-1.0's listener span inside the process span is no second delivery", () => {
    const listener = spanOf('io.opentelemetry.spring-rabbit-1.0', 'shop.work process', 5, {
      'messaging.system': 'rabbitmq',
      'messaging.operation': 'process',
    });
    assert.equal(readSpan(listener).stage, null);
  });
  test('a generated queue ("<generated> process") is not named', () => {
    const span = spanOf('io.opentelemetry.rabbitmq-2.7', '<generated> process', 5, {
      'messaging.system': 'rabbitmq',
      'messaging.destination.name': 'shop',
      'messaging.operation': 'process',
    });
    assert.deepEqual([readSpan(span).exchange, readSpan(span).queue], ['shop', null]);
  });
});
