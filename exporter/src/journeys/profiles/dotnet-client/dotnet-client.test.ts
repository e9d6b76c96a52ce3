// The .NET client's own rules: its activities name the exchange and routing key, not the queue
// (the bindings name it where they route to one); BasicGet on an empty queue is no delivery.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { normalise } from '../../spans/normalize.js';
import {
  ACK,
  ALL_TIME,
  counters,
  evidence,
  journeyOf,
  spanOf,
  deliveredQueue,
} from '../testing/journey.js';

describe('dotnet-client journeys', () => {
  test('the queue: named by the bindings where they route to one queue, and marked inferred', () => {
    assert.deepEqual(deliveredQueue(journeyOf('dotnet-client', [ACK]).steps), [
      'shop.work',
      'inferred',
    ]);
  });
  test('its publish activities carry the Publisher source and are read as its own', () => {
    const { steps } = journeyOf('dotnet-client', [ACK]);
    const publish = steps.find((s) => s.stage === 'publish')!;
    assert.equal(publish.attrs['acktrail.sdk'], 'dotnet-client');
  });
  test('BasicGet on an empty queue is no delivery', () => {
    const span = spanOf('RabbitMQ.Client.Subscriber', 'fetch (empty) shop.work', 5, {
      'messaging.system': 'rabbitmq',
      'messaging.operation.type': 'receive',
      'messaging.operation.name': 'fetch (empty)',
    });
    assert.equal(normalise(span, ALL_TIME).kind, 'ignored');
  });
  test('no dead letter where acktrail parks them, not delivered again, the queue drained: acked', () => {
    // Counters without the delivery counts (a broker that gives depths only).
    const depths = [
      { ...counters(-30, 0, 0, 0), delivered: null, acked: null },
      { ...counters(60, 0, 0, 0, 2), delivered: null, acked: null },
    ];
    const { journey } = journeyOf('dotnet-client', [ACK], evidence(depths, 'shop.dlq'));
    assert.deepEqual(journey.kinds, ['delivered_once', 'settle_inferred']);
    assert.match(
      journey.verdict,
      /inferred, acked: no dead letter in shop\.dlq \(parked by acktrail\) within 30 s, not delivered again, and shop\.work had nothing unacked at 12:01:00 with 2 consumer\(s\)/,
    );
  });
});
