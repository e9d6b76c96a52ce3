// Every journey rule that holds for every SDK, against spans exactly as each instrumentation
// writes them (<id>/<id>.shape.ts, each taken from its source at a named version): one message
// acked, one rejected without requeue into a dead-letter exchange, one nacked with requeue and
// then acked, one never settled. What an SDK's spans record decides which rule holds (its
// profile's settle recording): a settle is what a span records or what the broker shows (a later
// delivery, dead-letter parking's record, the queue's counters); where neither says, the journey
// says the settle is not recorded, never "processed once". Each SDK's own rules are in its folder.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ExchangeIndex } from '../../broker/routes.js';
import { normalise } from '../spans/normalize.js';
import { PROFILES } from './registry.js';
import {
  ACK,
  ALL_TIME,
  CLEAN,
  DIRTY,
  NONE,
  PARKED,
  REJECT,
  REQUEUE,
  counters,
  escape,
  evidence,
  journeyOf,
  sdkOf,
  spanOf,
} from './testing/journey.js';
import { SHAPE_LIST, recordsSettle } from './testing/shapes.js';

/** Shapes whose spans record each settle: their journeys read as the broker did it. */
const RECORDING = SHAPE_LIST.filter(recordsSettle).map((s) => s.name);
/** Shapes whose spans record no settle: the broker's evidence decides, marked inferred. */
const SILENT = SHAPE_LIST.filter((s) => !recordsSettle(s)).map((s) => s.name);
/** Shapes whose consumer span does not end on its settle: an unsettled delivery is unseen. */
const NOT_ENDED_BY_SETTLE = SHAPE_LIST.filter((s) => PROFILES[s.profile].settle !== 'span-end').map(
  (s) => s.name,
);

test('both kinds of SDK are here: some record the settle, some do not', () => {
  assert.ok(
    RECORDING.length > 0 && SILENT.length > 0,
    `${RECORDING.join(', ')} / ${SILENT.join(', ')}`,
  );
});

describe('every shape: a journey, keyed so that one lookup finds all its spans', () => {
  for (const shape of SHAPE_LIST)
    test(shape.name, () => {
      const { journey, steps } = journeyOf(shape, [ACK]);
      assert.equal(journey.publishes, 1);
      assert.equal(journey.deliveries, 1);
      assert.ok(
        steps.every((s) => s.attrs['acktrail.sdk'] === shape.profile || s.stage === 'settle'),
      );
    });
});

describe('acked', () => {
  for (const name of RECORDING)
    test(`${name}: delivered once`, () => {
      const { journey } = journeyOf(name, [ACK]);
      assert.deepEqual(journey.kinds, ['delivered_once']);
      assert.match(journey.verdict, /^processed once at 12:00:00$/);
    });
  for (const name of SILENT)
    test(`${name}: the settle is not recorded, never "processed once"`, () => {
      const { journey } = journeyOf(name, [ACK]);
      assert.deepEqual(journey.kinds, ['settle_not_recorded']);
      assert.doesNotMatch(journey.verdict, /processed once/);
      assert.match(
        journey.verdict,
        new RegExp(`how it was settled is not recorded by ${escape(sdkOf(name))}`),
      );
      assert.ok(!journey.timeline.some((e) => e.stage === 'settle'), 'no settle step invented');
      assert.equal(
        journey.timeline.find((e) => e.stage === 'deliver')?.note,
        `settle not recorded by ${sdkOf(name)}`,
      );
    });
});

describe('rejected into the dead-letter exchange, by an SDK that records no settle', () => {
  for (const name of SILENT) {
    test(`${name}: nothing records it: never "processed once"`, () => {
      const { journey } = journeyOf(name, [REJECT]);
      assert.deepEqual(journey.kinds, ['settle_not_recorded']);
      assert.equal(journey.deadLetter, null);
    });
    test(`${name}: parking's record shows the broker dead-lettered it, marked inferred`, () => {
      const { journey } = journeyOf(name, [REJECT], PARKED);
      assert.deepEqual(journey.kinds, ['dead_lettered', 'settle_inferred']);
      assert.deepEqual(journey.deadLetter, {
        reason: 'rejected',
        saidBy: 'broker',
        words: 'rejected',
      });
      const from = journey.inferred[0]!.queue ? ` (from ${journey.inferred[0]!.queue})` : '';
      assert.deepEqual(
        journey.inferred.map((i) => [i.fate, i.evidence, i.words]),
        [
          [
            'dead_lettered',
            'parking',
            `dead-lettered: x-death on the parked copy${from}; ${sdkOf(name)} records no settle`,
          ],
        ],
      );
    });
  }
});

describe('nacked with requeue, then acked, by an SDK that records no settle', () => {
  for (const name of SILENT)
    test(`${name}: the second delivery shows the first came back; the last settle is not recorded`, () => {
      const { journey } = journeyOf(name, [REQUEUE, ACK]);
      assert.deepEqual(journey.kinds, ['redelivered', 'settle_not_recorded', 'settle_inferred']);
      assert.match(journey.verdict, /redelivered once/);
      assert.doesNotMatch(journey.verdict, /processed once/);
      // The first delivery's end is the broker's evidence, marked inferred; the last is unknown.
      assert.deepEqual(
        journey.inferred.map((i) => [i.fate, i.evidence]),
        [['came_back', 'later_delivery']],
      );
    });
});

describe('never settled', () => {
  for (const name of NOT_ENDED_BY_SETTLE)
    test(`${name}: no settle seen: not recorded, not an ack`, () => {
      const { journey } = journeyOf(name, [NONE]);
      assert.deepEqual(journey.kinds, ['settle_not_recorded']);
    });
});

describe("where the spans are silent, the broker's counters and silence decide (inference.ts)", () => {
  for (const name of SILENT) {
    test(`${name}: acked, and the counters account for every delivery: processed once, inferred`, () => {
      const { journey } = journeyOf(name, [ACK], evidence(CLEAN));
      assert.deepEqual(journey.kinds, ['delivered_once', 'settle_inferred']);
      assert.match(
        journey.verdict,
        /^processed once at 12:00:00; inferred, acked: the broker's counters of shop\.work account for every delivery from 11:59:30 to 12:01:00 \(3 delivered, 3 acked/,
      );
      assert.match(journey.verdict, new RegExp(`${escape(sdkOf(name))} records no ack$`));
      assert.deepEqual(
        journey.inferred.map((i) => [i.fate, i.evidence]),
        [['acked', 'counters']],
      );
    });
    test(`${name}: one of the window's deliveries not acked: acked or discarded, and what would tell`, () => {
      const { journey } = journeyOf(name, [ACK], evidence(DIRTY));
      assert.deepEqual(journey.kinds, ['settle_not_recorded']);
      assert.doesNotMatch(journey.verdict, /processed once/);
      assert.match(
        journey.verdict,
        /acked or discarded: the broker cannot tell them apart for shop\.work \(1 of 3 deliveries from 11:59:30 to 12:01:00 were not acked\); parking its dead-letter queue \(deadLetters\.queues\), or the ack recorded: /,
      );
    });
    test(`${name}: never settled, its message back in the queue: never "processed once"`, () => {
      // The channel closed: the delivery returned (counted, never acked), nothing unacked, no consumer.
      const { journey } = journeyOf(
        name,
        [NONE],
        evidence([counters(-30, 10, 10, 0), counters(60, 11, 10, 0, 0)], 'shop.dlq'),
      );
      assert.deepEqual(journey.kinds, ['settle_not_recorded']);
      assert.doesNotMatch(journey.verdict, /processed once/);
    });
  }
});

describe('what no SDK decides', () => {
  test('an exchange that routes to two queues: no queue is guessed', () => {
    const binding = (destination: string) => ({
      vhost: '/',
      source: 'shop',
      destination,
      destination_type: 'queue',
      routing_key: 'k',
    });
    const two = new ExchangeIndex(
      [binding('a'), binding('b')],
      [{ vhost: '/', name: 'shop', type: 'direct' }],
    );
    assert.deepEqual(two.reached('shop', 'k').sort(), ['a', 'b']);
  });
  test('a span of an unknown instrumentation without an event id or RabbitMQ is ignored', () => {
    const span = spanOf('kafka-things', 'orders send', 4, { 'messaging.system': 'kafka' });
    assert.equal(normalise(span, ALL_TIME).kind, 'ignored');
  });
});
