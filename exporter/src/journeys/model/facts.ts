// What a journey's steps say, whichever instrumentation made them: the publishes, each delivery
// with how it ended (its settle, or why it has none) and what the broker did next, retries and
// dead letters. acktrail's attributes refine the facts; without them (stock OpenTelemetry spans)
// the same facts come from the steps' stages, order and status, and from what the exporter knows
// about the queue (QueueFacts).
import { ATTR, isPublish } from '@acktrail/conventions';
import type { QueueLookup } from '../../broker/topology.js';
import type { StoredRow } from './steps.js';
import { STEP_ATTR } from './steps.js';
import { applyBrokerEvidence, NO_EVIDENCE, type BrokerEvidence } from './evidence.js';
import type { Reason } from './reason.js';
import { inferSettles } from './inference.js';
import { applyFaultPath } from './fault-path.js';
import { rejectFate, storedDecision, type Fate } from './fate.js';
import { NO_RESULT_WORDS, isDone, meaningOf, type ResultWords } from './results.js';
import { PROFILES, type ProfileId } from '../profiles/index.js';
import { outcomeOf, requeueUnknown, type SettleRecording } from './settle.js';
import type { Delivery } from './delivery.js';

export type { Delivery };

export interface JourneyFacts {
  publishes: StoredRow[];
  unroutable: StoredRow[];
  deliveries: Delivery[];
  retryPublishes: StoredRow[];
  /** Publishes to a dead-letter exchange made by the consumer itself (stage dead_letter). */
  deadLetterSteps: StoredRow[];
  providerCalls: StoredRow[];
  /** Replays of the parked dead letter by an operator (acktrail's own steps). */
  replays: StoredRow[];
}

export type { QueueLookup };

const str = (v: unknown) => (typeof v === 'string' ? v : null);

/**
 * The deliveries of a journey: a consumer span inside another one (Spring's listener span in the
 * Java agent's process span) is the same delivery. Returns the outer ones, and each span id of a
 * delivery (its own and its inner ones') -> the outer one.
 */
function outerDeliveries(delivers: StoredRow[]): {
  outer: StoredRow[];
  spans: Map<string, StoredRow>;
} {
  const byId = new Map(delivers.map((d) => [d.spanId, d]));
  const spans = new Map<string, StoredRow>();
  const outerOf = (d: StoredRow): StoredRow => {
    let o = d;
    for (let i = 0; i < 8 && o.parentSpanId !== null && byId.has(o.parentSpanId); i++)
      o = byId.get(o.parentSpanId)!;
    return o;
  };
  for (const d of delivers) spans.set(d.spanId, outerOf(d));
  return { outer: delivers.filter((d) => spans.get(d.spanId) === d), spans };
}

/** The settle of each delivery: its child, or else the first free settle after it on its queue. */
function pairSettles(
  delivers: StoredRow[],
  settles: StoredRow[],
  spans: Map<string, StoredRow>,
): Map<StoredRow, StoredRow> {
  const paired = new Map<StoredRow, StoredRow>();
  const used = new Set<StoredRow>();
  for (const d of delivers) {
    const child = settles.find(
      (s) => s.parentSpanId !== null && spans.get(s.parentSpanId) === d && !used.has(s),
    );
    if (child) {
      paired.set(d, child);
      used.add(child);
    }
  }
  for (const d of delivers) {
    if (paired.has(d)) continue;
    const queue = str(d.attrs[ATTR.queue]);
    const next = settles.find(
      (s) =>
        !used.has(s) &&
        s.timeUs >= d.timeUs &&
        (queue === null || str(s.attrs[ATTR.queue]) === null || str(s.attrs[ATTR.queue]) === queue),
    );
    if (next) {
      paired.set(d, next);
      used.add(next);
    }
  }
  return paired;
}

/** How the delivery's instrumentation records settles (its profile); null for older rows. */
function recordingOf(step: StoredRow): SettleRecording | null {
  const sdk = str(step.attrs[STEP_ATTR.sdk]);
  return sdk !== null && sdk in PROFILES ? PROFILES[sdk as ProfileId].settle : null;
}

/** How a delivery ended where no settle outcome says: by what its instrumentation records. */
function unsettledFate(step: StoredRow, recording: SettleRecording | null, paired: boolean): Fate {
  // A MassTransit receive ends with ok or error after its settle: without either, nothing says.
  if (
    recording === 'none' ||
    recording === 'settle-spans-in-handler' ||
    recording === 'span-status'
  )
    return 'unrecorded';
  return !paired && step.status === 'error' ? 'returned' : 'open';
}

export function factsOf(
  steps: StoredRow[],
  queues: QueueLookup,
  words: ResultWords = NO_RESULT_WORDS,
  broker: BrokerEvidence = NO_EVIDENCE,
): JourneyFacts {
  const of = (stage: string) => steps.filter((s) => s.stage === stage);
  const publishSteps = steps.filter((s) => isPublish(s.stage));
  const unroutable = publishSteps.filter((s) => s.attrs[ATTR.publishOutcome] === 'unroutable');
  const { outer: delivers, spans } = outerDeliveries(
    of('deliver').sort((a, b) => a.timeUs - b.timeUs),
  );
  const settles = of('settle').sort((a, b) => a.timeUs - b.timeUs);
  const pairs = pairSettles(delivers, settles, spans);
  // Returns so far, per queue: a quorum queue's delivery limit counts them.
  const returnsSoFar = new Map<string, number>();
  const deliveries = delivers.map((step): Delivery => {
    const queue = str(step.attrs[ATTR.queue]);
    const settleStep = pairs.get(step);
    const outcome = settleStep ? outcomeOf(settleStep.attrs) : null;
    let returns: number | null = null;
    if (outcome === 'nack_requeue') {
      returns = (returnsSoFar.get(queue ?? '') ?? 0) + 1;
      returnsSoFar.set(queue ?? '', returns);
    }
    const decision = outcome
      ? (storedDecision(settleStep?.anomaly ?? null, outcome) ??
        rejectFate(outcome, queue === null ? null : queues(queue), returns))
      : null;
    const recording = recordingOf(step);
    const operation = settleStep ? requeueUnknown(settleStep.attrs) : null;
    const fate: Fate = decision
      ? decision.fate
      : outcome === 'ack'
        ? 'acked'
        : operation !== null
          ? 'not_acked'
          : unsettledFate(step, recording, settleStep !== undefined);
    // The settle's own result first: it is what the metrics see of it.
    const result = str(settleStep?.attrs[ATTR.result]) ?? str(step.attrs[ATTR.result]);
    const redelivered = step.attrs[ATTR.redelivered];
    const attempt = Number(step.attrs[ATTR.attempt]);
    return {
      step,
      queue,
      settle: settleStep && outcome ? { outcome, step: settleStep } : null,
      unknownSettle: settleStep && operation ? { operation, step: settleStep } : null,
      fate,
      evidence: null,
      evidenceWords: null,
      settledAtUs: null,
      recording,
      sdk: str(step.attrs[STEP_ATTR.sdk]),
      reason: decision?.reason ? { text: decision.reason, by: 'acktrail' } : null,
      redelivered: typeof redelivered === 'boolean' ? redelivered : null,
      attempt: Number.isInteger(attempt) && attempt > 0 ? attempt : null,
      result,
      meaning: meaningOf(result, words),
      done: isDone(outcome, result, words, queue === null ? null : queues(queue)),
    };
  });
  const publishes = publishSteps.filter((s) => !unroutable.includes(s));
  applyFaultPath(deliveries, of('deliver'), spans);
  applyBrokerEvidence(deliveries, publishes.length, queues, broker);
  // Without the broker's counters and watch (no store, rabbitmq off), settles stay not recorded.
  if (broker.settle) inferSettles(deliveries, queues, broker.settle);
  // An inferred ack did the work as a recorded one would (results.ts).
  for (const d of deliveries)
    if (d.fate === 'acked' && d.settle === null && d.evidence !== null)
      d.done = isDone('ack', d.result, words, d.queue === null ? null : queues(d.queue));
  return {
    publishes,
    unroutable,
    deliveries,
    retryPublishes: of('retry.publish'),
    deadLetterSteps: of('dead_letter'),
    providerCalls: of('provider.call'),
    replays: of('replay'),
  };
}

/** A delivery out of a dead-letter queue (its role, from the broker's description): the message
 * was dead-lettered, and the reason its x-death names, where the instrumentation records it. */
export function dlqDelivery(d: Delivery, queues: QueueLookup): { reason: Reason | null } | null {
  const facts = d.queue === null ? null : queues(d.queue);
  if (facts?.role !== 'dead_letter') return null;
  const text = str(d.step.attrs[ATTR.deadLetterReason]);
  return { reason: text === null ? null : { text, by: 'span' } };
}
