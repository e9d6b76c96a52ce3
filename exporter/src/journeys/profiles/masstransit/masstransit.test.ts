// MassTransit's own rules: its receive ends after the settle (status ok an ack, error a nack with
// requeue), its handler activities are part of the delivery, its fault path is "<queue>_error".
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { normalise } from '../../spans/normalize.js';
import { tallyCoverage } from '../../spans/coverage-tally.js';
import {
  ACK,
  ALL_TIME,
  MESSAGE,
  REJECT,
  REQUEUE,
  T,
  journeyOf,
  spanOf,
} from '../testing/journey.js';
import { shapeNamed } from '../testing/shapes.js';
import { HANDLER_FAULT, received, shapeSpans } from '../testing/shape.js';

const SCOPE = shapeNamed('masstransit').scope.name;

describe('MassTransit: its receive ends after the settle, its fault path is <queue>_error', () => {
  test('a consumer that throws: its handler span in error, the receive ok after the move: dead-lettered, the exception its reason, inferred from the spans', () => {
    const { journey } = journeyOf('masstransit', [REJECT]);
    assert.deepEqual(journey.kinds, ['dead_lettered', 'settle_inferred']);
    assert.deepEqual(journey.deadLetter, {
      reason: HANDLER_FAULT,
      saidBy: 'span',
      words: `its consumer's span says “${HANDLER_FAULT}”`,
    });
    assert.doesNotMatch(journey.verdict, /processed once/);
    assert.match(journey.verdict, /moved to shop\.work_error by MassTransit's fault path/);
    assert.deepEqual(
      journey.inferred.map((i) => [i.fate, i.evidence]),
      [['dead_lettered', 'spans']],
    );
    assert.equal(journey.deliveries, 1, 'its handler span is part of the delivery');
  });
  test('a send to <queue>_error where an app records one: the dead letter, the queue it left', () => {
    const span = spanOf(SCOPE, 'shop.work_error send', 4, {
      'messaging.operation': 'send',
      'messaging.system': 'rabbitmq',
      'messaging.destination.name': 'shop.work_error',
      'messaging.masstransit.message_id': MESSAGE.messageId!,
    });
    const n = normalise(span, ALL_TIME);
    assert.deepEqual(
      n.kind === 'steps' ? n.steps.map((x) => [x.stage, x.attrs['acktrail.queue']]) : n,
      [['dead_letter', 'shop.work']],
    );
  });
  test('a receive lock that faults: nacked with requeue, redelivered, acked: retried', () => {
    const { journey } = journeyOf('masstransit', [REQUEUE, ACK]);
    assert.deepEqual(journey.kinds, ['retried']);
    assert.equal(journey.verdict, 'processed once at 12:00:00 after 1 retry');
  });
  test("its consume activity is its delivery's handler, its outbox delivery none; its outbox send is the insert", () => {
    const consume = spanOf(SCOPE, 'shop.work process', 5, {
      'messaging.operation': 'process',
      'messaging.masstransit.message_id': MESSAGE.messageId!,
      'messaging.masstransit.consumer_type': 'OrderCreatedConsumer',
    });
    // The consume activity is the delivery's handler: a step of the delivery, no delivery itself.
    const handler = normalise(consume, ALL_TIME);
    assert.deepEqual(
      handler.kind === 'steps'
        ? handler.steps.map((x) => [x.stage, x.attrs['acktrail.delivery.handler']])
        : handler,
      [['deliver', true]],
    );
    assert.equal(normalise(spanOf(SCOPE, 'outbox process', 3, {}), ALL_TIME).kind, 'ignored');
    const insert = normalise(
      spanOf(SCOPE, 'outbox send', 4, {
        'messaging.operation': 'send',
        'messaging.masstransit.message_id': MESSAGE.messageId!,
      }),
      ALL_TIME,
    );
    assert.deepEqual(
      insert.kind === 'steps' ? insert.steps.map((x) => [x.stage, x.eventId]) : insert,
      [['outbox.insert', MESSAGE.messageId]],
    );
  });
  test('coverage lists no gap its spans fill: event id, queue and settle are there', () => {
    const spans = shapeSpans(shapeNamed('masstransit'), MESSAGE, [ACK], T).map((d) => received(d));
    const gaps = tallyCoverage(spans).flatMap((r) => [
      ...r.missing.map(([a]) => `${r.stage}:${a}`),
      ...(r.stage === 'deliver' && r.settles < r.spans ? ['deliver:settle'] : []),
    ]);
    // The redelivered flag is the one fact MassTransit does not record; the aggregate is optional.
    assert.deepEqual(gaps.sort(), [
      'deliver:aggregate_id',
      'deliver:delivery_attempt',
      'publish:aggregate_id',
    ]);
  });
});
