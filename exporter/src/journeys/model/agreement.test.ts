// The three callers of the journey model agree. Every fixture journey goes through the receiver
// (convertSpans and withQueueAnomalies, as the receiver does, then the delivery limits as a write applies them: all spans in one write, and one
// span per write with the returns stored before), the assembler (its deliveries and kinds) and
// the metrics (acktrail_messages_rejected_total and the end_to_end duration). A reject's fate, a
// step's anomaly and "done" must come out the same in all three.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Registry } from 'prom-client';
import { Exemplars } from '../../exposition/exemplars.js';
import { convertSpans, withQueueAnomalies } from '../spans/convert.js';
import type { ReceivedSpan } from '../profiles/index.js';
import {
  EVENT,
  NACK_NO_REQUEUE,
  NACK_REQUEUE,
  QUEUES,
  REJECT,
  T,
  ours,
  span,
  stock,
} from '../../../testing/journey-spans.js';
import { assemble } from '../assemble/assemble.js';
import { JourneyMetrics, NO_BROKER } from '../metrics.js';
import type { Step } from './steps.js';
import {
  NO_RESULT_WORDS,
  applyDeliveryLimits,
  factsOf,
  fateOfStored,
  limitedReturns,
  REJECT_FATES,
  type ResultWords,
} from './index.js';

const queues = (q: string) => QUEUES[q] ?? null;
const WORDS: ResultWords = { done: ['booked'], alreadyDone: ['seen_before'], stale: [] };

interface Fixture {
  name: string;
  spans: () => ReceivedSpan[];
  words: ResultWords;
}

const stockJourney = (name: string, ...delivers: [string, 'ack' | [number, string]][]) => ({
  name: `stock spans: ${name}`,
  words: NO_RESULT_WORDS,
  spans: () => [
    span(stock.publish(0)),
    ...delivers.map(([q, ended], i) => span(stock.deliver(10 + i * 20, q, ended))),
  ],
});

/**
 * acktrail's spans: a delivery with its settle outcome and the consumer's result word on it (as
 * @acktrail/instrument writes them), or with a settle span of its own that repeats the result.
 */
const ourDelivery = (at: number, queue: string, outcome: string, result?: string) => {
  const said: Record<string, string> = result ? { 'acktrail.result': result } : {};
  if (at % 40 === 10)
    return [span(ours.deliver(at, queue, { ...said, 'acktrail.settle.outcome': outcome }))];
  const d = span(ours.deliver(at, queue, said));
  const settle = ours.settle(at + 5, outcome, d, queue);
  return [d, span({ ...settle, attrs: { ...settle.attrs, ...said } })];
};

const FIXTURES: Fixture[] = [
  stockJourney('acked', ['payments.capture', 'ack']),
  stockJourney(
    'requeued, then acked',
    ['payments.capture', NACK_REQUEUE],
    ['payments.capture', 'ack'],
  ),
  stockJourney(
    'a quorum queue past its delivery limit, into its dead-letter exchange',
    ['payments.ledger', NACK_REQUEUE],
    ['payments.ledger', NACK_REQUEUE],
    ['payments.ledger', NACK_REQUEUE],
  ),
  stockJourney(
    'a quorum queue past its delivery limit, without a dead-letter exchange',
    ['payments.ledger-nodlx', NACK_REQUEUE],
    ['payments.ledger-nodlx', NACK_REQUEUE],
    ['payments.ledger-nodlx', NACK_REQUEUE],
  ),
  stockJourney('rejected into a dead-letter exchange', ['payments.capture', REJECT]),
  stockJourney('nacked on a queue without one', ['payments.refunds', NACK_NO_REQUEUE]),
  stockJourney('rejected on a queue the exporter does not know', ['elsewhere', REJECT]),
  stockJourney(
    'rejected, then delivered out of the dead-letter queue',
    ['payments.capture', REJECT],
    ['payments.dlq', 'ack'],
  ),
  {
    name: "acktrail's spans: the done word",
    words: WORDS,
    spans: () => [span(ours.publish(0)), ...ourDelivery(10, 'payments.capture', 'ack', 'booked')],
  },
  {
    name: "acktrail's spans: published twice, the second copy already done",
    words: WORDS,
    spans: () => [
      span(ours.publish(0)),
      span(ours.publish(5)),
      ...ourDelivery(10, 'payments.capture', 'ack', 'booked'),
      ...ourDelivery(30, 'payments.capture', 'ack', 'seen_before'),
    ],
  },
  {
    name: "acktrail's spans: acked without doing the work (no done word)",
    words: WORDS,
    spans: () => [span(ours.publish(0)), ...ourDelivery(10, 'payments.capture', 'ack', 'skipped')],
  },
  {
    name: "acktrail's spans: requeued past the quorum limit",
    words: WORDS,
    spans: () => [
      span(ours.publish(0)),
      ...ourDelivery(10, 'payments.ledger', 'nack_requeue'),
      ...ourDelivery(30, 'payments.ledger', 'nack_requeue'),
      ...ourDelivery(50, 'payments.ledger', 'nack_requeue'),
    ],
  },
  {
    name: "acktrail's spans: rejected on a queue without a dead-letter exchange",
    words: WORDS,
    spans: () => [span(ours.publish(0)), ...ourDelivery(10, 'payments.refunds', 'reject')],
  },
];

const WINDOW = { fromUs: 0, toUs: Number.MAX_SAFE_INTEGER };

/** The steps as the receiver stores them, written `perWrite` spans at a time. */
function ingest(spans: ReceivedSpan[], perWrite: number): Step[] {
  const stored: Step[] = [];
  for (let i = 0; i < spans.length; i += perWrite) {
    // The receiver's own path: converted without the queues (as a decoding worker does), then
    // completed with them.
    const part = spans.slice(i, i + perWrite);
    const { steps: batch, accepted } = convertSpans(part, WINDOW);
    if (accepted !== part.length) throw new Error(`a fixture span of ${i}.. is not a step`);
    withQueueAnomalies(batch, queues);
    applyDeliveryLimits(batch, limitedReturns(stored, queues), queues);
    stored.push(...batch);
  }
  return stored;
}

/** What the metrics count for these steps: reject fates, and end_to_end observations. */
async function metricsOf(steps: Step[], words: ResultWords) {
  const registry = new Registry();
  const metrics = new JourneyMetrics(registry, queues, NO_BROKER, new Exemplars(), words);
  metrics.observe({
    inserted: steps.map((step) => ({ step, parent: null })),
    publishes: new Map(),
    startedAt: new Map([[EVENT, T * 1000]]),
    ordering: [],
  });
  const fates: string[] = [];
  for (const v of (await registry.getSingleMetric('acktrail_messages_rejected_total')!.get())
    .values)
    for (let i = 0; i < v.value; i++) fates.push(String(v.labels.fate));
  const count = /^acktrail_stage_duration_seconds_count\{stage="end_to_end"\} (\d+)$/m.exec(
    await registry.metrics(),
  );
  return { fates: fates.sort(), endToEnd: Number(count?.[1] ?? 0) };
}

describe('the receiver, the assembler and the metrics agree', () => {
  for (const f of FIXTURES)
    test(f.name, async () => {
      const spans = f.spans();
      const whole = ingest(spans, spans.length);
      const oneByOne = ingest(spans, 1);
      assert.deepEqual(
        oneByOne.map((s) => s.anomaly),
        whole.map((s) => s.anomaly),
        'the anomalies do not depend on how the spans were grouped into writes',
      );

      const atIngest = whole.flatMap((s) => fateOfStored(s) ?? []).sort();
      const facts = factsOf(whole, queues, f.words);
      // One vocabulary: a delivery's fate is the stored anomaly's and the metric's label as it is.
      const rejects: readonly string[] = REJECT_FATES;
      const assembled = facts.deliveries.flatMap((d) => (rejects.includes(d.fate) ? [d.fate] : []));
      assembled.sort();
      const metrics = await metricsOf(whole, f.words);
      assert.deepEqual(assembled, atIngest, 'fates: assembler against the stored anomalies');
      assert.deepEqual(metrics.fates, atIngest, 'fates: metrics against the stored anomalies');

      const journey = assemble(EVENT, whole, null, {
        nowMs: T + 60_000,
        stuckAfterSeconds: 60,
        unackedAfterSeconds: 30,
        failedStatus: null,
        words: { aggregate: 'payment', done: 'booked', results: f.words },
        queues,
      });
      for (const anomaly of ['dead_lettered', 'discarded', 'rejected'] as const)
        assert.equal(
          whole.some((s) => s.anomaly === anomaly),
          journey.kinds.includes(anomaly),
          `?anomaly=${anomaly} lists it exactly when its journey is ${anomaly}`,
        );

      const doers = facts.deliveries.filter((d) => d.done).length;
      assert.equal(
        metrics.endToEnd,
        doers,
        'end_to_end observed once per delivery that did the work',
      );
      assert.equal(
        /^booked once at/.test(journey.verdict),
        doers > 0,
        `the verdict says done exactly when a delivery did the work: ${journey.verdict}`,
      );
    });
});

test('a return past the delivery limit is a dead letter in all three, counted across writes', () => {
  const spans = FIXTURES[2]!.spans();
  const steps = ingest(spans, 1);
  assert.deepEqual(
    steps.flatMap((s) => fateOfStored(s) ?? []),
    ['requeued', 'requeued', 'dead_lettered'],
  );
});

test('a sampled service: each reject counts its adjusted count (tracestate ot=th), once per span', async () => {
  // th:c: a 25 % consistent-probability sample, so the span stands for 4 messages.
  const sampled = (at: number, ended: [number, string]) => ({
    ...stock.deliver(at, 'payments.capture', ended),
    traceState: 'congo=t61rcWkgMzE,ot=th:c',
  });
  const spans = [span(stock.publish(0)), span(sampled(10, REJECT)), span(sampled(30, REJECT))];
  const steps = ingest(spans, spans.length);
  assert.deepEqual((await metricsOf(steps, NO_RESULT_WORDS)).fates, Array(8).fill('dead_lettered'));
  // Without a threshold each span is one message.
  const plain = ingest(
    [span(stock.publish(0)), span(stock.deliver(10, 'payments.capture', REJECT))],
    2,
  );
  assert.deepEqual((await metricsOf(plain, NO_RESULT_WORDS)).fates, ['dead_lettered']);
});
