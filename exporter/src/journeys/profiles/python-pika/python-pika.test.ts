// The pika instrumentation's own rules: its destination is the exchange, or the routing key on the
// default exchange (then the queue itself); the queue otherwise comes from the bindings.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ACK, CLEAN, MESSAGE, T, deliveredQueue, evidence, journeyOf } from '../testing/journey.js';

describe('python-pika journeys', () => {
  test('the queue: named by the bindings where they route to one queue, and marked inferred', () => {
    assert.deepEqual(deliveredQueue(journeyOf('python-pika', [ACK]).steps), [
      'shop.work',
      'inferred',
    ]);
  });
  test('on the default exchange: the routing key it records is the queue', () => {
    const onDefault = { ...MESSAGE, exchange: '', routingKey: 'shop.work' };
    const { steps } = journeyOf('python-pika', [ACK], { parked: [] }, onDefault);
    assert.deepEqual(deliveredQueue(steps), ['shop.work', 'named']);
  });
  test('within the bound nothing is decided yet', () => {
    const { journey } = journeyOf('python-pika', [ACK], evidence(CLEAN, null, T + 10_000));
    assert.deepEqual(journey.kinds, ['settle_not_recorded']);
    assert.match(
      journey.verdict,
      /not decided yet: the broker's evidence is read for 30 s after the delivery/,
    );
  });
});
