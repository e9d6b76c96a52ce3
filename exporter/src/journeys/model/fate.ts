// What the broker does with a message once its consumer settled it without an ack: the one rule
// the receiver (a step's anomaly at ingest), the assembler (a delivery's fate) and the metrics
// (acktrail_messages_rejected_total{fate}) all apply. It reads the queue's facts as the exporter
// knows them: its dead-letter exchange and, for a quorum queue, its delivery limit.
import { ATTR, type SettleOutcome } from '@acktrail/conventions';
import type { QueueFacts, QueueLookup } from '../../broker/topology.js';
import type { Step, StepAnomaly } from './steps.js';
import { outcomeOf } from './settle.js';

/**
 * What became of a message after one delivery: the one vocabulary of the journey (Delivery.fate),
 * the step's anomaly and the metric's fate label.
 */
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
  | 'open'
  /** Its instrumentation records no settle, and the broker showed nothing of it since. */
  | 'unrecorded'
  /** Nacked or rejected; its instrumentation does not record the requeue flag. */
  | 'not_acked'
  /** Not recorded how it ended, but the message came back: requeued, or its channel closed. */
  | 'came_back';

/** The fates of a settle other than an ack, the values of acktrail_messages_rejected_total{fate}. */
export const REJECT_FATES = ['requeued', 'dead_lettered', 'discarded', 'rejected'] as const;
export type RejectFate = Extract<Fate, (typeof REJECT_FATES)[number]>;

export interface RejectDecision {
  fate: RejectFate;
  /** Why the broker dead-lettered or dropped it: x-death's words. */
  reason: 'rejected' | 'delivery_limit' | null;
}

/**
 * The fate of a settle: null for an ack. `returns`: the times the message was returned to this
 * queue, this return included, where known; a quorum queue dead-letters (or drops) a message
 * returned more often than its delivery limit.
 */
export function rejectFate(
  outcome: SettleOutcome,
  queue: QueueFacts | null,
  returns: number | null,
): RejectDecision | null {
  const gone = (q: QueueFacts) => (q.deadLetterExchange === null ? 'discarded' : 'dead_lettered');
  switch (outcome) {
    case 'ack':
      return null;
    case 'nack_requeue': {
      const limit = queue?.deliveryLimit ?? null;
      return limit !== null && returns !== null && returns > limit
        ? { fate: gone(queue!), reason: 'delivery_limit' }
        : { fate: 'requeued', reason: null };
    }
    case 'nack':
    case 'reject':
      return { fate: queue === null ? 'rejected' : gone(queue), reason: 'rejected' };
  }
}

/**
 * A settle's fate as it was decided when it was stored, with the broker's facts of that moment
 * (the receiver waits for them: broker/refresh.ts); null where they were not known then (decide it
 * now, from today's facts). A queue whose dead-letter exchange a policy removed since does not
 * turn yesterday's dead letters into discarded messages.
 */
export function storedDecision(
  anomaly: string | null,
  outcome: SettleOutcome,
): RejectDecision | null {
  if (anomaly !== 'dead_lettered' && anomaly !== 'discarded') return null;
  if (outcome === 'nack' || outcome === 'reject') return { fate: anomaly, reason: 'rejected' };
  return outcome === 'nack_requeue' ? { fate: anomaly, reason: 'delivery_limit' } : null;
}

/** The step anomaly a fate is stored as (a requeue is none: the message comes back). */
export function anomalyOfFate(fate: RejectFate): StepAnomaly | null {
  return fate === 'requeued' ? null : fate;
}

/** The fate a stored settle step was given at ingest (its anomaly), null for an ack. */
export function fateOfStored(step: Pick<Step, 'stage' | 'attrs' | 'anomaly'>): RejectFate | null {
  if (step.stage !== 'settle') return null;
  const outcome = outcomeOf(step.attrs);
  if (outcome === null || outcome === 'ack') return null;
  switch (step.anomaly) {
    case 'dead_lettered':
    case 'discarded':
    case 'rejected':
      return step.anomaly;
    default:
      return outcome === 'nack_requeue' ? 'requeued' : 'rejected';
  }
}

/** A return of a message to a queue: a settle with outcome nack_requeue. */
export interface Return {
  eventId: string;
  queue: string;
  timeUs: number;
  spanId: string;
}

const queueOf = (s: Step) => {
  const q = s.attrs[ATTR.queue];
  return typeof q === 'string' ? q : null;
};

/** The returns in `steps` to queues with a delivery limit: only these need the count. */
export function limitedReturns(steps: readonly Step[], queues: QueueLookup): Return[] {
  const out: Return[] = [];
  for (const s of steps) {
    const queue = queueOf(s);
    if (s.stage !== 'settle' || queue === null || outcomeOf(s.attrs) !== 'nack_requeue') continue;
    if ((queues(queue)?.deliveryLimit ?? null) === null) continue;
    out.push({ eventId: s.eventId, queue, timeUs: s.timeUs, spanId: s.spanId });
  }
  return out;
}

/**
 * Gives each return past its queue's delivery limit its fate, counting the returns before it:
 * those already stored (`stored`) and those in the same write, each once, in time order (as the
 * assembler counts a journey's).
 */
export function applyDeliveryLimits(
  steps: Step[],
  stored: readonly Return[],
  queues: QueueLookup,
): void {
  const returns = limitedReturns(steps, queues);
  if (returns.length === 0) return;
  const seen = new Map<string, Return>();
  for (const r of [...stored, ...returns]) seen.set(r.spanId + r.eventId, r);
  const all = [...seen.values()];
  for (const s of steps) {
    const queue = queueOf(s);
    if (s.stage !== 'settle' || queue === null || outcomeOf(s.attrs) !== 'nack_requeue') continue;
    const n = all.filter(
      (r) => r.eventId === s.eventId && r.queue === queue && r.timeUs <= s.timeUs,
    ).length;
    const decision = rejectFate('nack_requeue', queues(queue), n);
    if (decision) s.anomaly = anomalyOfFate(decision.fate);
  }
}
