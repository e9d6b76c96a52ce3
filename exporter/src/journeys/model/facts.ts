// What a journey's steps say, whichever instrumentation made them: the publishes, each delivery
// with how it ended (its settle, or why it has none) and what the broker did next, retries and
// dead letters. acktrail's attributes refine the facts; without them (stock OpenTelemetry spans)
// the same facts come from the steps' stages, order and status, and from what the exporter knows
// about the queue (QueueFacts).
import { ATTR, isPublish, type SettleOutcome } from '@acktrail/conventions';
import type { QueueLookup } from '../../broker/catalog.js';
import type { StoredRow } from '../store/queries.js';
import { rejectFate } from './fate.js';
import {
  NO_RESULT_WORDS,
  isDone,
  meaningOf,
  type ResultMeaning,
  type ResultWords,
} from './results.js';
import { outcomeOf } from './settle.js';

/** What became of a message after one delivery. */
export type Fate =
  /** Acked: the consumer is done with it (whether it did the work says `Delivery.done`). */
  | 'acked'
  /** Requeued (nack or reject with requeue): it comes back. */
  | 'requeued'
  /** Rejected or nacked without requeue into a dead-letter exchange. */
  | 'dead_lettered'
  /** Rejected without requeue on a queue without a dead-letter exchange: gone. */
  | 'discarded'
  /** Rejected without requeue; what the queue does with it is not known (its arguments unread). */
  | 'rejected'
  /** The delivery ended without a settle (channel closed or failed): it comes back. */
  | 'returned'
  /** No settle yet. */
  | 'open';

export interface Delivery {
  step: StoredRow;
  queue: string | null;
  settle: { outcome: SettleOutcome; step: StoredRow } | null;
  fate: Fate;
  /** Why the broker dead-lettered or dropped it after this delivery, where known. */
  reason: string | null;
  /** The broker's redelivered flag; null when the instrumentation does not record it. */
  redelivered: boolean | null;
  attempt: number | null;
  /** The consumer's own word for what it did (acktrail.result), if it said. */
  result: string | null;
  /** What that word means (journeys.words.results). */
  meaning: ResultMeaning;
  /** This delivery did the event's work: acked, with a result that says so (results.ts). */
  done: boolean;
}

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

/** The settle of each delivery: its child, or else the first free settle after it on its queue. */
function pairSettles(delivers: StoredRow[], settles: StoredRow[]): Map<StoredRow, StoredRow> {
  const paired = new Map<StoredRow, StoredRow>();
  const used = new Set<StoredRow>();
  for (const d of delivers) {
    const child = settles.find((s) => s.parentSpanId === d.spanId && !used.has(s));
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

export function factsOf(
  steps: StoredRow[],
  queues: QueueLookup,
  words: ResultWords = NO_RESULT_WORDS,
): JourneyFacts {
  const of = (stage: string) => steps.filter((s) => s.stage === stage);
  const publishSteps = steps.filter((s) => isPublish(s.stage));
  const unroutable = publishSteps.filter((s) => s.attrs[ATTR.publishOutcome] === 'unroutable');
  const delivers = of('deliver').sort((a, b) => a.timeUs - b.timeUs);
  const settles = of('settle').sort((a, b) => a.timeUs - b.timeUs);
  const pairs = pairSettles(delivers, settles);
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
      ? rejectFate(outcome, queue === null ? null : queues(queue), returns)
      : null;
    const fate: Fate = decision
      ? decision.fate === 'unknown'
        ? 'rejected'
        : decision.fate
      : outcome === 'ack'
        ? 'acked'
        : settleStep === undefined && step.status === 'error'
          ? 'returned'
          : 'open';
    // The settle's own result first: it is what the metrics see of it.
    const result = str(settleStep?.attrs[ATTR.result]) ?? str(step.attrs[ATTR.result]);
    const redelivered = step.attrs[ATTR.redelivered];
    const attempt = Number(step.attrs[ATTR.attempt]);
    return {
      step,
      queue,
      settle: settleStep && outcome ? { outcome, step: settleStep } : null,
      fate,
      reason: decision?.reason ?? null,
      redelivered: typeof redelivered === 'boolean' ? redelivered : null,
      attempt: Number.isInteger(attempt) && attempt > 0 ? attempt : null,
      result,
      meaning: meaningOf(result, words),
      done: isDone(outcome, result, words, queue === null ? null : queues(queue)),
    };
  });
  return {
    publishes: publishSteps.filter((s) => !unroutable.includes(s)),
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
export function dlqDelivery(d: Delivery, queues: QueueLookup): { reason: string | null } | null {
  const facts = d.queue === null ? null : queues(d.queue);
  return facts?.role === 'dead_letter'
    ? { reason: str(d.step.attrs[ATTR.deadLetterReason]) }
    : null;
}
