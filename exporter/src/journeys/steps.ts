// A journey step: one span that belongs to an event, reduced to what acktrail keeps.
import type { AttributeValue } from '../receiver/spans.js';

export const STAGES = [
  'outbox.insert',
  'outbox.publish',
  'deliver',
  'result.commit',
  'provider.call',
  'settle',
  'retry.publish',
  'dead_letter',
] as const;
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
export type Stage = (typeof STAGES)[number] | (typeof CELERY_STAGES)[number];

/** Single-step anomalies, stored with the step so that listing them is an index scan. */
export const STEP_ANOMALIES = [
  'redelivered',
  'retried',
  'dead_lettered',
  'unroutable',
  'duplicate_provider_call',
  'task_failed',
] as const;
export type StepAnomaly = (typeof STEP_ANOMALIES)[number];

export interface Step {
  eventId: string;
  /** Start, microseconds since the epoch. */
  timeUs: number;
  durationUs: number;
  stage: Stage;
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  name: string;
  status: 'unset' | 'ok' | 'error';
  statusMessage: string | null;
  aggregateType: string | null;
  aggregateId: string | null;
  anomaly: StepAnomaly | null;
  /** The allow-listed attributes (docs/api.md), under their current semantic-convention names. */
  attrs: Record<string, AttributeValue>;
}
