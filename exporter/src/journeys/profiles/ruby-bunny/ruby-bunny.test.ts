// The Bunny instrumentation's own rules: a receive span starts a trace of its own and is no step;
// the delivery is its child, the process span, which links the publish and names no queue.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { readSpan } from '../read.js';
import { ACK, CLEAN, MESSAGE, evidence, journeyOf } from '../testing/journey.js';
import { shapeNamed } from '../testing/shapes.js';
import { received, shapeSpans } from '../testing/shape.js';

describe('ruby-bunny journeys', () => {
  test('its receive span is no step; its process span is the delivery, settle not recorded', () => {
    const spans = shapeSpans(shapeNamed('ruby-bunny'), MESSAGE, [ACK], 0).map((d) =>
      readSpan(received(d)),
    );
    assert.deepEqual(
      spans.map((r) => [r.profile.id, r.stage, r.settle?.kind ?? null]),
      [
        ['ruby-bunny', 'publish', null],
        ['ruby-bunny', null, null],
        ['ruby-bunny', 'deliver', 'not-recorded'],
      ],
    );
  });
  test("the publish's bindings reach one queue: the counters decide its ack, marked inferred", () => {
    const { journey } = journeyOf('ruby-bunny', [ACK], evidence(CLEAN));
    assert.deepEqual(journey.kinds, ['delivered_once', 'settle_inferred']);
    assert.match(journey.verdict, /shop\.work account for every delivery/);
  });
});
