// Spring AMQP's own rules: it is known by its spring.rabbit.* attributes (its tracer is Spring
// Boot's), the listener span names its queue, the template span its exchange.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { readSpan } from '../read.js';
import { ACK, MESSAGE, journeyOf, deliveredQueue } from '../testing/journey.js';
import { shapeNamed } from '../testing/shapes.js';
import { received, shapeSpans } from '../testing/shape.js';

describe('spring-amqp journeys', () => {
  test("the listener's destination is its queue, the template's the exchange", () => {
    const [publish, deliver] = shapeSpans(shapeNamed('spring-amqp'), MESSAGE, [ACK], 0).map((d) =>
      readSpan(received(d)),
    );
    assert.deepEqual(
      [publish!.profile.id, publish!.exchange, publish!.routingKey, publish!.queue],
      ['spring-amqp', 'shop', 'order.created', null],
    );
    assert.deepEqual([deliver!.exchange, deliver!.queue], [null, 'shop.work']);
    assert.deepEqual(deliver!.settle, { kind: 'not-recorded' });
  });
  test('the span names the queue', () => {
    assert.deepEqual(deliveredQueue(journeyOf('spring-amqp', [ACK]).steps), ['shop.work', 'named']);
  });
});
