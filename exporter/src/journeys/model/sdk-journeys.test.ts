// Every journey rule against spans exactly as each instrumentation writes them (testing/sdk-shapes.ts,
// each shape taken from its source at a named version): one message acked, one rejected without
// requeue into a dead-letter exchange, one nacked with requeue and then acked, one never settled.
// A settle is what a span records or what the broker shows (a later delivery, dead-letter
// parking's record); where neither says, the journey says the settle is not recorded, never
// "processed once". The spans go through the receiver as real ones do: decoded shape -> normalise
// -> the broker's topology (the queue from the bindings) -> the assembler.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ExchangeIndex } from '../../broker/routes.js';
import type { QueueFacts } from '../../broker/topology.js';
import { withQueueAnomalies } from '../spans/convert.js';
import { normalise } from '../spans/normalize.js';
import { tallyCoverage } from '../spans/coverage-tally.js';
import type { ReceivedSpan } from '../spans/profiles/span.js';
import { classic } from '../../testing/journey-spans.js';
import {
  HANDLER_FAULT,
  SHAPES,
  shapeSpans,
  type DecodedShape,
  type Message,
  type Settle,
  type ShapeName,
} from '../../testing/sdk-shapes.js';
import { assemble, type Journey } from '../assemble/assemble.js';
import { rootsOf } from '../service.js';
import type { StoredRow } from './steps.js';
import type { BrokerEvidence } from './evidence.js';
import type { CounterReading } from './inference.js';
import { PROFILES } from './profiles.js';

const T = Date.parse('2026-12-03T12:00:00Z');
const MESSAGE: Message = {
  exchange: 'shop',
  routingKey: 'order.created',
  queue: 'shop.work',
  messageId: 'b1f0c4de-7a2e-4c61-9a3d-5e8f0d2c1a77',
  deliveryTag: 1,
  bodySize: 64,
};
const QUEUES: Record<string, QueueFacts> = {
  'shop.work': classic('shop.dlx'),
  'shop.dlq': { ...classic(null), role: 'dead_letter' },
};
const queues = (q: string) => QUEUES[q] ?? null;
const EXCHANGES = new ExchangeIndex(
  [
    {
      vhost: '/',
      source: '',
      destination: 'shop.work',
      destination_type: 'queue',
      routing_key: 'shop.work',
    },
    {
      vhost: '/',
      source: 'shop',
      destination: 'shop.work',
      destination_type: 'queue',
      routing_key: 'order.created',
    },
    {
      vhost: '/',
      source: 'shop.dlx',
      destination: 'shop.dlq',
      destination_type: 'queue',
      routing_key: '#',
    },
  ],
  [
    { vhost: '/', name: 'shop', type: 'direct' },
    { vhost: '/', name: 'shop.dlx', type: 'topic' },
  ],
);

/** A shape's span as the receiver decodes it. */
const decoded = (d: DecodedShape): ReceivedSpan => ({
  traceId: d.traceId,
  spanId: d.spanId,
  parentSpanId: d.parentSpanId,
  name: d.span.name,
  kind: d.span.kind,
  startUs: d.startMs * 1000,
  endUs: d.endMs * 1000,
  attributes: new Map(Object.entries(d.span.attributes)),
  statusCode: d.span.status?.code ?? 0,
  statusMessage: d.span.status?.message ?? '',
  service: 'shop-worker',
  scope: d.scope,
  links: d.links,
  traceState: '',
});

/** The journey of one message's spans, as the receiver stores and the service assembles them. */
function journeyOf(
  name: ShapeName,
  settles: Settle[],
  broker: BrokerEvidence = { parked: [] },
  m: Message = MESSAGE,
): { journey: Journey; steps: StoredRow[] } {
  const shape = SHAPES[name];
  const spans = shapeSpans(shape, m, settles, T).map(decoded);
  const steps = spans.flatMap((s) => {
    const n = normalise(s, { fromUs: 0, toUs: Number.MAX_SAFE_INTEGER }, queues);
    // A receive span of its own (Bunny's) is no step: its child, the process span, is.
    if (n.kind === 'ignored' && shape.receive && s.name === shape.receive(m).name) return [];
    if (n.kind !== 'steps') assert.fail(`${name}: ${s.name} is ${n.kind}`);
    return n.steps;
  });
  withQueueAnomalies(steps, queues, EXCHANGES);
  // One journey: every step's key leads to the same root (journeys/service.ts).
  const roots = new Set(
    rootsOf(
      steps[0]!.traceId,
      steps.map((s) => ({
        eventId: s.eventId,
        stage: s.stage,
        spanId: s.spanId,
        messageKey: (s.attrs['acktrail.message_key'] as string | undefined) ?? null,
      })),
    ).values(),
  );
  assert.equal(roots.size, 1, `${name}: one journey, not ${[...roots].join(', ')}`);
  const root = [...roots][0]!;
  const journey = assemble(root, steps, null, {
    nowMs: T + 3_600_000,
    stuckAfterSeconds: 60,
    unackedAfterSeconds: 30,
    failedStatus: null,
    words: { aggregate: 'order', done: 'processed' },
    queues,
    broker,
  });
  return { journey, steps };
}

const ACK: Settle = { op: 'ack' };
const REJECT: Settle = { op: 'reject', requeue: false };
const REQUEUE: Settle = { op: 'nack', requeue: true };
const NONE: Settle = { op: 'none' };
/** What dead-letter parking records of the rejected message: x-death names shop.work. */
const PARKED: BrokerEvidence = {
  parked: [
    {
      id: '1',
      queue: 'shop.dlq',
      from: 'shop.work',
      reason: 'rejected',
      reasonSource: 'x-death',
      deathReason: 'rejected',
      state: 'parked',
      parkedAt: new Date(T + 150),
    },
  ],
};

/** Profiles whose spans record each settle: their journeys read as the broker did it. */
const RECORDING: ShapeName[] = ['node-amqplib', 'java-agent', 'java-agent-stable', 'masstransit'];
/** Profiles whose spans record no settle. */
const SILENT: ShapeName[] = [
  'spring-amqp',
  'dotnet-client',
  'python-pika',
  'python-aio-pika',
  'ruby-bunny',
];

describe('every shape: a journey, keyed so that one lookup finds all its spans', () => {
  for (const name of Object.keys(SHAPES) as ShapeName[])
    test(name, () => {
      const { journey, steps } = journeyOf(name, [ACK]);
      assert.equal(journey.publishes, 1, name);
      assert.equal(journey.deliveries, 1, name);
      assert.ok(
        steps.every(
          (s) => s.attrs['acktrail.sdk'] === SHAPES[name].profile || s.stage === 'settle',
        ),
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
        new RegExp(
          `how it was settled is not recorded by ${escape(PROFILES[SHAPES[name].profile].sdk)}`,
        ),
      );
      assert.ok(!journey.timeline.some((e) => e.stage === 'settle'), 'no settle step invented');
      assert.equal(
        journey.timeline.find((e) => e.stage === 'deliver')?.note,
        `settle not recorded by ${PROFILES[SHAPES[name].profile].sdk}`,
      );
    });
});

describe('rejected into the dead-letter exchange', () => {
  test('node-amqplib: its span records the reject; the queue has a dead-letter exchange', () => {
    const { journey } = journeyOf('node-amqplib', [REJECT]);
    assert.deepEqual(journey.kinds, ['dead_lettered']);
    assert.equal(journey.verdict, 'dead-lettered after 1 attempt: rejected');
  });
  for (const name of ['java-agent', 'java-agent-stable'] as ShapeName[]) {
    test(`${name}: basic.reject without its requeue flag; nothing else: not recorded`, () => {
      const { journey } = journeyOf(name, [REJECT]);
      assert.deepEqual(journey.kinds, ['settle_not_recorded']);
      assert.match(
        journey.verdict,
        /^rejected at 12:00:00 on shop\.work; whether it was requeued is not recorded by OpenTelemetry Java agent/,
      );
    });
    test(`${name}: parking's record shows the broker dead-lettered it`, () => {
      const { journey } = journeyOf(name, [REJECT], PARKED);
      assert.deepEqual(journey.kinds, ['dead_lettered', 'settle_inferred']);
      assert.equal(
        journey.verdict,
        'dead-lettered after 1 attempt: rejected (shown by dead-letter parking; no span recorded the reject)',
      );
    });
  }
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
      assert.deepEqual(
        journey.inferred.map((i) => [i.fate, i.evidence, i.words]),
        [
          [
            'dead_lettered',
            'parking',
            `dead-lettered: x-death on the parked copy${journey.inferred[0]!.queue ? ` (from ${journey.inferred[0]!.queue})` : ''}; ${PROFILES[SHAPES[name].profile].sdk} records no settle`,
          ],
        ],
      );
    });
  }
});

describe('nacked with requeue, then acked', () => {
  test('node-amqplib: the requeue is recorded: retried, then processed', () => {
    const { journey } = journeyOf('node-amqplib', [REQUEUE, ACK]);
    assert.deepEqual(journey.kinds, ['retried']);
    assert.equal(journey.verdict, 'processed once at 12:00:00 after 1 retry');
  });
  for (const name of ['java-agent', 'java-agent-stable'] as ShapeName[])
    test(`${name}: basic.nack, then a second delivery: it was requeued`, () => {
      const { journey } = journeyOf(name, [REQUEUE, ACK]);
      assert.deepEqual(journey.kinds, ['retried', 'settle_inferred']);
      assert.equal(journey.deliveries, 2);
    });
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
    const span = {
      traceId: 'ab'.repeat(16),
      spanId: 'cd'.repeat(8),
      parentSpanId: 'ef'.repeat(8),
      name: 'shop.work_error send',
      kind: 4,
      startUs: T * 1000,
      endUs: T * 1000 + 5,
      attributes: new Map<string, string>([
        ['messaging.operation', 'send'],
        ['messaging.system', 'rabbitmq'],
        ['messaging.destination.name', 'shop.work_error'],
        ['messaging.masstransit.message_id', MESSAGE.messageId!],
      ]),
      statusCode: 1,
      statusMessage: '',
      service: 'shop-worker',
      scope: SHAPES.masstransit.scope,
      links: [],
      traceState: '',
    };
    const n = normalise(span, { fromUs: 0, toUs: Number.MAX_SAFE_INTEGER });
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
    const mt = (name: string, kind: number, attributes: Record<string, string>): ReceivedSpan => ({
      traceId: 'ab'.repeat(16),
      spanId: 'cd'.repeat(8),
      parentSpanId: 'ef'.repeat(8),
      name,
      kind,
      startUs: T * 1000,
      endUs: T * 1000 + 5,
      attributes: new Map(Object.entries(attributes)),
      statusCode: 1,
      statusMessage: '',
      service: 'shop-worker',
      scope: SHAPES.masstransit.scope,
      links: [],
      traceState: '',
    });
    const window = { fromUs: 0, toUs: Number.MAX_SAFE_INTEGER };
    const consume = mt('shop.work process', 5, {
      'messaging.operation': 'process',
      'messaging.masstransit.message_id': MESSAGE.messageId!,
      'messaging.masstransit.consumer_type': 'OrderCreatedConsumer',
    });
    // The consume activity is the delivery's handler: a step of the delivery, no delivery itself.
    const handler = normalise(consume, window);
    assert.deepEqual(
      handler.kind === 'steps'
        ? handler.steps.map((x) => [x.stage, x.attrs['acktrail.delivery.handler']])
        : handler,
      [['deliver', true]],
    );
    assert.equal(normalise(mt('outbox process', 3, {}), window).kind, 'ignored');
    const insert = normalise(
      mt('outbox send', 4, {
        'messaging.operation': 'send',
        'messaging.masstransit.message_id': MESSAGE.messageId!,
      }),
      window,
    );
    assert.deepEqual(
      insert.kind === 'steps' ? insert.steps.map((x) => [x.stage, x.eventId]) : insert,
      [['outbox.insert', MESSAGE.messageId]],
    );
  });
  test('coverage lists no gap its spans fill: event id, queue and settle are there', () => {
    const spans = shapeSpans(SHAPES.masstransit, MESSAGE, [ACK], T).map(decoded);
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

describe('never settled', () => {
  test('node-amqplib: the instrumentation timed its span out: never acked', () => {
    const { journey } = journeyOf('node-amqplib', [NONE]);
    assert.deepEqual(journey.kinds, ['never_acked']);
  });
  for (const name of [...SILENT, 'java-agent', 'java-agent-stable', 'masstransit'] as ShapeName[])
    test(`${name}: no settle seen: not recorded, not an ack`, () => {
      const { journey } = journeyOf(name, [NONE]);
      assert.deepEqual(journey.kinds, ['settle_not_recorded']);
    });
});

describe('the queue', () => {
  for (const name of ['dotnet-client', 'python-pika', 'python-aio-pika'] as ShapeName[])
    test(`${name}: named by the bindings where they route to one queue, and marked inferred`, () => {
      const { steps } = journeyOf(name, [ACK]);
      const deliver = steps.find((s) => s.stage === 'deliver')!;
      assert.equal(deliver.attrs['acktrail.queue'], 'shop.work');
      assert.equal(deliver.attrs['acktrail.queue.inferred'], true);
    });
  test('python-pika on the default exchange: the routing key it records is the queue', () => {
    const { steps } = journeyOf(
      'python-pika',
      [ACK],
      { parked: [] },
      {
        ...MESSAGE,
        exchange: '',
        routingKey: 'shop.work',
      },
    );
    const deliver = steps.find((s) => s.stage === 'deliver')!;
    assert.equal(deliver.attrs['acktrail.queue'], 'shop.work');
    assert.equal(deliver.attrs['acktrail.queue.inferred'], undefined, 'named, not inferred');
  });
  for (const name of [
    'node-amqplib',
    'java-agent',
    'java-agent-stable',
    'spring-amqp',
  ] as ShapeName[])
    test(`${name}: the span names it`, () => {
      const { steps } = journeyOf(name, [ACK]);
      const deliver = steps.find((s) => s.stage === 'deliver')!;
      assert.equal(deliver.attrs['acktrail.queue'], 'shop.work');
      assert.equal(deliver.attrs['acktrail.queue.inferred'], undefined);
    });
  test('an exchange that routes to two queues: no queue is guessed', () => {
    const two = new ExchangeIndex(
      [
        {
          vhost: '/',
          source: 'shop',
          destination: 'a',
          destination_type: 'queue',
          routing_key: 'k',
        },
        {
          vhost: '/',
          source: 'shop',
          destination: 'b',
          destination_type: 'queue',
          routing_key: 'k',
        },
      ],
      [{ vhost: '/', name: 'shop', type: 'direct' }],
    );
    assert.deepEqual(two.reached('shop', 'k').sort(), ['a', 'b']);
  });
});

function escape(s: string) {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

describe('spans of the same SDKs that are no message of theirs', () => {
  const read = (scope: string, name: string, kind: number, attrs: Record<string, string>) =>
    normalise(
      {
        traceId: 'ab'.repeat(16),
        spanId: '00000000000000aa',
        parentSpanId: '',
        name,
        kind,
        startUs: T * 1000,
        endUs: T * 1000 + 10,
        attributes: new Map(Object.entries(attrs)),
        statusCode: 0,
        statusMessage: '',
        service: 'svc',
        scope: { name: scope, version: '' },
        links: [],
        traceState: '',
      },
      { fromUs: 0, toUs: Number.MAX_SAFE_INTEGER },
    );
  test("the Java agent's HTTP client span with acktrail's provider attributes is a provider call", () => {
    const n = read('io.opentelemetry.java-http-client', 'POST', 3, {
      'acktrail.event_id': 'e1',
      'acktrail.provider.name': 'mail',
    });
    assert.equal(n.kind === 'steps' ? n.steps[0]!.stage : n.kind, 'provider.call');
  });
  test(".NET's BasicGet on an empty queue is no delivery", () => {
    const n = read('RabbitMQ.Client.Subscriber', 'fetch (empty) shop.work', 5, {
      'messaging.system': 'rabbitmq',
      'messaging.operation.type': 'receive',
      'messaging.operation.name': 'fetch (empty)',
    });
    assert.equal(n.kind, 'ignored');
  });
  test('a span of an unknown instrumentation without an event id or RabbitMQ is ignored', () => {
    assert.equal(
      read('kafka-things', 'orders send', 4, { 'messaging.system': 'kafka' }).kind,
      'ignored',
    );
  });
});

describe("where the spans are silent, the broker's counters and silence decide (inference.ts)", () => {
  /** A reading of shop.work's counters `s` seconds after T. */
  const at = (s: number, delivered: number, acked: number, unacked: number, consumers = 1) => ({
    queue: 'shop.work',
    atMs: T + s * 1000,
    delivered,
    acked,
    unacked,
    consumers,
  });
  const evidence = (
    readings: CounterReading[],
    watched: string | null = null,
    nowMs = T + 3_600_000,
  ): BrokerEvidence => ({
    parked: [],
    settle: {
      nowMs,
      boundMs: 30_000,
      readings,
      watched: (q) => (q === 'shop.work' && watched ? { queue: watched, by: 'parking' } : null),
      // The publish's bindings reach shop.work alone (Bunny's delivery names no queue).
      publishedTo: 'shop.work',
    },
  });
  // Ten delivered and acked before; three more (this one among them) after, all acked.
  const CLEAN = [at(-30, 10, 10, 0), at(60, 13, 13, 0)];
  const DIRTY = [at(-30, 10, 10, 0), at(60, 13, 12, 0)];

  for (const name of SILENT) {
    test(`${name}: acked, and the counters account for every delivery: processed once, inferred`, () => {
      const { journey } = journeyOf(name, [ACK], evidence(CLEAN));
      assert.deepEqual(journey.kinds, ['delivered_once', 'settle_inferred']);
      assert.match(
        journey.verdict,
        /^processed once at 12:00:00; inferred, acked: the broker's counters of shop\.work account for every delivery from 11:59:30 to 12:01:00 \(3 delivered, 3 acked/,
      );
      assert.match(
        journey.verdict,
        new RegExp(`${escape(PROFILES[SHAPES[name].profile].sdk)} records no ack$`),
      );
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
        evidence([at(-30, 10, 10, 0), at(60, 11, 10, 0, 0)], 'shop.dlq'),
      );
      assert.deepEqual(journey.kinds, ['settle_not_recorded']);
      assert.doesNotMatch(journey.verdict, /processed once/);
    });
  }

  test('no dead letter where acktrail parks them, not delivered again, the queue drained: acked', () => {
    // Counters without the delivery counts (a broker that gives depths only).
    const depths = [
      { ...at(-30, 0, 0, 0), delivered: null, acked: null },
      { ...at(60, 0, 0, 0, 2), delivered: null, acked: null },
    ];
    const { journey } = journeyOf('dotnet-client', [ACK], evidence(depths, 'shop.dlq'));
    assert.deepEqual(journey.kinds, ['delivered_once', 'settle_inferred']);
    assert.match(
      journey.verdict,
      /inferred, acked: no dead letter in shop\.dlq \(parked by acktrail\) within 30 s, not delivered again, and shop\.work had nothing unacked at 12:01:00 with 2 consumer\(s\)/,
    );
  });

  test("the Java agent's basic.reject, no dead letter where parked, not delivered again: requeued", () => {
    const { journey } = journeyOf('java-agent', [REJECT], evidence(DIRTY, 'shop.dlq'));
    assert.deepEqual(
      journey.inferred.map((i) => [i.fate, i.evidence]),
      [['requeued', 'no_dead_letter']],
    );
    assert.doesNotMatch(journey.verdict, /processed once/);
  });

  test('within the bound nothing is decided yet', () => {
    const { journey } = journeyOf('python-pika', [ACK], evidence(CLEAN, null, T + 10_000));
    assert.deepEqual(journey.kinds, ['settle_not_recorded']);
    assert.match(
      journey.verdict,
      /not decided yet: the broker's evidence is read for 30 s after the delivery/,
    );
  });

  test('a dead letter that turns up after the inference wins at the next read', () => {
    const inferred = journeyOf('python-aio-pika', [ACK], evidence(CLEAN)).journey;
    assert.match(inferred.verdict, /^processed once/);
    const later = journeyOf('python-aio-pika', [ACK], {
      ...evidence(CLEAN),
      parked: PARKED.parked,
    }).journey;
    assert.deepEqual(later.kinds, ['dead_lettered', 'settle_inferred']);
    assert.doesNotMatch(later.verdict, /processed once/);
    // And a second delivery of the message: the first came back, the second is decided on its own.
    const back = journeyOf('python-aio-pika', [ACK, ACK], evidence(CLEAN)).journey;
    assert.deepEqual(
      back.inferred.map((i) => [i.fate, i.evidence]),
      [
        ['came_back', 'later_delivery'],
        ['acked', 'counters'],
      ],
    );
  });
});
