// Links count as parents: a consumer span that starts its own trace and links the publish joins
// that publish's journey; a batch receive that links many messages joins each message's journey,
// one delivery each. Spans in the messaging conventions' v1.43 shape (messaging.operation.type
// receive, links to the creation contexts), as a generic SDK writes them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { normalise } from './normalize.js';
import { convertSpans } from './convert.js';
import type { ReceivedSpan } from '../profiles/index.js';
import { rootsOf } from '../service.js';
import { assemble } from '../assemble/assemble.js';
import type { Step } from '../model/steps.js';

const T = Date.parse('2026-12-07T12:00:00Z') * 1000;
const WINDOW = { fromUs: 0, toUs: Number.MAX_SAFE_INTEGER };
const hex = (n: number, len: number) => n.toString(16).padStart(len, '0');

function span(
  over: Partial<ReceivedSpan> & Pick<ReceivedSpan, 'traceId' | 'spanId'>,
): ReceivedSpan {
  return {
    parentSpanId: '',
    name: 'x',
    kind: 4,
    startUs: T,
    endUs: T + 1000,
    attributes: new Map(),
    statusCode: 0,
    statusMessage: '',
    service: 'svc',
    scope: { name: 'some.messaging.sdk', version: '1.0' },
    links: [],
    traceState: '',
    ...over,
  };
}

const publish = (i: number) =>
  span({
    traceId: hex(i, 32),
    spanId: hex(i, 16),
    name: 'publish orders',
    attributes: new Map<string, string>([
      ['messaging.system', 'rabbitmq'],
      ['messaging.operation.type', 'send'],
      ['messaging.message.id', `msg-${i}`],
    ]),
  });

function stepsOf(spans: ReceivedSpan[]): Step[] {
  return spans.flatMap((s) => {
    const n = normalise(s, WINDOW);
    if (n.kind !== 'steps') assert.fail(`${s.name}: ${n.kind}`);
    return n.steps;
  });
}

/** Each journey's steps, grouped as the journey service groups them (rootsOf). */
function journeys(steps: Step[]): Map<string, Step[]> {
  const roots = new Map<string, string>();
  for (const traceId of new Set(steps.map((s) => s.traceId)))
    for (const [id, root] of rootsOf(
      traceId,
      steps.map((s) => ({
        eventId: s.eventId,
        stage: s.stage,
        spanId: s.spanId,
        messageKey: (s.attrs['acktrail.message_key'] as string | undefined) ?? null,
      })),
    ))
      if (id !== root) roots.set(id, root);
  const out = new Map<string, Step[]>();
  for (const s of steps) {
    const root = roots.get(s.eventId) ?? s.eventId;
    out.set(root, [...(out.get(root) ?? []), s]);
  }
  return out;
}

const verdictOf = (id: string, steps: Step[]) =>
  assemble(id, steps, null, {
    nowMs: T / 1000 + 3_600_000,
    stuckAfterSeconds: 60,
    unackedAfterSeconds: 30,
    failedStatus: null,
    words: { aggregate: 'order', done: 'processed' },
    queues: () => null,
    broker: { parked: [] },
  });

test('a consumer span in a trace of its own that links the publish joins its journey', () => {
  const consumer = span({
    traceId: 'ab'.repeat(16),
    spanId: 'cd'.repeat(8),
    name: 'process orders',
    kind: 5,
    attributes: new Map([
      ['messaging.system', 'rabbitmq'],
      ['messaging.operation.type', 'process'],
    ]),
    links: [{ traceId: hex(1, 32), spanId: hex(1, 16) }],
  });
  const byJourney = journeys(stepsOf([publish(1), consumer]));
  assert.deepEqual([...byJourney.keys()], ['msg-1']);
  const j = verdictOf('msg-1', byJourney.get('msg-1')!);
  assert.equal(j.deliveries, 1);
  assert.notEqual(j.verdict, 'published, not yet delivered');
});

test("a batch receive linking three messages is one delivery in each message's journey", () => {
  const batch = span({
    traceId: 'ef'.repeat(16),
    spanId: 'ee'.repeat(8),
    name: 'receive orders',
    kind: 5,
    attributes: new Map<string, string | number>([
      ['messaging.system', 'rabbitmq'],
      ['messaging.operation.type', 'receive'],
      ['messaging.batch.message_count', 3],
    ]),
    links: [1, 2, 3].map((i) => ({ traceId: hex(i, 32), spanId: hex(i, 16) })),
  });
  const steps = stepsOf([publish(1), publish(2), publish(3), batch]);
  const deliveries = steps.filter((s) => s.stage === 'deliver');
  assert.equal(deliveries.length, 3);
  assert.equal(new Set(deliveries.map((s) => s.spanId)).size, 3, 'a span id each: stored each');
  const byJourney = journeys(steps);
  assert.deepEqual([...byJourney.keys()].sort(), ['msg-1', 'msg-2', 'msg-3']);
  for (const [id, own] of byJourney) {
    assert.deepEqual(own.map((s) => s.stage).sort(), ['deliver', 'publish'], id);
    const j = verdictOf(id, own);
    assert.equal(j.deliveries, 1, id);
    assert.notEqual(j.verdict, 'published, not yet delivered', id);
  }
});

test("a body's batch receives fan out up to its step bound; the spans past it are rejected by name", () => {
  const batches = Array.from({ length: 10 }, (_, b) =>
    span({
      traceId: hex(1000 + b, 32),
      spanId: hex(1000 + b, 16),
      name: 'receive orders',
      kind: 5,
      attributes: new Map<string, string>([
        ['messaging.system', 'rabbitmq'],
        ['messaging.operation.type', 'receive'],
      ]),
      links: Array.from({ length: 40 }, (_, i) => ({
        traceId: hex(b * 100 + i + 1, 32),
        spanId: hex(b * 100 + i + 1, 16),
      })),
    }),
  );
  const converted = convertSpans(batches, { ...WINDOW, maxSteps: 100 });
  // A delivery per linked message: two spans' 80 fit in 100, a third's 40 more do not.
  assert.equal(converted.steps.length, 80);
  assert.equal(converted.accepted, 2);
  assert.deepEqual(converted.rejected, [
    [
      'the request would store more than 100 journey steps (a batch receive stores one or two per linked message): send fewer spans per request',
      8,
    ],
  ]);
});
