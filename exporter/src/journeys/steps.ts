// A journey step as the exporter stores it: the contract's Step (@acktrail/conventions) with
// the stages of Celery task journeys (exporter/src/celery/) beside the span stages.
import { STAGES, type Step as ContractStep, type Stage as SpanStage } from '@acktrail/conventions';

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
export const STEP_ANOMALIES = [
  'redelivered',
  'retried',
  'dead_lettered',
  'discarded',
  'rejected',
  'unroutable',
  'duplicate_provider_call',
  'task_failed',
] as const;
export type StepAnomaly = (typeof STEP_ANOMALIES)[number];

export type Step = Omit<ContractStep<Stage>, 'anomaly'> & { anomaly: StepAnomaly | null };
