// A journey step as the exporter stores it: the contract's Step (@acktrail/conventions) with
// the stages of Celery task journeys (exporter/src/celery/) beside the span stages.
import {
  STAGES,
  STEP_ANOMALIES,
  type Step as ContractStep,
  type Stage as SpanStage,
} from '@acktrail/conventions';

export { STAGES };
export type { AttributeValue } from '@acktrail/conventions';

/** Stages of Celery task journeys (exporter/src/celery/), one per task event type. */
export const CELERY_STAGES = [
  'celery.sent',
  'celery.received',
  'celery.started',
  'celery.succeeded',
  'celery.failed',
  'celery.retried',
  'celery.revoked',
  'celery.rejected',
] as const;
/**
 * Steps acktrail writes itself, never taken from a span (the receiver knows only STAGES): an
 * operator's replay of a parked dead letter (exporter/src/deadletters/).
 */
export const OWN_STAGES = ['replay'] as const;
export type Stage = SpanStage | (typeof CELERY_STAGES)[number] | (typeof OWN_STAGES)[number];

/** Single-step anomalies, stored with the step so that listing them is an index scan. */
export { STEP_ANOMALIES };
export type StepAnomaly = (typeof STEP_ANOMALIES)[number];

/**
 * Attributes the exporter adds to a stored step: read from no span, they say how the receiver
 * read it (journeys/spans/normalize.ts, journeys/profiles/).
 */
export const STEP_ATTR = {
  /** On a replay step: the operator who replayed the dead letter, and the queue it went to. */
  replayBy: 'acktrail.replay.by',
  replayQueue: 'acktrail.replay.queue',
  /**
   * The instrumentation profile that wrote the span (journeys/profiles/): on a delivery,
   * it says how its settle is recorded, so that a missing settle is told from one that nothing
   * records.
   */
  sdk: 'acktrail.sdk',
  /** Set on a settle step acktrail derived from the end of a consumer span. */
  derivedSettle: 'acktrail.settle.derived',
  /**
   * The message's creation context, "<trace id>-<span id>": a publish's own span, a delivery's
   * link or parent (the context its instrumentation propagated in the message's headers).
   */
  messageKey: 'acktrail.message_key',
  /** The queue came from the broker's bindings: the span named only the exchange and key. */
  queueInferred: 'acktrail.queue.inferred',
  /** A name that is the exchange, or the queue on the default exchange (Python's spans). */
  exchangeOrQueue: 'acktrail.destination.either',
  /**
   * How many messages the span stands for where its service samples with a threshold in its
   * tracestate (ot=th: spans/adjusted-count.ts); absent: 1. Span-derived counters add it.
   */
  adjustedCount: 'acktrail.adjusted_count',
  /**
   * On a consumer span inside its delivery's (MassTransit's "<endpoint> process" in its receive):
   * the handler, part of that delivery and no delivery of its own; its status says whether the
   * handler threw (model/facts.ts: the fault path).
   */
  handler: 'acktrail.delivery.handler',
} as const;

export type Step = Omit<ContractStep<Stage>, 'anomaly'> & { anomaly: StepAnomaly | null };

/** A step as read back: status and anomaly are whatever the store holds. */
export type StoredRow = Omit<Step, 'status' | 'anomaly'> & {
  status: string;
  anomaly: string | null;
};
